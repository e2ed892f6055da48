// SPDX-License-Identifier: GPL-2.0
/*
 * blkfast-lockstat: test-only, never installed.  The contention meter of
 * the scheduler benchmark: how often a scheduler's spinlocks were found
 * held, who was waiting, and for how long.
 *
 * A kretprobe on the queued spinlock's slow path, native_queued_spin_lock_
 * slowpath() (what a spin_lock() that found the lock held calls; a
 * spin_trylock() never does), with the lock's address as its first
 * argument.  Only locks inside the elevator data of the disk "dev", as it
 * was when "reset" was last written, are counted:
 *
 *   split-deadline: sd->dispatch_lock, by name (its staging lists take no
 *   lock);
 *   any other elevator (mq-deadline's dd->lock, the FIFO floors' lock):
 *   elevator+OFFSET.
 *
 * Each entry is charged to the side of the first caller outside the lock
 * code (its name, from the stack at the probe): "dispatch" when it has
 * "dispatch" in it, "submit" when it has "insert" or "merge", else
 * "other".  The time is from the slow path's entry to its return: the
 * spin, as the waiter saw it.  Reading "stats" prints one line per lock
 * and side that was entered: LOCK SIDE ENTRIES NS.
 */
#include <linux/blkdev.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <blkfast/kcompat.h>
#include <asm/unwind.h>

#include "../../sched/split-deadline.h"

static char *dev = "/dev/nullb0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "The disk whose elevator's locks are metered");

enum { LS_DISPATCH, LS_SUBMIT, LS_OTHER, LS_SIDES };
static const char *const ls_side_name[LS_SIDES] = {
	"dispatch", "submit", "other",
};

#define LS_SLOTS	8	/* distinct locks inside one elevator's data */
#define LS_FRAMES	8	/* frames looked at for the caller */

struct ls_count {
	atomic64_t entries;
	atomic64_t ns;
};

/* The elevator being metered; written by "reset" with the probe quiet. */
static struct {
	unsigned long start;		/* elevator_data */
	size_t size;
	bool split;			/* split-deadline: its lock by name */
	unsigned long offset[LS_SLOTS];	/* of each slot's lock */
	atomic_t nr_slots;
} ls_target;

static struct ls_count ls_counts[LS_SLOTS][LS_SIDES];
static DEFINE_MUTEX(ls_mutex);
static struct block_device *ls_bdev;
static void *ls_handle;		/* kcompat.h */
static DEFINE_PER_CPU(char[KSYM_SYMBOL_LEN], ls_symbuf);

struct ls_entry {
	u64 t0;
	int slot;
	int side;
};

/* The slot of the lock at @off, taking a new one on first sight. */
static int ls_slot(unsigned long off)
{
	int i, n = atomic_read(&ls_target.nr_slots);

	for (i = 0; i < n; i++)
		if (READ_ONCE(ls_target.offset[i]) == off)
			return i;
	/* Racing first sights of two locks may both take slot n: rare. */
	if (n >= LS_SLOTS)
		return -1;
	WRITE_ONCE(ls_target.offset[n], off);
	atomic_set(&ls_target.nr_slots, n + 1);
	return n;
}

static int ls_side(struct pt_regs *regs)
{
	char *buf = this_cpu_ptr(ls_symbuf);
	struct unwind_state state;
	unsigned int n = 0;
	unsigned long addr;

	/* stack_trace_save_regs() is not exported; its unwinder is. */
	for (unwind_start(&state, current, regs, NULL);
	     !unwind_done(&state) && n < LS_FRAMES;
	     unwind_next_frame(&state), n++) {
		addr = unwind_get_return_address(&state);
		if (!addr)
			break;
		sprint_symbol_no_offset(buf, addr);
		/* The lock code, and split-deadline's lock helper. */
		if (strstr(buf, "spin_lock") || strstr(buf, "slowpath") ||
		    strstr(buf, "lock_counted"))
			continue;
		if (strstr(buf, "dispatch"))
			return LS_DISPATCH;
		if (strstr(buf, "insert") || strstr(buf, "merge"))
			return LS_SUBMIT;
		return LS_OTHER;
	}
	return LS_OTHER;
}

static int ls_enter(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ls_entry *e = (struct ls_entry *)ri->data;
	unsigned long lock = regs_get_kernel_argument(regs, 0);
	unsigned long start = READ_ONCE(ls_target.start);

	if (!start || lock < start || lock >= start + ls_target.size)
		return 1;		/* not ours: no return handler */
	e->slot = ls_slot(lock - start);
	if (e->slot < 0)
		return 1;
	e->side = ls_side(regs);
	e->t0 = ktime_get_ns();
	return 0;
}

static int ls_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ls_entry *e = (struct ls_entry *)ri->data;
	struct ls_count *c = &ls_counts[e->slot][e->side];

	atomic64_inc(&c->entries);
	atomic64_add(ktime_get_ns() - e->t0, &c->ns);
	return 0;
}

static struct kretprobe ls_probe = {
	.kp.symbol_name	= "native_queued_spin_lock_slowpath",
	.entry_handler	= ls_enter,
	.handler	= ls_return,
	.data_size	= sizeof(struct ls_entry),
	.maxactive	= 64,
};

/* Meter the elevator the disk has now, from zero. */
static int ls_set_reset(const char *val, const struct kernel_param *kp)
{
	struct request_queue *q = bdev_get_queue(ls_bdev);
	struct elevator_queue *eq;
	int i, j;

	mutex_lock(&ls_mutex);
	WRITE_ONCE(ls_target.start, 0);
	/* An instance already past the range check may still count. */
	synchronize_rcu();
	mutex_lock(&q->sysfs_lock);
	eq = q->elevator;
	atomic_set(&ls_target.nr_slots, 0);
	ls_target.split = eq && !strcmp(eq->type->elevator_name,
					"split-deadline");
	if (ls_target.split) {
		/* Slot 0 is split-deadline's dispatch lock. */
		ls_target.offset[0] = offsetof(struct sd_sched, dispatch_lock);
		atomic_set(&ls_target.nr_slots, 1);
	}
	for (i = 0; i < LS_SLOTS; i++)
		for (j = 0; j < LS_SIDES; j++) {
			atomic64_set(&ls_counts[i][j].entries, 0);
			atomic64_set(&ls_counts[i][j].ns, 0);
		}
	if (eq && eq->elevator_data) {
		ls_target.size = ksize(eq->elevator_data);
		WRITE_ONCE(ls_target.start,
			   (unsigned long)eq->elevator_data);
	}
	mutex_unlock(&q->sysfs_lock);
	mutex_unlock(&ls_mutex);
	return 0;
}

static const struct kernel_param_ops ls_reset_ops = {
	.set	= ls_set_reset,
};
module_param_cb(reset, &ls_reset_ops, NULL, 0200);
MODULE_PARM_DESC(reset, "Write anything: meter dev's elevator from zero");

static int ls_get_stats(char *buf, const struct kernel_param *kp)
{
	int i, j, n = atomic_read(&ls_target.nr_slots), len = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < LS_SIDES; j++) {
			struct ls_count *c = &ls_counts[i][j];
			s64 e = atomic64_read(&c->entries);

			if (!e)
				continue;
			if (ls_target.split && !i)
				len += sysfs_emit_at(buf, len, "dispatch_lock");
			else
				len += sysfs_emit_at(buf, len, "elevator+%lu",
						     ls_target.offset[i]);
			len += sysfs_emit_at(buf, len, " %s %lld %lld\n",
					     ls_side_name[j], e,
					     atomic64_read(&c->ns));
		}
	}
	return len;
}

static const struct kernel_param_ops ls_stats_ops = {
	.get	= ls_get_stats,
};
module_param_cb(stats, &ls_stats_ops, NULL, 0400);
MODULE_PARM_DESC(stats, "LOCK SIDE ENTRIES NS, per lock and side entered");

static int __init ls_init(void)
{
	int ret;

	ls_bdev = bf_bdev_open_path(dev, false, NULL, &ls_handle);
	if (IS_ERR(ls_bdev))
		return PTR_ERR(ls_bdev);
	ret = register_kretprobe(&ls_probe);
	if (ret) {
		pr_err("blkfast-lockstat: cannot probe %s: %d\n",
		       ls_probe.kp.symbol_name, ret);
		bf_bdev_close(ls_bdev, false, NULL, ls_handle);
	}
	return ret;
}

static void __exit ls_exit(void)
{
	unregister_kretprobe(&ls_probe);
	bf_bdev_close(ls_bdev, false, NULL, ls_handle);
}

module_init(ls_init);
module_exit(ls_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("blkfast test: spinlock slow-path meter for an elevator");
