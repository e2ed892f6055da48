// SPDX-License-Identifier: GPL-2.0
/*
 * blkfast-stalewalk: test-only, never installed.  Holds a pdm poll_bio on
 * a stale top bio in its window while the bio ends and is reused for an
 * unpolled read of the same device.
 *
 * io_uring may call poll_bio on a top bio that has just ended and been
 * reused.  pdm_io_walk() takes a reference on the pdm_io that the bio's
 * publish marker led it to, and only then trusts it, if it is published
 * and still that bio's.  The io may by then be a new one of the same bio,
 * unpolled, whose clones end without a poll: a walker that keeps it ends
 * the bio when it drops its reference, while a clone is still in flight.
 * The window, between the marker and the reference, is a few
 * instructions; a kprobe on pdm_io_tryget() holds it open.  One round:
 *
 *   1. A, on CPU 0, submits bio B, a polled 4k read of sector 0 of "dev",
 *      a pdm device; pdm publishes it.
 *   2. W, a work item on CPU 1, calls bio_poll(B) once; the probe holds it
 *      at pdm_io_tryget(), before its reference, at most 1 s.
 *   3. A polls B to its end and submits it again, unpolled.  Its new
 *      pdm_io usually takes the memory the old one just gave back (the
 *      same CPU, the same slab cache).
 *   4. W goes on; A waits for B and times it.
 *
 * The lower device completes unpolled reads after a fixed delay (null_blk
 * irqmode=2 completion_nsec); one that ends in less than "min_us" ended
 * before its clone did.
 *
 *   rounds  write N: N rounds; a lost bio stops them (ETIMEDOUT)
 *   result  "rounds N held N recycled N early N errors N kfence N":
 *           rounds run; in how many W was held; in how many W's io had
 *           become B's new, unpublished one (what the test is for);
 *           unpolled reads that ended too soon; reads that failed; held
 *           ios that KFENCE had placed (it frees them after a grace
 *           period, so they are not recycled at once: the test boots
 *           with KFENCE off)
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/completion.h>
#include <linux/kfence.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>
#include <blkfast/kcompat.h>

#include "pdm.h"

static char *dev = "/dev/pdm0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "The pdm device to read");

static unsigned int min_us = 10000;
module_param(min_us, uint, 0444);
MODULE_PARM_DESC(min_us, "The least time an unpolled read of dev takes");

#define STALE_WAIT_NS	NSEC_PER_SEC

static DEFINE_MUTEX(stale_mutex);	/* one "rounds" write at a time */

/* The rounds' state; stale_mutex, and A's and W's hand-offs. */
static struct {
	struct block_device *bdev;
	void *bdev_handle;		/* kcompat.h */
	struct page *page;
	struct bio bio;			/* B */
	struct bio_vec bvec;
	struct completion done;		/* B ended */
	u64 start_ns, end_ns;
	struct work_struct w_work;
	struct completion w_done;	/* W's bio_poll() returned */
	struct task_struct *w_task;	/* the probe holds this task only */
	bool held;			/* W is in the probe */
	bool release;			/* W may go on */
	unsigned long rounds, held_rounds, recycled, early, errors, kfence;
} sw;

static int stale_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct pdm_io *io = (struct pdm_io *)regs_get_kernel_argument(regs, 0);
	u64 end = ktime_get_ns() + STALE_WAIT_NS;

	if (current != READ_ONCE(sw.w_task))
		return 0;
	WRITE_ONCE(sw.held, true);
	/* KFENCE frees a SLAB_TYPESAFE_BY_RCU object after a grace period. */
	if (is_kfence_address(io))
		sw.kfence++;
	while (!READ_ONCE(sw.release) && ktime_get_ns() < end)
		cpu_relax();
	/* The bio slab is SLAB_TYPESAFE_BY_RCU: @io is some pdm_io still. */
	if (READ_ONCE(io->magic) == PDM_IO_MAGIC &&
	    READ_ONCE(io->top) == &sw.bio && !READ_ONCE(io->published))
		sw.recycled++;
	return 0;
}

static struct kprobe stale_probe = {
	.symbol_name = "pdm_io_tryget",
	.pre_handler = stale_pre,
};

static void stale_w_fn(struct work_struct *work)
{
	WRITE_ONCE(sw.w_task, current);
	bio_poll(&sw.bio, NULL, 0);
	WRITE_ONCE(sw.w_task, NULL);
	complete(&sw.w_done);
}

static void stale_end_io(struct bio *bio)
{
	WRITE_ONCE(sw.end_ns, ktime_get_ns());
	complete(&sw.done);
}

static void stale_submit(blk_opf_t flags)
{
	reinit_completion(&sw.done);
	bio_init(&sw.bio, sw.bdev, &sw.bvec, 1, REQ_OP_READ | REQ_SYNC | flags);
	sw.bio.bi_iter.bi_sector = 0;
	sw.bio.bi_end_io = stale_end_io;
	__bio_add_page(&sw.bio, sw.page, PAGE_SIZE, 0);
	sw.start_ns = ktime_get_ns();
	submit_bio(&sw.bio);
}

/* Wait for B; 0 if it ended (counted), -ETIMEDOUT if it is lost to us. */
static int stale_wait(bool polled)
{
	u64 end = ktime_get_ns() + STALE_WAIT_NS;

	while (polled && !completion_done(&sw.done) && ktime_get_ns() < end) {
		bio_poll(&sw.bio, NULL, 0);
		cond_resched();
	}
	if (!wait_for_completion_timeout(&sw.done, 5 * HZ))
		return -ETIMEDOUT;
	if (sw.bio.bi_status)
		sw.errors++;
	bio_uninit(&sw.bio);
	return 0;
}

/* One round, run by A on CPU 0. */
static int stale_round(void)
{
	u64 end = ktime_get_ns() + STALE_WAIT_NS;
	int ret;

	WRITE_ONCE(sw.held, false);
	WRITE_ONCE(sw.release, false);
	reinit_completion(&sw.w_done);
	stale_submit(REQ_POLLED);
	queue_work_on(1, system_highpri_wq, &sw.w_work);
	while (!READ_ONCE(sw.held) && ktime_get_ns() < end)
		cpu_relax();
	sw.held_rounds += READ_ONCE(sw.held);
	ret = stale_wait(true);
	if (!ret) {
		stale_submit(0);
		WRITE_ONCE(sw.release, true);
		ret = stale_wait(false);
		if (!ret &&
		    sw.end_ns - sw.start_ns < (u64)min_us * NSEC_PER_USEC)
			sw.early++;
	}
	WRITE_ONCE(sw.release, true);
	if (!wait_for_completion_timeout(&sw.w_done, 5 * HZ))
		ret = -ETIMEDOUT;
	sw.rounds++;
	return ret;
}

static long stale_rounds(void *arg)
{
	unsigned int n = *(unsigned int *)arg, i;
	int ret = 0;

	for (i = 0; i < n && !ret; i++)
		ret = stale_round();
	return ret;
}

static int stale_rounds_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	long ret;

	ret = kstrtouint(val, 0, &n);
	if (ret)
		return ret;
	if (num_online_cpus() < 2 || !cpu_online(0) || !cpu_online(1))
		return -ENODEV;
	mutex_lock(&stale_mutex);
	ret = work_on_cpu(0, stale_rounds, &n);
	mutex_unlock(&stale_mutex);
	return ret;
}

static const struct kernel_param_ops stale_rounds_ops = {
	.set = stale_rounds_set,
};
module_param_cb(rounds, &stale_rounds_ops, NULL, 0200);

static int stale_result_get(char *buf, const struct kernel_param *kp)
{
	int n;

	mutex_lock(&stale_mutex);
	n = sysfs_emit(buf,
		       "rounds %lu held %lu recycled %lu early %lu errors %lu kfence %lu\n",
		       sw.rounds, sw.held_rounds, sw.recycled, sw.early,
		       sw.errors, sw.kfence);
	mutex_unlock(&stale_mutex);
	return n;
}

static const struct kernel_param_ops stale_result_ops = {
	.get = stale_result_get,
};
module_param_cb(result, &stale_result_ops, NULL, 0400);

static int __init stale_init(void)
{
	int ret;

	sw.page = alloc_page(GFP_KERNEL);
	if (!sw.page)
		return -ENOMEM;
	sw.bdev = bf_bdev_open_path(dev, false, NULL, &sw.bdev_handle);
	if (IS_ERR(sw.bdev)) {
		ret = PTR_ERR(sw.bdev);
		goto out_page;
	}
	init_completion(&sw.done);
	init_completion(&sw.w_done);
	INIT_WORK(&sw.w_work, stale_w_fn);
	ret = register_kprobe(&stale_probe);
	if (ret)
		goto out_bdev;
	return 0;
out_bdev:
	bf_bdev_close(sw.bdev, false, NULL, sw.bdev_handle);
out_page:
	__free_page(sw.page);
	return ret;
}

static void __exit stale_exit(void)
{
	unregister_kprobe(&stale_probe);
	flush_work(&sw.w_work);
	bf_bdev_close(sw.bdev, false, NULL, sw.bdev_handle);
	__free_page(sw.page);
}

module_init(stale_init);
module_exit(stale_exit);
MODULE_DESCRIPTION("blkfast test: a pdm poll held on a bio that is reused");
MODULE_LICENSE("GPL");
