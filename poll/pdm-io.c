// SPDX-License-Identifier: GPL-2.0
/*
 * pdm's I/O path: mapping a top bio onto clones for the lower devices,
 * completing it, and polling it.
 *
 * A top bio is never split with bio_split(): each clone covers a range of
 * it (bio_trim) that lies within one segment, one stripe chunk, and what
 * the lower queue accepts without splitting.  The last matters for polled
 * I/O: a REQ_NOWAIT bio that the lower queue has to split fails with
 * EAGAIN, and io_uring would reissue it forever.
 *
 * Completion of a top bio normally happens when its last clone ends.  A
 * polled top bio, once all its clones are issued, is "published" (see
 * struct pdm_io) and completes only in task context, where its
 * REQ_ALLOC_CACHE bio may be freed: when its last clone is completed by a
 * poll (which runs in a poller's task), or else at its next poll_bio.  A
 * poll_bio walking a bio's clones holds a reference on its pdm_io, so the
 * clones it hands to bio_poll() are never freed under it.
 *
 * A write with REQ_PREFLUSH and data (a journal commit block) promises
 * that the data is written only after everything completed before it is
 * stable: its data must not be issued until the preflush has completed,
 * or a FUA commit block can be stable before the journal blocks the
 * flush was for.  On a map over one lower device the clones carry the
 * PREFLUSH and that device's flush machinery orders the data behind it;
 * over several, an empty flush goes to each device first, and the data
 * only once all of them succeeded (pdm_requeue_work()), as dm does.
 *
 * EAGAIN must reach the submitter of a REQ_NOWAIT bio during submission:
 * 6.1's io_uring reissues a request whose EAGAIN arrives later in its own
 * task (from a poll) and then waits for it forever (REQ_F_REISSUE in
 * io_complete_rw_iopoll()).  So a NOWAIT pass allocates all its clones
 * before it issues any, and fails whole if one is missing; and a polled
 * top bio whose clones met EAGAIN below is mapped again, unpolled and
 * blocking, by pdm_requeue_work() rather than completed with it, as dm
 * requeues polled bios that hit BLK_STS_AGAIN.
 */
#include <linux/blkdev.h>
#include <linux/bvec.h>
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/percpu.h>
#include <linux/workqueue.h>

#include "pdm.h"

struct kmem_cache *pdm_remap_cache;

/*
 * Hand a top bio to pdm_requeue_work() to be mapped again, with its
 * reference on pd->active.  Any context: this runs from the last clone's
 * completion.
 */
static void pdm_requeue(struct pdm_dev *pd, struct bio *top)
{
	unsigned long flags;

	spin_lock_irqsave(&pd->requeue_lock, flags);
	bio_list_add(&pd->requeue, top);
	spin_unlock_irqrestore(&pd->requeue_lock, flags);
	queue_work(pd->wq, &pd->requeue_work);
}

/*
 * End a top bio and drop its reference on pd->active, in that order
 * reversed: once the submitter has its bio back it may close and remove
 * the device, which waits only for the references (as dm drops its
 * pending count before bio_endio()).  Nothing here touches @pd after.
 */
static void pdm_end_top(struct pdm_dev *pd, struct bio *top)
{
	percpu_ref_put(&pd->active);
	bio_endio(top);
}

static struct pdm_clone *pdm_io_first(struct pdm_io *io)
{
	return &container_of(io, struct pdm_io_clone, io)->clone;
}

/*
 * Free the clones of @io still listed (a polled io's), and @io with them,
 * which lives in the first.
 */
static void pdm_io_free_clones(struct pdm_io *io)
{
	struct pdm_clone *first = pdm_io_first(io);
	struct pdm_clone *pc, *next;

	/* Stale pollers check the magic before they take a reference. */
	WRITE_ONCE(io->magic, 0);
	for (pc = io->clones; pc; pc = next) {
		next = pc->next;
		if (pc != first)
			bio_put(&pc->bio);
	}
	bio_put(&first->bio);
}

/*
 * Free a NOWAIT pass that is short of a clone: none was issued, and every
 * one is on @held, the first (which holds @io) first.
 */
static void pdm_io_free_held(struct pdm_io *io, struct bio_list *held)
{
	struct pdm_clone *first = pdm_io_first(io);
	struct bio *clone;

	WRITE_ONCE(io->magic, 0);
	while ((clone = bio_list_pop(held)))
		if (clone != &first->bio)
			bio_put(clone);
	bio_put(&first->bio);
}

/*
 * Complete the top bio and free the clones; @io goes with them.  After the
 * flushes of a PREFLUSH+data bio (io->then_data) the top bio goes on to
 * have its data issued instead, unless a flush failed: then it completes
 * with that error, and its data is never written.  A published top bio
 * whose clones met EAGAIN is requeued (see the top of this file): its
 * poller can no longer take an EAGAIN.
 */
static void pdm_io_complete(struct pdm_io *io)
{
	struct pdm_dev *pd = io->pd;
	struct bio *top = io->top;
	bool then_data = io->then_data && !io->status;
	bool again = io->published && io->status == BLK_STS_AGAIN;

	if (io->status && !again)
		top->bi_status = io->status;
	pdm_io_free_clones(io);
	if (again) {
		this_cpu_inc(pd->stats->requeued);
		/* Completes unpolled, perhaps in interrupt context. */
		bio_clear_polled(top);
		pdm_requeue(pd, top);
		return;
	}
	if (then_data) {
		pdm_requeue(pd, top);
		return;
	}
	pdm_end_top(pd, top);
}

/**
 * pdm_io_claim() - complete a published top bio, if nobody else does
 * @io:  a published io whose count the caller saw drop to 1 (the publish
 *       reference alone)
 * @now: ktime_get_ns() if the caller has read it, else 0
 *
 * Runs in task context only: the top bio may be REQ_ALLOC_CACHE.  Of all
 * the parties that see the count at 1, the cmpxchg picks one.
 *
 * Return: 1 if this call completed the top bio, else 0.
 */
int pdm_io_claim(struct pdm_io *io, u64 now)
{
	struct bio *top = io->top;

	if (atomic_cmpxchg(&io->remaining, 1, 0) != 1)
		return 0;
	if (io->start_ns)
		pdm_hybrid_learn(io->pd, op_is_write(bio_op(top)),
				 (now ?: ktime_get_ns()) - io->start_ns);
	top->bi_opf &= ~REQ_DRV;
	top->bi_private = io->saved_private;
	pdm_io_complete(io);
	return 1;
}

void pdm_io_put(struct pdm_io *io)
{
	if (atomic_dec_and_test(&io->remaining))
		pdm_io_complete(io);
}

static void pdm_clone_endio(struct bio *bio)
{
	struct pdm_clone *pc = container_of(bio, struct pdm_clone, bio);
	struct pdm_io *io = pc->io;
	/* Read before our reference goes: @io may go with it. */
	bool published = READ_ONCE(io->published);
	bool polled = bio->bi_opf & REQ_POLLED;

	/* Any one error will do; racing writers only pick which. */
	if (unlikely(bio->bi_status) && !READ_ONCE(io->status))
		WRITE_ONCE(io->status, bio->bi_status);
	/*
	 * Still REQ_POLLED here means the lower queue took it as polled I/O,
	 * which only a poll completes.  (bio_poll()'s return value cannot
	 * count these: blk_mq_poll() returns 1 for any running task.)
	 */
	if (polled)
		this_cpu_inc(io->pd->stats->completions_found);
	WRITE_ONCE(pc->done, true);
	if (!published) {
		/* Unlisted: nothing else refers to it (see struct pdm_io). */
		if (!io->polled && pc != pdm_io_first(io))
			bio_put(bio);
		pdm_io_put(io);
		return;
	}
	/*
	 * The last clone of a published bio ended in the task that issued
	 * it (its poller, reaping a batch of lower completions): finish the
	 * top bio now rather than at its own next poll_bio, so that one
	 * io_uring reap pass completes every top bio whose clones one lower
	 * poll found.  Anywhere else leave it to that poller: from interrupt
	 * context the top bio may not be freed, and another task must not
	 * free it while its own poller may be inside bio_poll() on it.
	 */
	if (atomic_dec_return(&io->remaining) == 1 && in_task() &&
	    current == io->owner)
		pdm_io_claim(io, 0);
}

/*
 * The lower queue splits a data bio where two bvecs leave a gap that its
 * virt_boundary_mask forbids.
 */
static bool pdm_virt_gap(const struct queue_limits *lim,
			 const struct bio_vec *prev, unsigned int offset)
{
	if (!lim->virt_boundary_mask)
		return false;
	return ((prev->bv_offset + prev->bv_len) & lim->virt_boundary_mask) ||
	       (offset & lim->virt_boundary_mask);
}

/* Segments the lower queue needs for one physically contiguous range. */
static unsigned int pdm_range_segs(const struct queue_limits *lim,
				   phys_addr_t addr, unsigned int len)
{
	unsigned int segs = 0;

	while (len) {
		unsigned long boundary = lim->seg_boundary_mask;
		unsigned int seg = min(len, lim->max_segment_size);

		if (boundary && boundary != ULONG_MAX)
			seg = min_t(unsigned long, seg,
				    boundary - (addr & boundary) + 1);
		addr += seg;
		len -= seg;
		segs++;
	}
	return segs;
}

/**
 * pdm_fit_data() - how much of a data bio a lower queue takes unsplit
 * @top:   the top bio
 * @skip:  sectors of @top already mapped
 * @want:  sectors the caller would like to map from there
 * @lsec:  the lower sector the range starts at
 * @q:     the lower queue
 *
 * A conservative copy of the lower queue's split rules: its max_sectors
 * and chunk_sectors, the range then cut at a physical block boundary as
 * 6.1's get_max_io_size() cuts it (whatever the bio's own size: on a 512e
 * device a bio of max_sectors at an unaligned sector is split), its
 * max_segments and max_segment_size, seg_boundary_mask and
 * virt_boundary_mask.  Segments are counted per bvec, never merged, so the
 * count can only be too high, never too low.
 *
 * Return: sectors, at least one logical block, at most @want.
 */
static unsigned int pdm_fit_data(struct bio *top, unsigned int skip,
				 unsigned int want, sector_t lsec,
				 struct request_queue *q)
{
	const struct queue_limits *lim = &q->limits;
	unsigned int lbs = lim->logical_block_size >> SECTOR_SHIFT;
	unsigned int pbs = lim->physical_block_size >> SECTOR_SHIFT;
	unsigned int max = lim->max_sectors, start, end;
	unsigned int bytes = 0, segs = 0, fit;
	struct bvec_iter iter = top->bi_iter;
	struct bio_vec bv, prev = {};

	if (lim->chunk_sectors)
		max = min_t(unsigned int, max, lim->chunk_sectors -
			    (lsec & (lim->chunk_sectors - 1)));
	/* The lower queue's limit, as get_max_io_size() computes it. */
	start = lsec & (pbs - 1);
	end = (start + max) & ~(pbs - 1);
	max = end > start ? end - start : max & ~(lbs - 1);
	max = min(want, max);

	bio_advance_iter(top, &iter, (unsigned int)skip << SECTOR_SHIFT);
	while (iter.bi_size && bytes < (max << SECTOR_SHIFT)) {
		unsigned int len, need;

		bv = mp_bvec_iter_bvec(top->bi_io_vec, iter);
		len = min(bv.bv_len, (max << SECTOR_SHIFT) - bytes);
		if (bytes && pdm_virt_gap(lim, &prev, bv.bv_offset))
			break;
		need = pdm_range_segs(lim, page_to_phys(bv.bv_page) +
				      bv.bv_offset, len);
		if (segs + need > queue_max_segments(q)) {
			/* A range within one page is always one segment. */
			if (!bytes)
				bytes = min_t(unsigned int, len, PAGE_SIZE -
					      offset_in_page(bv.bv_offset));
			break;
		}
		bytes += len;
		segs += need;
		prev = bv;
		prev.bv_len = len;
		bio_advance_iter_single(top, &iter, len);
	}
	fit = round_down(bytes >> SECTOR_SHIFT, lbs);
	return fit ? fit : min(want, lbs);
}

/* How many sectors starting at @skip of @top may go to @bdev in one clone. */
static unsigned int pdm_fit(struct bio *top, unsigned int skip,
			    unsigned int want, sector_t lsec,
			    struct block_device *bdev)
{
	switch (bio_op(top)) {
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		return pdm_fit_data(top, skip, want, lsec,
				    bdev_get_queue(bdev));
	case REQ_OP_DISCARD:
		return min_not_zero(want, bdev_max_discard_sectors(bdev));
	case REQ_OP_SECURE_ERASE:
		return min_not_zero(want, bdev_max_secure_erase_sectors(bdev));
	case REQ_OP_WRITE_ZEROES:
		return min_not_zero(want, bdev_write_zeroes_sectors(bdev));
	default:
		return want;
	}
}

/*
 * Allocate, link and issue one clone; a clone of a REQ_NOWAIT top bio is
 * only added to @held, for the caller to issue once every clone of the
 * pass exists.  (Clones of a blocking top bio cannot fail to allocate.)
 * Returns false if out of memory.
 */
static bool pdm_issue(struct pdm_dev *pd, struct pdm_io **iop,
		      struct bio *top, struct block_device *bdev,
		      unsigned int skip, unsigned int sectors, sector_t lsec,
		      bool empty_flush, struct bio_list *held)
{
	gfp_t gfp = top->bi_opf & REQ_NOWAIT ? GFP_NOWAIT : GFP_NOIO;
	struct pdm_io *io = *iop;
	struct pdm_clone *pc;
	struct bio *clone;

	if (empty_flush)
		clone = bio_alloc_bioset(bdev, 0, REQ_OP_WRITE | REQ_PREFLUSH |
					 REQ_SYNC, gfp, &pd->bs);
	else
		clone = bio_alloc_clone(bdev, top, gfp, &pd->bs);
	if (!clone)
		return false;

	if (!io) {
		io = &container_of(clone, struct pdm_io_clone, clone.bio)->io;
		io->pd = pd;
		io->top = top;
		io->saved_private = NULL;
		atomic_set(&io->remaining, 1);
		io->status = BLK_STS_OK;
		io->published = false;
		io->polled = top->bi_opf & REQ_POLLED;
		io->then_data = false;
		io->owner = current;
		io->clones = NULL;
		/* Hybrid polling waits from here: see pdm-poll.c. */
		io->start_ns = READ_ONCE(pd->hybrid) ? ktime_get_ns() : 0;
		/* Last: a stale poller trusts the rest once it sees this. */
		smp_wmb();
		WRITE_ONCE(io->magic, PDM_IO_MAGIC);
		*iop = io;
	}
	pc = container_of(clone, struct pdm_clone, bio);
	pc->io = io;
	pc->done = false;
	if (io->polled) {
		pc->next = io->clones;
		io->clones = pc;
	}
	atomic_inc(&io->remaining);

	if (!empty_flush) {
		bio_trim(clone, skip, sectors);
		clone->bi_iter.bi_sector = lsec;
		/*
		 * REQ_DRV is our publish marker.  A PREFLUSH left on a data
		 * clone is meant: only a map over one device maps a
		 * PREFLUSH+data bio in one pass (see pdm_send_top()).
		 */
		clone->bi_opf &= ~REQ_DRV;
	}
	if (!bdev_nowait(bdev))
		clone->bi_opf &= ~REQ_NOWAIT;
	clone->bi_end_io = pdm_clone_endio;
	if (top->bi_opf & REQ_NOWAIT) {
		bio_list_add(held, clone);
		return true;
	}
	this_cpu_inc(pd->stats->clones);
	submit_bio_noacct(clone);
	return true;
}

static struct pdm_remap *pdm_remap_alloc(struct pdm_dev *pd, gfp_t gfp)
{
	struct pdm_remap_list *l;
	struct pdm_remap *rm;
	unsigned long flags;

	local_irq_save(flags);
	l = this_cpu_ptr(pd->remap_free);
	rm = l->head;
	if (rm) {
		l->head = rm->next;
		l->nr--;
	}
	local_irq_restore(flags);
	return rm ?: mempool_alloc(&pd->remap_pool, gfp);
}

static void pdm_remap_free(struct pdm_dev *pd, struct pdm_remap *rm)
{
	struct pdm_remap_list *l;
	unsigned long flags;

	local_irq_save(flags);
	l = this_cpu_ptr(pd->remap_free);
	if (l->nr < PDM_REMAP_FREE_MAX) {
		rm->next = l->head;
		l->head = rm;
		l->nr++;
		rm = NULL;
	}
	local_irq_restore(flags);
	if (rm)
		mempool_free(rm, &pd->remap_pool);
}

/* Give every CPU's free pdm_remaps back; nothing may be in flight. */
void pdm_remap_free_drain(struct pdm_dev *pd)
{
	struct pdm_remap *rm;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct pdm_remap_list *l = per_cpu_ptr(pd->remap_free, cpu);

		while ((rm = l->head)) {
			l->head = rm->next;
			mempool_free(rm, &pd->remap_pool);
		}
		l->nr = 0;
	}
}

static void pdm_remap_endio(struct bio *bio)
{
	struct pdm_remap *rm = bio->bi_private;
	struct pdm_dev *pd = rm->pd;

	/* As for a clone: still REQ_POLLED means a poll completed it. */
	if (bio->bi_opf & REQ_POLLED)
		this_cpu_inc(pd->stats->completions_found);
	bio->bi_bdev = rm->bdev;
	bio->bi_end_io = rm->end_io;
	bio->bi_private = rm->private;
	/* The lower queue's rq_qos saw its end; pdm's queue has none. */
	bio_clear_flag(bio, BIO_QOS_THROTTLED);
	bio_clear_flag(bio, BIO_QOS_MERGED);
	pdm_remap_free(pd, rm);
	pdm_end_top(pd, bio);
}

/**
 * pdm_remap() - send a top bio that fits one lower range down as it is
 * @pd:   the device; the caller's reference on pd->active goes with the bio
 * @top:  the bio, which pdm_fit() took whole
 * @bdev: the lower device
 * @lsec: the lower sector
 *
 * No clone: the bio itself is pointed at the lower device, with pdm's
 * end_io in front of its submitter's so that pd->active still counts it
 * (suspend waits for it) and the submitter gets its bio back as it was
 * but for the completion.  A polled bio then carries the lower queue's
 * cookie, and io_uring polls that queue itself: one submit_bio pass and
 * one poll call fewer per I/O, and no bio allocation.
 *
 * Return: false if no memory, with @top untouched.
 */
static bool pdm_remap(struct pdm_dev *pd, struct bio *top,
		      struct block_device *bdev, sector_t lsec)
{
	gfp_t gfp = top->bi_opf & REQ_NOWAIT ? GFP_NOWAIT : GFP_NOIO;
	struct pdm_remap *rm = pdm_remap_alloc(pd, gfp);

	if (!rm)
		return false;
	rm->pd = pd;
	rm->bdev = top->bi_bdev;
	rm->end_io = top->bi_end_io;
	rm->private = top->bi_private;
	top->bi_end_io = pdm_remap_endio;
	top->bi_private = rm;
	bio_set_dev(top, bdev);
	top->bi_iter.bi_sector = lsec;
	if (!bdev_nowait(bdev))
		top->bi_opf &= ~REQ_NOWAIT;
	this_cpu_inc(pd->stats->remapped);
	submit_bio_noacct(top);
	return true;
}

/*
 * Remap in place rather than clone?  Only in direct mode, and not a
 * polled bio while hybrid polling is on: the wait lives in pdm's
 * poll_bio, which a remapped bio's poller never calls.
 */
static bool pdm_want_remap(struct pdm_dev *pd, struct bio *top)
{
	if (READ_ONCE(pd->poll_mode) != PDM_POLL_DIRECT)
		return false;
	return !(top->bi_opf & REQ_POLLED) || !READ_ONCE(pd->hybrid);
}

/* Locate @sector: the lower device and sector, and sectors left in reach. */
static void pdm_locate(const struct pdm_map *map, sector_t sector,
		       struct block_device **bdev, sector_t *lsec,
		       unsigned int *reach)
{
	const struct pdm_seg_spec *seg =
		&map->spec.segs[pdm_table_find(&map->spec, sector)];
	u64 off = sector - seg->start;
	u64 left = seg->len - off;

	if (seg->target == PDM_TARGET_STRIPED) {
		struct pdm_stripe_geom g = {
			.nr = seg->nr_legs,
			.chunk_shift = ilog2(seg->chunk_sectors),
		};
		struct pdm_stripe_pos pos;

		pdm_stripe_map(&g, off, &pos);
		*bdev = seg->legs[pos.leg].bdev;
		*lsec = seg->legs[pos.leg].offset + pos.leg_sector;
		left = min_t(u64, left, pos.chunk_left);
	} else {
		*bdev = seg->legs[0].bdev;
		*lsec = seg->legs[0].offset + off;
	}
	*reach = min_t(u64, left, UINT_MAX >> SECTOR_SHIFT);
}

/*
 * Send @top: map it onto clones and issue them.  pdm_start_top() without
 * the counters; also the second pass of a PREFLUSH+data bio and of a
 * requeued one.  The caller's reference on pd->active goes with @top.
 */
static void pdm_send_top(struct pdm_dev *pd, struct bio *top)
{
	/* Stable while we hold pd->active: see struct pdm_dev. */
	const struct pdm_map *map = READ_ONCE(pd->map);
	unsigned int done = 0, left = bio_sectors(top);
	sector_t sector = top->bi_iter.bi_sector;
	blk_status_t status = BLK_STS_OK;
	struct bio_list held = BIO_EMPTY_LIST;
	struct pdm_io *io = NULL;
	struct bio *clone;
	bool remap;
	u32 i;

	if (unlikely(!map || sector + left > map->spec.sectors)) {
		/* Being removed, or deferred across a shrinking reload. */
		status = BLK_STS_IOERR;
		goto out;
	}

	/* A flush goes to every device: never one range. */
	remap = pdm_want_remap(pd, top) && !(top->bi_opf & REQ_PREFLUSH);
	if (top->bi_opf & REQ_PREFLUSH) {
		/*
		 * With data, the top bio completes from a lower completion
		 * or pdm_requeue_work(), never from a poll: the data waits for
		 * the flush, and a polled clone parked behind a lower flush
		 * has no cookie to poll it by.
		 */
		if (left)
			bio_clear_polled(top);
		/*
		 * One lower device: its data clones keep the PREFLUSH (see
		 * pdm_issue()), and no empty flush is needed.
		 */
		if (!left || map->nr_bdevs > 1) {
			for (i = 0; i < map->nr_bdevs; i++) {
				if (!pdm_issue(pd, &io, top, map->bdevs[i],
					       0, 0, 0, true, &held)) {
					status = BLK_STS_RESOURCE;
					goto out;
				}
			}
			/*
			 * The data goes when the flushes have completed: our
			 * reference keeps them from completing the io before
			 * this is set.
			 */
			if (left) {
				io->then_data = true;
				goto issue;
			}
		}
	}

	while (left) {
		struct block_device *bdev;
		unsigned int reach;
		sector_t lsec;

		pdm_locate(map, sector, &bdev, &lsec, &reach);
		reach = pdm_fit(top, done, min(reach, left), lsec, bdev);
		if (remap && reach == left && pdm_remap(pd, top, bdev, lsec))
			return;
		remap = false;
		if (!pdm_issue(pd, &io, top, bdev, done, reach, lsec, false,
			       &held)) {
			status = BLK_STS_RESOURCE;
			goto out;
		}
		sector += reach;
		done += reach;
		left -= reach;
	}
issue:
	while ((clone = bio_list_pop(&held))) {
		this_cpu_inc(pd->stats->clones);
		submit_bio_noacct(clone);
	}
out:
	if (status == BLK_STS_RESOURCE && (top->bi_opf & REQ_NOWAIT)) {
		/*
		 * A NOWAIT pass short of memory has issued none of its
		 * clones: its submitter retries in full, blocking.
		 */
		this_cpu_inc(pd->stats->nowait_again);
		status = BLK_STS_AGAIN;
		if (io)
			pdm_io_free_held(io, &held);
		io = NULL;
	}
	if (!io) {
		/* Nothing issued: an empty flush needs no clone either. */
		top->bi_status = status;
		pdm_end_top(pd, top);
		return;
	}
	/* A clone that failed to clone its integrity data: end with it. */
	if (status)
		io->status = status;
	if (top->bi_opf & REQ_POLLED) {
		/*
		 * Publish: our reference becomes the publish reference, which
		 * pdm_io_claim() drops.  The submitter's bi_private comes
		 * back before completion.  The clones wait on current->bio_list
		 * until we return, so none can have ended yet; claim anyway if
		 * one did.
		 */
		io->saved_private = top->bi_private;
		top->bi_private = io;
		top->bi_cookie = 0;
		WRITE_ONCE(io->published, true);
		smp_wmb();	/* io and bi_private before the marker */
		WRITE_ONCE(top->bi_opf, top->bi_opf | REQ_DRV);
		if (atomic_read(&io->remaining) == 1)
			pdm_io_claim(io, 0);
		return;
	}
	pdm_io_put(io);
}

/*
 * Count a new top bio and send it.  The caller holds a reference on
 * pd->active, which completing the top bio drops.
 */
static void pdm_start_top(struct pdm_dev *pd, struct bio *top)
{
	this_cpu_inc(pd->stats->bios);
	if (top->bi_opf & REQ_POLLED)
		this_cpu_inc(pd->stats->polled_bios);
	pdm_send_top(pd, top);
}

/**
 * pdm_requeue_work() - map requeued top bios again
 * @work: the device's requeue_work
 *
 * The data of PREFLUSH+data bios whose flushes all completed without
 * error, and polled bios whose clones met EAGAIN below.  Each still holds
 * its submitter's reference on pd->active: the map is the one it was
 * first mapped with, and a suspend waits for the bio rather than holding
 * it back.  (Through pdm_submit_bio() it could be deferred by a suspend
 * that waits for the reference it holds.)  Runs in process context, from
 * a WQ_MEM_RECLAIM queue, as writeback may depend on it.
 */
void pdm_requeue_work(struct work_struct *work)
{
	struct pdm_dev *pd = container_of(work, struct pdm_dev, requeue_work);
	struct bio_list list;
	struct blk_plug plug;
	struct bio *top;

	spin_lock_irq(&pd->requeue_lock);
	list = pd->requeue;
	bio_list_init(&pd->requeue);
	spin_unlock_irq(&pd->requeue_lock);

	blk_start_plug(&plug);
	while ((top = bio_list_pop(&list))) {
		/*
		 * A write's data is left as an ordinary write (its FUA kept).
		 * This worker may wait for memory and tags: an EAGAIN here
		 * would reach a submitter that can no longer take it, or
		 * make it redo the flushes.
		 */
		top->bi_opf &= ~(REQ_PREFLUSH | REQ_NOWAIT);
		top->bi_status = BLK_STS_OK;
		pdm_send_top(pd, top);
	}
	blk_finish_plug(&plug);
}

/*
 * Queue a bio while the device is suspended.  Returns true if it was
 * queued, false if the device was resumed meanwhile and the caller should
 * try to enter again.
 */
static bool pdm_defer(struct pdm_dev *pd, struct bio *bio)
{
	bool queued = false;

	spin_lock(&pd->defer_lock);
	if (pd->suspended) {
		bio_list_add(&pd->deferred, bio);
		this_cpu_inc(pd->stats->deferred);
		queued = true;
	}
	spin_unlock(&pd->defer_lock);
	return queued;
}

void pdm_submit_bio(struct bio *bio)
{
	struct pdm_dev *pd = bio->bi_bdev->bd_disk->private_data;

	/*
	 * Suspend marks the device suspended before it kills active and
	 * resume revives active before it clears suspended, so a failed
	 * tryget either queues the bio or sees the device live again.
	 */
	while (!percpu_ref_tryget_live(&pd->active)) {
		if (pdm_defer(pd, bio))
			return;
		cpu_relax();
	}
	pdm_start_top(pd, bio);
}
