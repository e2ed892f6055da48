/* SPDX-License-Identifier: GPL-2.0 */
/*
 * split-deadline: mq-deadline's policy with separate insert and dispatch
 * locks.
 *
 * Locking
 * -------
 * sd->lock ("dispatch lock") owns the scheduler proper: the per-priority
 * sort trees, FIFOs and dispatch lists, the batching state, the core's
 * merge hash (elv_rqhash_*) and q->last_merge, and the inserted / merged /
 * dispatched counters.  Exactly as in mq-deadline, every merge lookup and
 * every change of those structures happens under it.
 *
 * sd->insert_lock owns the staging lists.  A submitter first *tries* the
 * dispatch lock and, if it gets it, inserts directly (merging as
 * mq-deadline does); if a dispatcher holds it, the submitter appends to the
 * staging list under insert_lock instead and returns.  Submitters thus never
 * wait for a dispatcher walking the sorted lists.  Bio merges do the same:
 * the full lookup when the dispatch lock is free, otherwise a back/front
 * merge against the tail of the staging list.
 *
 * The dispatcher drains the staging lists into the sort trees under the
 * dispatch lock, running the insert merges that the submitter skipped, so a
 * request staged under contention still merges with its neighbours
 * (upstream's 2024 split lost those merges; this is what keeps them).
 *
 * Only one CPU dispatches at a time (SD_DISPATCHING); the others return at
 * once.  See sd_dispatch_request() for why no request is stranded.
 *
 * finish_request runs in any context, including hard IRQ and inside the
 * insert path (freeing merged requests): it takes neither lock and its
 * counter is atomic.
 */
#ifndef _SPLIT_DEADLINE_H
#define _SPLIT_DEADLINE_H

#include <linux/blk-mq.h>
#include <linux/spinlock.h>
#include <linux/rbtree.h>

#include <block/elevator.h>
#include <block/blk-mq-debugfs.h>

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
	u32 inserted;		/* sd->lock */
	u32 merged;		/* sd->lock */
	u32 dispatched;		/* sd->lock */
	atomic_t completed;	/* atomic: finish_request takes no lock */
};

/* All members under sd->lock. */
struct sd_per_prio {
	struct list_head dispatch;		/* at-head inserts, FIFO */
	struct rb_root sort_list[SD_DIR_COUNT];	/* by sector */
	struct list_head fifo_list[SD_DIR_COUNT];	/* by deadline */
	struct request *next_rq[SD_DIR_COUNT];	/* next in sector order */
	struct sd_stats stats;
};

/*
 * Lock contention, shown in debugfs.  Each counter is owned by the lock
 * named beside it (incremented only while holding it), or is atomic.
 */
struct sd_contention {
	u64 insert_lock_waits;		/* insert_lock */
	u64 staged_inserts;		/* insert_lock: dispatch lock was busy */
	u64 staged_bio_merge_tries;	/* insert_lock */
	u64 staged_bio_merges;		/* insert_lock */
	u64 dispatch_lock_waits;	/* sd->lock */
	u64 drained;			/* sd->lock: requests moved from staging */
	u64 drained_merges;		/* sd->lock: drained and merged away */
	atomic64_t dispatch_skips;	/* another CPU was dispatching */
	atomic64_t dispatch_rechecks;	/* new requests seen after the flag */
};

/* sd->flags bits */
enum {
	SD_DISPATCHING,		/* one CPU is inside sd_dispatch_request() */
};

struct sdl_data {
	spinlock_t lock;		/* the dispatch lock, see above */
	struct sd_per_prio per_prio[SD_PRIO_COUNT];
	enum sd_dir last_dir;		/* sd->lock */
	unsigned int batching;		/* sd->lock */
	unsigned int starved;		/* sd->lock */
	/*
	 * Bumped by every direct insert, under sd->lock; the dispatcher reads
	 * it under sd->lock and again after it has dropped SD_DISPATCHING,
	 * to see an insert whose queue run found the flag still set.
	 */
	unsigned long insert_gen;

	/* Staged requests, in arrival order; insert_lock. */
	spinlock_t insert_lock ____cacheline_aligned_in_smp;
	struct list_head staged;	/* tail inserts */
	struct list_head staged_head;	/* at-head inserts (requeue, flush) */

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
};

extern struct elv_fs_entry sdl_attrs[];
#ifdef CONFIG_BLK_DEBUG_FS
extern const struct blk_mq_debugfs_attr sdl_queue_debugfs_attrs[];
#endif

/*
 * Exported by block/blk-merge.c but declared only in the private block/blk.h,
 * which this module does not use.
 */
bool blk_bio_list_merge(struct request_queue *q, struct list_head *list,
			struct bio *bio, unsigned int nr_segs);

u32 sdl_queued(struct sdl_data *sd, enum sd_prio prio);
u32 sdl_owned_by_driver(struct sdl_data *sd, enum sd_prio prio);

#endif /* _SPLIT_DEADLINE_H */
