/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where mq-deadline's policy differs between the kernel lines
 * split-deadline is built for.  split-deadline follows the mq-deadline of
 * the kernel it runs on, so that a side-by-side test compares like with
 * like in one boot.
 *
 * Batch continuation.  6.1 remembers, at each dispatch, the request after
 * it in sector order (next_rq), and the batch goes on with that request:
 * one queued later between the two is passed over until the sort order
 * starts again.  6.12 remembers the start sector of the last dispatch
 * (latest_pos) and goes on with the first request queued at or after it,
 * whenever that request arrived; it finds more to batch.
 *
 * At-head inserts (SD_HEAD_LISTS).  6.1, and 6.12 before .63, keep one
 * list per priority level, served first in that level's turn, after
 * aging and subject to it; 6.12.63 on keeps one list, served before
 * anything else.  Either way each list is LIFO.
 *
 * All of these run under sd->dispatch_lock.
 */
#ifndef _SD_POLICY_H
#define _SD_POLICY_H

#include "split-deadline.h"

static inline struct request *sd_rb_next(struct request *rq)
{
	struct rb_node *node = rb_next(&rq->rb_node);

	return node ? rb_entry_rq(node) : NULL;
}

#if BLKFAST_612
/* The first request of @dir at or after the last dispatched start. */
static inline struct request *sd_batch_next(struct sd_per_prio *pp,
					    enum sd_dir dir)
{
	struct rb_node *node = pp->sort_list[dir].rb_node;
	struct request *rq, *found = NULL;

	while (node) {
		rq = rb_entry_rq(node);
		if (blk_rq_pos(rq) >= pp->latest_pos[dir]) {
			found = rq;
			node = node->rb_left;
		} else {
			node = node->rb_right;
		}
	}
	return found;
}

/* @rq, taken from @pp's lists, is being dispatched: the batch is there. */
static inline void sd_batch_started(struct sd_per_prio *pp,
				    struct request *rq, bool sorted)
{
	pp->latest_pos[rq_data_dir(rq)] = blk_rq_pos(rq);
}

/* @rq leaves @pp's sort tree: nothing remembers it. */
static inline void sd_batch_forget(struct sd_per_prio *pp,
				   struct request *rq)
{
}
#else
static inline struct request *sd_batch_next(struct sd_per_prio *pp,
					    enum sd_dir dir)
{
	return pp->next_rq[dir];
}

/* Before @rq leaves the sort tree.  An at-head request leaves no mark. */
static inline void sd_batch_started(struct sd_per_prio *pp,
				    struct request *rq, bool sorted)
{
	if (sorted)
		pp->next_rq[rq_data_dir(rq)] = sd_rb_next(rq);
}

/* @rq leaves the sort tree (dispatched, or merged away). */
static inline void sd_batch_forget(struct sd_per_prio *pp,
				   struct request *rq)
{
	const enum sd_dir dir = rq_data_dir(rq);

	if (pp->next_rq[dir] == rq)
		pp->next_rq[dir] = sd_rb_next(rq);
}
#endif

/* The at-head list of requests inserted at level @prio. */
static inline struct list_head *sd_head_list(struct sd_sched *sd,
					     enum sd_prio prio)
{
	return &sd->dispatch[SD_HEAD_LISTS == 1 ? 0 : prio];
}

#endif /* _SD_POLICY_H */
