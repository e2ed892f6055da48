/* SPDX-License-Identifier: GPL-2.0 */
/*
 * split-deadline: mq-deadline's policy behind one dispatch lock that
 * inserts only try, with a lock-free staging list for the inserts that
 * find it busy.
 *
 * Locking
 * -------
 * sd->dispatch_lock, the dispatch lock, owns the scheduler proper: the
 * per-priority sort trees, FIFOs and dispatch lists, the batching state,
 * the core's merge hash (elv_rqhash_*) and q->last_merge, and the
 * inserted / merged / dispatched counters.  Exactly as in mq-deadline,
 * every merge lookup and every change of those structures happens under
 * it.
 *
 * Submitters never wait for the dispatch lock (except on PREEMPT_RT: see
 * below).  A submitter first *tries* it and, if it gets it, inserts
 * directly (merging as mq-deadline does); if another CPU holds it, the
 * submitter pushes its requests onto a lock-free staging list
 * (llist_add_batch(), linked through rq->ipi_list, which shares space with
 * the merge hash node a staged request does not use yet) and returns.
 * Only the holder of the dispatch lock takes requests off the staging
 * lists (llist_del_all()), so under the dispatch lock they can also be
 * walked.  A bio merge tries the dispatch lock too; if it gets it, it
 * first drains the staging lists so that the bio can merge with what was
 * staged, and if not, it gives up the merge (the request it becomes may
 * still merge when it is drained).
 *
 * Whoever holds the dispatch lock next drains the staging lists into the
 * sort trees, oldest first, running the insert merges that the submitter
 * skipped, so a request staged under contention still merges with its
 * neighbours (upstream's 2024 split lost those merges; this keeps them).
 *
 * Only one CPU dispatches at a time (SD_DISPATCHING); the others return at
 * once.  See sd_dispatch_request() for why no request is stranded.  Not
 * on PREEMPT_RT: there a gate holder preempted by a higher-priority task
 * would hold back every dispatcher, whatever its priority, with nothing
 * to boost it; every dispatcher takes the dispatch lock instead, an
 * rtmutex that boosts its holder, as mq-deadline's take dd->lock
 * (sd_enter_dispatch()).  For the same reason submitters on PREEMPT_RT
 * wait for the lock rather than stage: the request of a staging
 * submitter is dispatched by whoever runs the queue next, often kblockd
 * at normal priority, and a preempted holder stays preempted.  So on
 * PREEMPT_RT split-deadline locks as mq-deadline does, and nothing is
 * staged.
 *
 * finish_request runs in any context, including hard IRQ and inside the
 * insert path (freeing merged requests): it takes neither lock and its
 * counter is atomic.
 */
#ifndef _SPLIT_DEADLINE_H
#define _SPLIT_DEADLINE_H

#include <linux/blk-mq.h>
#include <linux/llist.h>
#include <linux/spinlock.h>
#include <blkfast/kcompat.h>
#include <linux/rbtree.h>

#include <block/elevator.h>
#include <block/blk-mq-debugfs.h>

/* Set by sched/Kbuild in a test build: see sd_release_dispatch(). */
#ifndef SD_CHECK_GATE
#define SD_CHECK_GATE 0
#endif

enum sd_dir {
	SD_READ = READ,
	SD_WRITE = WRITE,
	SD_DIR_COUNT = 2,
};

enum sd_prio {
	SD_RT_PRIO = 0,
	SD_BE_PRIO = 1,
	SD_IDLE_PRIO = 2,
	SD_PRIO_MAX = 2,
	SD_PRIO_COUNT = 3,
};

/* Per-priority counters; they may wrap, only differences matter. */
struct sd_stats {
	u32 inserted;		/* sd->dispatch_lock */
	u32 merged;		/* sd->dispatch_lock */
	u32 dispatched;		/* sd->dispatch_lock */
	atomic_t completed;	/* atomic: finish_request takes no lock */
};

/*
 * At-head inserts (requeues, flushes) wait on one list per priority level,
 * or on one list for all, as the kernel's mq-deadline keeps them: see
 * sd-policy.h.
 */
#define SD_HEAD_LISTS	(BF_DD_ONE_DISPATCH_LIST ? 1 : SD_PRIO_COUNT)

/* All members under sd->dispatch_lock. */
struct sd_per_prio {
	struct rb_root sort_list[SD_DIR_COUNT];	/* by sector */
	struct list_head fifo_list[SD_DIR_COUNT];	/* by deadline */
	/* Where a batch goes on (sd-policy.h): */
#if BLKFAST_612
	sector_t latest_pos[SD_DIR_COUNT];	/* last dispatched start */
#else
	struct request *next_rq[SD_DIR_COUNT];	/* next in sector order */
#endif
	struct sd_stats stats;
};

/*
 * Lock contention, shown in debugfs.  Each counter is owned by the lock
 * named beside it (incremented only while holding it), or is atomic; the
 * atomic ones are written only when the dispatch lock was found busy.
 */
struct sd_contention {
	/* inserts staged: the dispatch lock was busy */
	atomic64_t dispatch_lock_busy_inserts;
	/* bio merges not tried: the dispatch lock was busy */
	atomic64_t dispatch_lock_busy_bio_merges;
	/* These three under sd->dispatch_lock: */
	u64 dispatch_lock_waits;
	u64 drained;			/* requests moved from staging */
	u64 drained_merges;		/* drained and merged away */
	atomic64_t dispatching_skips;	/* another CPU was dispatching */
	atomic64_t dispatch_rechecks;	/* new requests seen after the flag */
};

/* sd->flags bits */
enum {
	SD_DISPATCHING,		/* one CPU is inside sd_dispatch_request() */
};

struct sd_sched {
	spinlock_t dispatch_lock;	/* see above */
	struct sd_per_prio per_prio[SD_PRIO_COUNT];
	struct list_head dispatch[SD_HEAD_LISTS];	/* at-head, LIFO */
	enum sd_dir last_dir;		/* sd->dispatch_lock */
	unsigned int batching;		/* sd->dispatch_lock */
	unsigned int starved;		/* sd->dispatch_lock */
	/*
	 * Requests on the FIFOs and dispatch lists, staged ones excluded:
	 * written under sd->dispatch_lock, read without it (WRITE_ONCE and
	 * READ_ONCE) by has_work and the bio-merge shortcut, where one load
	 * replaces a look at every list.
	 */
	unsigned int nr_held;
	/*
	 * Bumped by every direct insert and every drain, under
	 * sd->dispatch_lock; the dispatcher reads it under the lock and again
	 * after it has dropped SD_DISPATCHING, to see an insert whose queue
	 * run found the flag still set.
	 */
	unsigned long insert_gen;

	/*
	 * Staged requests, newest first: anyone adds, only the holder of
	 * sd->dispatch_lock takes off (and may walk).
	 */
	struct llist_head staged ____cacheline_aligned_in_smp; /* tail */
	struct llist_head staged_head;	/* at-head inserts (requeues) */

	unsigned long flags ____cacheline_aligned_in_smp;
	struct sd_contention cont;

	/* Tunables: written from sysfs, read locklessly (as mq-deadline). */
	int fifo_expire[SD_DIR_COUNT];	/* jiffies */
	int fifo_batch;
	int writes_starved;
	int front_merges;
	u32 async_depth;
	int prio_aging_expire;		/* jiffies */

	spinlock_t zone_lock;		/* zone write locks vs dispatch scans */
	/*
	 * Bumped by every zoned request's completion, after it released its
	 * zone write lock: an idle pass may have found a write held back by
	 * that lock, and looks again if this moved (sd_release_dispatch()).
	 */
	atomic_t zone_unlocks;
};

extern struct elv_fs_entry sd_attrs[];
#ifdef CONFIG_BLK_DEBUG_FS
extern const struct blk_mq_debugfs_attr sd_queue_debugfs_attrs[];
#endif

u32 sd_queued(struct sd_sched *sd, enum sd_prio prio);
u32 sd_owned_by_driver(struct sd_sched *sd, enum sd_prio prio);

#endif /* _SPLIT_DEADLINE_H */
