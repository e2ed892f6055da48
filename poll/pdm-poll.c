// SPDX-License-Identifier: GPL-2.0
/*
 * pdm's poll_bio: polling the lower devices for a published top bio.
 *
 * Four ways to poll, per device (poll_mode in sysfs):
 * - tracked: bio_poll() on each of this bio's pending clones, which polls
 *   exactly the hardware queue each went to;
 * - sweep: one ->poll() pass over every poll-type hardware queue of every
 *   lower blk-mq device, skipping a queue another CPU is polling right now
 *   (whoever holds it reaps for everyone), so pollers never wait on each
 *   other;
 * - sweep_wait: the same, but waiting for a busy queue: the baseline that
 *   shows what the trylock buys;
 * - direct: a bio that fits one lower range is remapped in place
 *   (pdm_remap() in pdm-remap.c), so its submitter's bio_poll() goes to the
 *   lower queue and never comes here; the others are polled as in
 *   tracked mode.
 * A lower device that is not blk-mq (pdm or dm stacked below) is polled
 * through its clones, as in tracked mode, whatever the mode.
 *
 * Hybrid polling (hybrid in sysfs, pdm-hybrid.c) is orthogonal: until a
 * bio's expected completion, poll_bio returns at once without touching a
 * lower queue.
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/spinlock.h>

#include "pdm.h"

const char * const pdm_poll_mode_names[] = {
	[PDM_POLL_TRACKED]	= "tracked",
	[PDM_POLL_SWEEP]	= "sweep",
	[PDM_POLL_SWEEP_WAIT]	= "sweep_wait",
	[PDM_POLL_DIRECT]	= "direct",
	NULL,
};

/*
 * bio_poll() on a pending clone.  Returns 1 if it polled.
 *
 * The lower queue is entered before the clone is checked, and left after
 * bio_poll() has used the clone's cookie.  A clone that ends in between
 * could otherwise let a freeze of the lower queue finish and its hardware
 * queues be remapped (blk_mq_update_nr_hw_queues()) before bio_poll()
 * looks its cookie up: 6.1's blk_qc_to_hctx() then finds no hardware
 * queue, and ->poll() is called on NULL.  As in bio_poll(), a frozen
 * queue may still be entered, since its freeze waits for what we poll.
 */
static unsigned int pdm_poll_clone(struct pdm_clone *pc,
				   struct io_comp_batch *iob,
				   unsigned int flags)
{
	struct request_queue *q = bdev_get_queue(pc->bio.bi_bdev);
	unsigned int polled = 0;

	if (!percpu_ref_tryget(&q->q_usage_counter))
		return 0;
	/* Not ended, and started by the lower queue: something to poll. */
	if (!READ_ONCE(pc->done) &&
	    READ_ONCE(pc->bio.bi_cookie) != BLK_QC_T_NONE) {
		bio_poll(&pc->bio, iob, flags);
		polled = 1;
	}
	percpu_ref_put(&q->q_usage_counter);
	return polled;
}

/*
 * One ->poll() pass over the poll queues of lower blk-mq queue @q, the
 * @idx'th lower device of the map, each under its sweep lock (see struct
 * pdm_dev): sweep skips a queue whose lock another poller holds, and
 * sweep_wait waits for it.  Returns the queues polled; adds the queues
 * skipped to @skips.
 */
static unsigned int pdm_sweep_queue(struct pdm_dev *pd, unsigned int idx,
				    struct request_queue *q,
				    struct io_comp_batch *iob, bool wait,
				    unsigned int *skips)
{
	struct blk_mq_hw_ctx *hctx;
	unsigned int polled = 0;
	unsigned long i;

	/* As bio_poll(): a frozen queue may still be entered to poll. */
	if (!percpu_ref_tryget(&q->q_usage_counter))
		return 0;
	queue_for_each_hw_ctx(q, hctx, i) {
		/* Queues may come and go (nr_hw_queues updates): hash. */
		spinlock_t *lock =
			&pd->sweep_lock[(idx * 8 + i) % PDM_SWEEP_LOCKS];

		if (hctx->type != HCTX_TYPE_POLL)
			continue;
		if (!wait) {
			if (!spin_trylock(lock)) {
				(*skips)++;
				continue;
			}
		} else {
			spin_lock(lock);
		}
		q->mq_ops->poll(hctx, iob);
		spin_unlock(lock);
		polled++;
	}
	percpu_ref_put(&q->q_usage_counter);
	return polled;
}

static unsigned int pdm_sweep(struct pdm_dev *pd, struct pdm_io *io,
			      struct io_comp_batch *iob, unsigned int flags,
			      bool wait, unsigned int *skips)
{
	/*
	 * The map cannot change under a published bio: it holds a reference
	 * on pd->active, which a table swap waits for.
	 */
	const struct pdm_map *map = READ_ONCE(pd->map);
	unsigned int i, polled = 0;
	struct pdm_clone *pc;
	bool stacked = false;

	for (i = 0; i < map->nr_bdevs; i++) {
		struct request_queue *q = bdev_get_queue(map->bdevs[i]);

		if (queue_is_mq(q))
			polled += pdm_sweep_queue(pd, i, q, iob, wait, skips);
		else
			stacked = true;
	}
	if (stacked) {
		for (pc = io->clones; pc; pc = pc->next)
			if (!queue_is_mq(bdev_get_queue(pc->bio.bi_bdev)))
				polled += pdm_poll_clone(pc, iob, flags);
	}
	return polled;
}

static unsigned int pdm_pending(struct pdm_io *io)
{
	struct pdm_clone *pc;
	unsigned int n = 0;

	for (pc = io->clones; pc; pc = pc->next)
		n += !READ_ONCE(pc->done);
	return n;
}

/*
 * Poll for @io's @pending clones as the device's poll_mode says.  Adds
 * the lower queues polled and the sweep's skips to the statistics.
 */
static void pdm_poll_by_mode(struct pdm_dev *pd, struct pdm_io *io,
			     struct io_comp_batch *iob, unsigned int flags,
			     unsigned int pending)
{
	int mode = READ_ONCE(pd->poll_mode);
	unsigned int polled = 0, skips = 0;
	struct pdm_clone *pc;

	if (mode == PDM_POLL_TRACKED || mode == PDM_POLL_DIRECT) {
		if (pending > 1)
			flags |= BLK_POLL_ONESHOT;
		for (pc = io->clones; pc; pc = pc->next)
			polled += pdm_poll_clone(pc, iob, flags);
	} else if (pending) {
		polled = pdm_sweep(pd, io, iob, flags,
				   mode == PDM_POLL_SWEEP_WAIT, &skips);
	}
	if (polled)
		this_cpu_add(pd->stats->lower_polls, polled);
	if (skips)
		this_cpu_add(pd->stats->trylock_skips, skips);
}

/**
 * pdm_poll_bio() - the block_device_operations.poll_bio of pdm devices
 * @bio:   the top bio; may be stale or recycled
 * @iob:   io_uring's completion batch, passed down
 * @flags: BLK_POLL_*; in tracked mode BLK_POLL_ONESHOT is added when more
 *         than one clone is pending, so that no clone's queue is spun on
 *         while another's has completions
 *
 * Never sleeps (in hybrid "sleep" it may queue a task work that will),
 * reads the clock at most once (hybrid only), allocates nothing.
 * Return: how many of this bio's clones completed during the call, plus
 * one if the top bio completed here; 0 if nothing did.  Lower
 * completions batched in @iob complete their top bios when io_uring runs
 * the batch (see pdm_clone_endio()).
 */
int pdm_poll_bio(struct bio *bio, struct io_comp_batch *iob,
		 unsigned int flags)
{
	struct block_device *bdev = READ_ONCE(bio->bi_bdev);
	struct pdm_hybrid_pass hy;
	unsigned int pending, left;
	struct pdm_dev *pd;
	struct pdm_io *io;

	/* A recycled bio may belong to another device by now, or none. */
	if (!bdev || bdev->bd_disk->fops != &pdm_fops)
		return 0;
	pd = bdev->bd_disk->private_data;
	this_cpu_inc(pd->stats->poll_bio_calls);
	io = pdm_io_walk(bio);
	if (!io) {
		this_cpu_inc(pd->stats->stale_polls);
		return 0;
	}
	/* Recycled for another pdm device: its pd, not @bdev's. */
	pd = io->pd;

	pending = pdm_pending(io);
	left = pending;
	if (pdm_hybrid_start(pd, io, bio, pending, &hy)) {
		pdm_poll_by_mode(pd, io, iob, flags, pending);
		left = pdm_pending(io);
	}
	/* While walked, @io holds pd->active: pd cannot go (pdm-hybrid.c). */
	pdm_hybrid_end(pd, &hy, iob, pending, left);
	return pending - left + pdm_io_unwalk(io);
}
