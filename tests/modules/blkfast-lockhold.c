// SPDX-License-Identifier: GPL-2.0
/*
 * blkfast-lockhold: test-only, never installed.  The input of the
 * scheduler benchmark's scaling model: how long an elevator's spinlocks
 * are held.  A lock held h seconds per I/O caps the queue at 1/h I/Os per
 * second however many CPUs submit.
 *
 * A sampler, not a probe: a kthread bound to CPU "cpu" reads the lock
 * words as fast as it can while I/O runs on the other CPUs, and counts
 * the samples that found each lock held, and each stretch of held samples
 * (one hold) with its length.  Nothing runs in the measured path, so
 * nothing in it gets slower; probes on the spinlock functions would fire
 * on every lock in the kernel, and arming them on a busy 16-vCPU guest
 * crashed it.  The fraction of samples held, over the I/Os completed per
 * second, is the hold time per I/O; a hold shorter than one sampling pass
 * can be missed or counted as one pass (the pass time is in "stats").
 *
 * With "sweep" set, the sampler alternates every sweep milliseconds
 * between two phases: reading only the lock words, and reading also every
 * cache line of the elevator's data and its requests' list and tree links
 * each pass ("swept"), so that the I/O path finds them shared with
 * another CPU, as it does when two CPUs submit.  Each phase has its own
 * counts, and the reads the disk completed in each, so that the cost of
 * that sharing is a ratio of two rates taken in the same run, the host's
 * speed changing alike for both.
 *
 *   start   write a comma-separated list of locks in dev's elevator data:
 *           "dispatch_lock" or "zone_lock" (split-deadline's) or
 *           "elevator+OFFSET" (any elevator, as blkfast-lockstat names
 *           them); starts sampling
 *   stop    write anything: stops sampling
 *   sweep   0 (the default): lock words only; N: alternate phases of N ms
 *   stats   "samples N ns T ios I", then per lock: LOCK HELD HOLDS P25 P50
 *           P75, the samples that found it held, the holds seen and their
 *           length's quartiles in ns (25 ns buckets); after a run with
 *           sweep set, the same lines again for the swept phase, each
 *           starting with "swept"
 */
#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/part_stat.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <blkfast/kcompat.h>

#include "../../sched/split-deadline.h"

static char *dev = "/dev/nullb0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "The disk whose elevator's locks are sampled");

static unsigned int cpu;
module_param(cpu, uint, 0444);
MODULE_PARM_DESC(cpu, "The CPU the sampler runs on (keep I/O off it)");

static unsigned int sweep;
module_param(sweep, uint, 0644);
MODULE_PARM_DESC(sweep, "0: lock words only; N: alternate with sweeping the elevator's data every N ms");

#define LH_LOCKS	4
#define LH_NAME		32
#define LH_BUCKET_NS	25
#define LH_BUCKETS	512	/* the last one holds everything longer */

enum { LH_WORDS, LH_SWEPT, LH_PHASES };

struct lh_count {
	u64 held;		/* samples */
	u64 holds;
	u64 hist[LH_BUCKETS];
};

struct lh_lock {
	char name[LH_NAME];
	spinlock_t *lock;	/* read only, never taken */
	struct lh_count count[LH_PHASES];
	/* Sampler state: held at the last pass, and since when. */
	bool was_held;
	u64 since;
};

struct lh_phase {
	u64 samples;
	u64 ns;
	u64 ios;		/* reads the disk completed */
};

/* Written by start with no sampler running; then the sampler's alone. */
static struct lh_lock lh_locks[LH_LOCKS];
static int lh_nr;
static struct lh_phase lh_phases[LH_PHASES];
static bool lh_swept;		/* the last run had a swept phase */
static const void *lh_data;	/* the elevator's data, swept */
static size_t lh_size;
static struct request_queue *lh_q;	/* for its requests, swept */
static struct task_struct *lh_task;
static struct block_device *lh_bdev;
static void *lh_handle;		/* kcompat.h */
static DEFINE_MUTEX(lh_mutex);

static void lh_pass(u64 now, int phase)
{
	int i;

	for (i = 0; i < lh_nr; i++) {
		struct lh_lock *l = &lh_locks[i];
		struct lh_count *c = &l->count[phase];
		bool held = spin_is_locked(l->lock);

		if (held) {
			c->held++;
			if (!l->was_held)
				l->since = now;
		} else if (l->was_held) {
			c->holds++;
			c->hist[min_t(u64, (now - l->since) / LH_BUCKET_NS,
				      LH_BUCKETS - 1)]++;
		}
		l->was_held = held;
	}
}

/*
 * One read of each cache line of the elevator's data, and of the lines of
 * each of its requests that link them into its lists and sort trees: with
 * two CPUs submitting, an insert or a dispatch writes the neighbours of
 * its request, which the other CPU's requests are as often as not.
 */
static void lh_sweep(void)
{
	struct blk_mq_hw_ctx *hctx;
	unsigned long i;
	unsigned int t;
	size_t off;

	for (off = 0; off < lh_size; off += L1_CACHE_BYTES)
		(void)READ_ONCE(*(const unsigned long *)(lh_data + off));
	queue_for_each_hw_ctx(lh_q, hctx, i) {
		struct blk_mq_tags *tags = hctx->sched_tags;

		if (!tags)
			continue;
		for (t = 0; t < tags->nr_tags; t++) {
			struct request *rq = tags->static_rqs[t];

			(void)READ_ONCE(rq->queuelist.next);
			(void)READ_ONCE(rq->rb_node.__rb_parent_color);
		}
	}
}

static u64 lh_reads(void)
{
	return part_stat_read(lh_bdev, ios[STAT_READ]);
}

static int lh_sampler(void *unused)
{
	u64 period = (u64)sweep * NSEC_PER_MSEC;
	u64 t0 = local_clock(), now = t0, mark = t0, reads = lh_reads();
	unsigned int n = 0;
	int phase = LH_WORDS, next;

	lh_swept = period;
	while (!kthread_should_stop()) {
		now = local_clock();
		next = period && div64_u64(now - t0, period) % 2 ?
			LH_SWEPT : LH_WORDS;
		if (next != phase) {
			u64 r = lh_reads();

			lh_phases[phase].ns += now - mark;
			lh_phases[phase].ios += r - reads;
			mark = now;
			reads = r;
			phase = next;
		}
		lh_pass(now, phase);
		if (phase == LH_SWEPT)
			lh_sweep();
		lh_phases[phase].samples++;
		/* Yield now and then: kworkers may need this CPU. */
		if (!(++n & 0xffff))
			cond_resched();
	}
	lh_phases[phase].ns += now - mark;
	lh_phases[phase].ios += lh_reads() - reads;
	return 0;
}

/* The lock named @name in @eq's data, or NULL. */
static spinlock_t *lh_find(struct elevator_queue *eq, const char *name)
{
	bool split = !strcmp(eq->type->elevator_name, "split-deadline");
	size_t size = ksize(eq->elevator_data);
	unsigned long off;

	if (split && !strcmp(name, "dispatch_lock"))
		off = offsetof(struct sd_sched, dispatch_lock);
	else if (split && !strcmp(name, "zone_lock"))
		off = offsetof(struct sd_sched, zone_lock);
	else if (sscanf(name, "elevator+%lu", &off) != 1)
		return NULL;
	if (off + sizeof(spinlock_t) > size)
		return NULL;
	return eq->elevator_data + off;
}

static void lh_stop_sampler(void)
{
	if (lh_task) {
		kthread_stop(lh_task);
		put_task_struct(lh_task);
		lh_task = NULL;
	}
}

static int lh_set_start(const char *val, const struct kernel_param *kp)
{
	struct request_queue *q = bdev_get_queue(lh_bdev);
	char *list, *p, *name;
	int ret = 0;

	list = kstrdup(val, GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	mutex_lock(&lh_mutex);
	lh_stop_sampler();
	memset(lh_locks, 0, sizeof(lh_locks));
	memset(lh_phases, 0, sizeof(lh_phases));
	lh_nr = 0;
	lh_swept = false;
	/*
	 * The elevator may not change while sampling: the benchmark
	 * switches only between runs, and stops us first.
	 */
	mutex_lock(&q->sysfs_lock);
	p = strim(list);
	while ((name = strsep(&p, ",")) && !ret) {
		struct lh_lock *l = &lh_locks[lh_nr];

		if (!*name)
			continue;
		if (lh_nr == LH_LOCKS || !q->elevator) {
			ret = -EINVAL;
			break;
		}
		l->lock = lh_find(q->elevator, name);
		if (!l->lock) {
			pr_err("blkfast-lockhold: no lock '%s' in %s\n", name,
			       q->elevator->type->elevator_name);
			ret = -EINVAL;
			break;
		}
		strscpy(l->name, name, LH_NAME);
		lh_nr++;
	}
	if (q->elevator) {
		/*
		 * All of the allocation: what lies past the data is never
		 * written, so reading it costs the I/O path nothing.
		 */
		lh_q = q;
		lh_data = q->elevator->elevator_data;
		lh_size = ksize(lh_data);
	}
	mutex_unlock(&q->sysfs_lock);
	if (!ret && lh_nr) {
		lh_task = kthread_create(lh_sampler, NULL, "blkfast-lockhold");
		if (IS_ERR(lh_task)) {
			ret = PTR_ERR(lh_task);
			lh_task = NULL;
		} else {
			get_task_struct(lh_task);
			kthread_bind(lh_task, cpu);
			wake_up_process(lh_task);
		}
	}
	mutex_unlock(&lh_mutex);
	kfree(list);
	return ret;
}

static const struct kernel_param_ops lh_start_ops = {
	.set	= lh_set_start,
};
module_param_cb(start, &lh_start_ops, NULL, 0200);
MODULE_PARM_DESC(start, "Locks to sample, comma-separated: starts sampling");

static int lh_set_stop(const char *val, const struct kernel_param *kp)
{
	mutex_lock(&lh_mutex);
	lh_stop_sampler();
	mutex_unlock(&lh_mutex);
	return 0;
}

static const struct kernel_param_ops lh_stop_ops = {
	.set	= lh_set_stop,
};
module_param_cb(stop, &lh_stop_ops, NULL, 0200);
MODULE_PARM_DESC(stop, "Write anything: stops sampling");

/* The upper bound of the bucket holding the @num/4'th quartile. */
static u64 lh_quartile(const struct lh_count *c, int num)
{
	u64 want = div_u64(c->holds * num + 3, 4), seen = 0;
	int i;

	for (i = 0; i < LH_BUCKETS - 1; i++) {
		seen += c->hist[i];
		if (seen >= want)
			break;
	}
	return (u64)(i + 1) * LH_BUCKET_NS;
}

static int lh_get_stats(char *buf, const struct kernel_param *kp)
{
	static const char *const prefix[LH_PHASES] = { "", "swept " };
	int i, p, len = 0;

	mutex_lock(&lh_mutex);
	if (lh_task) {
		mutex_unlock(&lh_mutex);
		return -EBUSY;
	}
	for (p = 0; p < (lh_swept ? LH_PHASES : 1); p++) {
		const struct lh_phase *ph = &lh_phases[p];

		len += sysfs_emit_at(buf, len, "%ssamples %llu ns %llu ios %llu\n",
				     prefix[p], ph->samples, ph->ns, ph->ios);
		for (i = 0; i < lh_nr; i++) {
			const struct lh_count *c = &lh_locks[i].count[p];

			len += sysfs_emit_at(buf, len,
					     "%s%s %llu %llu %llu %llu %llu\n",
					     prefix[p], lh_locks[i].name,
					     c->held, c->holds,
					     lh_quartile(c, 1),
					     lh_quartile(c, 2),
					     lh_quartile(c, 3));
		}
	}
	mutex_unlock(&lh_mutex);
	return len;
}

static const struct kernel_param_ops lh_stats_ops = {
	.get	= lh_get_stats,
};
module_param_cb(stats, &lh_stats_ops, NULL, 0400);
MODULE_PARM_DESC(stats, "samples N ns T ios I, then LOCK HELD HOLDS P25 P50 P75; swept phase prefixed");

static int __init lh_init(void)
{
	if (cpu >= nr_cpu_ids || !cpu_online(cpu))
		return -EINVAL;
	lh_bdev = bf_bdev_open_path(dev, false, NULL, &lh_handle);
	return PTR_ERR_OR_ZERO(lh_bdev);
}

static void __exit lh_exit(void)
{
	lh_stop_sampler();
	bf_bdev_close(lh_bdev, false, NULL, lh_handle);
}

module_init(lh_init);
module_exit(lh_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("blkfast test: how long an elevator's spinlocks are held");
