// SPDX-License-Identifier: GPL-2.0
/*
 * pdm's I/O path: mapping a top bio onto clones for the lower devices
 * and issuing them.  How the clones' pdm_io lives and ends, and how a
 * polled top bio completes, is in pdm-io.c; direct mode's remap in
 * place in pdm-remap.c.
 *
 * A top bio is never split with bio_split(): each clone covers a range of
 * it (bio_trim) that lies within one segment, one stripe chunk, and what
 * the lower queue accepts without splitting.  The last matters for polled
 * I/O: a REQ_NOWAIT bio that the lower queue has to split fails with
 * EAGAIN, and io_uring would reissue it forever.
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
 * 6.1's io_uring reissues a polled request whose EAGAIN arrives later in
 * its own task (from a poll) and then waits for it forever (REQ_F_REISSUE
 * in io_complete_rw_iopoll()), and fails an unpolled one whose EAGAIN
 * arrives from another context (io_rw_should_reissue()): every
 * non-polled io_uring read and write is first issued NOWAIT too.  So a
 * NOWAIT pass allocates all its clones before it issues any, and fails
 * whole if one is missing; and a NOWAIT top bio whose clones met EAGAIN
 * below is mapped again, blocking (and unpolled), by pdm_requeue_work()
 * rather than completed with it, as dm requeues polled bios that hit
 * BLK_STS_AGAIN (dm 6.1 lets the unpolled ones through).
 */
#include <linux/blkdev.h>
#include <linux/bvec.h>
#include <linux/indirect_call_wrapper.h>
#include <linux/io.h>
#include <linux/percpu.h>
#include <linux/workqueue.h>
#include <trace/events/block.h>

#include "pdm.h"

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

/*
 * Sectors from @sector to the end of its chunk; any chunk size, as 6.1's
 * blk_chunk_sectors_left() takes (md sets ones that are not a power of 2).
 */
static unsigned int pdm_chunk_left(sector_t sector, unsigned int chunk)
{
	if (is_power_of_2(chunk))
		return chunk - (sector & (chunk - 1));
	return chunk - sector_div(sector, chunk);
}

/**
 * pdm_fit_data() - how much of a data bio a lower queue takes unsplit
 * @top:   the top bio
 * @skip:  sectors of @top already mapped
 * @want:  sectors the caller would like to map from there
 * @lsec:  the sector of the lower disk (its partition's start added:
 *         the kernel splits after the partition remap) the range starts at
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
		max = min(max, pdm_chunk_left(lsec, lim->chunk_sectors));
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

/*
 * The block layer's own quick test (6.1's bio_may_exceed_limits()): every
 * queue takes a data bio of one bvec within one page unsplit, unless it
 * has chunks.  So does it any part of such a bio.  A bio that is itself a
 * clone has no bvec count of its own and takes pdm_fit_data().
 */
static bool pdm_fits_any(const struct bio *top, struct block_device *bdev)
{
	const struct bio_vec *bv = top->bi_io_vec;

	return top->bi_vcnt == 1 && bv->bv_offset + bv->bv_len <= PAGE_SIZE &&
	       !bdev_get_queue(bdev)->limits.chunk_sectors;
}

/* How many sectors starting at @skip of @top may go to @bdev in one clone. */
static unsigned int pdm_fit(struct bio *top, unsigned int skip,
			    unsigned int want, sector_t lsec,
			    struct block_device *bdev)
{
	switch (bio_op(top)) {
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		if (pdm_fits_any(top, bdev))
			return want;
		return pdm_fit_data(top, skip, want,
				    lsec + get_start_sect(bdev),
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
 * One pass of a top bio over the live map: what pdm_send_top() and its
 * helpers share.  io is set up with the pass's first clone; held keeps a
 * NOWAIT pass's clones until every one of them exists.
 */
struct pdm_pass {
	struct pdm_dev *pd;
	const struct pdm_map *map;
	struct bio *top;
	const struct pdm_acct *acct;
	struct pdm_io *io;
	struct bio_list held;
};

/*
 * Link and issue one clone of the pass, to the map's @dev'th lower device;
 * a clone of a REQ_NOWAIT top bio is only added to pass->held, for the
 * caller to issue once every clone of the pass exists.  (Clones of a
 * blocking top bio cannot fail to allocate.)  Returns false if @clone is
 * NULL: out of memory.
 */
static bool pdm_issue(struct pdm_pass *pass, struct bio *clone, u32 dev)
{
	struct pdm_dev *pd = pass->pd;

	if (!clone)
		return false;
	if (!pass->io)
		pass->io = pdm_io_init(clone, pd, pass->top, pass->acct);
	pdm_io_add(pass->io, clone, pass->map->hybrid_estimate_ns[dev]);

	if (!bdev_nowait(clone->bi_bdev))
		clone->bi_opf &= ~REQ_NOWAIT;
	if (pass->top->bi_opf & REQ_NOWAIT) {
		bio_list_add(&pass->held, clone);
		return true;
	}
	this_cpu_inc(pd->stats->clones);
	submit_bio_noacct(clone);
	return true;
}

static gfp_t pdm_pass_gfp(const struct pdm_pass *pass)
{
	return pass->top->bi_opf & REQ_NOWAIT ? GFP_NOWAIT : GFP_NOIO;
}

/* An empty flush to the map's @dev'th lower device. */
static bool pdm_issue_flush(struct pdm_pass *pass, u32 dev)
{
	struct bio *clone = bio_alloc_bioset(pass->map->bdevs[dev], 0,
					     REQ_OP_WRITE | REQ_PREFLUSH |
					     REQ_SYNC, pdm_pass_gfp(pass),
					     &pass->pd->bs);

	return pdm_issue(pass, clone, dev);
}

/* A clone of @sectors of the top bio from @skip on, at @lsec of @dev. */
static bool pdm_issue_data(struct pdm_pass *pass, u32 dev, unsigned int skip,
			   unsigned int sectors, sector_t lsec)
{
	struct bio *top = pass->top;
	/*
	 * Cloned onto no device, then pointed at the lower one and given
	 * the top bio's cgroup once: bio_alloc_clone() onto the lower
	 * device would associate the clone twice, with the allocating
	 * task's cgroup and then with the top bio's.
	 */
	struct bio *clone = bio_alloc_clone(NULL, top, pdm_pass_gfp(pass),
					    &pass->pd->bs);

	if (clone) {
		clone->bi_bdev = pass->map->bdevs[dev];
		if (top->bi_blkg)
			bio_clone_blkg_association(clone, top);
		else
			bio_associate_blkg(clone);
		bio_trim(clone, skip, sectors);
		clone->bi_iter.bi_sector = lsec;
		/* As dm does: blktrace sees where the clone came from. */
		trace_block_bio_remap(clone, disk_devt(pass->pd->disk),
				      top->bi_iter.bi_sector + skip);
		/*
		 * REQ_DRV is our publish marker.  A PREFLUSH left on a data
		 * clone is meant: only a map over one device maps a
		 * PREFLUSH+data bio in one pass (see pdm_send_flushes()).
		 */
		clone->bi_opf &= ~REQ_DRV;
	}
	return pdm_issue(pass, clone, dev);
}

/*
 * Locate @sector: the lower device (its index in map->bdevs[]) and sector,
 * and sectors left in reach.  Returns 0, PDM_LOCATE_ZEROES, or the
 * negative errno I/O to those sectors ends with (@dev and @lsec unset in
 * both cases).
 */
static int pdm_locate(const struct pdm_map *map, sector_t sector, u32 *dev,
		      sector_t *lsec, unsigned int *reach)
{
	const struct pdm_seg_spec *seg =
		&map->spec.segs[pdm_table_find(&map->spec, sector)];
	u64 leg_sector, left;
	u32 leg;
	int ret;

	ret = INDIRECT_CALL_2(seg->type->locate, pdm_linear_locate,
			      pdm_striped_locate, seg, sector - seg->start,
			      &leg, &leg_sector, &left);
	*reach = min_t(u64, left, UINT_MAX >> SECTOR_SHIFT);
	if (unlikely(ret))
		return ret;
	*dev = seg->legs[leg].dev_idx;
	*lsec = seg->legs[leg].offset + leg_sector;
	return 0;
}

/*
 * A range that a target serves without a device (PDM_LOCATE_ZEROES):
 * reads of it return zeroes, anything else is done by dropping it.
 */
static void pdm_serve_zeroes(struct bio *top, unsigned int done,
			     unsigned int sectors)
{
	struct bvec_iter range = top->bi_iter, iter;
	struct bio_vec bv;

	if (bio_op(top) != REQ_OP_READ)
		return;
	bio_advance_iter(top, &range, done << SECTOR_SHIFT);
	range.bi_size = sectors << SECTOR_SHIFT;
	__bio_for_each_segment(bv, top, iter, range)
		memzero_bvec(&bv);
}

/*
 * The flushes of a PREFLUSH top bio: an empty flush to every lower device,
 * unless there is one device and data, whose clones then carry the
 * PREFLUSH (see pdm_issue()), or no device at all (a table of targets
 * without devices).  Returns BLK_STS_RESOURCE if out of memory.
 */
static blk_status_t pdm_send_flushes(struct pdm_pass *pass)
{
	const struct pdm_map *map = pass->map;
	struct bio *top = pass->top;
	bool data = bio_sectors(top);
	u32 i;

	/*
	 * With data, the top bio completes from a lower completion or
	 * pdm_requeue_work(), never from a poll: the data waits for the
	 * flush, and a polled clone parked behind a lower flush has no
	 * cookie to poll it by.
	 */
	if (data)
		bio_clear_polled(top);
	if (data && map->nr_bdevs <= 1)
		return BLK_STS_OK;
	for (i = 0; i < map->nr_bdevs; i++)
		if (!pdm_issue_flush(pass, i))
			return BLK_STS_RESOURCE;
	/*
	 * The data goes when the flushes have completed: the submitter's
	 * reference keeps them from completing the io before this is set.
	 */
	if (data)
		pass->io->then_data = true;
	return BLK_STS_OK;
}

/*
 * The data of @top: a clone per lower range, or in direct mode @top
 * itself if it fits one range (then *@remapped, and @top is gone).  A
 * range whose target fails I/O gets no clone: the top bio ends with the
 * target's status, after the clones of its other ranges.  A range a
 * target serves without a device gets none either.  Returns
 * BLK_STS_RESOURCE if out of memory.
 */
static blk_status_t pdm_send_data(struct pdm_pass *pass, bool *remapped)
{
	struct pdm_dev *pd = pass->pd;
	struct bio *top = pass->top;
	unsigned int done = 0, left = bio_sectors(top);
	sector_t sector = top->bi_iter.bi_sector;
	/* A flush goes to every device: never one range. */
	bool remap = pdm_want_remap(pd, top) && !(top->bi_opf & REQ_PREFLUSH);
	blk_status_t status = BLK_STS_OK;

	while (left) {
		struct block_device *bdev;
		unsigned int reach;
		sector_t lsec;
		u32 dev;
		int ret;

		ret = pdm_locate(pass->map, sector, &dev, &lsec, &reach);
		reach = min(reach, left);
		if (unlikely(ret == PDM_LOCATE_ZEROES)) {
			pdm_serve_zeroes(top, done, reach);
		} else if (unlikely(ret)) {
			status = errno_to_blk_status(ret);
		} else {
			bdev = pass->map->bdevs[dev];
			reach = pdm_fit(top, done, reach, lsec, bdev);
			if (remap && reach == left &&
			    pdm_remap(pd, top, bdev, lsec, pass->acct)) {
				*remapped = true;
				return BLK_STS_OK;
			}
			if (!pdm_issue_data(pass, dev, done, reach, lsec))
				return BLK_STS_RESOURCE;
		}
		remap = false;
		sector += reach;
		done += reach;
		left -= reach;
	}
	return status;
}

/*
 * Issue the clones a NOWAIT pass held back and let the submitter's
 * reference on its io go; or, if the pass issued nothing, end the top
 * bio with @status.
 */
static void pdm_send_finish(struct pdm_pass *pass, blk_status_t status)
{
	struct pdm_dev *pd = pass->pd;
	struct bio *top = pass->top;
	struct pdm_io *io = pass->io;
	struct bio *clone;

	if (status == BLK_STS_RESOURCE && (top->bi_opf & REQ_NOWAIT)) {
		/*
		 * A NOWAIT pass short of memory has issued none of its
		 * clones: its submitter retries in full, blocking.
		 */
		this_cpu_inc(pd->stats->nowait_again);
		status = BLK_STS_AGAIN;
		if (io)
			pdm_io_free_held(io, &pass->held);
		io = NULL;
	}
	if (!io) {
		/* Nothing issued: an empty flush needs no clone either. */
		top->bi_status = status;
		pdm_end_top(pd, top, pass->acct);
		return;
	}
	while ((clone = bio_list_pop(&pass->held))) {
		this_cpu_inc(pd->stats->clones);
		submit_bio_noacct(clone);
	}
	if (status)
		io->status = status;
	if (top->bi_opf & REQ_POLLED)
		pdm_io_publish(io);
	else
		pdm_io_put(io);
}

/*
 * Send @top: its flushes, its data mapped onto clones, and what is left
 * to do once they are issued.  pdm_start_top() without the counters; also
 * the second pass of a PREFLUSH+data bio and of a requeued one, with the
 * statistics @acct of the first.  The caller's reference on pd->active
 * goes with @top.
 */
static void pdm_send_top(struct pdm_dev *pd, struct bio *top,
			 const struct pdm_acct *acct)
{
	struct pdm_pass pass = {
		.pd = pd,
		/* Stable while we hold pd->active: see struct pdm_dev. */
		.map = READ_ONCE(pd->map),
		.top = top,
		.acct = acct,
		.held = BIO_EMPTY_LIST,
	};
	blk_status_t status = BLK_STS_OK;
	bool remapped = false;

	/* No map: being removed, or deferred across a shrinking reload. */
	if (unlikely(!pass.map || bio_end_sector(top) > pass.map->spec.sectors))
		status = BLK_STS_IOERR;
	else if (top->bi_opf & REQ_PREFLUSH)
		status = pdm_send_flushes(&pass);
	if (!status && !(pass.io && pass.io->then_data))
		status = pdm_send_data(&pass, &remapped);
	if (!remapped)
		pdm_send_finish(&pass, status);
}

/*
 * Count a new top bio and send it.  The caller holds a reference on
 * pd->active, which completing the top bio drops.
 */
static void pdm_start_top(struct pdm_dev *pd, struct bio *top)
{
	struct pdm_acct acct;

	this_cpu_inc(pd->stats->bios);
	if (top->bi_opf & REQ_POLLED)
		this_cpu_inc(pd->stats->polled_bios);
	pdm_acct_start(pd->disk, top, &acct);
	pdm_send_top(pd, top, &acct);
}

/**
 * pdm_requeue_work() - map requeued top bios again
 * @work: the device's requeue_work
 *
 * The data of PREFLUSH+data bios whose flushes all completed without
 * error (their REQ_PREFLUSH cleared), and REQ_NOWAIT bios whose clones met
 * EAGAIN below (their REQ_NOWAIT cleared, REQ_PREFLUSH kept: the flushes
 * are redone before the data).  Each still holds
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
	struct bio *first;

	spin_lock_irq(&pd->requeue_lock);
	list = pd->requeue;
	bio_list_init(&pd->requeue);
	spin_unlock_irq(&pd->requeue_lock);

	blk_start_plug(&plug);
	while ((first = bio_list_pop(&list))) {
		struct pdm_acct acct;
		struct bio *top = pdm_io_requeued(first, &acct);

		/*
		 * This worker may wait for memory and tags: an EAGAIN here
		 * would reach a submitter that can no longer take it.
		 */
		top->bi_opf &= ~REQ_NOWAIT;
		top->bi_status = BLK_STS_OK;
		pdm_send_top(pd, top, &acct);
	}
	blk_finish_plug(&plug);
}

/*
 * Hold back a bio while the device is suspended.  Returns true if the bio
 * was taken, false if the device was resumed meanwhile and the caller
 * should try to enter again.
 *
 * As dm does, a suspend holds back only bios that their submitters wait
 * for: a REQ_NOWAIT bio goes back at once with EAGAIN (io_uring issues it
 * again from a worker, blocking, and that one is held), and a readahead
 * bio fails (the page cache reads what it then needs without it).  Their
 * statistics have not started, so neither counts.
 */
static bool pdm_defer(struct pdm_dev *pd, struct bio *bio)
{
	bool suspended;

	spin_lock(&pd->defer_lock);
	suspended = pd->suspended;
	if (suspended && !(bio->bi_opf & (REQ_NOWAIT | REQ_RAHEAD))) {
		bio_list_add(&pd->deferred, bio);
		this_cpu_inc(pd->stats->deferred);
		spin_unlock(&pd->defer_lock);
		return true;
	}
	spin_unlock(&pd->defer_lock);
	if (!suspended)
		return false;
	if (bio->bi_opf & REQ_NOWAIT) {
		this_cpu_inc(pd->stats->eagain_returned);
		bio_wouldblock_error(bio);
	} else {
		bio_io_error(bio);
	}
	return true;
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
