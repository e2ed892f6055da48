// SPDX-License-Identifier: GPL-2.0
/*
 * split-deadline: an mq-deadline-style I/O scheduler whose insert and
 * dispatch paths take different locks.  The policy (sector-sorted batches
 * per direction, FIFO expiry, write starvation, RT/BE/IDLE priorities with
 * aging, async_depth, zone write locking) is mq-deadline's in Linux 6.1; the
 * locking is described in split-deadline.h.
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/bio.h>
#include <linux/ioprio.h>
#include <linux/module.h>
#include <linux/sbitmap.h>
#include <linux/slab.h>
#include <trace/events/block.h>

#include <block/elevator.h>
#include <block/blk-mq.h>
#include <block/blk-mq-debugfs.h>
#include <block/blk-mq-sched.h>
#include <block/blk-mq-tag.h>

#include "split-deadline.h"

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

static struct request *sd_latter_request(struct request *rq)
{
	struct rb_node *node = rb_next(&rq->rb_node);

	return node ? rb_entry_rq(node) : NULL;
}

static struct request *sd_earlier_request(struct request *rq)
{
	struct rb_node *node = rb_prev(&rq->rb_node);

	return node ? rb_entry_rq(node) : NULL;
}

static void sd_del_rq_rb(struct sd_per_prio *pp, struct request *rq)
{
	const enum sd_dir dir = rq_data_dir(rq);

	if (pp->next_rq[dir] == rq)
		pp->next_rq[dir] = sd_latter_request(rq);
	elv_rb_del(sd_rb_root(pp, rq), rq);
}

/* Take @rq off the sort tree, FIFO and merge hash.  sd->lock held. */
static void sd_remove_request(struct request_queue *q, struct sd_per_prio *pp,
			      struct request *rq)
{
	list_del_init(&rq->queuelist);
	/* An insert merge may find rq before it reached the tree. */
	if (!RB_EMPTY_NODE(&rq->rb_node))
		sd_del_rq_rb(pp, rq);
	elv_rqhash_del(q, rq);
	if (q->last_merge == rq)
		q->last_merge = NULL;
}

/* Requests the scheduler holds at @prio, staged ones excluded. */
u32 sdl_queued(struct sdl_data *sd, enum sd_prio prio)
{
	const struct sd_stats *st = &sd->per_prio[prio].stats;

	lockdep_assert_held(&sd->lock);
	return st->inserted - atomic_read(&st->completed);
}

u32 sdl_owned_by_driver(struct sdl_data *sd, enum sd_prio prio)
{
	const struct sd_stats *st = &sd->per_prio[prio].stats;

	lockdep_assert_held(&sd->lock);
	return st->dispatched + st->merged - atomic_read(&st->completed);
}

/* ---- insertion ---------------------------------------------------------- */

/*
 * Put @rq into the scheduler proper: sort tree, FIFO and merge hash, after
 * trying to merge it into a queued request.  Merged-away requests go on
 * @free, to be freed once the dispatch lock is dropped.  sd->lock held.
 * Returns true when @rq was merged away.
 */
static bool sd_insert_locked(struct request_queue *q, struct sdl_data *sd,
			     struct request *rq, bool at_head,
			     struct list_head *free)
{
	const enum sd_dir dir = rq_data_dir(rq);
	struct sd_per_prio *pp = &sd->per_prio[sd_rq_prio(rq)];

	lockdep_assert_held(&sd->lock);

	/* A requeued zoned write gives back its zone write lock. */
	blk_req_zone_write_unlock(rq);

	/*
	 * Count a request once, however often it is requeued; a requeued
	 * one is back from the driver, so it is dispatched no more.
	 * (6.1's mq-deadline counts every dispatch, and its debugfs
	 * owned_by_driver is left raised by one per requeue.)
	 */
	if (!rq->elv.priv[0]) {
		pp->stats.inserted++;
		rq->elv.priv[0] = (void *)(uintptr_t)1;
	} else {
		pp->stats.dispatched--;
	}

	if (blk_mq_sched_try_insert_merge(q, rq, free))
		return true;
	/* As mq-deadline: blktrace shows the insert, staged or not. */
	trace_block_rq_insert(rq);

	if (at_head) {
		list_add(&rq->queuelist, &pp->dispatch);
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
	if (!rq->elv.priv[1])
		rq->fifo_time = jiffies + sd->fifo_expire[dir];
	rq->elv.priv[1] = NULL;
	list_add_tail(&rq->queuelist, &pp->fifo_list[dir]);
	return false;
}

/* Move the staging lists into the scheduler proper.  sd->lock held. */
static void sd_drain_staged(struct request_queue *q, struct sdl_data *sd,
			    struct list_head *free)
{
	LIST_HEAD(head);
	LIST_HEAD(tail);
	struct request *rq, *next;

	lockdep_assert_held(&sd->lock);
	if (list_empty_careful(&sd->staged) &&
	    list_empty_careful(&sd->staged_head))
		return;

	sd_lock_counted(&sd->insert_lock, &sd->cont.insert_lock_waits);
	list_splice_init(&sd->staged_head, &head);
	list_splice_init(&sd->staged, &tail);
	spin_unlock(&sd->insert_lock);

	/*
	 * staged_head holds the latest at-head insert first (list_move to
	 * its head).  Inserting each at the head again reverses the order
	 * once more, so take them oldest first: the latest then ends up in
	 * front, as mq-deadline's at-head inserts (and requeues) do.
	 */
	list_for_each_entry_safe_reverse(rq, next, &head, queuelist) {
		list_del_init(&rq->queuelist);
		sd->cont.drained_merges += sd_insert_locked(q, sd, rq, true,
							    free);
		sd->cont.drained++;
	}
	list_for_each_entry_safe(rq, next, &tail, queuelist) {
		list_del_init(&rq->queuelist);
		sd->cont.drained_merges += sd_insert_locked(q, sd, rq, false,
							    free);
		sd->cont.drained++;
	}
}

static void sd_insert_requests(struct blk_mq_hw_ctx *hctx,
			       struct list_head *list, bool at_head)
{
	struct request_queue *q = hctx->queue;
	struct sdl_data *sd = q->elevator->elevator_data;
	struct request *rq;
	unsigned int n = 0;
	LIST_HEAD(free);

	if (spin_trylock(&sd->lock)) {
		/*
		 * Staged requests arrived first: insert them first.  Zoned
		 * sequential writes depend on it (a write inserted ahead of
		 * its staged predecessor would be dispatched first to an
		 * unlocked zone and fail as unaligned), and so does the FIFO
		 * order of everything else.
		 */
		sd_drain_staged(q, sd, &free);
		while (!list_empty(list)) {
			rq = list_first_entry(list, struct request, queuelist);
			list_del_init(&rq->queuelist);
			sd_insert_locked(q, sd, rq, at_head, &free);
		}
		WRITE_ONCE(sd->insert_gen, sd->insert_gen + 1);
		spin_unlock(&sd->lock);
		/*
		 * Pairs with the barrier in sd_dispatch_request(): the insert,
		 * then the queue run's test of SD_DISPATCHING.
		 */
		smp_mb();
		blk_mq_free_requests(&free);
		return;
	}

	/*
	 * A dispatcher holds the dispatch lock: stage and leave.  The
	 * deadline is stamped now so that waiting here counts against it.
	 */
	list_for_each_entry(rq, list, queuelist) {
		n++;
		if (!at_head) {
			rq->fifo_time = jiffies +
					sd->fifo_expire[rq_data_dir(rq)];
			rq->elv.priv[1] = (void *)(uintptr_t)1;
		}
	}
	sd_lock_counted(&sd->insert_lock, &sd->cont.insert_lock_waits);
	sd->cont.staged_inserts += n;
	if (at_head) {
		while (!list_empty(list)) {
			rq = list_first_entry(list, struct request, queuelist);
			list_move(&rq->queuelist, &sd->staged_head);
		}
	} else {
		list_splice_tail_init(list, &sd->staged);
	}
	spin_unlock(&sd->insert_lock);
	/* Pairs with the barrier in sd_dispatch_request(); see there. */
	smp_mb();
}

static void sd_prepare_request(struct request *rq)
{
	rq->elv.priv[0] = NULL;
	rq->elv.priv[1] = NULL;
}

/* ---- merging ------------------------------------------------------------ */

static int sd_request_merge(struct request_queue *q, struct request **rq,
			    struct bio *bio)
{
	struct sdl_data *sd = q->elevator->elevator_data;
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
	struct sdl_data *sd = q->elevator->elevator_data;
	struct sd_per_prio *pp = &sd->per_prio[sd_rq_prio(req)];

	/* A front merge moved the request's start: re-sort it. */
	if (type == ELEVATOR_FRONT_MERGE) {
		elv_rb_del(sd_rb_root(pp, req), req);
		elv_rb_add(sd_rb_root(pp, req), req);
	}
}

/* @next was merged into @req and is about to be freed.  sd->lock held. */
static void sd_merged_requests(struct request_queue *q, struct request *req,
			       struct request *next)
{
	struct sdl_data *sd = q->elevator->elevator_data;
	const enum sd_prio prio = sd_rq_prio(next);

	lockdep_assert_held(&sd->lock);
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
static bool sd_sorted(struct sdl_data *sd, enum sd_dir dir)
{
	enum sd_prio prio;

	for (prio = 0; prio <= SD_PRIO_MAX; prio++)
		if (!list_empty_careful(&sd->per_prio[prio].fifo_list[dir]))
			return true;
	return false;
}

/* Could a bio merge at all: is any request sorted or staged? */
static bool sd_may_merge(struct sdl_data *sd)
{
	return !list_empty_careful(&sd->staged) || sd_sorted(sd, SD_READ) ||
	       sd_sorted(sd, SD_WRITE);
}

static bool sd_bio_merge(struct request_queue *q, struct bio *bio,
			 unsigned int nr_segs)
{
	struct sdl_data *sd = q->elevator->elevator_data;
	struct request *free = NULL;
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

	if (spin_trylock(&sd->lock)) {
		merged = blk_mq_sched_try_merge(q, bio, nr_segs, &free);
		spin_unlock(&sd->lock);
		if (free)
			blk_mq_free_request(free);
		return merged;
	}

	/*
	 * The dispatcher is busy: try the newest staged requests, where a
	 * sequential stream's previous request most likely waits.  A merge
	 * missed here is still made when the new request is drained.
	 */
	sd_lock_counted(&sd->insert_lock, &sd->cont.insert_lock_waits);
	sd->cont.staged_bio_merge_tries++;
	merged = blk_bio_list_merge(q, &sd->staged, bio, nr_segs);
	if (merged)
		sd->cont.staged_bio_merges++;
	spin_unlock(&sd->insert_lock);
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
		rq = sd_latter_request(rq);
	}
	return rq;
}

/*
 * The oldest request of @dir that may be dispatched now.  On a zoned
 * device a write must target an unlocked zone, and on rotational media it
 * must not break into the middle of a sequential stream.
 */
static struct request *sd_fifo_request(struct sdl_data *sd,
				       struct sd_per_prio *pp, enum sd_dir dir)
{
	struct request *rq;
	unsigned long flags;

	if (list_empty(&pp->fifo_list[dir]))
		return NULL;
	rq = rq_entry_fifo(pp->fifo_list[dir].next);
	if (dir == SD_READ || !blk_queue_is_zoned(rq->q))
		return rq;

	spin_lock_irqsave(&sd->zone_lock, flags);
	list_for_each_entry(rq, &pp->fifo_list[SD_WRITE], queuelist) {
		if (blk_req_can_dispatch_to_zone(rq) &&
		    (blk_queue_nonrot(rq->q) || !sd_is_seq_write(rq)))
			goto out;
	}
	rq = NULL;
out:
	spin_unlock_irqrestore(&sd->zone_lock, flags);
	return rq;
}

/* The next request of @dir in sector order that may be dispatched now. */
static struct request *sd_next_request(struct sdl_data *sd,
				       struct sd_per_prio *pp, enum sd_dir dir)
{
	struct request *rq = pp->next_rq[dir];
	unsigned long flags;

	if (!rq || dir == SD_READ || !blk_queue_is_zoned(rq->q))
		return rq;

	spin_lock_irqsave(&sd->zone_lock, flags);
	while (rq && !blk_req_can_dispatch_to_zone(rq)) {
		if (blk_queue_nonrot(rq->q))
			rq = sd_latter_request(rq);
		else
			rq = sd_skip_seq_writes(rq);
	}
	spin_unlock_irqrestore(&sd->zone_lock, flags);
	return rq;
}

/* Whether @rq arrived after @latest_start (jiffies). */
static bool sd_started_after(struct sdl_data *sd, struct request *rq,
			     unsigned long latest_start)
{
	unsigned long start = (unsigned long)rq->fifo_time -
			      sd->fifo_expire[rq_data_dir(rq)];

	return time_after(start, latest_start);
}

/*
 * Pick the request to dispatch from one priority level: continue the
 * current batch, else choose a direction (reads first, unless writes have
 * been starved writes_starved times), then the expired FIFO head or the
 * next request in sector order.  Only requests that arrived no later than
 * @latest_start qualify.  sd->lock held.
 */
static struct request *sd_dispatch_prio(struct sdl_data *sd,
					struct sd_per_prio *pp,
					unsigned long latest_start)
{
	struct request *rq, *next_rq;
	enum sd_dir dir;

	lockdep_assert_held(&sd->lock);

	if (!list_empty(&pp->dispatch)) {
		rq = list_first_entry(&pp->dispatch, struct request, queuelist);
		if (sd_started_after(sd, rq, latest_start))
			return NULL;
		list_del_init(&rq->queuelist);
		goto done;
	}

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
	pp->next_rq[rq_data_dir(rq)] = sd_latter_request(rq);
	sd_remove_request(rq->q, pp, rq);
done:
	sd->per_prio[sd_rq_prio(rq)].stats.dispatched++;
	blk_req_zone_write_lock(rq);
	rq->rq_flags |= RQF_STARTED;
	return rq;
}

/* Lower-priority requests older than prio_aging_expire go first. */
static struct request *sd_dispatch_aged(struct sdl_data *sd, unsigned long now)
{
	struct request *rq;
	enum sd_prio prio;

	if (!!sdl_queued(sd, SD_RT_PRIO) + !!sdl_queued(sd, SD_BE_PRIO) +
	    !!sdl_queued(sd, SD_IDLE_PRIO) < 2)
		return NULL;

	for (prio = SD_BE_PRIO; prio <= SD_PRIO_MAX; prio++) {
		rq = sd_dispatch_prio(sd, &sd->per_prio[prio],
				      now - sd->prio_aging_expire);
		if (rq)
			return rq;
	}
	return NULL;
}

static bool sd_has_queued_work(struct sdl_data *sd)
{
	enum sd_prio prio;

	if (sd_may_merge(sd) || !list_empty_careful(&sd->staged_head))
		return true;
	for (prio = 0; prio <= SD_PRIO_MAX; prio++)
		if (!list_empty_careful(&sd->per_prio[prio].dispatch))
			return true;
	return false;
}

/*
 * Only one CPU dispatches at a time; the others return NULL at once.  Why
 * no request is stranded, or kept waiting: a submitter stages (or
 * inserts) its request and then runs the queue.  If that run finds
 * SD_DISPATCHING set, the dispatcher has not yet dropped the flag, and
 * after dropping it, if it found nothing, it checks whether a request
 * was staged or inserted since it looked (insert_gen): the barriers here
 * and in sd_insert_requests() order "stage or insert, then test flag"
 * against "clear flag, then test for new requests", so at least one side
 * sees the other, and it dispatches again.  Left to blk-mq, such a
 * request would wait for the re-run it schedules BLK_MQ_BUDGET_DELAY
 * (3 ms) after a run that dispatched nothing, which mq-deadline, taking
 * its lock on every CPU, never needs.  (A run that dispatched a request
 * is followed by another call anyway, and one that ran out of tags is
 * restarted by the next completion.)
 */
static struct request *sd_dispatch_request(struct blk_mq_hw_ctx *hctx)
{
	struct request_queue *q = hctx->queue;
	struct sdl_data *sd = q->elevator->elevator_data;
	struct request *rq = NULL;
	unsigned long now, gen;
	enum sd_prio prio;
	LIST_HEAD(free);

again:
	if (test_bit(SD_DISPATCHING, &sd->flags) ||
	    test_and_set_bit_lock(SD_DISPATCHING, &sd->flags)) {
		atomic64_inc(&sd->cont.dispatch_skips);
		return NULL;
	}

	now = jiffies;
	sd_lock_counted(&sd->lock, &sd->cont.dispatch_lock_waits);
	gen = sd->insert_gen;
	sd_drain_staged(q, sd, &free);
	rq = sd_dispatch_aged(sd, now);
	if (!rq) {
		/* Lower priorities wait while a higher one has requests. */
		for (prio = 0; prio <= SD_PRIO_MAX; prio++) {
			rq = sd_dispatch_prio(sd, &sd->per_prio[prio], now);
			if (rq || sdl_queued(sd, prio))
				break;
		}
	}
	spin_unlock(&sd->lock);
	clear_bit_unlock(SD_DISPATCHING, &sd->flags);
	blk_mq_free_requests(&free);

	if (!rq) {
		/* Pairs with the barriers in sd_insert_requests(). */
		smp_mb__after_atomic();
		if (READ_ONCE(sd->insert_gen) != gen ||
		    !list_empty_careful(&sd->staged) ||
		    !list_empty_careful(&sd->staged_head)) {
			atomic64_inc(&sd->cont.dispatch_rechecks);
			goto again;
		}
	}
	return rq;
}

/* True while the scheduler holds any request, staged ones included. */
static bool sd_has_work(struct blk_mq_hw_ctx *hctx)
{
	struct sdl_data *sd = hctx->queue->elevator->elevator_data;

	return sd_has_queued_work(sd);
}

static bool sd_has_write_work(struct sdl_data *sd)
{
	return sd_sorted(sd, SD_WRITE) || !list_empty_careful(&sd->staged);
}

/*
 * Runs in any context for every freed request (see split-deadline.h).
 * Releases a zoned write's zone lock and, if writes wait, makes sure the
 * queue is run again.
 */
static void sd_finish_request(struct request *rq)
{
	struct request_queue *q = rq->q;
	struct sdl_data *sd = q->elevator->elevator_data;
	unsigned long flags;

	/* Requests that bypassed the scheduler were never counted. */
	if (!rq->elv.priv[0])
		return;
	atomic_inc(&sd->per_prio[sd_rq_prio(rq)].stats.completed);

	if (blk_queue_is_zoned(q)) {
		spin_lock_irqsave(&sd->zone_lock, flags);
		blk_req_zone_write_unlock(rq);
		spin_unlock_irqrestore(&sd->zone_lock, flags);
		if (sd_has_write_work(sd))
			blk_mq_sched_mark_restart_hctx(rq->mq_hctx);
	}
}

/* ---- tag depth ---------------------------------------------------------- */

/* Scale a request count to the sbitmap word depth of the sched tags. */
static int sd_to_word_depth(struct blk_mq_hw_ctx *hctx, unsigned int qdepth)
{
	struct sbitmap_queue *bt = &hctx->sched_tags->bitmap_tags;
	const unsigned int nrr = hctx->queue->nr_requests;

	return ((qdepth << bt->sb.shift) + nrr - 1) / nrr;
}

/* Async requests and writes may not take the tags sync reads need. */
static void sd_limit_depth(blk_opf_t opf, struct blk_mq_alloc_data *data)
{
	struct sdl_data *sd = data->q->elevator->elevator_data;

	if (op_is_sync(opf) && !op_is_write(opf))
		return;
	data->shallow_depth = sd_to_word_depth(data->hctx, sd->async_depth);
}

static void sd_depth_updated(struct blk_mq_hw_ctx *hctx)
{
	struct request_queue *q = hctx->queue;
	struct sdl_data *sd = q->elevator->elevator_data;

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
	struct sdl_data *sd;
	enum sd_prio prio;

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

		INIT_LIST_HEAD(&pp->dispatch);
		INIT_LIST_HEAD(&pp->fifo_list[SD_READ]);
		INIT_LIST_HEAD(&pp->fifo_list[SD_WRITE]);
		pp->sort_list[SD_READ] = RB_ROOT;
		pp->sort_list[SD_WRITE] = RB_ROOT;
	}
	INIT_LIST_HEAD(&sd->staged);
	INIT_LIST_HEAD(&sd->staged_head);
	sd->fifo_expire[SD_READ] = read_expire;
	sd->fifo_expire[SD_WRITE] = write_expire;
	sd->writes_starved = writes_starved;
	sd->front_merges = 1;
	sd->last_dir = SD_WRITE;
	sd->fifo_batch = fifo_batch;
	sd->prio_aging_expire = prio_aging_expire;
	spin_lock_init(&sd->lock);
	spin_lock_init(&sd->insert_lock);
	spin_lock_init(&sd->zone_lock);

	/* One set of queues for the whole device, as mq-deadline. */
	blk_queue_flag_set(QUEUE_FLAG_SQ_SCHED, q);
	q->elevator = eq;
	return 0;
}

/* Every request the scheduler counted in must have been counted out. */
static void sd_exit_sched(struct elevator_queue *e)
{
	struct sdl_data *sd = e->elevator_data;
	enum sd_prio prio;

	WARN_ON_ONCE(!list_empty(&sd->staged) ||
		     !list_empty(&sd->staged_head));
	for (prio = 0; prio <= SD_PRIO_MAX; prio++) {
		struct sd_per_prio *pp = &sd->per_prio[prio];
		const struct sd_stats *st = &pp->stats;
		u32 queued;

		WARN_ON_ONCE(!list_empty(&pp->fifo_list[SD_READ]));
		WARN_ON_ONCE(!list_empty(&pp->fifo_list[SD_WRITE]));
		WARN_ON_ONCE(!list_empty(&pp->dispatch));

		spin_lock(&sd->lock);
		queued = sdl_queued(sd, prio);
		spin_unlock(&sd->lock);
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
		.insert_requests	= sd_insert_requests,
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
	.queue_debugfs_attrs	= sdl_queue_debugfs_attrs,
#endif
	.elevator_attrs		= sdl_attrs,
	.elevator_name		= "split-deadline",
	.elevator_features	= ELEVATOR_F_ZBD_SEQ_WRITE,
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
MODULE_DESCRIPTION("split-deadline: MQ deadline I/O scheduler with split insert and dispatch locks");
