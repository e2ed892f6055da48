/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pdm's I/O statistics: what /proc/diskstats, /sys/block/pdmN/stat and
 * iostat show for a pdm disk, honouring its queue/iostats.
 */
#ifndef _PDM_ACCT_H
#define _PDM_ACCT_H

#include <linux/blkdev.h>
#include <linux/jiffies.h>
#include <linux/part_stat.h>
#include <blkfast/kcompat.h>

/*
 * A top bio's statistics, started when pdm takes the bio and ended when
 * it gives it back: once per top bio whatever passes, clones or requeues
 * it takes, so that the disk counts what its submitters asked for.  A
 * flush with data counts as a write of its data; an empty flush as a
 * flush, as blk-mq counts its flush requests: at its end, never in
 * flight (6.1's bdev_start_io_acct() would count it as a read).  on
 * records whether iostats was on at the start, so that switching it off
 * under I/O leaves nothing in flight.
 */
struct pdm_acct {
	unsigned long start;		/* jiffies */
	unsigned int sectors;		/* the top bio's, at the start */
	bool on;
	bool flush;			/* an empty flush */
};

static inline void pdm_acct_start(struct gendisk *disk, struct bio *top,
				  struct pdm_acct *acct)
{
	acct->on = blk_queue_io_stat(disk->queue);
	if (!acct->on)
		return;
	acct->flush = (top->bi_opf & REQ_PREFLUSH) && !bio_sectors(top);
	acct->start = jiffies;
	acct->sectors = bio_sectors(top);
	if (!acct->flush)
		bf_start_io_acct(disk->part0, acct->sectors, bio_op(top),
				 acct->start);
}

/*
 * End what pdm_acct_start() started; bio_op(@top) is what it was then
 * (a requeue changes the bio's flags, never its operation).
 */
static inline void pdm_acct_end(struct gendisk *disk, struct bio *top,
				const struct pdm_acct *acct)
{
	if (!acct->on)
		return;
	if (!acct->flush) {
		bf_end_io_acct(disk->part0, bio_op(top), acct->sectors,
			       acct->start);
		return;
	}
	part_stat_lock();
	part_stat_inc(disk->part0, ios[STAT_FLUSH]);
	part_stat_add(disk->part0, nsecs[STAT_FLUSH],
		      jiffies_to_nsecs(jiffies - acct->start));
	part_stat_unlock();
}

/*
 * Take back what pdm_acct_start() counted, for a bio given back with
 * BLK_STS_AGAIN: its submitter issues it again (io_uring, blocking, from
 * a worker), and an I/O counts once, as blk-mq never counts a request it
 * could not allocate.  6.1 counts the I/O and its sectors at the start,
 * 6.12 at the end; the busy time already counted stays, as the disk was
 * busy.
 */
static inline void pdm_acct_cancel(struct gendisk *disk, struct bio *top,
				   const struct pdm_acct *acct)
{
	const int sgrp = op_stat_group(bio_op(top));

	if (!acct->on || acct->flush)
		return;
	part_stat_lock();
	if (BF_ACCT_COUNTS_AT_START) {
		part_stat_add(disk->part0, ios[sgrp], -1);
		part_stat_add(disk->part0, sectors[sgrp],
			      -(long)acct->sectors);
	}
	part_stat_local_dec(disk->part0, in_flight[op_is_write(bio_op(top))]);
	part_stat_unlock();
}

#endif /* _PDM_ACCT_H */
