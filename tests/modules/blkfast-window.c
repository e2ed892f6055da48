// SPDX-License-Identifier: GPL-2.0
/*
 * blkfast-window: test-only, never installed.  Puts a request into the
 * window after a scheduler's dispatcher has dropped its lock on a pass
 * that found nothing, and times it.
 *
 * split-deadline lets one CPU dispatch at a time: a request inserted after
 * an idle pass dropped the dispatch lock, but before it dropped its
 * SD_DISPATCHING flag, has its own queue run skipped, and unless the
 * dispatcher looks again it waits for blk-mq's rerun BLK_MQ_BUDGET_DELAY
 * (3 ms) later.  That window is a few instructions wide; here a kprobe
 * holds it open:
 *
 *   symbol=sd_release_dispatch at=entry   split-deadline (its third
 *                                         argument says the pass was idle)
 *   symbol=dd_dispatch_request at=return  mq-deadline, the reference (a
 *                                         NULL return: idle)
 *
 * Writing N to "probes" makes N probes, one after the other, on the disk
 * "dev", whose scheduler must hold a request it will not dispatch (so that
 * every queue run ends in an idle pass; the test arranges it).  A probe runs
 * the hardware queues on this CPU; the idle pass stops in the probe handler,
 * which has a work item on another CPU submit a plugged 4k RT read (the
 * plug makes the submitter run the queue itself) and waits, at most 50 ms,
 * until that submission returned.  Then the pass goes on and the read is
 * timed to its end.  Only the probe's own queue run is held, so that what
 * happens to the read is decided in that run: a dispatcher that looks
 * again after the window dispatches it (requeue0 completes it inline)
 * before the run returns; one that does not leaves it for blk-mq's rerun.
 * "in_window" reads how many reads were submitted while a pass was held,
 * "in_run" how many of those had completed when the held run returned,
 * "slow" how many took 2 ms or more, "max_us" the longest.
 */
#include <linux/bio.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/ioprio.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>

static char *symbol = "sd_release_dispatch";
module_param(symbol, charp, 0444);
MODULE_PARM_DESC(symbol, "The scheduler function to hold");

static char *at = "entry";
module_param(at, charp, 0444);
MODULE_PARM_DESC(at, "entry (the third argument true: idle) or return (NULL: idle)");

static char *dev = "/dev/nullb0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "The disk to probe");

#define WINDOW_HOLD_NS	(50 * NSEC_PER_MSEC)
#define WINDOW_SLOW_NS	(2 * NSEC_PER_MSEC)

static struct block_device *window_bdev;
static struct page *window_page;
static DEFINE_MUTEX(window_mutex);	/* one "probes" write at a time */

/* One probe in flight at a time; window_mutex. */
static struct work_struct window_work;
static struct completion window_done;
static bool window_armed;		/* the next idle pass is held */
static struct task_struct *window_runner;	/* ... in this task's run */
static bool window_submitted;		/* the probe's submit_bio returned */
static bool window_held;		/* ... while the pass was held */
static u64 window_start_ns;
static u64 window_end_ns;
static sector_t window_sector;

static unsigned long window_in_window;
static unsigned long window_in_run;
static unsigned long window_slow;
static u64 window_max_ns;

static void window_end_io(struct bio *bio)
{
	WRITE_ONCE(window_end_ns, ktime_get_ns());
	complete(&window_done);
}

static struct bio window_bio;
static struct bio_vec window_bvec;

/* On the other CPU: submit the probe read, running the queue here. */
static void window_submit(struct work_struct *work)
{
	struct blk_plug plug;

	bio_init(&window_bio, window_bdev, &window_bvec, 1,
		 REQ_OP_READ | REQ_SYNC);
	window_bio.bi_iter.bi_sector = window_sector;
	window_bio.bi_ioprio = IOPRIO_PRIO_VALUE(IOPRIO_CLASS_RT, 0);
	window_bio.bi_end_io = window_end_io;
	__bio_add_page(&window_bio, window_page, PAGE_SIZE, 0);
	blk_start_plug(&plug);
	window_start_ns = ktime_get_ns();
	submit_bio(&window_bio);
	blk_finish_plug(&plug);
	/* Pairs with window_hold(): the submission, then the flag. */
	smp_store_release(&window_submitted, true);
}

/* In the held pass, preemption off: the probe goes in on another CPU. */
static void window_hold(void)
{
	u64 end = ktime_get_ns() + WINDOW_HOLD_NS;
	int other;

	if (!READ_ONCE(window_armed) || current != window_runner)
		return;
	other = cpumask_any_but(cpu_online_mask, smp_processor_id());
	if (other >= nr_cpu_ids)
		return;
	WRITE_ONCE(window_armed, false);
	queue_work_on(other, system_highpri_wq, &window_work);
	/* Pairs with window_submit(). */
	while (!smp_load_acquire(&window_submitted) &&
	       ktime_get_ns() < end)
		cpu_relax();
	window_held = READ_ONCE(window_submitted);
	if (window_held)
		window_in_window++;
}

static int window_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if ((u8)regs_get_kernel_argument(regs, 2))
		window_hold();
	return 0;
}

static int window_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (!regs_return_value(regs))
		window_hold();
	return 0;
}

static struct kprobe window_kprobe = {
	.pre_handler	= window_pre,
};

static struct kretprobe window_kretprobe = {
	.handler	= window_ret,
	.maxactive	= 16,
};

static bool window_at_return;

static int window_probe_one(struct request_queue *q, unsigned int i)
{
	bool done = false;
	int tries;
	u64 ns;

	reinit_completion(&window_done);
	window_submitted = false;
	window_held = false;
	window_sector = (sector_t)(i % 1024) << (PAGE_SHIFT - SECTOR_SHIFT);
	window_runner = current;
	/*
	 * Another CPU's run (the rerun a skipped run asked for) may hold the
	 * dispatching flag, so that this run makes no pass: try again.
	 */
	for (tries = 0; tries < 20; tries++) {
		WRITE_ONCE(window_armed, true);
		blk_mq_run_hw_queues(q, false);
		if (!READ_ONCE(window_armed)) {
			done = completion_done(&window_done);
			break;
		}
		WRITE_ONCE(window_armed, false);
		usleep_range(5000, 6000);
	}
	if (tries == 20)
		return -EAGAIN;		/* no idle pass came: nothing held */
	flush_work(&window_work);
	/* Submitted in the window, and done by the end of the held run. */
	if (window_held && done)
		window_in_run++;
	if (!wait_for_completion_timeout(&window_done, 10 * HZ))
		return -ETIMEDOUT;	/* the bio is lost to us: stop */
	bio_uninit(&window_bio);
	ns = window_end_ns - window_start_ns;
	if (ns >= WINDOW_SLOW_NS)
		window_slow++;
	window_max_ns = max(window_max_ns, ns);
	return window_bio.bi_status ? -EIO : 0;
}

static int window_set_probes(const char *val, const struct kernel_param *kp)
{
	struct request_queue *q = bdev_get_queue(window_bdev);
	unsigned int n, i;
	int ret;

	ret = kstrtouint(val, 0, &n);
	if (ret)
		return ret;
	mutex_lock(&window_mutex);
	for (i = 0; i < n && !ret; i++) {
		ret = window_probe_one(q, i);
		/* Let the rerun a skipped run asked for pass. */
		usleep_range(5000, 6000);
	}
	mutex_unlock(&window_mutex);
	return ret;
}

static int window_get_stats(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "in_window %lu in_run %lu slow %lu max_us %llu\n",
			  window_in_window, window_in_run, window_slow,
			  window_max_ns / NSEC_PER_USEC);
}

static const struct kernel_param_ops window_probes_ops = {
	.set	= window_set_probes,
	.get	= window_get_stats,
};
module_param_cb(probes, &window_probes_ops, NULL, 0600);
MODULE_PARM_DESC(probes, "Write N: N probes; read: in_window, in_run, slow, max_us");

static int __init window_init(void)
{
	int ret;

	window_page = alloc_page(GFP_KERNEL);
	if (!window_page)
		return -ENOMEM;
	window_bdev = blkdev_get_by_path(dev, FMODE_READ, &window_bdev);
	if (IS_ERR(window_bdev)) {
		ret = PTR_ERR(window_bdev);
		goto free_page;
	}
	INIT_WORK(&window_work, window_submit);
	init_completion(&window_done);

	if (!strcmp(at, "return")) {
		window_at_return = true;
		window_kretprobe.kp.symbol_name = symbol;
		ret = register_kretprobe(&window_kretprobe);
	} else if (!strcmp(at, "entry")) {
		window_kprobe.symbol_name = symbol;
		ret = register_kprobe(&window_kprobe);
	} else {
		ret = -EINVAL;
	}
	if (ret) {
		pr_err("blkfast-window: cannot probe %s at %s: %d\n", symbol,
		       at, ret);
		goto put_bdev;
	}
	return 0;

put_bdev:
	blkdev_put(window_bdev, FMODE_READ);
free_page:
	__free_page(window_page);
	return ret;
}

static void __exit window_exit(void)
{
	if (window_at_return)
		unregister_kretprobe(&window_kretprobe);
	else
		unregister_kprobe(&window_kprobe);
	flush_work(&window_work);
	blkdev_put(window_bdev, FMODE_READ);
	__free_page(window_page);
}

module_init(window_init);
module_exit(window_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("blkfast test: a request put into a dispatcher's window");
