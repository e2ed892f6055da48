// SPDX-License-Identifier: GPL-2.0
/*
 * split-deadline's debugfs files (block/<dev>/sched/): mq-deadline's set,
 * plus "staged" (requests waiting on the staging lists) and "contention"
 * (how often the dispatch lock was found busy, and by whom).
 */
#include <linux/blk-mq.h>
#include <linux/seq_file.h>

#include <block/elevator.h>
#include <block/blk-mq-debugfs.h>

#include "split-deadline.h"
#include "sd-policy.h"

static struct sd_sched *sd_of(struct request_queue *q)
{
	return q->elevator->elevator_data;
}

/*
 * Lists are walked under the lock that owns them.  A debugfs attribute
 * carries no argument, so each list gets its own seq_operations, generated
 * around two accessors: sd_<name>_lock() and sd_<name>_list().
 */
#define SD_LIST_SEQ(name, lockexpr, listexpr)				\
static spinlock_t *sd_##name##_lock(struct sd_sched *sd)		\
{									\
	return lockexpr;						\
}									\
									\
static struct list_head *sd_##name##_list(struct sd_sched *sd)		\
{									\
	return listexpr;						\
}									\
									\
static void *sd_##name##_start(struct seq_file *m, loff_t *pos)	\
	__acquires(sd_##name##_lock(sd))				\
{									\
	struct sd_sched *sd = sd_of(m->private);			\
									\
	spin_lock(sd_##name##_lock(sd));				\
	return seq_list_start(sd_##name##_list(sd), *pos);		\
}									\
									\
static void *sd_##name##_next(struct seq_file *m, void *v, loff_t *pos) \
{									\
	struct sd_sched *sd = sd_of(m->private);			\
									\
	return seq_list_next(v, sd_##name##_list(sd), pos);		\
}									\
									\
static void sd_##name##_stop(struct seq_file *m, void *v)		\
	__releases(sd_##name##_lock(sd))				\
{									\
	struct sd_sched *sd = sd_of(m->private);			\
									\
	spin_unlock(sd_##name##_lock(sd));				\
}									\
									\
static const struct seq_operations sd_##name##_seq_ops = {		\
	.start	= sd_##name##_start,					\
	.next	= sd_##name##_next,					\
	.stop	= sd_##name##_stop,					\
	.show	= blk_mq_debugfs_rq_show,				\
}

SD_LIST_SEQ(read0_fifo, &sd->dispatch_lock,
	    &sd->per_prio[SD_RT_PRIO].fifo_list[SD_READ]);
SD_LIST_SEQ(write0_fifo, &sd->dispatch_lock,
	    &sd->per_prio[SD_RT_PRIO].fifo_list[SD_WRITE]);
SD_LIST_SEQ(read1_fifo, &sd->dispatch_lock,
	    &sd->per_prio[SD_BE_PRIO].fifo_list[SD_READ]);
SD_LIST_SEQ(write1_fifo, &sd->dispatch_lock,
	    &sd->per_prio[SD_BE_PRIO].fifo_list[SD_WRITE]);
SD_LIST_SEQ(read2_fifo, &sd->dispatch_lock,
	    &sd->per_prio[SD_IDLE_PRIO].fifo_list[SD_READ]);
SD_LIST_SEQ(write2_fifo, &sd->dispatch_lock,
	    &sd->per_prio[SD_IDLE_PRIO].fifo_list[SD_WRITE]);
/* At-head requests: "dispatch" where one list holds them all. */
SD_LIST_SEQ(dispatch0, &sd->dispatch_lock, sd_head_list(sd, SD_RT_PRIO));
#if !BF_DD_ONE_DISPATCH_LIST
SD_LIST_SEQ(dispatch1, &sd->dispatch_lock, sd_head_list(sd, SD_BE_PRIO));
SD_LIST_SEQ(dispatch2, &sd->dispatch_lock, sd_head_list(sd, SD_IDLE_PRIO));
#endif

/*
 * Staged requests, newest first: only the dispatch lock's holder takes
 * them off.
 */
static int sd_staged_show(void *data, struct seq_file *m)
{
	struct sd_sched *sd = sd_of(data);
	struct request *rq;

	spin_lock(&sd->dispatch_lock);
	llist_for_each_entry(rq, READ_ONCE(sd->staged_head.first), ipi_list)
		__blk_mq_debugfs_rq_show(m, rq);
	llist_for_each_entry(rq, READ_ONCE(sd->staged.first), ipi_list)
		__blk_mq_debugfs_rq_show(m, rq);
	spin_unlock(&sd->dispatch_lock);
	return 0;
}

static int sd_next_rq_show(void *data, struct seq_file *m,
			   enum sd_prio prio, enum sd_dir dir)
{
	struct sd_sched *sd = sd_of(data);
	struct request *rq;

	spin_lock(&sd->dispatch_lock);
	rq = sd_batch_next(&sd->per_prio[prio], dir);
	if (rq)
		__blk_mq_debugfs_rq_show(m, rq);
	spin_unlock(&sd->dispatch_lock);
	return 0;
}

#define SD_NEXT_RQ_SHOW(name, prio, dir)				\
static int sd_##name##_next_rq_show(void *data, struct seq_file *m)	\
{									\
	return sd_next_rq_show(data, m, prio, dir);			\
}

SD_NEXT_RQ_SHOW(read0, SD_RT_PRIO, SD_READ)
SD_NEXT_RQ_SHOW(write0, SD_RT_PRIO, SD_WRITE)
SD_NEXT_RQ_SHOW(read1, SD_BE_PRIO, SD_READ)
SD_NEXT_RQ_SHOW(write1, SD_BE_PRIO, SD_WRITE)
SD_NEXT_RQ_SHOW(read2, SD_IDLE_PRIO, SD_READ)
SD_NEXT_RQ_SHOW(write2, SD_IDLE_PRIO, SD_WRITE)

static int sd_batching_show(void *data, struct seq_file *m)
{
	seq_printf(m, "%u\n", READ_ONCE(sd_of(data)->batching));
	return 0;
}

static int sd_starved_show(void *data, struct seq_file *m)
{
	seq_printf(m, "%u\n", READ_ONCE(sd_of(data)->starved));
	return 0;
}

static int sd_async_depth_show(void *data, struct seq_file *m)
{
	seq_printf(m, "%u\n", READ_ONCE(sd_of(data)->async_depth));
	return 0;
}

/* Print f(sd, prio) for the three priorities, under the dispatch lock. */
static int sd_show_per_prio(void *data, struct seq_file *m,
			    u32 (*f)(struct sd_sched *, enum sd_prio))
{
	struct sd_sched *sd = sd_of(data);
	u32 v[SD_PRIO_COUNT];
	enum sd_prio prio;

	spin_lock(&sd->dispatch_lock);
	for (prio = 0; prio <= SD_PRIO_MAX; prio++)
		v[prio] = f(sd, prio);
	spin_unlock(&sd->dispatch_lock);
	seq_printf(m, "%u %u %u\n", v[0], v[1], v[2]);
	return 0;
}

static int sd_queued_show(void *data, struct seq_file *m)
{
	return sd_show_per_prio(data, m, sd_queued);
}

static int sd_owned_by_driver_show(void *data, struct seq_file *m)
{
	return sd_show_per_prio(data, m, sd_owned_by_driver);
}

/* Each line is named after its struct sd_contention field. */
#define SD_SHOW_COUNT(m, cont, field)					\
	seq_printf(m, #field " %llu\n", (unsigned long long)(cont).field)
#define SD_SHOW_ATOMIC(m, cont, field)					\
	seq_printf(m, #field " %lld\n",				\
		   (long long)atomic64_read(&(cont).field))

static int sd_contention_show(void *data, struct seq_file *m)
{
	struct sd_sched *sd = sd_of(data);
	struct sd_contention locked;

	/* A copy, for the counters sd->dispatch_lock owns. */
	spin_lock(&sd->dispatch_lock);
	locked.dispatch_lock_waits = sd->cont.dispatch_lock_waits;
	locked.drained = sd->cont.drained;
	locked.drained_merges = sd->cont.drained_merges;
	spin_unlock(&sd->dispatch_lock);

	SD_SHOW_COUNT(m, locked, dispatch_lock_waits);
	SD_SHOW_ATOMIC(m, sd->cont, dispatch_lock_busy_inserts);
	SD_SHOW_ATOMIC(m, sd->cont, dispatch_lock_busy_bio_merges);
	SD_SHOW_ATOMIC(m, sd->cont, dispatching_skips);
	SD_SHOW_ATOMIC(m, sd->cont, dispatch_rechecks);
	SD_SHOW_COUNT(m, locked, drained);
	SD_SHOW_COUNT(m, locked, drained_merges);
	/* Zone write locks released by completions (zoned devices). */
	seq_printf(m, "zone_unlocks %u\n",
		   (unsigned int)atomic_read(&sd->zone_unlocks));
	return 0;
}

const struct blk_mq_debugfs_attr sd_queue_debugfs_attrs[] = {
	{"read0_fifo_list", 0400, .seq_ops = &sd_read0_fifo_seq_ops},
	{"read0_next_rq", 0400, sd_read0_next_rq_show},
	{"write0_fifo_list", 0400, .seq_ops = &sd_write0_fifo_seq_ops},
	{"write0_next_rq", 0400, sd_write0_next_rq_show},
	{"read1_fifo_list", 0400, .seq_ops = &sd_read1_fifo_seq_ops},
	{"read1_next_rq", 0400, sd_read1_next_rq_show},
	{"write1_fifo_list", 0400, .seq_ops = &sd_write1_fifo_seq_ops},
	{"write1_next_rq", 0400, sd_write1_next_rq_show},
	{"read2_fifo_list", 0400, .seq_ops = &sd_read2_fifo_seq_ops},
	{"read2_next_rq", 0400, sd_read2_next_rq_show},
	{"write2_fifo_list", 0400, .seq_ops = &sd_write2_fifo_seq_ops},
	{"write2_next_rq", 0400, sd_write2_next_rq_show},
	{"async_depth", 0400, sd_async_depth_show},
#if !BF_DD_ONE_DISPATCH_LIST
	{"dispatch0", 0400, .seq_ops = &sd_dispatch0_seq_ops},
	{"dispatch1", 0400, .seq_ops = &sd_dispatch1_seq_ops},
	{"dispatch2", 0400, .seq_ops = &sd_dispatch2_seq_ops},
#else
	{"dispatch", 0400, .seq_ops = &sd_dispatch0_seq_ops},
#endif
	{"owned_by_driver", 0400, sd_owned_by_driver_show},
	{"queued", 0400, sd_queued_show},
	{"batching", 0400, sd_batching_show},
	{"starved", 0400, sd_starved_show},
	{"staged", 0400, sd_staged_show},
	{"contention", 0400, sd_contention_show},
	{},
};
