// SPDX-License-Identifier: GPL-2.0
/*
 * pdm's direct mode: a top bio that fits one lower range is sent down
 * itself, pointed at the lower device, instead of as a clone (see
 * pdm_remap()).  Its pdm_remap, which holds what the bio is given back
 * with, comes from a short per-CPU free list before the device's pool.
 */
#include <linux/blkdev.h>
#include <linux/mempool.h>
#include <linux/percpu.h>
#include <trace/events/block.h>

#include "pdm.h"

struct kmem_cache *pdm_remap_cache;

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

	/*
	 * The pool's reserve first.  A GFP_NOIO allocation that finds the
	 * slab failing takes a reserved element, and once the reserve is
	 * empty it sleeps until a free refills it: parked on a CPU's list,
	 * the elements freed would leave it sleeping, 5 s at a time, on the
	 * path that carries writeback.  (mempool_free() reads curr_nr
	 * unlocked as well, and rechecks under its lock.)
	 */
	if (unlikely(READ_ONCE(pd->remap_pool.curr_nr) <
		     pd->remap_pool.min_nr)) {
		mempool_free(rm, &pd->remap_pool);
		return;
	}
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
	struct pdm_acct acct;

	/* As for a clone: still REQ_POLLED means a poll completed it. */
	if (bio->bi_opf & REQ_POLLED)
		this_cpu_inc(pd->stats->completions_found);
	bio->bi_bdev = rm->bdev;
	bio->bi_end_io = rm->end_io;
	bio->bi_private = rm->private;
	/* The lower queue's rq_qos saw its end; pdm's queue has none. */
	bio_clear_flag(bio, BIO_QOS_THROTTLED);
	bio_clear_flag(bio, BIO_QOS_MERGED);
	acct = rm->acct;
	pdm_remap_free(pd, rm);
	pdm_end_top(pd, bio, &acct);
}

/**
 * pdm_remap() - send a top bio that fits one lower range down as it is
 * @pd:   the device; the caller's reference on pd->active goes with the bio
 * @top:  the bio, which pdm_fit() took whole
 * @bdev: the lower device
 * @lsec: the lower sector
 * @acct: the bio's statistics, ended when it completes
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
bool pdm_remap(struct pdm_dev *pd, struct bio *top, struct block_device *bdev,
	       sector_t lsec, const struct pdm_acct *acct)
{
	gfp_t gfp = top->bi_opf & REQ_NOWAIT ? GFP_NOWAIT : GFP_NOIO;
	struct pdm_remap *rm = pdm_remap_alloc(pd, gfp);
	sector_t from;

	if (!rm)
		return false;
	rm->pd = pd;
	rm->bdev = top->bi_bdev;
	rm->end_io = top->bi_end_io;
	rm->private = top->bi_private;
	rm->acct = *acct;
	top->bi_end_io = pdm_remap_endio;
	top->bi_private = rm;
	from = top->bi_iter.bi_sector;
	bio_set_dev(top, bdev);
	top->bi_iter.bi_sector = lsec;
	if (!bdev_nowait(bdev))
		top->bi_opf &= ~REQ_NOWAIT;
	/*
	 * To the lower disk the bio is new, as a clone would be: its
	 * cgroup's io.stat counts its bytes there only without the flag
	 * its pass through pdm set, and blktrace sees where it came from.
	 */
	bio_clear_flag(top, BIO_CGROUP_ACCT);
	trace_block_bio_remap(top, disk_devt(pd->disk), from);
	this_cpu_inc(pd->stats->remapped);
	submit_bio_noacct(top);
	return true;
}
