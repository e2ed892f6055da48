/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What blkfast-window, blkfast-tick and blkfast-zonewin share (test-only,
 * never installed): one 4k RT read of a disk, submitted plugged so that its
 * submitter runs the queue itself, and timed to its end (window, tick); a
 * hook on a scheduler function at its entry or its return, and on its idle
 * passes (window, zonewin); and the "probes" parameter's loop.  Each
 * module makes one probe at a time.
 */
#ifndef BLKFAST_PROBE_READ_H
#define BLKFAST_PROBE_READ_H

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/ioprio.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <blkfast/kcompat.h>

/* A read this slow waited for something: blk-mq's 3 ms rerun, say. */
#define PROBE_READ_SLOW_NS	(2 * NSEC_PER_MSEC)

struct probe_read {
	struct block_device *bdev;
	void *handle;			/* kcompat.h */
	struct page *page;
	struct bio bio;
	struct bio_vec bvec;
	struct completion done;
	sector_t sector;
	u64 start_ns;
	u64 end_ns;
	/* Over all probes: reads of PROBE_READ_SLOW_NS or more, the longest. */
	unsigned long slow;
	u64 max_ns;
};

static inline int probe_read_open(struct probe_read *pr, const char *path)
{
	pr->page = alloc_page(GFP_KERNEL);
	if (!pr->page)
		return -ENOMEM;
	pr->bdev = bf_bdev_open_path(path, false, NULL, &pr->handle);
	if (IS_ERR(pr->bdev)) {
		__free_page(pr->page);
		return PTR_ERR(pr->bdev);
	}
	init_completion(&pr->done);
	return 0;
}

static inline void probe_read_close(struct probe_read *pr)
{
	bf_bdev_close(pr->bdev, false, NULL, pr->handle);
	__free_page(pr->page);
}

/* Before probe @i: a page of its own among the disk's first 1024. */
static inline void probe_read_prepare(struct probe_read *pr, unsigned int i)
{
	reinit_completion(&pr->done);
	pr->sector = (sector_t)(i % 1024) << (PAGE_SHIFT - SECTOR_SHIFT);
}

static inline void probe_read_end_io(struct bio *bio)
{
	struct probe_read *pr = bio->bi_private;

	WRITE_ONCE(pr->end_ns, ktime_get_ns());
	complete(&pr->done);
}

/*
 * Submit the read: the plug makes this task insert it and run the queue
 * itself, before this returns.
 */
static inline void probe_read_submit(struct probe_read *pr)
{
	struct blk_plug plug;

	bio_init(&pr->bio, pr->bdev, &pr->bvec, 1, REQ_OP_READ | REQ_SYNC);
	pr->bio.bi_iter.bi_sector = pr->sector;
	pr->bio.bi_ioprio = IOPRIO_PRIO_VALUE(IOPRIO_CLASS_RT, 0);
	pr->bio.bi_end_io = probe_read_end_io;
	pr->bio.bi_private = pr;
	__bio_add_page(&pr->bio, pr->page, PAGE_SIZE, 0);
	blk_start_plug(&plug);
	pr->start_ns = ktime_get_ns();
	submit_bio(&pr->bio);
	blk_finish_plug(&plug);
}

/* After the probe: wait for the read, count its time, give its status. */
static inline int probe_read_finish(struct probe_read *pr)
{
	u64 ns;

	if (!wait_for_completion_timeout(&pr->done, 10 * HZ))
		return -ETIMEDOUT;	/* the bio is lost to us: stop */
	bio_uninit(&pr->bio);
	ns = pr->end_ns - pr->start_ns;
	if (ns >= PROBE_READ_SLOW_NS)
		pr->slow++;
	pr->max_ns = max(pr->max_ns, ns);
	return pr->bio.bi_status ? -EIO : 0;
}

/* A hook on a function, at its entry ("entry") or its return ("return"). */
struct probe_at {
	struct kprobe kp;
	struct kretprobe krp;
	bool at_return;
	void (*idle)(void);	/* probe_at_register_idle()'s hook */
};

static inline int probe_at_register(struct probe_at *pa, const char *symbol,
				    const char *at, kprobe_pre_handler_t pre,
				    kretprobe_handler_t ret)
{
	if (!strcmp(at, "return")) {
		pa->at_return = true;
		pa->krp.kp.symbol_name = symbol;
		pa->krp.handler = ret;
		pa->krp.maxactive = 16;
		return register_kretprobe(&pa->krp);
	}
	if (strcmp(at, "entry"))
		return -EINVAL;
	pa->kp.symbol_name = symbol;
	pa->kp.pre_handler = pre;
	return register_kprobe(&pa->kp);
}

/*
 * A scheduler's idle dispatch pass, as the two window modules hold it:
 * split-deadline's sd_release_dispatch() at its entry (its third argument
 * says the pass found nothing), mq-deadline's dd_dispatch_request() at its
 * return (NULL).
 */
static inline int probe_at_idle_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if ((u8)regs_get_kernel_argument(regs, 2))
		container_of(kp, struct probe_at, kp)->idle();
	return 0;
}

static inline int probe_at_idle_ret(struct kretprobe_instance *ri,
				    struct pt_regs *regs)
{
	if (!regs_return_value(regs))
		container_of(get_kretprobe(ri), struct probe_at, krp)->idle();
	return 0;
}

/* Call @idle in every idle pass of @symbol, hooked @at its entry or return. */
static inline int probe_at_register_idle(struct probe_at *pa,
					 const char *symbol, const char *at,
					 void (*idle)(void))
{
	pa->idle = idle;
	return probe_at_register(pa, symbol, at, probe_at_idle_pre,
				 probe_at_idle_ret);
}

static inline void probe_at_unregister(struct probe_at *pa)
{
	if (pa->at_return)
		unregister_kretprobe(&pa->krp);
	else
		unregister_kprobe(&pa->kp);
}

/*
 * The "probes" parameter's write: @val probes, one after the other under
 * @lock, each by @one(@i), with a pause after each for any queue rerun it
 * left behind to pass; the first error stops them.
 */
static inline int probe_read_loop(const char *val, struct mutex *lock,
				  int (*one)(unsigned int i))
{
	unsigned int n, i;
	int ret;

	ret = kstrtouint(val, 0, &n);
	if (ret)
		return ret;
	mutex_lock(lock);
	for (i = 0; i < n && !ret; i++) {
		ret = one(i);
		usleep_range(5000, 6000);
	}
	mutex_unlock(lock);
	return ret;
}

#endif /* BLKFAST_PROBE_READ_H */
