// SPDX-License-Identifier: GPL-2.0
/*
 * blkfast-tick: test-only, never installed.  Inserts a request a jiffy
 * after a scheduler's dispatcher began its pass, while that dispatcher
 * waits for the lock the insert holds, and asks whether the pass, or the
 * inserting CPU's own queue run, dispatched it.
 *
 * A dispatch pass passes over requests that arrived after the time it
 * read (mq-deadline's latest_start).  mq-deadline reads jiffies before it
 * takes its lock, so a request inserted by the lock holder a tick later is
 * left by that pass; but the inserter runs the queue itself afterwards and
 * dispatches it.  Under split-deadline that inserter's run returns at once
 * while the pass holds SD_DISPATCHING, so the pass must not leave the
 * request: a pass whose time predates the request gives NULL, and the
 * request waits for blk-mq's rerun BLK_MQ_BUDGET_DELAY (3 ms) later.
 *
 * One probe: a work item on another CPU submits a plugged 4k RT read.
 * Inside the scheduler's insert, under its lock (the block_rq_insert
 * tracepoint, which both schedulers call before they stamp the request's
 * arrival), the work item lets this CPU run the queue, waits until that
 * run entered the dispatch function ("entry", a kprobe that also notes
 * jiffies) and then until jiffies moved on.  The pass's end is held
 * ("hold" at "at": entry, or return) until the submission returned, so
 * that the inserter's own queue run happens while the pass is still
 * dispatching.  When both runs have returned, the read must be done
 * (the disk, requeue0, completes inline).
 *
 * The scheduler must hold a request it will not dispatch, so that this
 * CPU's queue run finds work and enters the dispatch function (the test
 * keeps an RT read in flight and a BE read waiting).  Writing N to
 * "probes" makes N probes; reading it gives "late" (probes whose read was
 * inserted a jiffy after the pass began), "done" (of those, the reads done
 * when both runs returned), "slow" (reads of 2 ms or more) and "max_us".
 */
#include <linux/blk-mq.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/workqueue.h>
#include <trace/events/block.h>

#include "blkfast-probe-read.h"

static char *entry = "sd_dispatch_request";
module_param(entry, charp, 0444);
MODULE_PARM_DESC(entry, "The scheduler's dispatch function");

static char *hold = "sd_release_dispatch";
module_param(hold, charp, 0444);
MODULE_PARM_DESC(hold, "Where the pass ends: held until the insert returned");

static char *at = "entry";
module_param(at, charp, 0444);
MODULE_PARM_DESC(at, "Hold at the entry or the return of \"hold\"");

static char *dev = "/dev/requeue0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "The disk to probe");

#define TICK_WAIT_NS	(50 * NSEC_PER_MSEC)

static struct probe_read tick_read;
static DEFINE_MUTEX(tick_mutex);	/* one "probes" write at a time */

/* One probe at a time (tick_mutex); the flags below pass between CPUs. */
static struct work_struct tick_work;
static struct task_struct *tick_runner;	/* runs the queue */
static struct task_struct *tick_submitter;	/* inside tick_submit() */
static bool tick_armed;			/* this probe's hooks are live */
static bool tick_go;			/* the insert holds the lock: run */
static bool tick_entered;		/* the run entered the dispatch */
static unsigned long tick_entry_jiffies;
static bool tick_late;			/* inserted a jiffy after entry */
static bool tick_held;			/* the pass end was held once */
static bool tick_submitted;		/* the submission returned */

static unsigned long tick_nr_late;
static unsigned long tick_nr_done;

/* Spin until *@flag, at most TICK_WAIT_NS (in a probe: preemption off). */
static bool tick_wait_flag(bool *flag)
{
	u64 end = ktime_get_ns() + TICK_WAIT_NS;

	/* Pairs with the smp_store_release() that sets *@flag. */
	while (!smp_load_acquire(flag)) {
		if (ktime_get_ns() > end)
			return false;
		cpu_relax();
	}
	return true;
}

static void tick_submit(struct work_struct *work)
{
	WRITE_ONCE(tick_submitter, current);
	probe_read_submit(&tick_read);
	WRITE_ONCE(tick_submitter, NULL);
	/* The submission and its queue run, then the flag. */
	smp_store_release(&tick_submitted, true);
}

/* block_rq_insert, under the scheduler's lock: let the run begin. */
static void tick_insert(void *data, struct request *rq)
{
	u64 end;

	if (!READ_ONCE(tick_armed) || current != READ_ONCE(tick_submitter))
		return;
	/* Pairs with tick_probe_one(): the run may begin. */
	smp_store_release(&tick_go, true);
	if (!tick_wait_flag(&tick_entered))
		return;
	end = ktime_get_ns() + TICK_WAIT_NS;
	while (!time_after(jiffies, READ_ONCE(tick_entry_jiffies))) {
		if (ktime_get_ns() > end)
			return;
		cpu_relax();
	}
	WRITE_ONCE(tick_late, true);
}

static int tick_entry_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if (READ_ONCE(tick_armed) && current == tick_runner &&
	    !READ_ONCE(tick_entered)) {
		WRITE_ONCE(tick_entry_jiffies, jiffies);
		/* The jiffies, then the flag: see tick_insert(). */
		smp_store_release(&tick_entered, true);
	}
	return 0;
}

/* The end of the run's first pass: wait for the submission to return. */
static void tick_hold_pass(void)
{
	if (!READ_ONCE(tick_armed) || current != tick_runner || tick_held)
		return;
	tick_held = true;
	tick_wait_flag(&tick_submitted);
}

static int tick_hold_pre(struct kprobe *kp, struct pt_regs *regs)
{
	tick_hold_pass();
	return 0;
}

static int tick_hold_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	tick_hold_pass();
	return 0;
}

static struct kprobe tick_entry_kprobe = {
	.pre_handler	= tick_entry_pre,
};

static struct probe_at tick_hold_at;

static int tick_probe_one(unsigned int i)
{
	int other = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	struct request_queue *q = bdev_get_queue(tick_read.bdev);
	struct blk_mq_hw_ctx *hctx;
	unsigned long j;
	bool done;

	if (other >= nr_cpu_ids)
		return -ENODEV;
	/*
	 * The held BE read keeps blk-mq rerunning the queue every few ms
	 * (each pass over it gives NULL).  Such a rerun, queued by the tick
	 * this probe waits for, would run in the middle of the probe and
	 * dispatch the read itself: cancel it.  Only this probe's own
	 * passes arm another before the read is judged.
	 */
	queue_for_each_hw_ctx(q, hctx, j)
		cancel_delayed_work_sync(&hctx->run_work);
	probe_read_prepare(&tick_read, i);
	tick_runner = current;
	tick_go = false;
	tick_entered = false;
	tick_late = false;
	tick_held = false;
	tick_submitted = false;
	/* The probe's state, then the hooks see it armed. */
	smp_store_release(&tick_armed, true);
	queue_work_on(other, system_highpri_wq, &tick_work);
	tick_wait_flag(&tick_go);
	blk_mq_run_hw_queues(q, false);
	flush_work(&tick_work);
	done = completion_done(&tick_read.done);
	WRITE_ONCE(tick_armed, false);
	if (READ_ONCE(tick_late)) {
		tick_nr_late++;
		if (done)
			tick_nr_done++;
	}
	return probe_read_finish(&tick_read);
}

static int tick_set_probes(const char *val, const struct kernel_param *kp)
{
	return probe_read_loop(val, &tick_mutex, tick_probe_one);
}

static int tick_get_stats(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "late %lu done %lu slow %lu max_us %llu\n",
			  tick_nr_late, tick_nr_done, tick_read.slow,
			  tick_read.max_ns / NSEC_PER_USEC);
}

static const struct kernel_param_ops tick_probes_ops = {
	.set	= tick_set_probes,
	.get	= tick_get_stats,
};
module_param_cb(probes, &tick_probes_ops, NULL, 0600);
MODULE_PARM_DESC(probes, "Write N: N probes; read: late, done, slow, max_us");

static int __init tick_init(void)
{
	int ret;

	ret = probe_read_open(&tick_read, dev);
	if (ret)
		return ret;
	INIT_WORK(&tick_work, tick_submit);

	ret = register_trace_block_rq_insert(tick_insert, NULL);
	if (ret)
		goto close_read;
	tick_entry_kprobe.symbol_name = entry;
	ret = register_kprobe(&tick_entry_kprobe);
	if (ret) {
		pr_err("blkfast-tick: cannot probe %s: %d\n", entry, ret);
		goto unregister_insert;
	}
	ret = probe_at_register(&tick_hold_at, hold, at, tick_hold_pre,
				tick_hold_ret);
	if (ret) {
		pr_err("blkfast-tick: cannot probe %s at %s: %d\n", hold, at,
		       ret);
		goto unregister_entry;
	}
	return 0;

unregister_entry:
	unregister_kprobe(&tick_entry_kprobe);
unregister_insert:
	unregister_trace_block_rq_insert(tick_insert, NULL);
	tracepoint_synchronize_unregister();
close_read:
	probe_read_close(&tick_read);
	return ret;
}

static void __exit tick_exit(void)
{
	probe_at_unregister(&tick_hold_at);
	unregister_kprobe(&tick_entry_kprobe);
	unregister_trace_block_rq_insert(tick_insert, NULL);
	tracepoint_synchronize_unregister();
	flush_work(&tick_work);
	probe_read_close(&tick_read);
}

module_init(tick_init);
module_exit(tick_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("blkfast test: a request inserted a tick into a dispatch pass");
