/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pdm: a bio-based stacking block driver with io_uring IOPOLL support.
 * Shared definitions of the module's files.
 */
#ifndef _PDM_H
#define _PDM_H

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/list.h>
#include <linux/mempool.h>
#include <linux/mutex.h>
#include <linux/percpu-refcount.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/spinlock.h>

/*
 * Set by poll/Kbuild in a test build: test-only windows (pdm-dev.c) and
 * checks of promises the code makes in comments (pdm_assert_noio()).
 */
#ifndef PDM_TEST_HOOKS
#define PDM_TEST_HOOKS 0
#endif
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <uapi/linux/pdm.h>

#include "pdm-acct.h"
#include "pdm-target.h"
#include "pdm-table.h"

/*
 * A map: a parsed table bound to opened lower devices.  The segments and
 * their legs are the parser's; each leg's bdev is the lower device opened
 * exclusively for the pdm device that owns the map.  A map is immutable
 * once built; the live one changes only while its device is suspended and
 * drained (see struct pdm_dev).
 */
struct pdm_map {
	struct pdm_table_spec spec;
	char *text;			/* backing store of spec's strings */
	fmode_t mode;			/* the lower devices' open mode */
	struct queue_limits limits;	/* stacked from every leg */
	bool poll;			/* every lower queue polls */
	bool nowait;			/* every lower queue takes NOWAIT */
	bool wc, discard;		/* some leg caches; every leg discards */
	char nopoll_why[96];		/* why poll is false */
	/* distinct lower devices, for flush; legs name theirs by index */
	struct block_device **bdevs;
	/* where each lies on its whole disk: for the overlap check */
	struct pdm_dev_base *bases;
	u32 nr_bdevs;
	bool holders_linked;		/* pdm_map_link_holders() */
	/*
	 * Hybrid polling's learned completion time per bdevs[] entry and
	 * direction (0 read, 1 write), a lower quartile (pdm-hybrid.h): a
	 * table over a slow and a fast device waits for each as it is.
	 * Pollers update it without a lock (a lost update loses one
	 * sample); a new table starts from zero.
	 */
	u64 (*hybrid_estimate_ns)[2];
};

/* Hot-path counters, per CPU and summed only when sysfs reads them. */
struct pdm_stats {
	unsigned long bios;		/* top bios submitted */
	unsigned long polled_bios;	/* ... of which REQ_POLLED */
	unsigned long poll_bio_calls;	/* poll_bio calls */
	unsigned long lower_polls;	/* bio_poll calls on clones */
	unsigned long completions_found;	/* clones completed by a poll */
	unsigned long clones;		/* lower bios issued */
	unsigned long remapped;		/* bios remapped in place, no clone */
	unsigned long deferred;		/* bios held back by a suspend */
	unsigned long trylock_skips;	/* sweep: queue busy with a poller */
	unsigned long hybrid_early_returns;	/* left before polling */
	unsigned long nowait_again;	/* NOWAIT, a clone not allocated */
	unsigned long requeued;		/* NOWAIT, EAGAIN below: redone */
	unsigned long stale_polls;	/* poll_bio on a bio not published */
	/* hybrid "sleep" (pdm-hybrid.c) */
	unsigned long hybrid_sleeps;	/* sleeps taken */
	unsigned long hybrid_slept_ns;	/* ... and their total length */
	unsigned long hybrid_late_wakeups;	/* woke after its expected end */
	unsigned long hybrid_sleeps_interrupted; /* cut short by a signal */
	unsigned long hybrid_sleeps_called_off; /* a bio of the pass was due */
	unsigned long hybrid_late_ns;	/* ... by this much in all */
	unsigned long hybrid_sleep_ready;	/* then polled: completed */
	unsigned long hybrid_sleep_early;	/* then polled: not yet */
	unsigned long hybrid_sleep_refused;	/* gated, not slept */
	/* given back with EAGAIN, not counted in the disk's statistics */
	unsigned long eagain_returned;
};

enum pdm_hybrid_mode {
	PDM_HYBRID_OFF,		/* classic polling */
	PDM_HYBRID_GATE,	/* return early until a bio is due */
	PDM_HYBRID_SLEEP,	/* sleep in task work until one is due */
};

enum pdm_poll_mode {
	PDM_POLL_TRACKED,	/* poll the queues this bio's clones went to */
	PDM_POLL_SWEEP,		/* poll every lower poll queue, trylock */
	PDM_POLL_SWEEP_WAIT,	/* the same, waiting for busy queues */
	PDM_POLL_DIRECT,	/* remap in place; the submitter polls below */
};

/*
 * Sweep locks, one per lower poll queue, hashed by (lower device, queue):
 * distinct for up to 8 devices of up to 8 poll queues each.
 */
#define PDM_SWEEP_LOCKS	64

/*
 * One pdm device.
 *
 * Locking (lock order: lock, then pdm_ctl_mutex):
 * - lock serialises the commands that change this device (reload,
 *   suspend, resume, remove), and is held across their waits for I/O in
 *   flight, which are killable: a device whose I/O cannot drain (a lower
 *   pdm device suspended) holds up commands on itself only.
 * - pdm_ctl_mutex (pdm-main.c) guards the device list and the names, and
 *   is never held across a wait for I/O.  rename changes a name holding
 *   lock, pdm_ctl_mutex and name_lock, so any one of them keeps it still:
 *   sysfs, which may take neither of the first two (see pdm-sysfs.c),
 *   reads it under name_lock.  map and inactive change only
 *   with both locks held, so either one is enough to read them: the
 *   commands that only read a device (info, table, status) and the stack
 *   check of a table being built (which walks other devices' maps) take
 *   pdm_ctl_mutex alone.
 * - gone is set by remove with both locks held; a command that waited for
 *   lock checks it first.  ref counts the device list's reference and
 *   each command's between its lookup and its end: the last put frees.
 * - map is read without a lock by the I/O path while it holds a reference
 *   on active; it is replaced only while active is dead and drained, and
 *   freed after that, so a submitter never sees it change under it.
 * - defer_lock guards suspended and deferred.  Submitters that cannot get
 *   a live active reference take it to queue their bio.
 * - open_lock guards open_count, removing and deferred_remove (the
 *   last close queues the removal, pdm_deferred_remove_work()): block
 *   device open and release run under the disk's open_mutex, which
 *   del_gendisk takes too (remove calls it holding lock), so they cannot
 *   take lock.
 * - requeue_lock guards requeue.  It is taken with interrupts off: the
 *   lower completions that queue a bio there may run in hard interrupt
 *   context.  Whoever adds a bio queues requeue_work before dropping it:
 *   the bio holds the pd->active reference that keeps pd alive, and
 *   the worker may take it the moment the lock goes.
 */
struct pdm_dev {
	struct list_head node;
	char name[PDM_NAME_LEN];	/* see rename above */
	spinlock_t name_lock;		/* name, for sysfs */
	char uuid[PDM_UUID_LEN];	/* set at create, "" if none */
	bool read_only;			/* set at create: every table's mode */
	/* set at create: its writable sectors may be another's too */
	bool shared;
	struct gendisk *disk;
	int minor;
	struct mutex lock;		/* this device's changing commands */
	refcount_t ref;
	bool gone;			/* removed: lock and pdm_ctl_mutex */

	struct pdm_map *map;
	struct pdm_map *inactive;
	/* The stack check's last walk (pdm-map.c), pdm_ctl_mutex. */
	u64 walk_gen;
	unsigned int walk_height;

	struct percpu_ref active;	/* top bios in flight */
	wait_queue_head_t drained;	/* active reached zero after a kill */

	spinlock_t defer_lock;		/* suspended, deferred */
	bool suspended;
	bool frozen;			/* lock: suspend froze the fs */
	struct bio_list deferred;

	spinlock_t open_lock;		/* open_count, removing, deferred */
	int open_count;
	bool removing;
	bool deferred_remove;		/* remove on the last close */

	/*
	 * Top bios to map again from process context: PREFLUSH+data bios
	 * whose preflushes have all completed, their data still to go, and
	 * REQ_NOWAIT bios whose clones met EAGAIN below (see pdm-send.c), each
	 * listed by the first clone of its last pass, which holds its
	 * pdm_io (pdm_io_requeued()).  Each keeps its reference on active,
	 * so a suspend waits for it and the map stays the one it was first
	 * mapped with.  requeue_work maps
	 * them from wq, where it may block; removal destroys wq, which
	 * waits for the work.
	 */
	spinlock_t requeue_lock;	/* requeue */
	struct bio_list requeue;
	struct work_struct requeue_work;
	struct workqueue_struct *wq;

	struct bio_set bs;
	mempool_t remap_pool;		/* struct pdm_remap */
	struct pdm_remap_list __percpu *remap_free;
	struct pdm_stats __percpu *stats;

	/*
	 * Polling policy (pdm-poll.c), set through sysfs at any time and
	 * read once per poll_bio call.  The learned completion times are the
	 * map's, per lower device (struct pdm_map).
	 * hybrid_wake_late_ns is how late hybrid sleeps wake, learned by
	 * their task works (pdm-hybrid.c) likewise (the stats' hybrid_late_ns
	 * sums the lateness of the late ones instead), and
	 * hybrid_wake_margin_ns the margin the sleeps' verdicts add to it.
	 */
	int poll_mode;			/* enum pdm_poll_mode */
	int hybrid;			/* enum pdm_hybrid_mode */
	u64 hybrid_wake_late_ns;
	u64 hybrid_wake_margin_ns;	/* from the sleeps' verdicts */
	u64 hybrid_probe_ns;		/* last lateness probe, pdm-hybrid.c */
	/*
	 * sweep: held while a lower poll queue is polled.  A spinlock_t, so
	 * that on PREEMPT_RT, where ->poll() takes sleeping locks (nvme's
	 * cq_poll_lock, null_blk's poll_lock), it is a sleeping lock too and
	 * sweep_wait blocks, with priority inheritance, on a preempted
	 * holder instead of spinning on it.
	 */
	spinlock_t sweep_lock[PDM_SWEEP_LOCKS];
};

/*
 * Per top bio state, kept in the front pad of its first clone, which is
 * freed last.  The clones of a polled top bio are listed in clones and
 * freed with the first, since poll_bio walks them; those of an unpolled
 * one are freed as each ends, so that a pass waiting for a clone from
 * the device's pool can be given back the ones it issued (the pool's
 * rescuer issues them, see pdm_dev_alloc()).
 *
 * remaining counts the clones not yet ended, plus one for the submitter,
 * plus one per poll_bio walking the clones.  An unpolled top bio
 * completes when it reaches 0.  A polled top bio whose clones were all
 * issued is "published": REQ_DRV set in its bi_opf and bi_private
 * pointing here (the submitter's bi_private saved), the submitter's
 * reference kept as the publish reference; whoever sees remaining at 1 in
 * the owner's task context may claim the completion (pdm_io_claim(), a
 * cmpxchg to 0): a poll_bio call, or a clone's end_io run by the owner.
 * magic is written last when an io is set up and cleared first when it
 * ends, so a poll_bio on a stale or recycled bio can tell whether to take
 * a reference.  See pdm-io.c.
 *
 * then_data marks the first pass of a PREFLUSH+data top bio over more
 * than one lower device: its clones are the empty flushes only, and when
 * they have all ended without error the top bio's data is issued by
 * pdm_requeue_work() as a second io, instead of the top bio completing.
 * Set by the submitter before it drops its reference, read by whoever
 * drops the last.
 */
struct pdm_io {
	unsigned long magic;
	struct pdm_dev *pd;
	struct bio *top;
	struct pdm_acct acct;		/* the top bio's, across requeues */
	void *saved_private;
	atomic_t remaining;
	blk_status_t status;		/* first error, racy but any will do */
	bool published;
	bool polled;			/* top REQ_POLLED: clones are listed */
	bool nowait;			/* top REQ_NOWAIT: EAGAIN may come */
	bool then_data;			/* flushes first, then the data */
	struct task_struct *owner;	/* the issuer, which polls it */
	struct pdm_clone *clones;	/* every clone if polled, for poll_bio */
	u64 start_ns;			/* hybrid: when issued; 0 if off */
};

#define PDM_IO_MAGIC	0x70646d696f5f7631UL	/* "pdmio_v1" */

struct pdm_clone {
	struct pdm_io *io;
	struct pdm_clone *next;		/* in io->clones */
	bool done;			/* end_io ran */
	u64 *hybrid_estimate_ns;	/* its lower device's, in the map */
	struct bio bio;			/* last: the bioset's front pad ends here */
};

/* The first clone of a top bio carries the pdm_io in front of it. */
struct pdm_io_clone {
	struct pdm_io io;
	struct pdm_clone clone;
};

#define PDM_FRONT_PAD	offsetof(struct pdm_io_clone, clone.bio)

/*
 * A top bio remapped in place (poll_mode direct): what its submitter set,
 * put back when the lower device completes it.  It holds a reference on
 * pd->active, as a top bio with clones does.
 */
struct pdm_remap {
	struct pdm_dev *pd;
	struct block_device *bdev;	/* the pdm device's */
	bio_end_io_t *end_io;
	void *private;
	struct pdm_acct acct;
	struct pdm_remap *next;		/* in a pdm_remap_list */
};

/*
 * Free pdm_remaps kept per CPU, so that remapping a bio allocates nothing
 * in the common case (as the bio alloc cache does for polled bios).
 * Touched only by its own CPU with interrupts off: completions may run in
 * interrupt context.
 */
struct pdm_remap_list {
	struct pdm_remap *head;
	unsigned int nr;
};

#define PDM_REMAP_FREE_MAX	64

/* pdm-main.c */
extern struct mutex pdm_ctl_mutex;
extern int pdm_major;

/* pdm-dev.c */
extern const struct block_device_operations pdm_fops;
struct pdm_dev *pdm_dev_find(const char *name);
void pdm_dev_put(struct pdm_dev *pd);

/* What create takes besides the table: from the control command. */
struct pdm_dev_args {
	const char *name;
	const char *uuid;		/* "" for none */
	bool read_only;
	bool shared;			/* may share writable sectors */
};

int pdm_dev_create(const struct pdm_dev_args *args, char *text, size_t len,
		   char *err, struct pdm_dev **out);
int pdm_dev_remove(struct pdm_dev *pd, bool deferred, char *err);
int pdm_dev_cancel_deferred(struct pdm_dev *pd, char *err);
int pdm_dev_rename(struct pdm_dev *pd, const char *name, char *err);
bool pdm_dev_remove_pending(struct pdm_dev *pd);
void pdm_dev_exit(void);
int pdm_dev_reload(struct pdm_dev *pd, char *text, size_t len,
		   bool read_only, char *err);
int pdm_dev_suspend(struct pdm_dev *pd, bool lockfs, char *err);
int pdm_dev_resume(struct pdm_dev *pd, bool lockfs, char *err);
bool pdm_dev_suspended(struct pdm_dev *pd);
int pdm_dev_open_count(struct pdm_dev *pd);
size_t pdm_dev_list(void *out, size_t room);

/* pdm-map.c */
struct pdm_map *pdm_map_build(struct pdm_dev *pd, char *text, size_t len,
			      bool read_only, char *err);
int pdm_map_check_stack(struct pdm_dev *pd, struct pdm_map *map, char *err);
void pdm_map_free(struct pdm_dev *pd, struct pdm_map *map);
int pdm_map_apply(struct pdm_dev *pd, struct pdm_map *map);
int pdm_map_link_holders(struct pdm_dev *pd, struct pdm_map *map, char *err);
size_t pdm_map_format_table(const struct pdm_map *map, char *buf,
			    size_t size);
size_t pdm_map_format_status(struct pdm_dev *pd, const struct pdm_map *map,
			     char *buf, size_t size);

/* pdm-send.c */
void pdm_submit_bio(struct bio *bio);
void pdm_requeue_work(struct work_struct *work);

/* pdm-io.c */
struct pdm_io *pdm_io_init(struct bio *first, struct pdm_dev *pd,
			   struct bio *top, const struct pdm_acct *acct);
void pdm_io_add(struct pdm_io *io, struct bio *clone, u64 *estimate_ns);
void pdm_io_publish(struct pdm_io *io);
void pdm_io_free_held(struct pdm_io *io, struct bio_list *held);
void pdm_io_put(struct pdm_io *io);
struct pdm_io *pdm_io_walk(struct bio *bio);
int pdm_io_unwalk(struct pdm_io *io);
struct bio *pdm_io_requeued(struct bio *first, struct pdm_acct *acct);

/* pdm-remap.c */
extern struct kmem_cache *pdm_remap_cache;	/* struct pdm_remap */
bool pdm_remap(struct pdm_dev *pd, struct bio *top, struct block_device *bdev,
	       sector_t lsec, const struct pdm_acct *acct);
void pdm_remap_free_drain(struct pdm_dev *pd);

/*
 * Remap in place rather than clone?  Only in direct mode, and not a
 * polled bio while hybrid polling is on: the wait lives in pdm's
 * poll_bio, which a remapped bio's poller never calls.
 */
static inline bool pdm_want_remap(struct pdm_dev *pd, struct bio *top)
{
	if (READ_ONCE(pd->poll_mode) != PDM_POLL_DIRECT)
		return false;
	return !(top->bi_opf & REQ_POLLED) || !READ_ONCE(pd->hybrid);
}

/*
 * End a top bio: its statistics, then its reference on pd->active, then
 * the bio, in that order: once the submitter has its bio back it may
 * close and remove the device, which waits only for the references (as
 * dm drops its pending count before bio_endio()).  Nothing here touches
 * @pd after.  A bio given back with EAGAIN (a REQ_NOWAIT one that met a
 * full lower queue or no memory) is not counted: its submitter issues it
 * again.
 */
static inline void pdm_end_top(struct pdm_dev *pd, struct bio *top,
			       const struct pdm_acct *acct)
{
	if (unlikely(top->bi_status == BLK_STS_AGAIN)) {
		this_cpu_inc(pd->stats->eagain_returned);
		pdm_acct_cancel(pd->disk, top, acct);
	} else {
		pdm_acct_end(pd->disk, top, acct);
	}
	percpu_ref_put(&pd->active);
	bio_endio(top);
}

/* pdm-poll.c */
int pdm_poll_bio(struct bio *bio, struct io_comp_batch *iob,
		 unsigned int flags);
extern const char * const pdm_poll_mode_names[];

/* pdm-hybrid.c */
/*
 * What one poll_bio call's hybrid check leaves for its end (on the
 * caller's stack: the task's own).
 */
struct pdm_hybrid_pass {
	int mode;		/* enum pdm_hybrid_mode, read once */
	int woke;		/* first call since a sleep: PDM_WOKE_* */
	bool waits;		/* not due: the call does not poll */
	u64 now;		/* the clock, if it was read; else 0 */
	u64 start_ns;		/* the bio's issue, if now */
	u64 est;		/* its expected completion time, if now */
};

#define PDM_WOKE_SLEPT	1
#define PDM_WOKE_PROBED	2
extern const char * const pdm_hybrid_names[];
bool pdm_hybrid_start(struct pdm_dev *pd, struct pdm_io *io,
		      const struct bio *bio, unsigned int pending,
		      struct pdm_hybrid_pass *hy);
void pdm_hybrid_end(struct pdm_dev *pd, const struct pdm_hybrid_pass *hy,
		    struct io_comp_batch *iob, unsigned int pending,
		    unsigned int left);

/* pdm-sysfs.c */
extern const struct attribute_group *pdm_attr_groups[];

#define pdm_err(err, fmt, ...) \
	snprintf((err), PDM_MSG_LEN, fmt, ##__VA_ARGS__)

/*
 * A test build checks that a command allocates with no I/O, as
 * pdm_ctl_cmd() arranges: see the comment there.
 */
static inline void pdm_assert_noio(void)
{
	if (PDM_TEST_HOOKS)
		WARN_ONCE(!(current->flags & PF_MEMALLOC_NOIO),
			  "pdm: a command allocates with I/O allowed\n");
}

#endif /* _PDM_H */
