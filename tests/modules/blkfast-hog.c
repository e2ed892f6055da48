// SPDX-License-Identifier: GPL-2.0
/*
 * blkfast-hog: test-only, never installed.  Preempts a lock holder with a
 * real-time busy loop, the priority inversion a PREEMPT_RT kernel must
 * survive.
 *
 * While armed, a call of a function made by a task that is not real-time
 * on one CPU (a kprobe at its entry) wakes a SCHED_FIFO kthread bound to
 * that CPU, which busy-loops for hog_ms, then lets gap_ms pass before the
 * next call may wake it.  The caller is preempted
 * as soon as the probe returns, inside whatever lock it holds there, and
 * runs again before the loop ends only if something boosts it: a
 * higher-priority task blocking on that lock (an rtmutex on PREEMPT_RT).
 * sd-rt-inversion uses it on the scheduler's dispatch lock (symbol
 * sd_dispatch_prio or mq-deadline's __dd_dispatch_request).
 *
 * A caller preempted while its blk-mq dispatch run holds a request of
 * another task stalls that task whatever the scheduler does: blk-mq
 * issues what a run picked only when the run ends; and one whose CPU
 * issued that task's request, where a completion timer may run.  With
 * quiet_disk set, a call counts only while hardware queue quiet_hctx of
 * that disk has no request allocated, so no request of the tasks
 * submitting there can be in the preempted CPU's hands.  (The scheduler
 * must not be switched while loaded: the probe reads its tags.)
 *
 *   arm      write N: run N busy loops, each after the next such call
 *   fired    reads how many calls woke the hog
 *   hogs     reads how many busy loops ran to their end
 *   boosted  reads how many of them the preempted caller ran during: only
 *            a priority boost lets it (it cannot leave the CPU: a task
 *            pinned there, or one inside an RT spinlock)
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched/rt.h>
#include <linux/sched/types.h>
#include <blkfast/kcompat.h>
#include <uapi/linux/sched/types.h>

static char *symbol = "sd_dispatch_prio";
module_param(symbol, charp, 0444);
MODULE_PARM_DESC(symbol, "The function whose caller is preempted");

static unsigned int cpu;
module_param(cpu, uint, 0444);
MODULE_PARM_DESC(cpu, "The CPU whose callers are preempted");

static unsigned int hog_ms = 500;
module_param(hog_ms, uint, 0644);
MODULE_PARM_DESC(hog_ms, "How long the busy loop runs");

static unsigned int gap_ms = 200;
module_param(gap_ms, uint, 0644);
MODULE_PARM_DESC(gap_ms, "How long after a busy loop the next may start");

static unsigned int prio = 40;
module_param(prio, uint, 0444);
MODULE_PARM_DESC(prio, "The busy loop's SCHED_FIFO priority");

static char *quiet_disk = "";
module_param(quiet_disk, charp, 0444);
MODULE_PARM_DESC(quiet_disk, "Fire only while quiet_hctx of this disk is idle");

static unsigned int quiet_hctx;
module_param(quiet_hctx, uint, 0444);
MODULE_PARM_DESC(quiet_hctx, "The hardware queue of quiet_disk watched");

static struct block_device *quiet_bdev;
static void *quiet_handle;	/* kcompat.h */
static struct task_struct *hog_task;
/* Busy loops still to run. */
static atomic_t hog_armed = ATOMIC_INIT(0);
/* Set by the probe that wakes the hog, cleared by the hog after its gap. */
static atomic_t hog_busy = ATOMIC_INIT(0);
/* Set by that probe, taken by the hog: a loop to run. */
static atomic_t hog_kicked = ATOMIC_INIT(0);
static atomic_t hog_fired = ATOMIC_INIT(0);
static atomic_t hog_runs = ATOMIC_INIT(0);
static atomic_t hog_boosted = ATOMIC_INIT(0);
/* The caller that woke the hog, for the hog's loop; a reference held. */
static struct task_struct *hog_victim;

static int hog_fn(void *unused)
{
	struct task_struct *victim;
	ktime_t end;
	u64 ran;

	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		if (!atomic_xchg(&hog_kicked, 0)) {
			schedule();
			continue;
		}
		__set_current_state(TASK_RUNNING);
		victim = xchg(&hog_victim, NULL);
		ran = victim ? READ_ONCE(victim->se.sum_exec_runtime) : 0;
		/* No cond_resched(): nothing of lower priority may run here. */
		end = ktime_add_ms(ktime_get(), READ_ONCE(hog_ms));
		while (ktime_before(ktime_get(), end) && !kthread_should_stop())
			cpu_relax();
		atomic_inc(&hog_runs);
		if (victim) {
			ran = READ_ONCE(victim->se.sum_exec_runtime) - ran;
			if (ran)
				atomic_inc(&hog_boosted);
			pr_info("blkfast-hog: %s/%d ran %llu ns during the loop\n",
				victim->comm, task_pid_nr(victim), ran);
			put_task_struct(victim);
		}
		msleep(READ_ONCE(gap_ms));
		atomic_set(&hog_busy, 0);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* True when the watched hardware queue has a request allocated. */
static bool hog_hctx_busy(void)
{
	struct blk_mq_hw_ctx *hctx;

	if (!quiet_bdev)
		return false;
	hctx = xa_load(&bdev_get_queue(quiet_bdev)->hctx_table, quiet_hctx);
	return hctx && hctx->sched_tags &&
	       sbitmap_weight(&hctx->sched_tags->bitmap_tags.sb);
}

/* At the function's entry, preemption off until the probe returns. */
static int hog_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (smp_processor_id() != cpu || rt_task(current) || hog_hctx_busy())
		return 0;
	/* One busy loop at a time; a boosted caller may come back here. */
	if (atomic_cmpxchg(&hog_busy, 0, 1))
		return 0;
	if (atomic_dec_if_positive(&hog_armed) < 0) {
		atomic_set(&hog_busy, 0);
		return 0;
	}
	/* The hog takes the reference; put it there, not here (atomic). */
	get_task_struct(current);
	if (cmpxchg(&hog_victim, NULL, current))
		put_task_struct(current);
	atomic_set(&hog_kicked, 1);
	atomic_inc(&hog_fired);
	wake_up_process(hog_task);
	return 0;
}

static struct kprobe hog_kp = { .pre_handler = hog_pre };

static int hog_set_arm(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	int ret = kstrtouint(val, 0, &n);

	if (ret)
		return ret;
	if (n > INT_MAX)
		return -EINVAL;
	atomic_set(&hog_armed, n);
	return 0;
}

static const struct kernel_param_ops hog_arm_ops = {
	.set = hog_set_arm,
};
module_param_cb(arm, &hog_arm_ops, NULL, 0200);

static int hog_get_count(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(kp->arg));
}

static const struct kernel_param_ops hog_count_ops = {
	.get = hog_get_count,
};
module_param_cb(fired, &hog_count_ops, &hog_fired, 0444);
module_param_cb(hogs, &hog_count_ops, &hog_runs, 0444);
module_param_cb(boosted, &hog_count_ops, &hog_boosted, 0444);

static int __init hog_init(void)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_FIFO,
	};
	int ret;

	if (cpu >= nr_cpu_ids || !cpu_online(cpu) || !prio ||
	    prio >= MAX_RT_PRIO)
		return -EINVAL;
	attr.sched_priority = prio;
	if (*quiet_disk) {
		quiet_bdev = bf_bdev_open_path(quiet_disk, false, NULL,
					       &quiet_handle);
		if (IS_ERR(quiet_bdev)) {
			ret = PTR_ERR(quiet_bdev);
			quiet_bdev = NULL;
			return ret;
		}
		if (quiet_hctx >= bdev_get_queue(quiet_bdev)->nr_hw_queues) {
			ret = -EINVAL;
			goto put;
		}
	}
	hog_task = kthread_create_on_cpu(hog_fn, NULL, cpu, "blkfast-hog/%u");
	if (IS_ERR(hog_task)) {
		ret = PTR_ERR(hog_task);
		goto put;
	}
	ret = sched_setattr_nocheck(hog_task, &attr);
	if (ret)
		goto stop;
	wake_up_process(hog_task);
	hog_kp.symbol_name = symbol;
	ret = register_kprobe(&hog_kp);
	if (ret)
		goto stop;
	return 0;
stop:
	kthread_stop(hog_task);
put:
	if (quiet_bdev)
		bf_bdev_close(quiet_bdev, false, NULL, quiet_handle);
	return ret;
}

static void __exit hog_exit(void)
{
	struct task_struct *victim;

	unregister_kprobe(&hog_kp);
	kthread_stop(hog_task);
	victim = xchg(&hog_victim, NULL);
	if (victim)
		put_task_struct(victim);
	if (quiet_bdev)
		bf_bdev_close(quiet_bdev, false, NULL, quiet_handle);
}

module_init(hog_init);
module_exit(hog_exit);
MODULE_DESCRIPTION("blkfast test-only: preempt a lock holder with an RT hog");
MODULE_LICENSE("GPL");
