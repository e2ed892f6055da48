// SPDX-License-Identifier: GPL-2.0
/*
 * blkfast-endhold: test-only, never installed.  Submits one read to a
 * stacked device and, when the bio comes back, stays inside its end_io
 * while the test removes the device, the way a submitter that closes and
 * removes the moment it has its bio back (loop, nbd, a dm-crypt worker)
 * can find itself still inside the stacking driver's completion.
 *
 * A stacking driver must be done with the device before it ends the
 * bio: dm drops its pending count first.  One that ends the bio first
 * and drops its in-flight reference after makes a remove that waits for
 * that reference wait for the submitter's end_io, here until it gives
 * up (ENDHOLD_WAIT), and one whose remove does not wait touches freed
 * memory when the end_io returns.
 *
 * The end_io sleeps, so the lower device must complete in process
 * context where sleeping is allowed, and not inside the submission: null_blk
 * with blocking=1 under a scheduler, its queue run in a kblockd worker
 * (under SRCU, completing inline with irqmode=0) from a plug that the
 * submitter's sleep flushed.
 *
 *   submit   write a device path: open it, submit a 4k read at sector 0,
 *            close it
 *   ended    reads 1 once the bio came back (its end_io is waiting)
 *   release  write 1 (after the remove returned): the end_io returns
 *   result   "released N timeouts N errors N": how many end_io waits
 *            ended by release, how many by giving up, and bio errors
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <blkfast/kcompat.h>

#define ENDHOLD_WAIT	(5 * HZ)

static DEFINE_MUTEX(endhold_mutex);	/* one submission at a time */
static DECLARE_WAIT_QUEUE_HEAD(endhold_wq);
static struct page *endhold_page;
static struct bio endhold_bio;
static struct bio_vec endhold_bvec;
static bool endhold_busy;		/* endhold_mutex: a bio is out */
static bool endhold_ended;
static bool endhold_released;
static unsigned long endhold_nr_released;
static unsigned long endhold_nr_timeouts;
static unsigned long endhold_nr_errors;

static void endhold_end_io(struct bio *bio)
{
	might_sleep();
	if (bio->bi_status)
		endhold_nr_errors++;
	WRITE_ONCE(endhold_ended, true);
	if (wait_event_timeout(endhold_wq, READ_ONCE(endhold_released),
			       ENDHOLD_WAIT))
		endhold_nr_released++;
	else
		endhold_nr_timeouts++;
	bio_uninit(bio);
	WRITE_ONCE(endhold_busy, false);
}

static int endhold_submit(const char *val, const struct kernel_param *kp)
{
	struct block_device *bdev;
	void *handle;
	struct blk_plug plug;
	char *path;
	int ret = 0;

	path = kstrdup(val, GFP_KERNEL);
	if (!path)
		return -ENOMEM;
	strim(path);
	mutex_lock(&endhold_mutex);
	if (READ_ONCE(endhold_busy)) {
		ret = -EBUSY;
		goto out;
	}
	bdev = bf_bdev_open_path(path, false, NULL, &handle);
	if (IS_ERR(bdev)) {
		ret = PTR_ERR(bdev);
		goto out;
	}
	endhold_ended = false;
	endhold_released = false;
	endhold_busy = true;
	bio_init(&endhold_bio, bdev, &endhold_bvec, 1, REQ_OP_READ);
	endhold_bio.bi_end_io = endhold_end_io;
	__bio_add_page(&endhold_bio, endhold_page, PAGE_SIZE, 0);
	/*
	 * Sleep with a plug held: a plug flushed by the scheduler runs the
	 * lower queue in kblockd.  6.12's __submit_bio() plugs on its own
	 * and, left to flush at its blk_finish_plug(), dispatches and
	 * completes the read inside this task, with the device still open.
	 */
	blk_start_plug(&plug);
	submit_bio(&endhold_bio);
	schedule_timeout_uninterruptible(1);
	blk_finish_plug(&plug);
	/* As the submitter that closes once its bio is out. */
	bf_bdev_close(bdev, false, NULL, handle);
out:
	mutex_unlock(&endhold_mutex);
	kfree(path);
	return ret;
}

static const struct kernel_param_ops endhold_submit_ops = {
	.set	= endhold_submit,
};
module_param_cb(submit, &endhold_submit_ops, NULL, 0200);
MODULE_PARM_DESC(submit, "Write a device path: submit one read there");

static int endhold_get_ended(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(endhold_ended));
}

static const struct kernel_param_ops endhold_ended_ops = {
	.get	= endhold_get_ended,
};
module_param_cb(ended, &endhold_ended_ops, NULL, 0400);
MODULE_PARM_DESC(ended, "1 once the bio came back");

static int endhold_release(const char *val, const struct kernel_param *kp)
{
	WRITE_ONCE(endhold_released, true);
	wake_up(&endhold_wq);
	return 0;
}

static const struct kernel_param_ops endhold_release_ops = {
	.set	= endhold_release,
};
module_param_cb(release, &endhold_release_ops, NULL, 0200);
MODULE_PARM_DESC(release, "Write 1: let the end_io return");

static int endhold_get_result(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "released %lu timeouts %lu errors %lu\n",
			  endhold_nr_released, endhold_nr_timeouts,
			  endhold_nr_errors);
}

static const struct kernel_param_ops endhold_result_ops = {
	.get	= endhold_get_result,
};
module_param_cb(result, &endhold_result_ops, NULL, 0400);
MODULE_PARM_DESC(result, "released, timeouts, errors");

static int __init endhold_init(void)
{
	endhold_page = alloc_page(GFP_KERNEL);
	return endhold_page ? 0 : -ENOMEM;
}

static void __exit endhold_exit(void)
{
	/* A bio still out would end into freed code: release and wait. */
	endhold_release(NULL, NULL);
	while (READ_ONCE(endhold_busy))
		msleep(20);
	__free_page(endhold_page);
}

module_init(endhold_init);
module_exit(endhold_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("blkfast test: an end_io that outlasts the device's removal");
