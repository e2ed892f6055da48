/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel interfaces that differ between the two kernel lines blkfast
 * builds for, Debian's Linux 6.1 and 6.12, one helper per difference, so
 * that the code that uses them reads the same on both.
 *
 * The switch is per kernel line, not per upstream commit: kernels between
 * the two are not supported, and a helper says which 6.12 change it
 * follows.  The 6.12 side is what Debian 12's bookworm-security and
 * Debian 13 ship (6.12.y with its stable backports).
 */
#ifndef _BLKFAST_KCOMPAT_H
#define _BLKFAST_KCOMPAT_H

#include <linux/version.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/fs.h>

#define BLKFAST_612	(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0))

#if BLKFAST_612
#include <linux/cred.h>
#include <linux/file.h>
#endif

/*
 * I/O accounting of a bio-based disk.  6.12 counts the I/O and its
 * sectors at the end, and only the in-flight count and busy time at the
 * start (6.3); 6.1 counts the I/O and sectors at the start.
 */
static inline void bf_start_io_acct(struct block_device *bdev,
				    unsigned int sectors, enum req_op op,
				    unsigned long start)
{
#if BLKFAST_612
	bdev_start_io_acct(bdev, op, start);
#else
	bdev_start_io_acct(bdev, sectors, op, start);
#endif
}

static inline void bf_end_io_acct(struct block_device *bdev, enum req_op op,
				  unsigned int sectors, unsigned long start)
{
#if BLKFAST_612
	bdev_end_io_acct(bdev, op, sectors, start);
#else
	bdev_end_io_acct(bdev, op, start);
#endif
}

/* Whether bf_start_io_acct() has counted the I/O and its sectors. */
#define BF_ACCT_COUNTS_AT_START	(!BLKFAST_612)

/*
 * Block devices opened by a module: exclusively when @holder is not NULL
 * (a holder may open a device many times, as 6.12 defines it).  6.12
 * opens a block device as a file (6.9), closed with bdev_fput(); *@handle
 * keeps it, and bf_bdev_close() takes it back with what the open was
 * given (6.1 closes by mode).
 */
#if BLKFAST_612
static inline blk_mode_t bf_open_mode(bool write)
{
	return BLK_OPEN_READ | (write ? BLK_OPEN_WRITE : 0);
}

static inline struct block_device *bf_bdev_from_file(struct file *f,
						     void **handle)
{
	if (IS_ERR(f))
		return ERR_CAST(f);
	*handle = f;
	return file_bdev(f);
}
#else
static inline fmode_t bf_open_mode(bool write, void *holder)
{
	return FMODE_READ | (write ? FMODE_WRITE : 0) |
	       (holder ? FMODE_EXCL : 0);
}
#endif

/*
 * On 6.12 with the kernel's credentials, as dm opens its lower devices:
 * the caller's would stay pinned in the file (f_cred) for as long as the
 * device is open, and its keyrings with them.
 */
static inline struct block_device *bf_bdev_open(dev_t dev, bool write,
						void *holder, void **handle)
{
#if BLKFAST_612
	struct file *f;

	scoped_with_kernel_creds()
		f = bdev_file_open_by_dev(dev, bf_open_mode(write), holder,
					  NULL);
	return bf_bdev_from_file(f, handle);
#else
	*handle = NULL;
	return blkdev_get_by_dev(dev, bf_open_mode(write, holder), holder);
#endif
}

static inline struct block_device *bf_bdev_open_path(const char *path,
						     bool write, void *holder,
						     void **handle)
{
#if BLKFAST_612
	return bf_bdev_from_file(bdev_file_open_by_path(path,
							bf_open_mode(write),
							holder, NULL), handle);
#else
	*handle = NULL;
	return blkdev_get_by_path(path, bf_open_mode(write, holder), holder);
#endif
}

static inline void bf_bdev_close(struct block_device *bdev, bool write,
				 void *holder, void *handle)
{
#if BLKFAST_612
	bdev_fput(handle);
#else
	blkdev_put(bdev, bf_open_mode(write, holder));
#endif
}

/* Queue features: flags in 6.1, queue_limits.features in 6.12 (6.11). */
/*
 * Whether @q polls.  On 6.12 a blk-mq queue can keep BLK_FEAT_POLL with
 * no poll queue left after an nr_hw_queues update (6.12.13), and then
 * fails polled bios: it polls only with a poll queue, as the block
 * layer's blk_mq_can_poll() says.
 */
static inline bool bf_queue_polls(struct request_queue *q)
{
#if BLKFAST_612
	return (q->limits.features & BLK_FEAT_POLL) &&
	       (!queue_is_mq(q) || q->tag_set->map[HCTX_TYPE_POLL].nr_queues);
#else
	return test_bit(QUEUE_FLAG_POLL, &q->queue_flags);
#endif
}

static inline bool bf_queue_write_cache(struct request_queue *q)
{
#if BLKFAST_612
	return blk_queue_write_cache(q);
#else
	return test_bit(QUEUE_FLAG_WC, &q->queue_flags);
#endif
}

/*
 * A new bio-based disk that keeps I/O statistics (queue/iostats), as a
 * blk-mq disk does.  NULL on failure.
 */
static inline struct gendisk *bf_alloc_disk(int node)
{
#if BLKFAST_612
	struct queue_limits lim = { .features = BLK_FEAT_IO_STAT };
	struct gendisk *disk = blk_alloc_disk(&lim, node);

	return IS_ERR(disk) ? NULL : disk;
#else
	struct gendisk *disk = blk_alloc_disk(node);

	if (disk)
		blk_queue_flag_set(QUEUE_FLAG_IO_STAT, disk->queue);
	return disk;
#endif
}

/* A blk-mq disk with the tag set's defaults (6.9 adds the limits). */
#if BLKFAST_612
#define bf_mq_alloc_disk(set, data)	blk_mq_alloc_disk(set, NULL, data)
#else
#define bf_mq_alloc_disk(set, data)	blk_mq_alloc_disk(set, data)
#endif

/* A file system on a block device, frozen and thawed (6.8 renames). */
static inline int bf_bdev_freeze(struct block_device *bdev)
{
#if BLKFAST_612
	return bdev_freeze(bdev);
#else
	return freeze_bdev(bdev);
#endif
}

static inline void bf_bdev_thaw(struct block_device *bdev)
{
#if BLKFAST_612
	bdev_thaw(bdev);
#else
	thaw_bdev(bdev);
#endif
}

/*
 * sbitmap's shallow depth (an elevator's limit_depth): per word of the
 * bitmap until 6.12.43, of the whole bitmap since.
 */
#define BF_SHALLOW_DEPTH_WHOLE	\
	(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 43))

/*
 * mq-deadline's at-head requests (requeues, flushes): one list served
 * before every priority level since 6.12.63 ("Switch back to a single
 * dispatch list"), one list per level, served in that level's turn,
 * before.
 */
#define BF_DD_ONE_DISPATCH_LIST	\
	(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 63))

/* io_comp_batch's request list: a struct rq_list since 6.12.25. */
static inline bool bf_iob_empty(const struct io_comp_batch *iob)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 25)
	return rq_list_empty(&iob->req_list);
#else
	return rq_list_empty(iob->req_list);
#endif
}

#endif /* _BLKFAST_KCOMPAT_H */
