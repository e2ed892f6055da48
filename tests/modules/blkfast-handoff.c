// SPDX-License-Identifier: GPL-2.0
/*
 * blkfast-handoff: test-only, never installed.  An input of the scheduler
 * benchmark's scaling model: what it costs a spinlock to pass from one
 * CPU to another that is waiting for it.  Under contention every such
 * hand-off keeps the lock unavailable for as long as its cache line takes
 * to move, on top of the time it is held, so a lock that every CPU's
 * queue run takes pays it once per acquisition that waited.
 *
 * Two kthreads, bound to the CPUs in "cpus", take one spinlock in a loop
 * and pass a turn back and forth under it: an acquisition counts only
 * when it is its thread's turn, so each counted one follows the other
 * CPU's release.  Nothing else may run on those CPUs meanwhile (the
 * benchmark runs it with no I/O).
 *
 *   cpus    the two CPUs, "A,B" (default 0,1)
 *   rounds  write N: pass the lock N times (at most for 2 s), then
 *           read "handoffs N ns T": the hand-offs done and the time
 *           they took
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched/clock.h>
#include <linux/spinlock.h>

static char *cpus = "0,1";
module_param(cpus, charp, 0444);
MODULE_PARM_DESC(cpus, "The two CPUs the lock passes between, A,B");

#define HO_LIMIT_NS	(2 * NSEC_PER_SEC)

/* The lock and the turn it guards share a line, as a lock and its data. */
static struct {
	spinlock_t lock;		/* the lock passed; guards the rest */
	unsigned int turn;		/* whose acquisition counts next */
	unsigned long handoffs;		/* counted acquisitions */
	bool done;
} ho ____cacheline_aligned_in_smp;

static unsigned long ho_target;
static atomic_t ho_ready;
static u64 ho_t0, ho_t1;
static unsigned long ho_result;
static struct completion ho_finished[2];
static DEFINE_MUTEX(ho_mutex);

static int ho_thread(void *arg)
{
	unsigned int me = (uintptr_t)arg, n = 0;
	bool done = false;

	/* Both spinning before the clock starts. */
	atomic_inc(&ho_ready);
	while (atomic_read(&ho_ready) < 2)
		cpu_relax();
	if (!me)
		ho_t0 = local_clock();
	while (!done) {
		spin_lock(&ho.lock);
		if (ho.turn == me && !ho.done) {
			ho.turn = !me;
			if (++ho.handoffs >= ho_target)
				ho.done = true;
		}
		done = ho.done;
		spin_unlock(&ho.lock);
		if (!(++n & 0x3ff) && !done) {
			if (!me && local_clock() - ho_t0 > HO_LIMIT_NS) {
				spin_lock(&ho.lock);
				ho.done = true;
				spin_unlock(&ho.lock);
			}
			cond_resched();
		}
	}
	if (!me)
		ho_t1 = local_clock();
	/* Not one instruction of ours runs after the waiter wakes. */
	kthread_complete_and_exit(&ho_finished[me], 0);
}

static int ho_set_rounds(const char *val, const struct kernel_param *kp)
{
	struct task_struct *t[2];
	unsigned int cpu[2];
	unsigned long n;
	int i, ret;

	ret = kstrtoul(val, 0, &n);
	if (ret || !n)
		return -EINVAL;
	if (sscanf(cpus, "%u,%u", &cpu[0], &cpu[1]) != 2 ||
	    cpu[0] == cpu[1])
		return -EINVAL;
	for (i = 0; i < 2; i++)
		if (cpu[i] >= nr_cpu_ids || !cpu_online(cpu[i]))
			return -EINVAL;

	mutex_lock(&ho_mutex);
	ho.turn = 0;
	ho.handoffs = 0;
	ho.done = false;
	ho_target = n;
	ho_result = 0;
	atomic_set(&ho_ready, 0);
	for (i = 0; i < 2; i++) {
		init_completion(&ho_finished[i]);
		t[i] = kthread_create(ho_thread, (void *)(uintptr_t)i,
				      "blkfast-handoff/%d", i);
		if (IS_ERR(t[i])) {
			ret = PTR_ERR(t[i]);
			/* The first one has not started: nothing waits. */
			if (i)
				kthread_stop(t[0]);
			goto out;
		}
		kthread_bind(t[i], cpu[i]);
	}
	for (i = 0; i < 2; i++)
		wake_up_process(t[i]);
	for (i = 0; i < 2; i++)
		wait_for_completion(&ho_finished[i]);
	ho_result = ho.handoffs;
out:
	mutex_unlock(&ho_mutex);
	return ret;
}

static int ho_get_rounds(char *buf, const struct kernel_param *kp)
{
	int len;

	mutex_lock(&ho_mutex);
	len = sysfs_emit(buf, "handoffs %lu ns %llu\n", ho_result,
			 ho_result ? ho_t1 - ho_t0 : 0);
	mutex_unlock(&ho_mutex);
	return len;
}

static const struct kernel_param_ops ho_rounds_ops = {
	.set	= ho_set_rounds,
	.get	= ho_get_rounds,
};
module_param_cb(rounds, &ho_rounds_ops, NULL, 0600);
MODULE_PARM_DESC(rounds, "Write N: pass the lock N times; read: handoffs N ns T");

static int __init ho_init(void)
{
	spin_lock_init(&ho.lock);
	return 0;
}

static void __exit ho_exit(void)
{
}

module_init(ho_init);
module_exit(ho_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("blkfast test: what a spinlock costs to pass between CPUs");
