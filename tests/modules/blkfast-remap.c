// SPDX-License-Identifier: GPL-2.0
/*
 * blkfast-remap: a test-only bio-based disk, /dev/bfremap0, that hands
 * every bio to one lower device unchanged (same sectors) and keeps nothing
 * of its own: no clone, no end_io, no record, no statistics.  The floor of
 * what any 6.1 bio-based stacking driver costs over its lower device (one
 * more pass through submit_bio_noacct and bio_set_dev), which the stacked
 * polling benchmark measures pdm against.
 *
 * Only a fixed mapping can be this cheap: nothing here knows which bios
 * are in flight, so there is no suspend, reload or safe removal under
 * I/O.  The mapping lives as long as the module; unloading is refused
 * while the disk is open.  Loaded only inside the test VM.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/module.h>

static char *lower;
module_param(lower, charp, 0444);
MODULE_PARM_DESC(lower, "Path of the lower block device (required)");

/* Exclusive, so that nothing else writes under the floor's feet. */
static const fmode_t bf_mode = FMODE_READ | FMODE_WRITE | FMODE_EXCL;

static int bf_major;
static struct block_device *bf_lower;
static struct gendisk *bf_disk;

static void bf_submit_bio(struct bio *bio)
{
	bio_set_dev(bio, bf_lower);
	submit_bio_noacct(bio);
}

static const struct block_device_operations bf_fops = {
	.owner		= THIS_MODULE,
	.submit_bio	= bf_submit_bio,
};

static int __init bf_init(void)
{
	struct request_queue *lq, *q;
	int ret;

	if (!lower) {
		pr_err("blkfast-remap: lower= is required\n");
		return -EINVAL;
	}
	bf_lower = blkdev_get_by_path(lower, bf_mode, &bf_lower);
	if (IS_ERR(bf_lower)) {
		pr_err("blkfast-remap: cannot open %s: %ld\n", lower,
		       PTR_ERR(bf_lower));
		return PTR_ERR(bf_lower);
	}

	ret = register_blkdev(0, "bfremap");
	if (ret < 0)
		goto put_lower;
	bf_major = ret;

	bf_disk = blk_alloc_disk(NUMA_NO_NODE);
	if (!bf_disk) {
		ret = -ENOMEM;
		goto unregister;
	}
	bf_disk->major = bf_major;
	bf_disk->first_minor = 0;
	bf_disk->minors = 1;
	bf_disk->fops = &bf_fops;
	strscpy(bf_disk->disk_name, "bfremap0", DISK_NAME_LEN);

	q = bf_disk->queue;
	lq = bdev_get_queue(bf_lower);
	blk_set_stacking_limits(&q->limits);
	blk_stack_limits(&q->limits, &lq->limits, 0);
	/* Polled bios are NOWAIT; they are polled on the lower queue. */
	blk_queue_flag_set(QUEUE_FLAG_NOWAIT, q);
	if (test_bit(QUEUE_FLAG_POLL, &lq->queue_flags))
		blk_queue_flag_set(QUEUE_FLAG_POLL, q);
	set_capacity(bf_disk, bdev_nr_sectors(bf_lower));

	ret = add_disk(bf_disk);
	if (ret)
		goto put_disk;
	return 0;

put_disk:
	put_disk(bf_disk);
unregister:
	unregister_blkdev(bf_major, "bfremap");
put_lower:
	blkdev_put(bf_lower, bf_mode);
	return ret;
}

static void __exit bf_exit(void)
{
	del_gendisk(bf_disk);
	put_disk(bf_disk);
	unregister_blkdev(bf_major, "bfremap");
	blkdev_put(bf_lower, bf_mode);
}

module_init(bf_init);
module_exit(bf_exit);

MODULE_AUTHOR("blkfast");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("blkfast test-only pass-through bio remapper (benchmark floor)");
