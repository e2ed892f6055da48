// SPDX-License-Identifier: GPL-2.0
/*
 * pdm maps: binding a parsed table to lower devices (opening them, the
 * checks that need them, stacking their limits), and printing maps back.
 * Maps are built without pdm_ctl_mutex (opening a lower device may need
 * I/O through a suspended pdm device); the stack check and printing run
 * under it, which keeps every device's maps in place.
 */
#include <linux/blkdev.h>
#include <linux/kdev_t.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "pdm.h"

#define PDM_MAX_DEPTH	16	/* pdm devices stacked on pdm devices */

/*
 * The one holder of every pdm device's lower devices, as dm has one for
 * all of its own: pdm devices may share a disk (two ranges of it, or the
 * same one), while any other exclusive opener (a mount, dm, md) is
 * refused for as long as pdm holds it, and pdm is refused while it does.
 * Which pdm device uses a lower device shows in its holders/ links.
 */
static char *pdm_holder = "pdm";

/* "major:minor" in decimal, as dmsetup prints it. */
static bool pdm_parse_devt(const char *s, dev_t *dev)
{
	unsigned int major, minor;
	char tail;

	if (sscanf(s, "%u:%u%c", &major, &minor, &tail) != 2)
		return false;
	if (major > MAJOR(~0U) || minor > MINOR(~0U) ||
	    MKDEV(major, minor) == 0)
		return false;
	*dev = MKDEV(major, minor);
	return true;
}

/*
 * The stack check walks the devices below a new map, each once: a device
 * can sit under several pdm devices, and under both tables of each, so a
 * walk that followed every path would be exponential in the stack's
 * height (a ladder of two devices a level, each with an inactive table,
 * 16 levels high: 4^16 steps under pdm_ctl_mutex).  Each pdm device keeps
 * the height found below it in this walk (pdm_dev.walk_*, under
 * pdm_ctl_mutex); pdm_walk_gen starts a new walk.
 */
#define PDM_WALK_STOP	UINT_MAX
static u64 pdm_walk_gen;

static unsigned int pdm_walk(struct gendisk *lower, struct gendisk *disk,
			     unsigned int depth);

/* The height of @map's stack (0: no lower device), or PDM_WALK_STOP. */
static unsigned int pdm_walk_map(const struct pdm_map *map,
				 struct gendisk *disk, unsigned int depth)
{
	unsigned int h = 0, below;
	u32 i;

	if (!map)
		return 0;
	for (i = 0; i < map->nr_bdevs; i++) {
		below = pdm_walk(map->bdevs[i]->bd_disk, disk, depth + 1);
		if (below == PDM_WALK_STOP)
			return PDM_WALK_STOP;
		h = max(h, below + 1);
	}
	return h;
}

/*
 * The longest chain of devices below @lower, reached @depth levels under
 * the new map's lower devices; or PDM_WALK_STOP if @lower is @disk or
 * stacks on it, or the chain reaches deeper than PDM_MAX_DEPTH.  Inactive
 * tables count: they can go live without another check.  A STOP ends the
 * walk, so every height kept is whole.
 */
static unsigned int pdm_walk(struct gendisk *lower, struct gendisk *disk,
			     unsigned int depth)
{
	struct pdm_dev *lpd;
	unsigned int h, hi;

	if (lower == disk || depth > PDM_MAX_DEPTH)
		return PDM_WALK_STOP;
	if (lower->fops != &pdm_fops)
		return 0;
	lpd = lower->private_data;
	if (lpd->walk_gen != pdm_walk_gen) {
		h = pdm_walk_map(lpd->map, disk, depth);
		if (h == PDM_WALK_STOP)
			return PDM_WALK_STOP;
		hi = pdm_walk_map(lpd->inactive, disk, depth);
		if (hi == PDM_WALK_STOP)
			return PDM_WALK_STOP;
		lpd->walk_gen = pdm_walk_gen;
		lpd->walk_height = max(h, hi);
	}
	if (depth + lpd->walk_height > PDM_MAX_DEPTH)
		return PDM_WALK_STOP;
	return lpd->walk_height;
}

static int pdm_leg_open(struct pdm_dev *pd, struct pdm_map *map,
			struct pdm_seg_spec *seg, struct pdm_leg_spec *leg,
			char *err)
{
	u64 need = leg->offset + seg->type->leg_len(seg);
	struct block_device *bdev;
	unsigned int lbs;
	dev_t dev;
	int ret;

	if (!pdm_parse_devt(leg->dev, &dev)) {
		ret = lookup_bdev(leg->dev, &dev);
		if (ret) {
			pdm_err(err, "line %u: %s: %s", seg->line, leg->dev,
				ret == -ENOTBLK ? "not a block device" :
				ret == -ENOENT ? "no such device" :
				"cannot look it up");
			return ret;
		}
	}
	if (dev == disk_devt(pd->disk)) {
		pdm_err(err, "line %u: %s: a device cannot sit on itself",
			seg->line, leg->dev);
		return -ELOOP;
	}
	bdev = bf_bdev_open(dev, map->mode & FMODE_WRITE, pdm_holder,
			    &leg->handle);
	if (IS_ERR(bdev)) {
		ret = PTR_ERR(bdev);
		pdm_err(err, "line %u: %s: %s", seg->line, leg->dev,
			ret == -EBUSY ? "in use by someone else" :
			ret == -ENXIO || ret == -ENODEV ? "no such device" :
			"cannot open it");
		return ret;
	}
	if ((map->mode & FMODE_WRITE) && bdev_read_only(bdev)) {
		/* A --readonly pdm device too: its promise holds above it. */
		pdm_err(err, "line %u: %s: read-only: this table needs --readonly",
			seg->line, leg->dev);
		ret = -EROFS;
		goto put;
	}
	if (bdev_is_zoned(bdev)) {
		/* Zone append and zone reports would need remapping. */
		pdm_err(err, "line %u: %s: zoned devices are not supported",
			seg->line, leg->dev);
		ret = -EOPNOTSUPP;
		goto put;
	}
	if (need > bdev_nr_sectors(bdev)) {
		pdm_err(err, "line %u: %s: needs %llu sectors, has %llu",
			seg->line, leg->dev, need,
			(unsigned long long)bdev_nr_sectors(bdev));
		ret = -ERANGE;
		goto put;
	}
	lbs = bdev_logical_block_size(bdev) >> SECTOR_SHIFT;
	/*
	 * Within a segment, targets cut only at multiples of 4 KiB (striped's
	 * smallest chunk), which every logical block size divides.
	 */
	if (lbs > 1 && ((seg->start | seg->len | leg->offset) & (lbs - 1))) {
		pdm_err(err, "line %u: %s: not aligned to its %u-byte blocks",
			seg->line, leg->dev, lbs << SECTOR_SHIFT);
		ret = -EINVAL;
		goto put;
	}
	leg->bdev = bdev;
	return 0;
put:
	bf_bdev_close(bdev, map->mode & FMODE_WRITE, pdm_holder, leg->handle);
	return ret;
}

static void pdm_leg_close(struct pdm_dev *pd, struct pdm_map *map,
			  struct pdm_leg_spec *leg)
{
	if (!leg->bdev)
		return;
	bf_bdev_close(leg->bdev, map->mode & FMODE_WRITE, pdm_holder,
		      leg->handle);
	leg->bdev = NULL;
}

/*
 * Why the map cannot poll: @b's queue does not.  Name the fix where there
 * is a well-known one: nvme starts with no poll queues (nvme.poll_queues).
 */
static void pdm_nopoll_why(struct pdm_map *map, struct block_device *b)
{
	const char *drv = b->bd_disk->fops->owner ?
			  module_name(b->bd_disk->fops->owner) : "";

	snprintf(map->nopoll_why, sizeof(map->nopoll_why),
		 "%u:%u (%pg) has no poll queues%s", MAJOR(b->bd_dev),
		 MINOR(b->bd_dev), b,
		 !strcmp(drv, "nvme_core") ? " (nvme.poll_queues=0)" : "");
}

/* Stack limits and features, and list each lower device once. */
static int pdm_map_stack(struct pdm_map *map)
{
	struct pdm_table_spec *spec = &map->spec;
	u32 s, l, i, legs = 0;

	blk_set_stacking_limits(&map->limits);
	map->poll = true;
	map->nowait = true;
	map->discard = true;
	map->wc = false;
	for (s = 0; s < spec->nr_segs; s++)
		legs += spec->segs[s].nr_legs;
	map->bdevs = kcalloc(legs, sizeof(*map->bdevs), GFP_KERNEL);
	map->bases = kcalloc(legs, sizeof(*map->bases), GFP_KERNEL);
	map->hybrid_estimate_ns = kcalloc(legs,
					  sizeof(*map->hybrid_estimate_ns),
					  GFP_KERNEL);
	if (!map->bdevs || !map->bases || !map->hybrid_estimate_ns)
		return -ENOMEM;

	for (s = 0; s < spec->nr_segs; s++) {
		struct pdm_seg_spec *seg = &spec->segs[s];

		/*
		 * A segment with no device (zero, error) stacks limits of
		 * its own, as dm stacks every target's: stacking is what
		 * settles the defaults that suit no real queue (6.12
		 * refuses a zone append limit on a disk that is not zoned).
		 */
		if (!seg->nr_legs) {
			struct queue_limits none;

			blk_set_stacking_limits(&none);
			blk_stack_limits(&map->limits, &none, 0);
		}
		for (l = 0; l < seg->nr_legs; l++) {
			struct block_device *b = seg->legs[l].bdev;
			struct request_queue *q = bdev_get_queue(b);

			/* alignment is the whole disk's, as dm stacks it */
			blk_stack_limits(&map->limits, &q->limits,
					 get_start_sect(b) +
					 seg->legs[l].offset);
			if (map->poll &&
			    !bf_queue_polls(q)) {
				map->poll = false;
				pdm_nopoll_why(map, b);
			}
			if (!bdev_nowait(b))
				map->nowait = false;
			if (bf_queue_write_cache(q))
				map->wc = true;
			if (!bdev_max_discard_sectors(b))
				map->discard = false;
			for (i = 0; i < map->nr_bdevs; i++)
				if (map->bdevs[i] == b)
					break;
			if (i == map->nr_bdevs) {
				map->bases[i].disk = disk_devt(b->bd_disk);
				map->bases[i].start = get_start_sect(b);
				map->bdevs[map->nr_bdevs++] = b;
			}
			seg->legs[l].dev_idx = i;
		}
		if (seg->type->discard_limit) {
			map->limits.max_discard_sectors =
				min(map->limits.max_discard_sectors,
				    seg->type->discard_limit(seg));
			map->limits.max_hw_discard_sectors =
				map->limits.max_discard_sectors;
		}
	}
	if (!map->discard) {
		map->limits.max_discard_sectors = 0;
		map->limits.max_hw_discard_sectors = 0;
		map->limits.discard_granularity = 0;
	}
	/*
	 * blk_stack_limits() keeps the smallest non-zero secure erase limit,
	 * so one capable leg would advertise it for the whole table, and
	 * BLKSECDISCARD would erase the capable legs irreversibly before
	 * failing on the others.  As dm does, never offer it.
	 */
	map->limits.max_secure_erase_sectors = 0;
	return 0;
}

/**
 * pdm_map_check_stack() - refuse a map that would stack @pd on itself
 * @pd:  the device the map is for
 * @map: a map built for it, not yet installed
 * @err: PDM_MSG_LEN bytes for a message on failure
 *
 * Under pdm_ctl_mutex, held until the map is installed: two reloads that
 * would make a cycle together cannot both pass.  Inactive tables count.
 *
 * Return: 0 or -ELOOP.
 */
int pdm_map_check_stack(struct pdm_dev *pd, struct pdm_map *map, char *err)
{
	u32 i, s, l;

	lockdep_assert_held(&pdm_ctl_mutex);
	pdm_walk_gen++;
	for (i = 0; i < map->nr_bdevs; i++)
		if (pdm_walk(map->bdevs[i]->bd_disk, pd->disk, 0) ==
		    PDM_WALK_STOP)
			break;
	if (i == map->nr_bdevs)
		return 0;
	/* Name the first leg on it, as the table wrote it. */
	for (s = 0; s < map->spec.nr_segs; s++) {
		struct pdm_seg_spec *seg = &map->spec.segs[s];

		for (l = 0; l < seg->nr_legs; l++) {
			if (seg->legs[l].dev_idx != i)
				continue;
			pdm_err(err, "line %u: %s: stacks on %s itself",
				seg->line, seg->legs[l].dev,
				pd->disk->disk_name);
			return -ELOOP;
		}
	}
	return -ELOOP;		/* not reached: every bdevs[] entry has a leg */
}

/**
 * pdm_map_build() - parse a table and bind it to its lower devices
 * @pd:   the device the map is for (the holder of the lower devices)
 * @text: the table text, kvmalloc'd; the map owns it on success
 * @len:  its length
 * @read_only: open the lower devices for reading only
 * @err:  PDM_MSG_LEN bytes for a message on failure
 *
 * Not under pdm_ctl_mutex: the stack check comes after, under it
 * (pdm_map_check_stack()).
 *
 * Return: the map, or an ERR_PTR with nothing left open or allocated.
 */
struct pdm_map *pdm_map_build(struct pdm_dev *pd, char *text, size_t len,
			      bool read_only, char *err)
{
	struct pdm_map *map;
	u32 s, l;
	int ret;

	/* The caller is told, in @err: no warning in the log as well. */
	pdm_assert_noio();
	map = kzalloc(sizeof(*map), GFP_KERNEL | __GFP_NOWARN);
	if (!map) {
		pdm_err(err, "out of memory");
		return ERR_PTR(-ENOMEM);
	}
	map->mode = FMODE_READ | (read_only ? 0 : FMODE_WRITE);
	ret = pdm_table_parse(text, len, &map->spec, err, PDM_MSG_LEN);
	if (ret) {
		kfree(map);
		return ERR_PTR(ret);
	}
	for (s = 0; s < map->spec.nr_segs; s++) {
		struct pdm_seg_spec *seg = &map->spec.segs[s];

		for (l = 0; l < seg->nr_legs; l++) {
			ret = pdm_leg_open(pd, map, seg, &seg->legs[l], err);
			if (ret)
				goto fail;
		}
	}
	ret = pdm_map_stack(map);
	if (ret) {
		pdm_err(err, "out of memory");
		goto fail;
	}
	map->text = text;
	return map;
fail:
	pdm_map_free(pd, map);
	return ERR_PTR(ret);
}

/**
 * pdm_map_link_holders() - show a map's lower devices as the disk's slaves
 * @pd:  the device, its disk added
 * @map: a map built for it
 * @err: PDM_MSG_LEN bytes for a message on failure
 *
 * One link per distinct lower device: holders/ under it, slaves/ under
 * the disk, as dm makes them.  Only once the disk is added: 6.12 has no
 * list of links waiting for add_disk, as 6.1 had, and refuses them.
 *
 * Return: 0, or an errno with none of the map's links left.
 */
int pdm_map_link_holders(struct pdm_dev *pd, struct pdm_map *map, char *err)
{
	u32 i;
	int ret;

	for (i = 0; i < map->nr_bdevs; i++) {
		ret = bd_link_disk_holder(map->bdevs[i], pd->disk);
		if (ret) {
			pdm_err(err, "%pg: cannot link it as a holder of %pg",
				pd->disk->part0, map->bdevs[i]);
			while (i--)
				bd_unlink_disk_holder(map->bdevs[i], pd->disk);
			return ret;
		}
	}
	map->holders_linked = true;
	return 0;
}

/** pdm_map_free() - close a map's lower devices and free it (NULL is ok) */
void pdm_map_free(struct pdm_dev *pd, struct pdm_map *map)
{
	u32 s, l;

	if (!map)
		return;
	for (s = 0; map->holders_linked && s < map->nr_bdevs; s++)
		bd_unlink_disk_holder(map->bdevs[s], pd->disk);
	for (s = 0; s < map->spec.nr_segs; s++)
		for (l = 0; l < map->spec.segs[s].nr_legs; l++)
			pdm_leg_close(pd, map, &map->spec.segs[s].legs[l]);
	pdm_table_spec_free(&map->spec);
	kfree(map->bdevs);
	kfree(map->bases);
	kfree(map->hybrid_estimate_ns);
	kvfree(map->text);
	kfree(map);
}

/**
 * pdm_map_apply() - make a map's size, limits and features the disk's
 * @pd:  the device, with no I/O in flight (new, or suspended and drained)
 * @map: the map about to go live
 *
 * io_uring issues with REQ_NOWAIT first and expects EAGAIN rather than a
 * wait: NOWAIT is promised only if no leg may block.  The disk's own
 * settings stay: queue/iostats, and on 6.12 queue/write_cache's "write
 * through" (6.1 has it in the flag that blk_queue_write_cache() sets).
 *
 * Return: 0, or 6.12's refusal of the limits (nothing changed then).
 */
int pdm_map_apply(struct pdm_dev *pd, struct pdm_map *map)
{
	struct request_queue *q = pd->disk->queue;
#if BLKFAST_612
	const blk_features_t ours = BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA |
				    BLK_FEAT_POLL | BLK_FEAT_NOWAIT |
				    BLK_FEAT_IO_STAT;
	struct queue_limits lim = queue_limits_start_update(q);
	blk_features_t io_stat = lim.features & BLK_FEAT_IO_STAT;
	blk_flags_t wc_off = lim.flags & BLK_FLAG_WRITE_CACHE_DISABLED;
	int ret;

	lim = map->limits;
	lim.features = (lim.features & ~ours) | io_stat;
	if (map->wc)
		lim.features |= BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA;
	if (map->poll)
		lim.features |= BLK_FEAT_POLL;
	if (map->nowait)
		lim.features |= BLK_FEAT_NOWAIT;
	lim.flags = (lim.flags & ~BLK_FLAG_WRITE_CACHE_DISABLED) | wc_off;
	ret = queue_limits_commit_update(q, &lim);
	if (ret)
		return ret;
#else
	q->limits = map->limits;
	blk_queue_write_cache(q, map->wc, map->wc);
	if (map->poll)
		blk_queue_flag_set(QUEUE_FLAG_POLL, q);
	else
		blk_queue_flag_clear(QUEUE_FLAG_POLL, q);
	if (map->nowait)
		blk_queue_flag_set(QUEUE_FLAG_NOWAIT, q);
	else
		blk_queue_flag_clear(QUEUE_FLAG_NOWAIT, q);
#endif
	set_capacity_and_notify(pd->disk, map->spec.sectors);
	return 0;
}

/*
 * Append to a text of which only the first @size bytes are kept: the
 * return value counts every byte, kept or not, so that a caller whose
 * buffer was too small learns the size it needs.  @buf may be NULL when
 * @size is 0 (a counting pass).
 */
static __printf(4, 5) size_t pdm_appendf(char *buf, size_t size, size_t at,
					 const char *fmt, ...)
{
	va_list args;
	int n;

	va_start(args, fmt);
	if (at < size)
		n = vsnprintf(buf + at, size - at, fmt, args);
	else
		n = vsnprintf(NULL, 0, fmt, args);
	va_end(args);
	return at + n;
}

static size_t pdm_append_seg(char *buf, size_t size, size_t at,
			     const struct pdm_seg_spec *seg)
{
	return pdm_appendf(buf, size, at, "%llu %llu %s", seg->start,
			   seg->len, seg->type->name);
}

/**
 * pdm_map_format_table() - print a map as dmsetup prints a table
 * @map:  the map
 * @buf:  where to
 * @size: room in @buf
 *
 * Devices are printed as major:minor.  @buf may be NULL if @size is 0.
 * Return: the bytes of the whole text, its NUL not counted: the text was
 * cut unless that is less than @size.
 */
size_t pdm_map_format_table(const struct pdm_map *map, char *buf,
			    size_t size)
{
	size_t at = 0;
	u32 s, l;

	for (s = 0; s < map->spec.nr_segs; s++) {
		const struct pdm_seg_spec *seg = &map->spec.segs[s];

		at = pdm_append_seg(buf, size, at, seg);
		if (seg->type->format)
			at += seg->type->format(seg, at < size ? buf + at : NULL,
						at < size ? size - at : 0);
		for (l = 0; l < seg->nr_legs; l++) {
			const struct pdm_leg_spec *leg = &seg->legs[l];
			struct block_device *b = leg->bdev;

			at = pdm_appendf(buf, size, at, " %u:%u %llu",
					 MAJOR(b->bd_dev), MINOR(b->bd_dev),
					 leg->offset);
		}
		at = pdm_appendf(buf, size, at, "\n");
	}
	return at;
}

/**
 * pdm_map_format_status() - one line per segment, then the polling state
 * @pd:   the device
 * @map:  its live map
 * @buf:  where to
 * @size: room in @buf
 *
 * A segment line is "<start> <len> <target>" and a letter per leg, if it
 * has legs: P if its queue polls, I if it completes by interrupt only.
 * The last line is "poll on" or "poll off: <why>".  Return: as pdm_map_format_table().
 */
size_t pdm_map_format_status(struct pdm_dev *pd, const struct pdm_map *map,
			     char *buf, size_t size)
{
	size_t at = 0;
	u32 s, l;

	for (s = 0; s < map->spec.nr_segs; s++) {
		const struct pdm_seg_spec *seg = &map->spec.segs[s];

		at = pdm_append_seg(buf, size, at, seg);
		if (seg->nr_legs)
			at = pdm_appendf(buf, size, at, " ");
		for (l = 0; l < seg->nr_legs; l++) {
			struct request_queue *q =
				bdev_get_queue(seg->legs[l].bdev);

			at = pdm_appendf(buf, size, at, "%c",
					 bf_queue_polls(q) ? 'P' : 'I');
		}
		at = pdm_appendf(buf, size, at, "\n");
	}
	if (map->poll)
		at = pdm_appendf(buf, size, at, "poll on\n");
	else
		at = pdm_appendf(buf, size, at, "poll off: %s\n",
				 map->nopoll_why);
	return at;
}
