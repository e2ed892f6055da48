// SPDX-License-Identifier: GPL-2.0
/*
 * blkfast-zonewin: test-only, never installed.  Ends a zoned write, whose
 * zone write lock holds back a second write to the same zone, while a
 * scheduler's idle dispatch pass is held just after it dropped its lock,
 * and asks whether the second write was dispatched by the time that
 * pass's queue run returned.
 *
 * split-deadline lets one CPU dispatch at a time (SD_DISPATCHING).  The
 * queue run that a write's completion starts (the zone unlock marks the
 * hardware queue for a restart) finds the flag set while a pass that saw
 * the zone locked still holds it, and returns; unless that pass looks
 * again when it lets go (sd_release_dispatch(): the zone_unlocks count),
 * the held-back write waits for blk-mq's rerun BLK_MQ_BUDGET_DELAY (3 ms)
 * later.  mq-deadline, the reference, has no such flag: its restart run
 * dispatches the write itself.  The window is a few instructions wide;
 * here a kprobe holds it open:
 *
 *   hold=sd_release_dispatch at=entry   split-deadline (third argument:
 *                                       the pass was idle)
 *   hold=dd_dispatch_request at=return  mq-deadline (NULL: idle)
 *
 * "entry" names the scheduler's dispatch function, whose calls by other
 * tasks show the restart run.  "dev" is a zoned disk with empty
 * sequential zones from zone "zone0" on, one per probe, that completes
 * writes some milliseconds after they reach it, on the CPU that issued
 * them (null_blk zoned=1 irqmode=2 completion_nsec=...), and has a
 * hardware queue per CPU.  One probe, run on CPU 0:
 *
 *   1. A work item on CPU 1 writes 4k at the start of the probe's zone,
 *      plugged, so that CPU 1 runs its queue and issues it: W1 holds the
 *      zone's write lock until it ends, on CPU 1.
 *   2. CPU 0 submits W2, 4k right after W1: the scheduler holds it back.
 *   3. CPU 0 runs its own hardware queue.  Its pass finds nothing it may
 *      dispatch, and is held at "hold" until W1 has ended, the restart
 *      run has entered "entry" on another CPU, and then 2 ms more (or 100
 *      ms in all).
 *   4. When that run returns: has W2 been issued (blk_mq_start_request())?
 *
 * Writing N to "probes" makes N probes; reading it gives "held" (probes
 * whose pass was held while W1 ended), "restarts" (of those, how many saw
 * the restart run enter the dispatch function in the hold), "in_run" (of
 * those held, W2 issued when the held run returned) and "errors" (writes
 * that failed).
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/workqueue.h>
#include <blkfast/kcompat.h>

#include "blkfast-probe-read.h"

static char *entry = "sd_dispatch_request";
module_param(entry, charp, 0444);
MODULE_PARM_DESC(entry, "The scheduler's dispatch function");

static char *hold = "sd_release_dispatch";
module_param(hold, charp, 0444);
MODULE_PARM_DESC(hold, "Where an idle pass is held");

static char *at = "entry";
module_param(at, charp, 0444);
MODULE_PARM_DESC(at, "Hold at the entry (third argument true: idle) or the return (NULL: idle) of \"hold\"");

static char *dev = "/dev/nullb0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "The zoned disk to write");

static unsigned int zone0;
module_param(zone0, uint, 0444);
MODULE_PARM_DESC(zone0, "The first empty sequential zone to use");

#define ZW_HOLD_NS	(100 * NSEC_PER_MSEC)
#define ZW_AFTER_NS	(2 * NSEC_PER_MSEC)

/* One of the two writes of a probe. */
struct zw_write {
	struct bio bio;
	struct bio_vec bvec;
	struct completion done;
	bool ended;
};

static DEFINE_MUTEX(zw_mutex);		/* one "probes" write at a time */

/* The probes' state: zw_mutex, and the hand-offs between CPUs below. */
static struct {
	struct block_device *bdev;
	void *bdev_handle;		/* kcompat.h */
	struct request_queue *q;
	struct page *page;
	struct zw_write w1, w2;
	struct work_struct w1_work;
	struct completion w1_submitted;
	struct task_struct *runner;	/* the held run's task */
	bool armed;			/* hold the runner's next idle pass */
	bool held;			/* ... it was held while W1 ended */
	bool restarted;			/* ... and another run came in */
	atomic_t issued;		/* writes to the disk issued */
	unsigned long nr_held, nr_restarts, nr_in_run, errors;
} zw;

static struct probe_at zw_at;
static struct kprobe zw_entry_kp;
static struct kprobe zw_issue_kp;

static void zw_end_io(struct bio *bio)
{
	struct zw_write *w = container_of(bio, struct zw_write, bio);

	WRITE_ONCE(w->ended, true);
	complete(&w->done);
}

static void zw_submit(struct zw_write *w, sector_t sector)
{
	reinit_completion(&w->done);
	w->ended = false;
	bio_init(&w->bio, zw.bdev, &w->bvec, 1, REQ_OP_WRITE | REQ_SYNC);
	w->bio.bi_iter.bi_sector = sector;
	w->bio.bi_end_io = zw_end_io;
	__bio_add_page(&w->bio, zw.page, PAGE_SIZE, 0);
	submit_bio(&w->bio);
}

static sector_t zw_sector;		/* W1's, for zw_w1_fn() */

/* On CPU 1: W1, plugged, so that this CPU issues it. */
static void zw_w1_fn(struct work_struct *work)
{
	struct blk_plug plug;

	blk_start_plug(&plug);
	zw_submit(&zw.w1, zw_sector);
	blk_finish_plug(&plug);
	complete(&zw.w1_submitted);
}

static bool zw_w1_ended(void)
{
	return READ_ONCE(zw.w1.ended);
}

/* zw_entry_pre() saw the completion's restart run. */
static bool zw_restarted(void)
{
	return READ_ONCE(zw.restarted);
}

static bool zw_w2_issued(void)
{
	return atomic_read(&zw.issued) == 2;
}

/* Spin until @cond() or @end; true if @cond() came. */
static bool zw_spin_until(bool (*cond)(void), u64 end)
{
	while (!cond() && ktime_get_ns() < end)
		cpu_relax();
	return cond();
}

/* In the held pass (interrupts off, in a kprobe): wait for W1's end. */
static void zw_hold(void)
{
	u64 end = ktime_get_ns() + ZW_HOLD_NS;

	if (!READ_ONCE(zw.armed) || current != zw.runner)
		return;
	WRITE_ONCE(zw.armed, false);
	if (zw_w1_ended())
		return;			/* W1 ended before the pass: not held */
	if (!zw_spin_until(zw_w1_ended, end))
		return;
	zw.held = true;
	zw_spin_until(zw_restarted, end);
	zw_spin_until(zw_w2_issued, min(ktime_get_ns() + ZW_AFTER_NS, end));
}

/* Another task's run entered the dispatch function after W1 ended. */
static int zw_entry_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if (current != READ_ONCE(zw.runner) && READ_ONCE(zw.w1.ended))
		WRITE_ONCE(zw.restarted, true);
	return 0;
}

static int zw_issue_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct request *rq = (struct request *)regs_get_kernel_argument(regs, 0);

	if (rq->q == zw.q && req_op(rq) == REQ_OP_WRITE)
		atomic_inc(&zw.issued);
	return 0;
}

/* This CPU's default hardware queue: a synchronous run stays here. */
static struct blk_mq_hw_ctx *zw_this_hctx(void)
{
	struct blk_mq_hw_ctx *hctx;
	unsigned long i;

	queue_for_each_hw_ctx(zw.q, hctx, i)
		if (hctx->type == HCTX_TYPE_DEFAULT &&
		    cpumask_test_cpu(smp_processor_id(), hctx->cpumask))
			return hctx;
	return NULL;
}

static int zw_wait(struct zw_write *w)
{
	if (!wait_for_completion_timeout(&w->done, 10 * HZ))
		return -ETIMEDOUT;	/* the bio is lost to us: stop */
	if (w->bio.bi_status)
		zw.errors++;
	bio_uninit(&w->bio);
	return 0;
}

/* One probe, on CPU 0 (work_on_cpu()). */
static long zw_probe(void *arg)
{
	unsigned int i = *(unsigned int *)arg;
	struct blk_mq_hw_ctx *hctx = zw_this_hctx();
	sector_t zone = bdev_zone_sectors(zw.bdev);
	bool in_run;
	int ret, tries;

	if (!hctx)
		return -ENODEV;
	zw_sector = (sector_t)(zone0 + i) * zone;
	if (zw_sector + zone > bdev_nr_sectors(zw.bdev))
		return -ENOSPC;
	atomic_set(&zw.issued, 0);
	zw.held = false;
	WRITE_ONCE(zw.restarted, false);
	WRITE_ONCE(zw.runner, current);
	reinit_completion(&zw.w1_submitted);
	queue_work_on(1, system_highpri_wq, &zw.w1_work);
	wait_for_completion(&zw.w1_submitted);
	/* W1 first: else the pass may dispatch it, and nothing is held. */
	for (tries = 0; !atomic_read(&zw.issued) && tries < 1000; tries++)
		usleep_range(1000, 1100);
	zw_submit(&zw.w2, zw_sector + (PAGE_SIZE >> SECTOR_SHIFT));
	WRITE_ONCE(zw.armed, true);
	blk_mq_run_hw_queue(hctx, false);
	in_run = atomic_read(&zw.issued) == 2;
	WRITE_ONCE(zw.armed, false);
	WRITE_ONCE(zw.runner, NULL);
	if (zw.held) {
		zw.nr_held++;
		zw.nr_restarts += zw.restarted;
		zw.nr_in_run += in_run;
	}
	ret = zw_wait(&zw.w1);
	return ret ?: zw_wait(&zw.w2);
}

static int zw_probe_one(unsigned int i)
{
	return work_on_cpu(0, zw_probe, &i);
}

static int zw_set_probes(const char *val, const struct kernel_param *kp)
{
	if (num_online_cpus() < 2 || !cpu_online(0) || !cpu_online(1))
		return -ENODEV;
	return probe_read_loop(val, &zw_mutex, zw_probe_one);
}

static int zw_get_stats(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "held %lu restarts %lu in_run %lu errors %lu\n",
			  zw.nr_held, zw.nr_restarts, zw.nr_in_run, zw.errors);
}

static const struct kernel_param_ops zw_probes_ops = {
	.set	= zw_set_probes,
	.get	= zw_get_stats,
};
module_param_cb(probes, &zw_probes_ops, NULL, 0600);
MODULE_PARM_DESC(probes, "Write N: N probes; read: held, restarts, in_run, errors");

static int __init zw_init(void)
{
	int ret;

	zw.page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!zw.page)
		return -ENOMEM;
	zw.bdev = bf_bdev_open_path(dev, true, NULL, &zw.bdev_handle);
	if (IS_ERR(zw.bdev)) {
		ret = PTR_ERR(zw.bdev);
		goto out_page;
	}
	ret = -EINVAL;
	if (!bdev_is_zoned(zw.bdev))
		goto out_bdev;
	zw.q = bdev_get_queue(zw.bdev);
	init_completion(&zw.w1.done);
	init_completion(&zw.w2.done);
	init_completion(&zw.w1_submitted);
	INIT_WORK(&zw.w1_work, zw_w1_fn);
	zw_issue_kp.symbol_name = "blk_mq_start_request";
	zw_issue_kp.pre_handler = zw_issue_pre;
	ret = register_kprobe(&zw_issue_kp);
	if (ret)
		goto out_bdev;
	zw_entry_kp.symbol_name = entry;
	zw_entry_kp.pre_handler = zw_entry_pre;
	ret = register_kprobe(&zw_entry_kp);
	if (ret)
		goto out_issue;
	ret = probe_at_register_idle(&zw_at, hold, at, zw_hold);
	if (ret)
		goto out_entry;
	return 0;
out_entry:
	unregister_kprobe(&zw_entry_kp);
out_issue:
	unregister_kprobe(&zw_issue_kp);
out_bdev:
	pr_err("blkfast-zonewin: cannot set up on %s: %d\n", dev, ret);
	bf_bdev_close(zw.bdev, true, NULL, zw.bdev_handle);
out_page:
	__free_page(zw.page);
	return ret;
}

static void __exit zw_exit(void)
{
	probe_at_unregister(&zw_at);
	unregister_kprobe(&zw_entry_kp);
	unregister_kprobe(&zw_issue_kp);
	flush_work(&zw.w1_work);
	bf_bdev_close(zw.bdev, true, NULL, zw.bdev_handle);
	__free_page(zw.page);
}

module_init(zw_init);
module_exit(zw_exit);
MODULE_DESCRIPTION("blkfast test: a zone write unlock in a dispatcher's window");
MODULE_LICENSE("GPL");
