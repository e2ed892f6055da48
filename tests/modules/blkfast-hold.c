// SPDX-License-Identifier: GPL-2.0
/*
 * blkfast-hold: test-only, never installed.  Holds the next call of a
 * function on one CPU for hold_ms, busy-waiting at its entry (a kprobe)
 * with preemption off, so that any lock its caller holds stays held that
 * long while the other CPUs go on.
 *
 * sd-staged-order holds split-deadline's dispatch lock this way
 * (symbol=sd_dispatch_prio, which runs under it): whatever is inserted
 * meanwhile goes to the staging lists, and comes out of them when the
 * pass after the hold drains them.
 *
 *   arm      write 1: hold the next call (one call only)
 *   release  write 1: end the hold now (a test that waits for what the
 *            hold is for, rather than guess how long that takes)
 *   holding  reads the CPU of the call held now, -1 if none
 *   held     reads how many calls were held
 */
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/smp.h>

static char *symbol = "sd_dispatch_prio";
module_param(symbol, charp, 0444);
MODULE_PARM_DESC(symbol, "The function whose next call is held");

static unsigned int hold_ms = 1000;
module_param(hold_ms, uint, 0644);
MODULE_PARM_DESC(hold_ms, "How long a call is held at most");

static int hold_cpu = -1;
module_param_named(holding, hold_cpu, int, 0444);
MODULE_PARM_DESC(holding, "The CPU a call is held on now, else -1");

static atomic_t hold_armed = ATOMIC_INIT(0);
static atomic_t hold_held = ATOMIC_INIT(0);
static bool hold_release;

/* At the entry of the function, preemption off (an ftrace-based kprobe). */
static int hold_pre(struct kprobe *p, struct pt_regs *regs)
{
	unsigned int ms, limit = READ_ONCE(hold_ms);

	if (atomic_cmpxchg(&hold_armed, 1, 0) != 1)
		return 0;
	WRITE_ONCE(hold_cpu, smp_processor_id());
	for (ms = 0; ms < limit && !READ_ONCE(hold_release); ms++)
		mdelay(1);
	WRITE_ONCE(hold_cpu, -1);
	atomic_inc(&hold_held);
	return 0;
}

static struct kprobe hold_kp = { .pre_handler = hold_pre };

static int hold_set_arm(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = kstrtobool(val, &on);

	if (ret)
		return ret;
	if (on)
		WRITE_ONCE(hold_release, false);
	atomic_set(&hold_armed, on);
	return 0;
}

static const struct kernel_param_ops hold_arm_ops = {
	.set = hold_set_arm,
};
module_param_cb(arm, &hold_arm_ops, NULL, 0200);
module_param_named(release, hold_release, bool, 0200);
MODULE_PARM_DESC(release, "Write 1 to end the hold now");

static int hold_get_held(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&hold_held));
}

static const struct kernel_param_ops hold_held_ops = {
	.get = hold_get_held,
};
module_param_cb(held, &hold_held_ops, NULL, 0444);

static int __init hold_init(void)
{
	hold_kp.symbol_name = symbol;
	return register_kprobe(&hold_kp);
}

static void __exit hold_exit(void)
{
	unregister_kprobe(&hold_kp);
}

module_init(hold_init);
module_exit(hold_exit);
MODULE_DESCRIPTION("blkfast test-only: hold a function's next call");
MODULE_LICENSE("GPL");
