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
#include <linux/blk-mq.h>
#include <linux/module.h>
#include <linux/workqueue.h>

#include "blkfast-probe-read.h"

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

static struct probe_read window_read;
static DEFINE_MUTEX(window_mutex);	/* one "probes" write at a time */

/* One probe in flight at a time; window_mutex. */
static struct work_struct window_work;
static bool window_armed;		/* the next idle pass is held */
static struct task_struct *window_runner;	/* ... in this task's run */
static bool window_submitted;		/* the probe's submit_bio returned */
static bool window_held;		/* ... while the pass was held */

static unsigned long window_in_window;
static unsigned long window_in_run;

/* On the other CPU: submit the probe read, running the queue here. */
static void window_submit(struct work_struct *work)
{
	probe_read_submit(&window_read);
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

static struct probe_at window_at;

static int window_probe_one(unsigned int i)
{
	struct request_queue *q = bdev_get_queue(window_read.bdev);
	bool done = false;
	int tries;

	probe_read_prepare(&window_read, i);
	window_submitted = false;
	window_held = false;
	window_runner = current;
	/*
	 * Another CPU's run (the rerun a skipped run asked for) may hold the
	 * dispatching flag, so that this run makes no pass: try again.
	 */
	for (tries = 0; tries < 20; tries++) {
		WRITE_ONCE(window_armed, true);
		blk_mq_run_hw_queues(q, false);
		if (!READ_ONCE(window_armed)) {
			done = completion_done(&window_read.done);
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
	return probe_read_finish(&window_read);
}

static int window_set_probes(const char *val, const struct kernel_param *kp)
{
	/* Each write's probes wait out the rerun a skipped run asked for. */
	return probe_read_loop(val, &window_mutex, window_probe_one);
}

static int window_get_stats(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "in_window %lu in_run %lu slow %lu max_us %llu\n",
			  window_in_window, window_in_run, window_read.slow,
			  window_read.max_ns / NSEC_PER_USEC);
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

	ret = probe_read_open(&window_read, dev);
	if (ret)
		return ret;
	INIT_WORK(&window_work, window_submit);
	ret = probe_at_register_idle(&window_at, symbol, at, window_hold);
	if (ret) {
		pr_err("blkfast-window: cannot probe %s at %s: %d\n", symbol,
		       at, ret);
		probe_read_close(&window_read);
	}
	return ret;
}

static void __exit window_exit(void)
{
	probe_at_unregister(&window_at);
	flush_work(&window_work);
	probe_read_close(&window_read);
}

module_init(window_init);
module_exit(window_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("blkfast test: a request put into a dispatcher's window");
