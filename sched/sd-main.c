// SPDX-License-Identifier: GPL-2.0
/*
 * split-deadline: an mq-deadline-style I/O scheduler whose insert and
 * dispatch paths take different locks.  The policy (sector-sorted batches
 * per direction, FIFO expiry, write starvation, RT/BE/IDLE priorities with
 * aging, async_depth, zone write locking on 6.1) is the running kernel's
 * mq-deadline's (sd-policy.h says where 6.1 and 6.12 differ); the locking
 * is described in split-deadline.h.
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/bio.h>
#include <linux/ioprio.h>
#include <linux/module.h>
#include <linux/sbitmap.h>
#include <linux/slab.h>
#include <trace/events/block.h>
#include <blkfast/kcompat.h>

#include <block/elevator.h>
#include <block/blk-mq.h>
#include <block/blk-mq-debugfs.h>
#include <block/blk-mq-sched.h>
#if !BLKFAST_612
#include <block/blk-mq-tag.h>	/* in blk-mq.h on 6.12 */
#endif

#include "split-deadline.h"
#include "sd-policy.h"

/*
 * Zone write locking.  On 6.1 the elevator serialises writes per zone, as
 * mq-deadline does there.  6.12 plugs zoned writes before they reach the
 * elevator (zone write plugging, 6.10) and its mq-deadline has no zone
 * handling: these say "not zoned" and do nothing there.
 */
static inline bool sd_zoned(struct request_queue *q)
{
	return !BLKFAST_612 && blk_queue_is_zoned(q);
}

#if BLKFAST_612
static inline bool sd_zone_can_dispatch(struct request *rq)
{
	return true;
}

static inline void sd_zone_lock(struct request *rq) { }
static inline void sd_zone_unlock(struct request *rq) { }

static inline bool sd_zone_locked(struct request *rq)
{
	return false;
}
#else
static inline bool sd_zone_can_dispatch(struct request *rq)
{
	return blk_req_can_dispatch_to_zone(rq);
}

static inline void sd_zone_lock(struct request *rq)
{
	blk_req_zone_write_lock(rq);
}

static inline void sd_zone_unlock(struct request *rq)
{
	blk_req_zone_write_unlock(rq);
}

static inline bool sd_zone_locked(struct request *rq)
{
	return rq->rq_flags & RQF_ZONE_WRITE_LOCKED;
}
#endif

static const int read_expire = HZ / 2;
static const int write_expire = 5 * HZ;
static const int prio_aging_expire = 10 * HZ;
static const int writes_starved = 2;
static const int fifo_batch = 16;

static const enum sd_prio ioprio_class_to_prio[] = {
	[IOPRIO_CLASS_NONE]	= SD_BE_PRIO,
	[IOPRIO_CLASS_RT]	= SD_RT_PRIO,
	[IOPRIO_CLASS_BE]	= SD_BE_PRIO,
	[IOPRIO_CLASS_IDLE]	= SD_IDLE_PRIO,
};

static enum sd_prio sd_rq_prio(struct request *rq)
{
	return ioprio_class_to_prio[IOPRIO_PRIO_CLASS(req_get_ioprio(rq))];
}

/*
 * Two flags a request carries in its elevator data (rq->elv.priv), both
 * cleared by sd_prepare_request():
 * - SD_RQ_COUNTED: counted as inserted (sd_insert_locked()); a requeue is
 *   not counted again, and sd_finish_request() skips the uncounted ones,
 *   which bypassed the scheduler.  Set under sd->dispatch_lock, to the
 *   priority level of the insert plus one (sd_rq_set_counted()).
 * - SD_RQ_STAMPED: its FIFO deadline was stamped when it was staged
 *   (sd_insert_requests()), so the drain keeps it.  Set by the inserter
 *   before the request is published on the staging list, cleared under
 *   sd->dispatch_lock when the request is inserted.
 */
enum sd_rq_flag {
	SD_RQ_COUNTED,
	SD_RQ_STAMPED,
};

static bool sd_rq_test(struct request *rq, enum sd_rq_flag flag)
{
	return rq->elv.priv[flag];
}

static void sd_rq_assign(struct request *rq, enum sd_rq_flag flag, bool on)
{
	rq->elv.priv[flag] = on ? (void *)(uintptr_t)1 : NULL;
}

/*
 * The level a request was inserted at is the one its dispatch and
 * completion count against: a bio merged into it later may change its
 * ioprio (6.12's mq-deadline keeps the level in rq->elv.priv[0] so).
 */
static void sd_rq_set_counted(struct request *rq, enum sd_prio prio)
{
	rq->elv.priv[SD_RQ_COUNTED] = (void *)(uintptr_t)(prio + 1);
}

static enum sd_prio sd_rq_inserted_prio(struct request *rq)
{
	return (uintptr_t)rq->elv.priv[SD_RQ_COUNTED] - 1;
}

/* Block-layer private helpers (block/blk.h), restated over public API. */
static bool sd_rq_mergeable(struct request *rq)
{
	if (blk_rq_is_passthrough(rq))
		return false;
	switch (req_op(rq)) {
	case REQ_OP_FLUSH:
	case REQ_OP_WRITE_ZEROES:
	case REQ_OP_ZONE_APPEND:
		return false;
	default:
		break;
	}
	return !(rq->cmd_flags & REQ_NOMERGE_FLAGS) &&
	       !(rq->rq_flags & RQF_NOMERGE_FLAGS);
}

static bool sd_discard_mergeable(struct request *rq)
{
	return req_op(rq) == REQ_OP_DISCARD &&
	       queue_max_discard_segments(rq->q) > 1;
}

/* Take @lock, counting in *@waits (owned by @lock) when it was busy. */
static inline void sd_lock_counted(spinlock_t *lock, u64 *waits)
	__acquires(lock)
{
	if (!spin_trylock(lock)) {
		spin_lock(lock);
		(*waits)++;
	}
}

static struct rb_root *sd_rb_root(struct sd_per_prio *pp, struct request *rq)
{
	return &pp->sort_list[rq_data_dir(rq)];
}

static struct request *sd_earlier_request(struct request *rq)
{
	struct rb_node *node = rb_prev(&rq->rb_node);

	return node ? rb_entry_rq(node) : NULL;
}

static void sd_del_rq_rb(struct sd_per_prio *pp, struct request *rq)
{
	sd_batch_forget(pp, rq);
	elv_rb_del(sd_rb_root(pp, rq), rq);
}

/* One more or one less request on the lists.  sd->dispatch_lock held. */
static void sd_held_add(struct sd_sched *sd, int n)
{
	lockdep_assert_held(&sd->dispatch_lock);
	WRITE_ONCE(sd->nr_held, sd->nr_held + n);
}

/*
 * Take @rq off the sort tree, FIFO and merge hash (an insert merge may
 * pass a request that is on none of them).  sd->dispatch_lock held.
 */
static void sd_remove_request(struct request_queue *q, struct sd_per_prio *pp,
			      struct request *rq)
{
	struct sd_sched *sd = q->elevator->elevator_data;

	if (!list_empty(&rq->queuelist)) {
		list_del_init(&rq->queuelist);
		sd_held_add(sd, -1);
	}
	/* An insert merge may find rq before it reached the tree. */
	if (!RB_EMPTY_NODE(&rq->rb_node))
		sd_del_rq_rb(pp, rq);
	elv_rqhash_del(q, rq);
	if (q->last_merge == rq)
		q->last_merge = NULL;
}

/* Requests the scheduler holds at @prio, staged ones excluded. */
u32 sd_queued(struct sd_sched *sd, enum sd_prio prio)
{
	const struct sd_stats *st = &sd->per_prio[prio].stats;

	lockdep_assert_held(&sd->dispatch_lock);
	return st->inserted - atomic_read(&st->completed);
}

u32 sd_owned_by_driver(struct sd_sched *sd, enum sd_prio prio)
{
	const struct sd_stats *st = &sd->per_prio[prio].stats;

	lockdep_assert_held(&sd->dispatch_lock);
	return st->dispatched + st->merged - atomic_read(&st->completed);
}

/* ---- insertion ---------------------------------------------------------- */

/*
 * Put @rq into the scheduler proper: sort tree, FIFO and merge hash, after
 * trying to merge it into a queued request.  Merged-away requests go on
 * @free, to be freed once the dispatch lock is dropped.  Dispatch lock held.
 * Returns true when @rq was merged away.
 */
static bool sd_insert_locked(struct request_queue *q, struct sd_sched *sd,
			     struct request *rq, bool at_head,
			     struct list_head *free)
{
	const enum sd_dir dir = rq_data_dir(rq);
	const enum sd_prio prio = sd_rq_prio(rq);
	struct sd_per_prio *pp = &sd->per_prio[prio];

	lockdep_assert_held(&sd->dispatch_lock);

	/* A requeued zoned write gives back its zone write lock. */
	sd_zone_unlock(rq);

	/*
	 * Count a request once, however often it is requeued; a requeued
	 * one is back from the driver, so it is dispatched no more.
	 * (6.1's mq-deadline counts every dispatch, and its debugfs
	 * owned_by_driver is left raised by one per requeue.)
	 */
	if (!sd_rq_test(rq, SD_RQ_COUNTED))
		pp->stats.inserted++;
	else
		sd->per_prio[sd_rq_inserted_prio(rq)].stats.dispatched--;
	sd_rq_set_counted(rq, prio);

	if (blk_mq_sched_try_insert_merge(q, rq, free))
		return true;
	/* As mq-deadline: blktrace shows the insert, staged or not. */
	trace_block_rq_insert(rq);

	sd_held_add(sd, 1);
	if (at_head) {
		list_add(&rq->queuelist, sd_head_list(sd, prio));
		rq->fifo_time = jiffies;
		return false;
	}

	elv_rb_add(sd_rb_root(pp, rq), rq);
	if (sd_rq_mergeable(rq)) {
		elv_rqhash_add(q, rq);
		if (!q->last_merge)
			q->last_merge = rq;
	}
	/* Staged requests carry the deadline of their arrival. */
	if (!sd_rq_test(rq, SD_RQ_STAMPED))
		rq->fifo_time = jiffies + sd->fifo_expire[dir];
	sd_rq_assign(rq, SD_RQ_STAMPED, false);
	list_add_tail(&rq->queuelist, &pp->fifo_list[dir]);
	return false;
}

/*
 * Insert what @staged holds, oldest first.  For at-head inserts that is
 * what mq-deadline does too: each goes to the head in turn, so the latest
 * ends up in front, as its at-head inserts (and requeues) do.
 * sd->dispatch_lock held.
 */
static void sd_drain_list(struct request_queue *q, struct sd_sched *sd,
			  struct llist_head *staged, bool at_head,
			  struct list_head *free)
{
	struct llist_node *first;
	struct request *rq, *next;

	lockdep_assert_held(&sd->dispatch_lock);
	/*
	 * A dispatcher that found nothing looks at the staging lists, then
	 * at insert_gen (sd_release_dispatch()): bump it before the lists
	 * empty, so that it sees one or the other.  The xchg in
	 * llist_del_all() orders the two.
	 */
	WRITE_ONCE(sd->insert_gen, sd->insert_gen + 1);
	first = llist_reverse_order(llist_del_all(staged));
	llist_for_each_entry_safe(rq, next, first, ipi_list) {
		/* ipi_list was hash.next: leave the node unhashed again. */
		INIT_HLIST_NODE(&rq->hash);
		sd->cont.drained_merges += sd_insert_locked(q, sd, rq, at_head,
							    free);
		sd->cont.drained++;
	}
}

/* Move the staging lists into the scheduler proper.  sd->dispatch_lock held. */
static void sd_drain_staged(struct request_queue *q, struct sd_sched *sd,
			    struct list_head *free)
{
	if (!llist_empty(&sd->staged_head))
		sd_drain_list(q, sd, &sd->staged_head, true, free);
	if (!llist_empty(&sd->staged))
		sd_drain_list(q, sd, &sd->staged, false, free);
}

/*
 * Push @list onto @staged in one atomic step, its first request the
 * oldest, so that concurrent stagers do not interleave.  Returns how many.
 */
static unsigned int sd_stage(struct llist_head *staged, struct list_head *list)
{
	struct llist_node *first = NULL, *last = NULL;
	struct request *rq, *next;
	unsigned int n = 0;

	list_for_each_entry_safe(rq, next, list, queuelist) {
		list_del_init(&rq->queuelist);
		rq->ipi_list.next = first;
		first = &rq->ipi_list;
		if (!last)
			last = first;
		n++;
	}
	if (first)
		llist_add_batch(first, last, staged);
	return n;
}

static void sd_insert_requests(struct blk_mq_hw_ctx *hctx,
			       struct list_head *list, bool at_head)
{
	struct request_queue *q = hctx->queue;
	struct sd_sched *sd = q->elevator->elevator_data;
	struct request *rq;
	unsigned int n;
	LIST_HEAD(free);

	/*
	 * On PREEMPT_RT the submitter waits for the lock, as mq-deadline's
	 * waits for dd->lock, and so boosts a holder that a higher-priority
	 * task preempted.  Staged, its request would wait for whoever
	 * dispatches next: often kblockd at normal priority (6.1 runs the
	 * queue asynchronously after a single request's insert), which
	 * boosts nothing.
	 */
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		spin_lock(&sd->dispatch_lock);
	else if (!spin_trylock(&sd->dispatch_lock))
		goto stage;
	/*
	 * Staged requests arrived first: insert them first.  Zoned
	 * sequential writes depend on it (a write inserted ahead of its
	 * staged predecessor would be dispatched first to an unlocked zone
	 * and fail as unaligned), and so does the FIFO order of everything
	 * else.
	 */
	sd_drain_staged(q, sd, &free);
	while (!list_empty(list)) {
		rq = list_first_entry(list, struct request, queuelist);
		list_del_init(&rq->queuelist);
		sd_insert_locked(q, sd, rq, at_head, &free);
	}
	WRITE_ONCE(sd->insert_gen, sd->insert_gen + 1);
	spin_unlock(&sd->dispatch_lock);
	/*
	 * Pairs with the barrier in sd_dispatch_request(): the insert, then
	 * the queue run's test of SD_DISPATCHING.
	 */
	smp_mb();
	blk_mq_free_requests(&free);
	return;

stage:
	/*
	 * Another CPU holds the dispatch lock: stage and leave.  The
	 * deadline is stamped now so that waiting here counts against it.
	 */
	if (!at_head) {
		list_for_each_entry(rq, list, queuelist) {
			rq->fifo_time = jiffies +
					sd->fifo_expire[rq_data_dir(rq)];
			sd_rq_assign(rq, SD_RQ_STAMPED, true);
		}
	}
	n = sd_stage(at_head ? &sd->staged_head : &sd->staged, list);
	atomic64_add(n, &sd->cont.dispatch_lock_busy_inserts);
	/* Pairs with the barrier in sd_dispatch_request(); see there. */
	smp_mb();
}

#if BLKFAST_612
/* 6.12's insert method says "at head" in flags (6.5). */
static void sd_insert_requests_flags(struct blk_mq_hw_ctx *hctx,
				     struct list_head *list,
				     blk_insert_t flags)
{
	sd_insert_requests(hctx, list, flags & BLK_MQ_INSERT_AT_HEAD);
}
#endif

static void sd_prepare_request(struct request *rq)
{
	sd_rq_assign(rq, SD_RQ_COUNTED, false);
	sd_rq_assign(rq, SD_RQ_STAMPED, false);
}

/* ---- merging ------------------------------------------------------------ */

static int sd_request_merge(struct request_queue *q, struct request **rq,
			    struct bio *bio)
{
	struct sd_sched *sd = q->elevator->elevator_data;
	const enum sd_prio prio =
		ioprio_class_to_prio[IOPRIO_PRIO_CLASS(bio->bi_ioprio)];
	struct sd_per_prio *pp = &sd->per_prio[prio];
	sector_t sector = bio_end_sector(bio);
	struct request *__rq;

	if (!sd->front_merges)
		return ELEVATOR_NO_MERGE;

	__rq = elv_rb_find(&pp->sort_list[bio_data_dir(bio)], sector);
	if (__rq && elv_bio_merge_ok(__rq, bio)) {
		*rq = __rq;
		if (sd_discard_mergeable(__rq))
			return ELEVATOR_DISCARD_MERGE;
		return ELEVATOR_FRONT_MERGE;
	}
	return ELEVATOR_NO_MERGE;
}

static void sd_request_merged(struct request_queue *q, struct request *req,
			      enum elv_merge type)
{
	struct sd_sched *sd = q->elevator->elevator_data;
	struct sd_per_prio *pp = &sd->per_prio[sd_rq_inserted_prio(req)];

	/* A front merge moved the request's start: re-sort it. */
	if (type == ELEVATOR_FRONT_MERGE) {
		elv_rb_del(sd_rb_root(pp, req), req);
		elv_rb_add(sd_rb_root(pp, req), req);
	}
}

/* @next was merged into @req and is about to be freed.  Dispatch lock held. */
static void sd_merged_requests(struct request_queue *q, struct request *req,
			       struct request *next)
{
	struct sd_sched *sd = q->elevator->elevator_data;
	const enum sd_prio prio = sd_rq_inserted_prio(next);

	lockdep_assert_held(&sd->dispatch_lock);
	sd->per_prio[prio].stats.merged++;

	/* req inherits next's deadline and FIFO place if next is older. */
	if (!list_empty(&req->queuelist) && !list_empty(&next->queuelist) &&
	    time_before((unsigned long)next->fifo_time,
			(unsigned long)req->fifo_time)) {
		list_move(&req->queuelist, &next->queuelist);
		req->fifo_time = next->fifo_time;
	}
	sd_remove_request(q, &sd->per_prio[prio], next);
}

/*
 * Is any @dir request sorted, at any priority?  Read without a lock, as
 * the other emptiness checks here (has_work, the merge shortcut): a racy
 * answer is one a queue run or the locked path makes good.
 */
static bool sd_sorted(struct sd_sched *sd, enum sd_dir dir)
{
	enum sd_prio prio;

	for (prio = 0; prio <= SD_PRIO_MAX; prio++)
		if (!list_empty_careful(&sd->per_prio[prio].fifo_list[dir]))
			return true;
	return false;
}

/*
 * Could a bio merge at all: is any request held or staged?  (Requests on
 * the dispatch lists count too; they are rare, and the locked lookup
 * skips them.)  Racy as sd_sorted().
 */
static bool sd_may_merge(struct sd_sched *sd)
{
	return READ_ONCE(sd->nr_held) || !llist_empty(&sd->staged);
}

static bool sd_bio_merge(struct request_queue *q, struct bio *bio,
			 unsigned int nr_segs)
{
	struct sd_sched *sd = q->elevator->elevator_data;
	struct request *free = NULL;
	LIST_HEAD(drained);
	bool merged;

	/*
	 * A fast device keeps the scheduler empty: then there is nothing to
	 * merge with, and the submitter touches neither lock.  A request
	 * queued just after the check is a chance that the locked lookup
	 * misses as well when it is queued just after the lookup; on a slow
	 * device, where merges matter, the lists are not empty.
	 */
	if (!sd_may_merge(sd))
		return false;

	/* On PREEMPT_RT the submitter waits: see sd_insert_requests(). */
	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		spin_lock(&sd->dispatch_lock);
	} else if (!spin_trylock(&sd->dispatch_lock)) {
		/*
		 * A dispatcher is busy: no merge lookup.  The request this
		 * bio becomes may still merge when it is inserted or drained.
		 */
		atomic64_inc(&sd->cont.dispatch_lock_busy_bio_merges);
		return false;
	}
	/* What waits on the staging lists is a merge candidate too. */
	sd_drain_staged(q, sd, &drained);
	merged = blk_mq_sched_try_merge(q, bio, nr_segs, &free);
	spin_unlock(&sd->dispatch_lock);
	blk_mq_free_requests(&drained);
	if (free)
		blk_mq_free_request(free);
	return merged;
}

/* ---- dispatch ----------------------------------------------------------- */

static bool sd_check_fifo(struct sd_per_prio *pp, enum sd_dir dir)
{
	struct request *rq = rq_entry_fifo(pp->fifo_list[dir].next);

	return time_after_eq(jiffies, (unsigned long)rq->fifo_time);
}

static bool sd_is_seq_write(struct request *rq)
{
	struct request *prev = sd_earlier_request(rq);

	return prev && blk_rq_pos(prev) + blk_rq_sectors(prev) ==
		       blk_rq_pos(rq);
}

/* Skip the run of sequential writes starting at @rq, across zones. */
static struct request *sd_skip_seq_writes(struct request *rq)
{
	sector_t pos = blk_rq_pos(rq);
	sector_t skipped = 0;

	while (rq && blk_rq_pos(rq) == pos + skipped) {
		skipped += blk_rq_sectors(rq);
		rq = sd_rb_next(rq);
	}
	return rq;
}

/*
 * The oldest request of @dir that may be dispatched now.  On a zoned
 * device a write must target an unlocked zone, and on rotational media it
 * must not break into the middle of a sequential stream.
 */
static struct request *sd_fifo_request(struct sd_sched *sd,
				       struct sd_per_prio *pp, enum sd_dir dir)
{
	struct request *rq;
	unsigned long flags;

	if (list_empty(&pp->fifo_list[dir]))
		return NULL;
	rq = rq_entry_fifo(pp->fifo_list[dir].next);
	if (dir == SD_READ || !sd_zoned(rq->q))
		return rq;

	spin_lock_irqsave(&sd->zone_lock, flags);
	list_for_each_entry(rq, &pp->fifo_list[SD_WRITE], queuelist) {
		if (sd_zone_can_dispatch(rq) &&
		    (blk_queue_nonrot(rq->q) || !sd_is_seq_write(rq)))
			goto out;
	}
	rq = NULL;
out:
	spin_unlock_irqrestore(&sd->zone_lock, flags);
	return rq;
}

/* The next request of @dir in sector order that may be dispatched now. */
static struct request *sd_next_request(struct sd_sched *sd,
				       struct sd_per_prio *pp, enum sd_dir dir)
{
	struct request *rq = sd_batch_next(pp, dir);
	unsigned long flags;

	if (!rq || dir == SD_READ || !sd_zoned(rq->q))
		return rq;

	spin_lock_irqsave(&sd->zone_lock, flags);
	while (rq && !sd_zone_can_dispatch(rq)) {
		if (blk_queue_nonrot(rq->q))
			rq = sd_rb_next(rq);
		else
			rq = sd_skip_seq_writes(rq);
	}
	spin_unlock_irqrestore(&sd->zone_lock, flags);
	return rq;
}

/* Whether @rq arrived after @latest_start (jiffies). */
static bool sd_started_after(struct sd_sched *sd, struct request *rq,
			     unsigned long latest_start)
{
	unsigned long start = (unsigned long)rq->fifo_time -
			      sd->fifo_expire[rq_data_dir(rq)];

	return time_after(start, latest_start);
}

/* @rq leaves the scheduler for the driver; @pp's lists held it. */
static struct request *sd_start_request(struct sd_per_prio *pp,
					struct request *rq)
{
	pp->stats.dispatched++;
	sd_zone_lock(rq);
	rq->rq_flags |= RQF_STARTED;
	return rq;
}

/*
 * Dispatch the newest request on the at-head list @head if it arrived no
 * later than @latest_start.  sd->dispatch_lock held.
 */
static struct request *sd_dispatch_head(struct sd_sched *sd,
					struct list_head *head,
					unsigned long latest_start)
{
	struct request *rq;
	struct sd_per_prio *pp;

	rq = list_first_entry_or_null(head, struct request, queuelist);
	if (!rq || sd_started_after(sd, rq, latest_start))
		return NULL;
	list_del_init(&rq->queuelist);
	sd_held_add(sd, -1);
	pp = &sd->per_prio[sd_rq_inserted_prio(rq)];
	sd_batch_started(pp, rq, false);
	return sd_start_request(pp, rq);
}

/*
 * Pick the request to dispatch from one priority level: its at-head
 * requests where each level has its own (sd-policy.h), else continue the
 * current batch, else choose a direction (reads first, unless writes have
 * been starved writes_starved times), then the expired FIFO head or the
 * next request in sector order.  Only requests that arrived no later than
 * @latest_start qualify.  sd->dispatch_lock held.
 */
static struct request *sd_dispatch_prio(struct sd_sched *sd,
					enum sd_prio prio,
					unsigned long latest_start)
{
	struct sd_per_prio *pp = &sd->per_prio[prio];
	struct list_head *head = sd_head_list(sd, prio);
	struct request *rq, *next_rq;
	enum sd_dir dir;

	lockdep_assert_held(&sd->dispatch_lock);

	if (SD_HEAD_LISTS > 1 && !list_empty(head))
		return sd_dispatch_head(sd, head, latest_start);

	rq = sd_next_request(sd, pp, sd->last_dir);
	if (rq && sd->batching < sd->fifo_batch)
		goto dispatch;

	if (!list_empty(&pp->fifo_list[SD_READ])) {
		if (sd_fifo_request(sd, pp, SD_WRITE) &&
		    sd->starved++ >= sd->writes_starved)
			goto writes;
		dir = SD_READ;
		goto find;
	}
	if (!list_empty(&pp->fifo_list[SD_WRITE])) {
writes:
		sd->starved = 0;
		dir = SD_WRITE;
		goto find;
	}
	return NULL;

find:
	next_rq = sd_next_request(sd, pp, dir);
	if (sd_check_fifo(pp, dir) || !next_rq)
		rq = sd_fifo_request(sd, pp, dir);
	else
		rq = next_rq;
	/* Zoned, writes only, every target zone locked. */
	if (!rq)
		return NULL;
	sd->last_dir = dir;
	sd->batching = 0;

dispatch:
	if (sd_started_after(sd, rq, latest_start))
		return NULL;
	sd->batching++;
	sd_batch_started(pp, rq, true);
	sd_remove_request(rq->q, pp, rq);
	return sd_start_request(pp, rq);
}

/* Lower-priority requests older than prio_aging_expire go first. */
static struct request *sd_dispatch_aged(struct sd_sched *sd, unsigned long now)
{
	struct request *rq;
	enum sd_prio prio;

	if (!!sd_queued(sd, SD_RT_PRIO) + !!sd_queued(sd, SD_BE_PRIO) +
	    !!sd_queued(sd, SD_IDLE_PRIO) < 2)
		return NULL;

	for (prio = SD_BE_PRIO; prio <= SD_PRIO_MAX; prio++) {
		rq = sd_dispatch_prio(sd, prio, now - sd->prio_aging_expire);
		if (rq)
			return rq;
	}
	return NULL;
}

/*
 * The request to dispatch now, by mq-deadline's policy: at-head requests
 * first where they share one list, then aged lower priorities, then the
 * highest priority that has requests (lower ones wait while a higher one
 * has any, in flight included).  sd->dispatch_lock held.
 */
static struct request *sd_pick_request(struct sd_sched *sd, unsigned long now)
{
	struct request *rq;
	enum sd_prio prio;

	if (SD_HEAD_LISTS == 1) {
		rq = sd_dispatch_head(sd, sd_head_list(sd, 0), now);
		if (rq)
			return rq;
	}
	rq = sd_dispatch_aged(sd, now);
	if (rq)
		return rq;
	for (prio = 0; prio <= SD_PRIO_MAX; prio++) {
		rq = sd_dispatch_prio(sd, prio, now);
		if (rq || sd_queued(sd, prio))
			break;
	}
	return rq;
}

/*
 * What an idle pass must see move to know it missed something: inserts and
 * drains (insert_gen, under the dispatch lock) and zone write unlocks.  Both
 * only grow, so their sum moves whenever either does.
 */
static unsigned long sd_wake_gen(struct sd_sched *sd)
{
	return READ_ONCE(sd->insert_gen) +
	       (unsigned int)atomic_read(&sd->zone_unlocks);
}

/**
 * sd_release_dispatch - drop SD_DISPATCHING after a dispatch pass
 * @sd: the scheduler
 * @gen: sd_wake_gen() as the pass read it, under the dispatch lock
 * @idle: the pass found nothing to dispatch
 *
 * Return: true when an idle pass must look again: a request was inserted
 * or staged, or a zone write lock released, after it looked, and the
 * queue run that followed may have found the flag still set (see
 * sd_dispatch_request()).
 *
 * Neither inlined nor cloned, so that the window it closes, from the
 * dispatch lock's release to here, has a name: tests/vm/sd-dispatch-window.sh
 * widens it with a kprobe on this function's entry.
 */
static noinline __noclone bool sd_release_dispatch(struct sd_sched *sd,
						   unsigned long gen, bool idle)
{
	if (!IS_ENABLED(CONFIG_PREEMPT_RT)) {
		/* A test build checks sd_enter_dispatch()'s promise. */
		if (SD_CHECK_GATE)
			WARN_ON_ONCE(preemptible());
		clear_bit_unlock(SD_DISPATCHING, &sd->flags);
	}
	/*
	 * Pairs with the barriers in sd_insert_requests() and
	 * sd_finish_request(), whose queue runs found the flag set.  After
	 * a busy pass as well: the has_work call that follows it, in this
	 * CPU's run, then sees what they added.
	 */
	smp_mb__after_atomic();
	if (!IS_ENABLED(CONFIG_PREEMPT_RT))
		preempt_enable();
	if (!idle)
		return false;
	if (llist_empty(&sd->staged) && llist_empty(&sd->staged_head)) {
		/* The lists, then insert_gen: see sd_drain_list(). */
		smp_rmb();
		if (sd_wake_gen(sd) == gen)
			return false;
	}
	atomic64_inc(&sd->cont.dispatch_rechecks);
	return true;
}

/*
 * Only one CPU dispatches at a time; the others return NULL at once.  Why
 * no request is stranded, or kept waiting: a submitter stages (or
 * inserts) its request and then runs the queue.  If that run finds
 * SD_DISPATCHING set, the dispatcher has not yet dropped the flag, and
 * after dropping it, if it found nothing, it checks whether a request
 * was staged or inserted since it looked (the staging lists, and
 * insert_gen, which every direct insert and every drain bumps, for a
 * request staged and then drained by someone else): the barriers here
 * and in sd_insert_requests() order "stage or insert, then test flag"
 * against "clear flag, then test for new requests", so at least one side
 * sees the other, and it dispatches again.  Left to blk-mq, such a
 * request would wait for the re-run it schedules BLK_MQ_BUDGET_DELAY
 * (3 ms) after a run that dispatched nothing, which mq-deadline, taking
 * its lock on every CPU, never needs.  (A run that dispatched a request
 * is followed by another call anyway, and one that ran out of tags is
 * restarted by the next completion.)  A zone write unlock counts as an
 * insert here: it may free a write the pass held back.
 */
/*
 * Take the dispatching gate, or say another CPU holds it.  On PREEMPT_RT
 * there is no gate (see split-deadline.h): a holder preempted there, by
 * a SCHED_FIFO task on its CPU say, would stall every dispatcher of any
 * priority for as long as that task runs, and only a lock boosts it.
 * Elsewhere the gate is held with preemption off, from here to
 * sd_release_dispatch(): Debian's kernel is PREEMPT_DYNAMIC, and booted
 * with preempt=full it would preempt a holder between the dispatch
 * lock's release and the gate's (at the unlock itself, say) and turn
 * every other CPU's dispatch away until that task ran again.  (Keyed on
 * PREEMPT_RT, not on CONFIG_PREEMPTION, which PREEMPT_DYNAMIC selects
 * whatever the boot chooses.)
 */
static bool sd_enter_dispatch(struct sd_sched *sd)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		return true;
	preempt_disable();
	if (!test_bit(SD_DISPATCHING, &sd->flags) &&
	    !test_and_set_bit_lock(SD_DISPATCHING, &sd->flags))
		return true;
	preempt_enable();
	return false;
}

static struct request *sd_dispatch_request(struct blk_mq_hw_ctx *hctx)
{
	struct request_queue *q = hctx->queue;
	struct sd_sched *sd = q->elevator->elevator_data;
	struct request *rq = NULL;
	unsigned long now, gen;
	LIST_HEAD(free);
	bool missed;

again:
	if (!sd_enter_dispatch(sd)) {
		atomic64_inc(&sd->cont.dispatching_skips);
		return NULL;
	}

	sd_lock_counted(&sd->dispatch_lock, &sd->cont.dispatch_lock_waits);
	sd_drain_staged(q, sd, &free);
	/*
	 * After the drain, under the lock: every request now queued arrived
	 * no later than this, so none is passed over as "started after"
	 * the pass.  Read before the lock (as mq-deadline does), a tick
	 * between the read and a request inserted by a CPU whose queue run
	 * then found the flag set left that request for blk-mq's 3 ms rerun.
	 */
	now = jiffies;
	gen = sd_wake_gen(sd);
	/* Then the zone write locks: see sd_finish_request(). */
	smp_rmb();
	/* Nothing held (after the drain): nothing any policy could pick. */
	if (sd->nr_held)
		rq = sd_pick_request(sd, now);
	spin_unlock(&sd->dispatch_lock);
	missed = sd_release_dispatch(sd, gen, !rq);
	blk_mq_free_requests(&free);
	if (missed)
		goto again;
	return rq;
}

/* True while the scheduler holds any request, staged ones included. */
static bool sd_has_work(struct blk_mq_hw_ctx *hctx)
{
	struct sd_sched *sd = hctx->queue->elevator->elevator_data;

	return sd_may_merge(sd) || !llist_empty(&sd->staged_head);
}

static bool sd_has_write_work(struct sd_sched *sd)
{
	return sd_sorted(sd, SD_WRITE) || !llist_empty(&sd->staged);
}

/*
 * Runs in any context for every freed request (see split-deadline.h).
 * Releases a zoned write's zone lock and, if writes wait, makes sure the
 * queue is run again.  Only a request that held a zone lock: a read's
 * completion frees no zone, and counting it would send idle passes back
 * over the write FIFO once per completion (sd_release_dispatch()).
 */
static void sd_finish_request(struct request *rq)
{
	struct request_queue *q = rq->q;
	struct sd_sched *sd = q->elevator->elevator_data;
	unsigned long flags;

	/* Requests that bypassed the scheduler were never counted. */
	if (!sd_rq_test(rq, SD_RQ_COUNTED))
		return;
	atomic_inc(&sd->per_prio[sd_rq_inserted_prio(rq)].stats.completed);

	if (sd_zoned(q) && sd_zone_locked(rq)) {
		spin_lock_irqsave(&sd->zone_lock, flags);
		sd_zone_unlock(rq);
		spin_unlock_irqrestore(&sd->zone_lock, flags);
		/*
		 * The unlock, then the count: a pass that found the zone
		 * locked read the count before it looked (the smp_rmb() in
		 * sd_dispatch_request()), so it sees the count move ...
		 */
		smp_mb__before_atomic();
		atomic_inc(&sd->zone_unlocks);
		/*
		 * ... unless the restart run, which tests SD_DISPATCHING after
		 * this, sees it clear and dispatches itself: pairs with
		 * sd_release_dispatch().
		 */
		smp_mb__after_atomic();
		if (sd_has_write_work(sd))
			blk_mq_sched_mark_restart_hctx(rq->mq_hctx);
	}
}

/* ---- tag depth ---------------------------------------------------------- */

/*
 * A request count as the sched tags' shallow depth: scaled to a word of
 * the bitmap where sbitmap applies it per word (6.1's mq-deadline does
 * so); whole where it counts the whole bitmap (6.12.43 on, where
 * mq-deadline passes async_depth as it is: scaled, it would throttle
 * async requests to a fraction of it).
 */
static int sd_shallow_depth(struct blk_mq_hw_ctx *hctx, unsigned int qdepth)
{
	struct sbitmap_queue *bt = &hctx->sched_tags->bitmap_tags;
	const unsigned int nrr = hctx->queue->nr_requests;

	if (BF_SHALLOW_DEPTH_WHOLE)
		return qdepth;
	return ((qdepth << bt->sb.shift) + nrr - 1) / nrr;
}

/* Async requests and writes may not take the tags sync reads need. */
static void sd_limit_depth(blk_opf_t opf, struct blk_mq_alloc_data *data)
{
	struct sd_sched *sd = data->q->elevator->elevator_data;

	if (op_is_sync(opf) && !op_is_write(opf))
		return;
	data->shallow_depth = sd_shallow_depth(data->hctx, sd->async_depth);
}

static void sd_depth_updated(struct blk_mq_hw_ctx *hctx)
{
	struct request_queue *q = hctx->queue;
	struct sd_sched *sd = q->elevator->elevator_data;

	sd->async_depth = q->nr_requests;
	sbitmap_queue_min_shallow_depth(&hctx->sched_tags->bitmap_tags, 1);
}

static int sd_init_hctx(struct blk_mq_hw_ctx *hctx, unsigned int hctx_idx)
{
	sd_depth_updated(hctx);
	return 0;
}

/* ---- setup and teardown ------------------------------------------------- */

static int sd_init_sched(struct request_queue *q, struct elevator_type *e)
{
	struct elevator_queue *eq;
	struct sd_sched *sd;
	enum sd_prio prio;
	int i;

	eq = elevator_alloc(q, e);
	if (!eq)
		return -ENOMEM;

	sd = kzalloc_node(sizeof(*sd), GFP_KERNEL, q->node);
	if (!sd) {
		kobject_put(&eq->kobj);
		return -ENOMEM;
	}
	eq->elevator_data = sd;

	for (prio = 0; prio <= SD_PRIO_MAX; prio++) {
		struct sd_per_prio *pp = &sd->per_prio[prio];

		INIT_LIST_HEAD(&pp->fifo_list[SD_READ]);
		INIT_LIST_HEAD(&pp->fifo_list[SD_WRITE]);
		pp->sort_list[SD_READ] = RB_ROOT;
		pp->sort_list[SD_WRITE] = RB_ROOT;
	}
	for (i = 0; i < SD_HEAD_LISTS; i++)
		INIT_LIST_HEAD(&sd->dispatch[i]);
	init_llist_head(&sd->staged);
	init_llist_head(&sd->staged_head);
	sd->fifo_expire[SD_READ] = read_expire;
	sd->fifo_expire[SD_WRITE] = write_expire;
	sd->writes_starved = writes_starved;
	sd->front_merges = 1;
	sd->last_dir = SD_WRITE;
	sd->fifo_batch = fifo_batch;
	sd->prio_aging_expire = prio_aging_expire;
	spin_lock_init(&sd->dispatch_lock);
	spin_lock_init(&sd->zone_lock);

	/* One set of queues for the whole device, as mq-deadline. */
	blk_queue_flag_set(QUEUE_FLAG_SQ_SCHED, q);
	q->elevator = eq;
	return 0;
}

/* Every request the scheduler counted in must have been counted out. */
static void sd_exit_sched(struct elevator_queue *e)
{
	struct sd_sched *sd = e->elevator_data;
	enum sd_prio prio;
	int i;

	for (i = 0; i < SD_HEAD_LISTS; i++)
		WARN_ON_ONCE(!list_empty(&sd->dispatch[i]));
	WARN_ON_ONCE(!llist_empty(&sd->staged) ||
		     !llist_empty(&sd->staged_head) || sd->nr_held);
	for (prio = 0; prio <= SD_PRIO_MAX; prio++) {
		struct sd_per_prio *pp = &sd->per_prio[prio];
		const struct sd_stats *st = &pp->stats;
		u32 queued;

		WARN_ON_ONCE(!list_empty(&pp->fifo_list[SD_READ]));
		WARN_ON_ONCE(!list_empty(&pp->fifo_list[SD_WRITE]));

		spin_lock(&sd->dispatch_lock);
		queued = sd_queued(sd, prio);
		spin_unlock(&sd->dispatch_lock);
		WARN_ONCE(queued,
			  "split-deadline: prio %d unbalanced: inserted %u merged %u dispatched %u completed %u\n",
			  prio, st->inserted, st->merged, st->dispatched,
			  atomic_read(&st->completed));
	}
	kfree(sd);
}

static struct elevator_type split_deadline = {
	.ops = {
		.depth_updated		= sd_depth_updated,
		.limit_depth		= sd_limit_depth,
#if BLKFAST_612
		.insert_requests	= sd_insert_requests_flags,
#else
		.insert_requests	= sd_insert_requests,
#endif
		.dispatch_request	= sd_dispatch_request,
		.prepare_request	= sd_prepare_request,
		.finish_request		= sd_finish_request,
		.next_request		= elv_rb_latter_request,
		.former_request		= elv_rb_former_request,
		.bio_merge		= sd_bio_merge,
		.request_merge		= sd_request_merge,
		.requests_merged	= sd_merged_requests,
		.request_merged		= sd_request_merged,
		.has_work		= sd_has_work,
		.init_sched		= sd_init_sched,
		.exit_sched		= sd_exit_sched,
		.init_hctx		= sd_init_hctx,
	},
#ifdef CONFIG_BLK_DEBUG_FS
	.queue_debugfs_attrs	= sd_queue_debugfs_attrs,
#endif
	.elevator_attrs		= sd_attrs,
	.elevator_name		= "split-deadline",
#if !BLKFAST_612
	.elevator_features	= ELEVATOR_F_ZBD_SEQ_WRITE,
#endif
	.elevator_owner		= THIS_MODULE,
};
MODULE_ALIAS("split-deadline-iosched");

static int __init sd_init(void)
{
	return elv_register(&split_deadline);
}

static void __exit sd_exit(void)
{
	elv_unregister(&split_deadline);
}

module_init(sd_init);
module_exit(sd_exit);

MODULE_AUTHOR("blkfast");
MODULE_LICENSE("GPL");
MODULE_VERSION(BLKFAST_VERSION);
MODULE_DESCRIPTION("split-deadline: MQ deadline I/O scheduler whose inserts never wait for dispatch");
