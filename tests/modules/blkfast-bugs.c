// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only, never installed: one deliberate bug per load, for the debug
 * kernel tier's negative tests.  Each bug must make the harness fail the
 * run on the debug kernel (scripts/debug-kernel.sh), through the detector
 * named beside it:
 *
 *   bug=atomic_sleep    GFP_KERNEL under a spinlock     DEBUG_ATOMIC_SLEEP
 *   bug=lock_inversion  two locks taken in both orders  PROVE_LOCKING
 *   bug=use_after_free  a read of freed memory          KFENCE
 *   bug=write_after_free  a write to freed memory       SLUB's poison
 *   bug=leak            an allocation nobody frees      kmemleak
 *
 * The module loads successfully whatever it did, as buggy code would: only
 * the kernel's report can tell.  The bugs live outside __init text, which is
 * freed after loading: kmemleak names a leak's allocator from its
 * backtrace, and a frame in freed text prints as a bare address.
 */
#include <linux/delay.h>
#include <linux/kfence.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

static char *bug = "";
module_param(bug, charp, 0444);
MODULE_PARM_DESC(bug,
		 "atomic_sleep, lock_inversion, use_after_free, write_after_free or leak");

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

/*
 * KFENCE guards one allocation per sample interval (kfence.sample_interval
 * ms), whichever comes first on any CPU: allocate and free until an object
 * is one of its, for a few seconds at most, so that the bad read below is
 * caught whatever else the guest is doing.  (Under KASAN every object is
 * guarded, and the first one does.)
 */
static noinline int *bugs_guarded_alloc(void)
{
	int i;
	int *p;

	for (i = 0; i < 20000; i++) {
		p = kmalloc(64, GFP_KERNEL);
		if (!p || !IS_ENABLED(CONFIG_KFENCE) || is_kfence_address(p))
			return p;
		kfree(p);
		usleep_range(100, 200);
	}
	pr_warn("blkfast-bugs: no KFENCE object after %d tries\n", i);
	return NULL;
}

static noinline void bugs_use_after_free(void)
{
	int *p = bugs_guarded_alloc();

	if (!p)
		return;
	p[0] = 1;
	kfree(p);
	WRITE_ONCE(bugs_sink, READ_ONCE(p[0]));
}

/*
 * A write into a freed object that KFENCE does not guard: SLUB's poison
 * (slub_debug=P) shows it when the object is next checked, which the
 * guest forces at once (/sys/kernel/slab/blkfast_bugs/validate, see
 * tests/vm/harness/bug.sh).  The cache is the module's own, so that no
 * one else allocates the object first; it goes at unload.
 */
static struct kmem_cache *bugs_cache;

static noinline void bugs_write_after_free(void)
{
	char *p;
	int i;

	bugs_cache = kmem_cache_create("blkfast_bugs", 64, 0, 0, NULL);
	if (!bugs_cache)
		return;
	for (i = 0; i < 100; i++) {
		p = kmem_cache_alloc(bugs_cache, GFP_KERNEL);
		if (!p)
			return;
		kmem_cache_free(bugs_cache, p);
		if (!is_kfence_address(p))
			break;
	}
	WRITE_ONCE(p[16], 0x5a);
}

static noinline void bugs_leak(void)
{
	int i;

	/*
	 * Drop the only reference: kmemleak finds nothing pointing at it.
	 * The stores keep kmalloc() from being a tail call, which would
	 * leave this function out of the allocation's backtrace.  Four
	 * objects: a stale copy of the last pointer may outlive us on the
	 * dead insmod's kernel stack, which the kernel keeps cached and
	 * kmemleak scans; each loop overwrites the one before.
	 */
	for (i = 0; i < 4; i++) {
		WRITE_ONCE(bugs_leaked, kmalloc(512, GFP_KERNEL));
		WRITE_ONCE(bugs_leaked, NULL);
	}
}

static int __init blkfast_bugs_init(void)
{
	if (!strcmp(bug, "atomic_sleep"))
		bugs_atomic_sleep();
	else if (!strcmp(bug, "lock_inversion"))
		bugs_lock_inversion();
	else if (!strcmp(bug, "use_after_free"))
		bugs_use_after_free();
	else if (!strcmp(bug, "write_after_free"))
		bugs_write_after_free();
	else if (!strcmp(bug, "leak"))
		bugs_leak();
	else
		return -EINVAL;
	pr_info("blkfast-bugs: did %s\n", bug);
	return 0;
}

static void __exit blkfast_bugs_exit(void)
{
	kmem_cache_destroy(bugs_cache);
}

module_init(blkfast_bugs_init);
module_exit(blkfast_bugs_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("blkfast debug tier self-test: one deliberate bug per load");
