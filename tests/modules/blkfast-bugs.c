// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only, never installed: one deliberate bug per load, for the debug
 * kernel tier's negative tests.  Each bug must make the harness fail the
 * run on the debug kernel (scripts/debug-kernel.sh), through the detector
 * named beside it:
 *
 *   bug=atomic_sleep    GFP_KERNEL under a spinlock     DEBUG_ATOMIC_SLEEP
 *   bug=lock_inversion  two locks taken in both orders  PROVE_LOCKING
 *   bug=use_after_free  a read of freed memory          KASAN
 *   bug=leak            an allocation nobody frees      kmemleak
 *
 * The module loads successfully whatever it did, as buggy code would: only
 * the kernel's report can tell.  The bugs live outside __init text, which is
 * freed after loading: kmemleak names a leak's allocator from its
 * backtrace, and a frame in freed text prints as a bare address.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

static char *bug = "";
module_param(bug, charp, 0444);
MODULE_PARM_DESC(bug, "atomic_sleep, lock_inversion, use_after_free or leak");

static DEFINE_SPINLOCK(bugs_spin);
static DEFINE_MUTEX(bugs_a);
static DEFINE_MUTEX(bugs_b);
/* Kept in globals so that the compiler cannot drop the bad accesses. */
static void *bugs_leaked;
static int bugs_sink;

/*
 * The common form of the bug: an allocation that may sleep, under a
 * spinlock.  It rarely does sleep, which is why only might_sleep()'s check
 * (DEBUG_ATOMIC_SLEEP) finds it.
 */
static noinline void bugs_atomic_sleep(void)
{
	void *p;

	spin_lock(&bugs_spin);
	p = kmalloc(64, GFP_KERNEL);
	spin_unlock(&bugs_spin);
	kfree(p);
}

/* Never deadlocks (one thread), but lockdep sees both orders. */
static noinline void bugs_lock_inversion(void)
{
	mutex_lock(&bugs_a);
	mutex_lock(&bugs_b);
	mutex_unlock(&bugs_b);
	mutex_unlock(&bugs_a);

	mutex_lock(&bugs_b);
	mutex_lock(&bugs_a);
	mutex_unlock(&bugs_a);
	mutex_unlock(&bugs_b);
}

static noinline void bugs_use_after_free(void)
{
	int *p = kmalloc(64, GFP_KERNEL);

	if (!p)
		return;
	p[0] = 1;
	kfree(p);
	WRITE_ONCE(bugs_sink, READ_ONCE(p[0]));
}

static noinline void bugs_leak(void)
{
	void *p = kmalloc(512, GFP_KERNEL);

	/*
	 * Drop the only reference: kmemleak finds nothing pointing at it.
	 * The stores keep kmalloc() from being a tail call, which would
	 * leave this function out of the allocation's backtrace.
	 */
	WRITE_ONCE(bugs_leaked, p);
	WRITE_ONCE(bugs_leaked, NULL);
}

static int __init blkfast_bugs_init(void)
{
	if (!strcmp(bug, "atomic_sleep"))
		bugs_atomic_sleep();
	else if (!strcmp(bug, "lock_inversion"))
		bugs_lock_inversion();
	else if (!strcmp(bug, "use_after_free"))
		bugs_use_after_free();
	else if (!strcmp(bug, "leak"))
		bugs_leak();
	else
		return -EINVAL;
	pr_info("blkfast-bugs: did %s\n", bug);
	return 0;
}

static void __exit blkfast_bugs_exit(void)
{
}

module_init(blkfast_bugs_init);
module_exit(blkfast_bugs_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("blkfast debug tier self-test: one deliberate bug per load");
