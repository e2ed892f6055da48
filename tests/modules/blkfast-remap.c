// SPDX-License-Identifier: GPL-2.0
/*
 * blkfast-remap: test-only bio-based disks that hand every bio to one
 * lower device (same sectors): the floors that the stacked polling
 * benchmarks measure pdm against.
 *
 * /dev/bfremap0 (lower=) keeps nothing of its own: no clone, no end_io, no
 * record, no statistics.  The floor of what any 6.1 bio-based stacking
 * driver costs over its lower device (one more pass through
 * submit_bio_noacct and bio_set_dev).
 *
 * /dev/bfremap1 (lower2=, optional) does the least that pdm's direct mode
 * must do for a bio it remaps in place: count it in flight for a suspend
 * to wait for (a percpu_ref), account it in the disk's statistics
 * (bdev_start_io_acct() and its end), and put its own end_io in front of
 * the submitter's, so that the submitter gets its bio back as it gave it
 * (a record from a slab cache: the submitter's bdev, end_io, private and
 * start time).  What direct costs beyond this floor is pdm's own.
 *
 * Only a fixed mapping can be this cheap: nothing here looks up a table,
 * and there is no suspend, reload or safe removal under I/O.  The mapping
 * lives as long as the module; unloading is refused while a disk is open.
 * Loaded only inside the test VM.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/percpu-refcount.h>
#include <linux/slab.h>
#include <blkfast/kcompat.h>

static char *lower;
module_param(lower, charp, 0444);
MODULE_PARM_DESC(lower, "Path of the lower block device of bfremap0 (required)");

static char *lower2;
module_param(lower2, charp, 0444);
MODULE_PARM_DESC(lower2, "Path of the lower block device of bfremap1, the floor with pdm's duties (optional)");

/*
 * The lower devices are opened exclusively (a holder), so that nothing
 * else writes under the floor's feet.
 */
struct bf_disk {
	struct block_device *lower;
	void *lower_handle;		/* kcompat.h */
	struct gendisk *disk;
};

static int bf_major;
static struct bf_disk bf_disks[2];

/* bfremap1's duties: what a bio remapped in place gets back at its end. */
struct bf_record {
	struct block_device *bdev;
	bio_end_io_t *end_io;
	void *private;
	unsigned long start;
	unsigned int sectors;
};

static struct kmem_cache *bf_records;
static struct percpu_ref bf_active;

static void bf_submit_bio(struct bio *bio)
{
	bio_set_dev(bio, bf_disks[0].lower);
	submit_bio_noacct(bio);
}

static void bf_duty_endio(struct bio *bio)
{
	struct bf_record *r = bio->bi_private;

	bio->bi_bdev = r->bdev;
	bio->bi_end_io = r->end_io;
	bio->bi_private = r->private;
	bf_end_io_acct(r->bdev, bio_op(bio), r->sectors, r->start);
	kmem_cache_free(bf_records, r);
	bio_endio(bio);
	percpu_ref_put(&bf_active);
}

static void bf_duty_submit_bio(struct bio *bio)
{
	gfp_t gfp = bio->bi_opf & REQ_NOWAIT ? GFP_NOWAIT : GFP_NOIO;
	struct bf_record *r;

	if (!percpu_ref_tryget_live(&bf_active)) {
		bio_io_error(bio);
		return;
	}
	r = kmem_cache_alloc(bf_records, gfp);
	if (!r) {
		percpu_ref_put(&bf_active);
		bio_wouldblock_error(bio);
		return;
	}
	r->bdev = bio->bi_bdev;
	r->end_io = bio->bi_end_io;
	r->private = bio->bi_private;
	r->sectors = bio_sectors(bio);
	r->start = jiffies;
	bf_start_io_acct(bio->bi_bdev, r->sectors, bio_op(bio), r->start);
	bio->bi_end_io = bf_duty_endio;
	bio->bi_private = r;
	bio_set_dev(bio, bf_disks[1].lower);
	submit_bio_noacct(bio);
}

static const struct block_device_operations bf_fops = {
	.owner		= THIS_MODULE,
	.submit_bio	= bf_submit_bio,
};

static const struct block_device_operations bf_duty_fops = {
	.owner		= THIS_MODULE,
	.submit_bio	= bf_duty_submit_bio,
};

static void bf_active_release(struct percpu_ref *ref)
{
}

static void bf_disk_put(struct bf_disk *d)
{
	if (d->disk) {
		del_gendisk(d->disk);
		put_disk(d->disk);
	}
	if (d->lower)
		bf_bdev_close(d->lower, true, d, d->lower_handle);
}

/* Disk @n of the module over @path, with @fops; logs why it fails. */
static int bf_disk_add(int n, const char *path,
		       const struct block_device_operations *fops)
{
	struct bf_disk *d = &bf_disks[n];
	const bool duty = fops == &bf_duty_fops;
	struct request_queue *lq;
	struct block_device *b;
	struct gendisk *disk;
	void *handle;
	int ret;

	b = bf_bdev_open_path(path, true, d, &handle);
	if (IS_ERR(b)) {
		pr_err("blkfast-remap: cannot open %s: %ld\n", path,
		       PTR_ERR(b));
		return PTR_ERR(b);
	}
	/*
	 * Polled bios are NOWAIT; they are polled on the lower queue.
	 * bfremap1 accounts, as a blk-mq disk (and pdm) does.
	 */
	lq = bdev_get_queue(b);
#if BLKFAST_612
	{
		struct queue_limits lim;

		blk_set_stacking_limits(&lim);
		lim.features |= BLK_FEAT_NOWAIT | BLK_FEAT_POLL |
				(duty ? BLK_FEAT_IO_STAT : 0);
		blk_stack_limits(&lim, &lq->limits, 0);
		disk = blk_alloc_disk(&lim, NUMA_NO_NODE);
		if (IS_ERR(disk))
			disk = NULL;
	}
#else
	disk = blk_alloc_disk(NUMA_NO_NODE);
	if (disk) {
		struct request_queue *q = disk->queue;

		blk_set_stacking_limits(&q->limits);
		blk_stack_limits(&q->limits, &lq->limits, 0);
		blk_queue_flag_set(QUEUE_FLAG_NOWAIT, q);
		if (test_bit(QUEUE_FLAG_POLL, &lq->queue_flags))
			blk_queue_flag_set(QUEUE_FLAG_POLL, q);
		if (duty)
			blk_queue_flag_set(QUEUE_FLAG_IO_STAT, q);
	}
#endif
	if (!disk) {
		bf_bdev_close(b, true, d, handle);
		return -ENOMEM;
	}
	disk->major = bf_major;
	disk->first_minor = n;
	disk->minors = 1;
	disk->fops = fops;
	/*
	 * No partition scan, as pdm: 6.12's add_disk() closes the file it
	 * scanned through in this task's task work, which runs after a
	 * failed module init (bfremap1's lower2 refused) has freed the
	 * module, and the close reads the freed disk->fops.
	 */
	disk->flags |= GENHD_FL_NO_PART;
	snprintf(disk->disk_name, DISK_NAME_LEN, "bfremap%d", n);
	set_capacity(disk, bdev_nr_sectors(b));

	/* udev's probes read through it once add_disk() announces it. */
	d->lower = b;
	d->lower_handle = handle;
	ret = add_disk(disk);
	if (ret) {
		d->lower = NULL;
		put_disk(disk);
		bf_bdev_close(b, true, d, handle);
		return ret;
	}
	d->disk = disk;
	return 0;
}

static int __init bf_init(void)
{
	int ret;

	if (!lower) {
		pr_err("blkfast-remap: lower= is required\n");
		return -EINVAL;
	}
	bf_records = KMEM_CACHE(bf_record, 0);
	if (!bf_records)
		return -ENOMEM;
	ret = percpu_ref_init(&bf_active, bf_active_release, 0, GFP_KERNEL);
	if (ret)
		goto free_cache;
	ret = register_blkdev(0, "bfremap");
	if (ret < 0)
		goto exit_ref;
	bf_major = ret;
	ret = bf_disk_add(0, lower, &bf_fops);
	if (ret)
		goto unregister;
	if (lower2) {
		ret = bf_disk_add(1, lower2, &bf_duty_fops);
		if (ret)
			goto put_first;
	}
	return 0;

put_first:
	bf_disk_put(&bf_disks[0]);
unregister:
	unregister_blkdev(bf_major, "bfremap");
exit_ref:
	percpu_ref_exit(&bf_active);
free_cache:
	kmem_cache_destroy(bf_records);
	return ret;
}

static void __exit bf_exit(void)
{
	bf_disk_put(&bf_disks[1]);
	bf_disk_put(&bf_disks[0]);
	unregister_blkdev(bf_major, "bfremap");
	percpu_ref_exit(&bf_active);
	kmem_cache_destroy(bf_records);
}

module_init(bf_init);
module_exit(bf_exit);

MODULE_AUTHOR("blkfast");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("blkfast test-only pass-through bio remappers (benchmark floors)");
