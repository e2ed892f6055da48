// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only: the harness's negative tests load it to prove that a guest
 * kernel report fails a run whose script passed.
 *
 *   insmod blkfast-warn.ko               logs one WARN
 *   insmod blkfast-warn.ko rcu_stall_s=N  holds an RCU read-side section
 *                                        and its CPU for N seconds
 *
 * The stall stands for a loop under rcu_read_lock() in our own code: the
 * harness must report one that outlasts its stall timeout and accept one
 * that does not.
 */
#include <linux/bug.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/rcupdate.h>

static unsigned int rcu_stall_s;
module_param(rcu_stall_s, uint, 0444);
MODULE_PARM_DESC(rcu_stall_s,
		 "spin this many seconds under rcu_read_lock() instead of WARN");

static void blkfast_rcu_stall(unsigned int secs)
{
	unsigned long end = jiffies + secs * HZ;

	pr_info("blkfast-warn: spinning %u s under rcu_read_lock()\n", secs);
	/*
	 * A stall is reported only while a grace period waits for this CPU:
	 * start one, rather than count on other work to have asked for one
	 * (on an idle guest, none may be under way; seen: a 25 s spin past
	 * a 10 s timeout that reported nothing).
	 */
	start_poll_synchronize_rcu();
	rcu_read_lock();
	/* No cond_resched(): the CPU is held as a buggy loop would hold it. */
	while (time_before(jiffies, end))
		cpu_relax();
	rcu_read_unlock();
	pr_info("blkfast-warn: stall over\n");
}

static int __init blkfast_warn_init(void)
{
	if (rcu_stall_s)
		blkfast_rcu_stall(rcu_stall_s);
	else
		WARN(1, "blkfast-warn: deliberate warning for the harness self-test\n");
	return 0;
}

static void __exit blkfast_warn_exit(void)
{
}

module_init(blkfast_warn_init);
module_exit(blkfast_warn_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("blkfast harness self-test: WARN or RCU stall on load");
