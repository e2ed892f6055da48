// SPDX-License-Identifier: GPL-2.0
/*
 * pdm devices: create, remove, reload, suspend and resume, and the block
 * device operations.  Create takes pdm_ctl_mutex to check and publish
 * the new device, the others run under the device's lock (see struct
 * pdm_dev).  Neither holds pdm_ctl_mutex while it looks up or opens
 * lower devices, which may need I/O through a suspended pdm device.
 */
#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/idr.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/workqueue.h>

#include "pdm.h"

static LIST_HEAD(pdm_devs);		/* under pdm_ctl_mutex */

/*
 * A test build's window between create's publishing of a device and its
 * udev event (tests/vm/pdm-create-race.sh), in ms; always 0 otherwise.
 */
static unsigned int test_create_event_delay_ms;
/*
 * A test build's poll_mode for new devices ("" for the default, direct):
 * the debug tier runs the tests that set none in tracked mode, the VM tier
 * in direct, so that the I/O path tests cover both (tests/run).
 */
static char test_poll_mode[16];
#if PDM_TEST_HOOKS
module_param(test_create_event_delay_ms, uint, 0644);
module_param_string(test_poll_mode, test_poll_mode, sizeof(test_poll_mode),
		    0444);
#endif

static DEFINE_IDA(pdm_minors);

static void pdm_dev_uevent(struct pdm_dev *pd, const char *event);
static void pdm_deferred_remove_work(struct work_struct *work);
static DECLARE_WORK(pdm_deferred_work, pdm_deferred_remove_work);

static int pdm_open_disk(struct gendisk *disk)
{
	struct pdm_dev *pd = disk->private_data;
	int ret = 0;

	spin_lock(&pd->open_lock);
	if (pd->removing)
		ret = -ENXIO;
	else
		pd->open_count++;
	spin_unlock(&pd->open_lock);
	return ret;
}

static void pdm_release_disk(struct gendisk *disk)
{
	struct pdm_dev *pd = disk->private_data;
	bool remove;

	spin_lock(&pd->open_lock);
	remove = !--pd->open_count && pd->deferred_remove;
	spin_unlock(&pd->open_lock);
	/* Not here: remove takes the disk's open_mutex, which we run under. */
	if (remove)
		schedule_work(&pdm_deferred_work);
}

/* The open and release methods' arguments changed in 6.5. */
#if BLKFAST_612
static int pdm_open(struct gendisk *disk, blk_mode_t mode)
{
	return pdm_open_disk(disk);
}

static void pdm_release(struct gendisk *disk)
{
	pdm_release_disk(disk);
}
#else
static int pdm_open(struct block_device *bdev, fmode_t mode)
{
	return pdm_open_disk(bdev->bd_disk);
}

static void pdm_release(struct gendisk *disk, fmode_t mode)
{
	pdm_release_disk(disk);
}
#endif

const struct block_device_operations pdm_fops = {
	.owner		= THIS_MODULE,
	.submit_bio	= pdm_submit_bio,
	.poll_bio	= pdm_poll_bio,
	.open		= pdm_open,
	.release	= pdm_release,
};

static void pdm_active_release(struct percpu_ref *ref)
{
	struct pdm_dev *pd = container_of(ref, struct pdm_dev, active);

	wake_up_all(&pd->drained);
}

struct pdm_dev *pdm_dev_find(const char *name)
{
	struct pdm_dev *pd;

	lockdep_assert_held(&pdm_ctl_mutex);
	list_for_each_entry(pd, &pdm_devs, node)
		if (!strcmp(pd->name, name))
			return pd;
	return NULL;
}

int pdm_dev_open_count(struct pdm_dev *pd)
{
	int n;

	spin_lock(&pd->open_lock);
	n = pd->open_count;
	spin_unlock(&pd->open_lock);
	return n;
}

bool pdm_dev_suspended(struct pdm_dev *pd)
{
	return READ_ONCE(pd->suspended);
}

bool pdm_dev_remove_pending(struct pdm_dev *pd)
{
	bool pending;

	spin_lock(&pd->open_lock);
	pending = pd->deferred_remove;
	spin_unlock(&pd->open_lock);
	return pending;
}

/* A device whose deferred removal is due: closed, and not being removed. */
static bool pdm_dev_remove_due(struct pdm_dev *pd)
{
	bool due;

	spin_lock(&pd->open_lock);
	due = pd->deferred_remove && !pd->open_count && !pd->removing;
	spin_unlock(&pd->open_lock);
	return due;
}

/*
 * Remove the devices whose last close found a deferred removal pending,
 * as a command would: under the device's lock, and waiting for the I/O
 * a closed device may still have in flight (writeback).  A removal that
 * finds the device opened again meanwhile stays pending.
 */
static void pdm_deferred_remove_work(struct work_struct *work)
{
	char err[PDM_MSG_LEN];
	struct pdm_dev *pd, *due;
	int ret;

	for (;;) {
		due = NULL;
		mutex_lock(&pdm_ctl_mutex);
		list_for_each_entry(pd, &pdm_devs, node) {
			if (pdm_dev_remove_due(pd)) {
				due = pd;
				refcount_inc(&pd->ref);
				break;
			}
		}
		mutex_unlock(&pdm_ctl_mutex);
		if (!due)
			return;
		mutex_lock(&due->lock);
		ret = due->gone ? 0 : pdm_dev_remove(due, false, err);
		/*
		 * Opened again since its last close (udev's watch rule opens
		 * a disk on every close that wrote): still pending, for the
		 * next last close, as dm keeps it.  Any other failure ends it.
		 */
		if (ret && ret != -EBUSY) {
			pr_warn("pdm: deferred remove of %s: %s\n", due->name,
				err);
			spin_lock(&due->open_lock);
			due->deferred_remove = false;
			spin_unlock(&due->open_lock);
		}
		mutex_unlock(&due->lock);
		pdm_dev_put(due);
	}
}

/* Module exit: the last deferred removal's work may still be returning. */
void pdm_dev_exit(void)
{
	flush_work(&pdm_deferred_work);
}

/* Everything but the disk and the maps. */
static void pdm_dev_free(struct pdm_dev *pd)
{
	/* Waits for a pdm_requeue_work() still running. */
	if (pd->wq)
		destroy_workqueue(pd->wq);
	bioset_exit(&pd->bs);
	if (pd->remap_free) {
		pdm_remap_free_drain(pd);
		free_percpu(pd->remap_free);
	}
	mempool_exit(&pd->remap_pool);
	percpu_ref_exit(&pd->active);
	free_percpu(pd->stats);
	if (pd->minor >= 0)
		ida_free(&pdm_minors, pd->minor);
	mutex_destroy(&pd->lock);
	kfree(pd);
}

/* A command's reference, or the device list's: the last one frees. */
void pdm_dev_put(struct pdm_dev *pd)
{
	if (refcount_dec_and_test(&pd->ref))
		pdm_dev_free(pd);
}

static struct pdm_dev *pdm_dev_alloc(const char *name)
{
	struct pdm_dev *pd;
	int i;

	pd = kzalloc(sizeof(*pd), GFP_KERNEL);
	if (!pd)
		return NULL;
	pd->minor = -1;
	/*
	 * direct by default: the cheapest mode per I/O in every same-boot
	 * A/B, correct for every table (a bio it cannot remap is cloned),
	 * and it leaves hybrid polling and the statistics as they are.
	 */
	pd->poll_mode = PDM_POLL_DIRECT;
	if (PDM_TEST_HOOKS && test_poll_mode[0]) {
		i = __sysfs_match_string(pdm_poll_mode_names, -1,
					 test_poll_mode);
		if (i >= 0)
			pd->poll_mode = i;
		else
			pr_warn_once("pdm: test_poll_mode=%s: no such mode\n",
				     test_poll_mode);
	}
	strscpy(pd->name, name, sizeof(pd->name));
	spin_lock_init(&pd->name_lock);
	mutex_init(&pd->lock);
	refcount_set(&pd->ref, 1);	/* the device list's */
	init_waitqueue_head(&pd->drained);
	spin_lock_init(&pd->defer_lock);
	spin_lock_init(&pd->open_lock);
	bio_list_init(&pd->deferred);
	spin_lock_init(&pd->requeue_lock);
	for (i = 0; i < PDM_SWEEP_LOCKS; i++)
		spin_lock_init(&pd->sweep_lock[i]);
	bio_list_init(&pd->requeue);
	INIT_WORK(&pd->requeue_work, pdm_requeue_work);
	pd->stats = alloc_percpu(struct pdm_stats);
	if (!pd->stats)
		goto fail;
	if (percpu_ref_init(&pd->active, pdm_active_release,
			    PERCPU_REF_ALLOW_REINIT, GFP_KERNEL)) {
		free_percpu(pd->stats);
		pd->stats = NULL;
		goto fail;
	}
	pd->minor = ida_alloc_max(&pdm_minors, MINORMASK, GFP_KERNEL);
	if (pd->minor < 0) {
		pdm_dev_free(pd);
		return NULL;
	}
	return pd;
fail:
	mutex_destroy(&pd->lock);
	kfree(pd);
	return NULL;
}

/*
 * What the I/O path needs, allocated once the table has been accepted: a
 * refused table costs no workqueues (each has a rescuer thread).  On
 * failure pdm_dev_free() frees what was allocated.
 */
static int pdm_dev_alloc_io(struct pdm_dev *pd)
{
	/*
	 * One pass of pdm_send_top() allocates a clone per range, and those
	 * it has issued wait on current->bio_list until it returns: with the
	 * pool's two reserved clones on that list and the slab failing, the
	 * next allocation would wait for them forever.  The rescuer takes
	 * them off the list and issues them, as bio_alloc_bioset() explains,
	 * so a blocking pass always makes progress.  (A NOWAIT pass never waits
	 * for the pool: it fails with EAGAIN instead, see pdm-send.c.)
	 *
	 * Clones of polled top bios (REQ_ALLOC_CACHE) come from a per-CPU
	 * cache, as dm's do for tables that poll: no mempool or slab on the
	 * polled fast path.
	 */
	if (bioset_init(&pd->bs, BIO_POOL_SIZE, PDM_FRONT_PAD,
			BIOSET_NEED_RESCUER | BIOSET_PERCPU_CACHE))
		return -ENOMEM;
	if (mempool_init_slab_pool(&pd->remap_pool, BIO_POOL_SIZE,
				   pdm_remap_cache))
		return -ENOMEM;
	pd->remap_free = alloc_percpu(struct pdm_remap_list);
	if (!pd->remap_free)
		return -ENOMEM;
	/* Issues data that writeback waits for: it must make progress. */
	pd->wq = alloc_workqueue("kpdm/%d", WQ_MEM_RECLAIM, 0, pd->minor);
	if (!pd->wq)
		return -ENOMEM;
	return 0;
}

/* The device whose uuid is @uuid, if any. */
static struct pdm_dev *pdm_dev_find_uuid(const char *uuid)
{
	struct pdm_dev *pd;

	lockdep_assert_held(&pdm_ctl_mutex);
	list_for_each_entry(pd, &pdm_devs, node)
		if (!strcmp(pd->uuid, uuid))
			return pd;
	return NULL;
}

/* Is the name and the uuid, if any, of a new device free?  Says why not. */
static int pdm_dev_unique(const struct pdm_dev_args *args, char *err)
{
	struct pdm_dev *pd;

	lockdep_assert_held(&pdm_ctl_mutex);
	if (pdm_dev_find(args->name)) {
		pdm_err(err, "%s: a device of that name exists", args->name);
		return -EEXIST;
	}
	pd = args->uuid[0] ? pdm_dev_find_uuid(args->uuid) : NULL;
	if (pd) {
		pdm_err(err, "%s: uuid %s is %s's", args->name, args->uuid,
			pd->name);
		return -EEXIST;
	}
	return 0;
}

/*
 * Two writable pdm devices over the same sectors are two block devices
 * over one file system: both mountable, and silently corrupted (dm leaves
 * this to LVM, which pdm has no counterpart of).  Refuse a writable @map
 * for @pd that shares sectors with a writable table, live or inactive, of
 * any other device, naming it, unless either device was created shared.
 * Read-only tables may overlap anything.  Under pdm_ctl_mutex, held until
 * the map is published, so that two creates cannot both pass.
 */
static int pdm_dev_check_overlap(struct pdm_dev *pd, struct pdm_map *map,
				 char *err)
{
	struct pdm_overlap w;
	struct pdm_dev *o;
	int i;

	lockdep_assert_held(&pdm_ctl_mutex);
	if (pd->shared || !(map->mode & FMODE_WRITE))
		return 0;
	list_for_each_entry(o, &pdm_devs, node) {
		struct pdm_map *maps[2] = { o->map, o->inactive };

		if (o == pd || o->shared)
			continue;
		for (i = 0; i < 2; i++) {
			const struct pdm_seg_spec *seg;

			if (!maps[i] || !(maps[i]->mode & FMODE_WRITE) ||
			    !pdm_table_overlap(&map->spec, map->bases,
					       &maps[i]->spec, maps[i]->bases,
					       &w))
				continue;
			seg = &map->spec.segs[w.seg];
			pdm_err(err, "line %u: %s: %llu sectors from sector %llu of %s are writable through %s's %s table too (create --shared to allow it)",
				seg->line, seg->legs[w.leg].dev, w.sectors,
				w.sector,
				map->bdevs[seg->legs[w.leg].dev_idx]->bd_disk->disk_name,
				o->name, i ? "inactive" : "live");
			return -EBUSY;
		}
	}
	return 0;
}

/**
 * pdm_dev_create() - create a device with a live table
 * @args: its name, unique; its uuid, unique if not empty; its mode
 * @text: the table text (kvmalloc'd; owned by the device on success)
 * @len:  bytes of @text
 * @err:  PDM_MSG_LEN bytes for a message on failure
 * @out:  the new device, with a reference for the caller to put
 *
 * Takes pdm_ctl_mutex to check the name and uuid, and again to check
 * them once more and publish the device; not while it opens the lower
 * devices.  (Nothing can stack on the new disk before it is published,
 * so its table needs no stack check.)
 *
 * Return: 0 or a negative errno, with nothing created or left open.
 */
int pdm_dev_create(const struct pdm_dev_args *args, char *text, size_t len,
		   char *err, struct pdm_dev **out)
{
	const char *name = args->name;
	struct pdm_map *map;
	struct gendisk *disk;
	struct pdm_dev *pd;
	int ret;

	/* Fail early, before opening anything; checked again below. */
	mutex_lock(&pdm_ctl_mutex);
	ret = pdm_dev_unique(args, err);
	mutex_unlock(&pdm_ctl_mutex);
	if (ret)
		return ret;
	if (!try_module_get(THIS_MODULE))
		return -ENODEV;
	ret = -ENOMEM;
	pd = pdm_dev_alloc(name);
	if (!pd) {
		pdm_err(err, "%s: cannot allocate the device", name);
		goto put_module;
	}
	strscpy(pd->uuid, args->uuid, sizeof(pd->uuid));
	pd->read_only = args->read_only;
	pd->shared = args->shared;
	disk = bf_alloc_disk(NUMA_NO_NODE);
	if (!disk) {
		pdm_err(err, "%s: cannot allocate the disk", name);
		goto free_dev;
	}
	disk->major = pdm_major;
	disk->first_minor = pd->minor;
	disk->minors = 1;
	disk->fops = &pdm_fops;
	disk->private_data = pd;
	disk->flags |= GENHD_FL_NO_PART;
	snprintf(disk->disk_name, DISK_NAME_LEN, "pdm%d", pd->minor);
	pd->disk = disk;
	set_disk_ro(disk, pd->read_only);

	map = pdm_map_build(pd, text, len, pd->read_only, err);
	if (IS_ERR(map)) {
		ret = PTR_ERR(map);
		goto put_disk;
	}
	ret = pdm_dev_alloc_io(pd);
	if (ret) {
		pdm_err(err, "%s: cannot allocate the I/O pools", name);
		goto free_map;
	}
	/*
	 * Published under its own lock, held until udev has been told: a
	 * remove that finds the device once pdm_ctl_mutex is dropped waits
	 * for that lock, so the disk the event names cannot be freed first,
	 * nor "remove" overtake "create".  (The order pd->lock, then
	 * pdm_ctl_mutex, is remove's.)
	 */
	mutex_lock(&pd->lock);
	mutex_lock(&pdm_ctl_mutex);
	ret = pdm_dev_unique(args, err);
	if (!ret)
		ret = pdm_dev_check_overlap(pd, map, err);
	if (ret)
		goto unlock;
	ret = pdm_map_apply(pd, map);
	if (ret) {
		pdm_err(err, "%s: the kernel refuses the table's limits", name);
		goto unlock;
	}
	pd->map = map;
	pdm_assert_noio();
	ret = device_add_disk(NULL, disk, pdm_attr_groups);
	if (ret) {
		pdm_err(err, "%s: cannot add the disk", name);
		pd->map = NULL;
		goto unlock;
	}
	ret = pdm_map_link_holders(pd, map, err);
	if (ret) {
		/* Never listed, never opened: no I/O can have reached it. */
		del_gendisk(disk);
		pd->map = NULL;
		goto unlock;
	}
	list_add_tail(&pd->node, &pdm_devs);
	refcount_inc(&pd->ref);		/* the caller's */
	mutex_unlock(&pdm_ctl_mutex);
	if (test_create_event_delay_ms)
		msleep(test_create_event_delay_ms);
	pdm_dev_uevent(pd, "create");
	mutex_unlock(&pd->lock);
	*out = pd;
	return 0;
unlock:
	mutex_unlock(&pdm_ctl_mutex);
	mutex_unlock(&pd->lock);
free_map:
	map->text = NULL;	/* the caller frees it on failure */
	pdm_map_free(pd, map);
put_disk:
	put_disk(disk);
free_dev:
	pdm_dev_free(pd);
put_module:
	module_put(THIS_MODULE);
	return ret;
}

/**
 * pdm_dev_uevent() - tell udev what happened to a device
 * @pd:    the device
 * @event: "create", "resume", "rename" or "remove", as PDM_EVENT
 *
 * A change event on the disk with PDM_NAME, PDM_UUID ("" if none),
 * PDM_EVENT and PDM_SUSPENDED in its environment, as dm sends DM_NAME on
 * resume: a table swapped to
 * other lower devices of the same size changes nothing else that udev
 * would see.  None is sent on suspend: udev would probe a disk that
 * holds its I/O back.  A failure to send is not the command's.
 */
static void pdm_dev_uevent(struct pdm_dev *pd, const char *event)
{
	char name[sizeof("PDM_NAME=") + PDM_NAME_LEN];
	char ev[sizeof("PDM_EVENT=") + 8];
	char uuid[sizeof("PDM_UUID=") + PDM_UUID_LEN];
	char susp[sizeof("PDM_SUSPENDED=0")];
	char *envp[5];

	snprintf(name, sizeof(name), "PDM_NAME=%s", pd->name);
	snprintf(uuid, sizeof(uuid), "PDM_UUID=%s", pd->uuid);
	snprintf(ev, sizeof(ev), "PDM_EVENT=%s", event);
	snprintf(susp, sizeof(susp), "PDM_SUSPENDED=%d",
		 pdm_dev_suspended(pd));
	envp[0] = name;
	envp[1] = uuid;
	envp[2] = ev;
	envp[3] = susp;
	envp[4] = NULL;
	kobject_uevent_env(&disk_to_dev(pd->disk)->kobj, KOBJ_CHANGE, envp);
}

/*
 * Take what a suspended device holds back, and end the suspension if
 * @resume: in one critical section, so that no bio is queued after the
 * list was taken.
 */
static struct bio_list pdm_take_deferred(struct pdm_dev *pd, bool resume)
{
	struct bio_list list;

	spin_lock(&pd->defer_lock);
	if (resume)
		pd->suspended = false;
	list = pd->deferred;
	bio_list_init(&pd->deferred);
	spin_unlock(&pd->defer_lock);
	return list;
}

/* Fail what a suspended device still holds back. */
static void pdm_fail_deferred(struct pdm_dev *pd)
{
	struct bio_list list = pdm_take_deferred(pd, false);
	struct bio *bio;

	while ((bio = bio_list_pop(&list)))
		bio_io_error(bio);
}

/* Thaw the file system that a suspend froze, if it did. */
static void pdm_dev_thaw(struct pdm_dev *pd)
{
	if (pd->frozen) {
		bf_bdev_thaw(pd->disk->part0);
		pd->frozen = false;
	}
}

/**
 * pdm_dev_rename() - give a device another name, live
 * @pd:   the device
 * @name: the new name, checked by the caller (the rules of a name)
 * @err:  PDM_MSG_LEN bytes for a message on failure
 *
 * Nothing but the name changes: the disk (pdmN), its openers, its tables
 * and uuid stay.  udev hears it as a change event with the new PDM_NAME,
 * which moves /dev/pdm/NAME and the by-id name link (udev drops the links
 * a device no longer claims).  Under the device's lock, so that the
 * event, like every event of the device, carries the name it has when
 * sent.
 *
 * Return: 0, or -EEXIST if a device (this one too) has @name.
 */
int pdm_dev_rename(struct pdm_dev *pd, const char *name, char *err)
{
	struct pdm_dev *other;

	lockdep_assert_held(&pd->lock);
	mutex_lock(&pdm_ctl_mutex);
	other = pdm_dev_find(name);
	if (other) {
		mutex_unlock(&pdm_ctl_mutex);
		pdm_err(err, "%s: the name %s is taken (pdm%d)", pd->name,
			name, other->minor);
		return -EEXIST;
	}
	spin_lock(&pd->name_lock);
	strscpy_pad(pd->name, name, sizeof(pd->name));
	spin_unlock(&pd->name_lock);
	mutex_unlock(&pdm_ctl_mutex);
	pdm_dev_uevent(pd, "rename");
	return 0;
}

/**
 * pdm_dev_cancel_deferred() - cancel a pending deferred removal
 * @pd:  the device
 * @err: PDM_MSG_LEN bytes for a message on failure
 *
 * As dm's "@cancel_deferred_remove" message: the device stays when its
 * last opener closes it.  Under the device's lock, as the deferred
 * removal itself runs, so the two cannot cross.
 *
 * Return: 0, or -ENOENT if none was pending.
 */
int pdm_dev_cancel_deferred(struct pdm_dev *pd, char *err)
{
	bool pending;

	lockdep_assert_held(&pd->lock);
	spin_lock(&pd->open_lock);
	pending = pd->deferred_remove;
	pd->deferred_remove = false;
	spin_unlock(&pd->open_lock);
	if (pending)
		return 0;
	pdm_err(err, "%s: no deferred remove pending", pd->name);
	return -ENOENT;
}

/**
 * pdm_dev_remove() - remove a device nobody has open
 * @pd:       the device
 * @deferred: if it is open, remove it on its last close instead (as
 *            dmsetup remove --deferred): return 0 with that pending
 * @err:      PDM_MSG_LEN bytes for a message on failure
 *
 * Bios may still be in flight on a closed device (readahead, writeback,
 * completions still on their way out of pdm): the device is suspended
 * first, which waits for them, killably.  The device's memory stays until
 * the caller and every command waiting for its lock have put theirs.
 *
 * Return: 0, -EBUSY or -EINTR with the device untouched.
 */
int pdm_dev_remove(struct pdm_dev *pd, bool deferred, char *err)
{
	struct pdm_map *map, *inactive;
	int ret;

	lockdep_assert_held(&pd->lock);
	spin_lock(&pd->open_lock);
	if (pd->open_count) {
		if (deferred) {
			pd->deferred_remove = true;
			spin_unlock(&pd->open_lock);
			return 0;
		}
		spin_unlock(&pd->open_lock);
		pdm_err(err, "%s: in use (open %d times)", pd->name,
			pd->open_count);
		return -EBUSY;
	}
	pd->removing = true;
	pd->deferred_remove = false;
	spin_unlock(&pd->open_lock);

	/* Closed: no file system to freeze. */
	ret = pdm_dev_suspend(pd, false, err);
	if (ret) {
		spin_lock(&pd->open_lock);
		pd->removing = false;
		spin_unlock(&pd->open_lock);
		return ret;
	}

	/* Suspended by a command before, with a file system since gone. */
	pdm_dev_thaw(pd);
	mutex_lock(&pdm_ctl_mutex);
	list_del(&pd->node);
	pd->gone = true;
	map = pd->map;
	inactive = pd->inactive;
	WRITE_ONCE(pd->map, NULL);
	pd->inactive = NULL;
	mutex_unlock(&pdm_ctl_mutex);
	/* Closed, so any bio still held back has no one waiting for it. */
	pdm_fail_deferred(pd);
	/* hybrid_estimate_ns reads the map under the RCU read lock. */
	synchronize_rcu();
	/*
	 * Close the lower devices before del_gendisk: it drops our slaves/
	 * directory, and without it bd_unlink_disk_holder() would leave the
	 * lower devices' holders/ links behind.
	 */
	pdm_map_free(pd, inactive);
	pdm_map_free(pd, map);
	/* While removing refuses opens: udev cannot probe it any more. */
	pdm_dev_uevent(pd, "remove");
	del_gendisk(pd->disk);
	put_disk(pd->disk);
	pdm_dev_put(pd);	/* the device list's reference */
	module_put(THIS_MODULE);
	return 0;
}

/**
 * pdm_dev_reload() - load a table as the device's inactive table
 * @pd:   the device
 * @text: the table text (owned by the device on success)
 * @len:  bytes of @text
 * @read_only: the mode asked for, which must be the device's
 * @err:  PDM_MSG_LEN bytes for a message on failure
 *
 * A table that was already waiting is replaced.  The live table and the
 * I/O are untouched until resume.  The lower devices are opened under the
 * device's lock alone; pdm_ctl_mutex is taken for the stack check and
 * the install, which must see the other devices' tables as one.
 */
int pdm_dev_reload(struct pdm_dev *pd, char *text, size_t len,
		   bool read_only, char *err)
{
	struct pdm_map *map, *old = NULL;
	int ret;

	lockdep_assert_held(&pd->lock);
	if (read_only != pd->read_only) {
		pdm_err(err, "%s: the device is %s; a reload keeps its mode",
			pd->name, pd->read_only ? "read-only" : "read-write");
		return pd->read_only ? -EROFS : -EINVAL;
	}
	map = pdm_map_build(pd, text, len, read_only, err);
	if (IS_ERR(map))
		return PTR_ERR(map);
	ret = pdm_map_link_holders(pd, map, err);
	if (ret) {
		map->text = NULL;	/* the caller frees it on failure */
		pdm_map_free(pd, map);
		return ret;
	}
	mutex_lock(&pdm_ctl_mutex);
	ret = pdm_map_check_stack(pd, map, err);
	if (!ret)
		ret = pdm_dev_check_overlap(pd, map, err);
	if (!ret) {
		old = pd->inactive;
		pd->inactive = map;
	}
	mutex_unlock(&pdm_ctl_mutex);
	if (ret) {
		map->text = NULL;	/* the caller frees it on failure */
		pdm_map_free(pd, map);
		return ret;
	}
	pdm_map_free(pd, old);
	return 0;
}

/*
 * Let I/O flow again after a suspend, issue what was held back, and thaw
 * the file system that the suspend froze, if any.
 */
static void pdm_dev_unblock(struct pdm_dev *pd)
{
	bool poll = pd->map && pd->map->poll;
	struct bio_list list;
	struct bio *bio;

	lockdep_assert_held(&pd->lock);
	percpu_ref_resurrect(&pd->active);
	list = pdm_take_deferred(pd, true);
	while ((bio = bio_list_pop(&list))) {
		/*
		 * Issued from this command's task, not the submitter's: an
		 * EAGAIN could reach an io_uring request in a task that cannot
		 * take it (or, a thread of the same process, mark it for a
		 * reissue that never comes).  This task may wait.
		 */
		bio->bi_opf &= ~REQ_NOWAIT;
		/*
		 * A polled bio held back for a table that cannot poll
		 * completes by interrupt, as at its submission to a disk
		 * that cannot: 6.1 clears the flag there, where 6.12 would
		 * fail the bio (EOPNOTSUPP) on its way back in.
		 */
		if (!poll)
			bio_clear_polled(bio);
		submit_bio_noacct(bio);
	}
	pdm_dev_thaw(pd);
}

/**
 * pdm_dev_suspend() - hold back new I/O and wait for the I/O in flight
 * @pd:     the device
 * @lockfs: first freeze the file system on the device, if any, as dm's
 *          lock_fs does: its dirty data and journal are written out and
 *          the lower devices hold a clean file system until resume
 * @err:    PDM_MSG_LEN bytes for a message on failure
 *
 * Polled I/O in flight completes only when its poller polls; a poller
 * that stopped polling keeps the suspend waiting, so the wait is killable
 * and a killed suspend leaves the device live, and thawed.
 */
int pdm_dev_suspend(struct pdm_dev *pd, bool lockfs, char *err)
{
	int ret;

	lockdep_assert_held(&pd->lock);
	if (pd->suspended)
		return 0;
	if (lockfs) {
		ret = bf_bdev_freeze(pd->disk->part0);
		if (ret) {
			pdm_err(err, "%s: cannot freeze its file system",
				pd->name);
			return ret;
		}
		pd->frozen = true;
	}
	spin_lock(&pd->defer_lock);
	pd->suspended = true;
	spin_unlock(&pd->defer_lock);
	percpu_ref_kill(&pd->active);
	if (wait_event_killable(pd->drained,
				percpu_ref_is_zero(&pd->active))) {
		pdm_dev_unblock(pd);
		pdm_err(err, "%s: interrupted waiting for I/O in flight",
			pd->name);
		return -EINTR;
	}
	return 0;
}

/**
 * pdm_dev_resume() - make the inactive table live, if any, and unblock
 * @pd:     the device
 * @lockfs: freeze the file system for the suspend this may need
 * @err:    PDM_MSG_LEN bytes for a message on failure
 *
 * As with dmsetup, resuming a live device that has an inactive table
 * suspends it first: the swap needs a drained device.  Udev hears of
 * every resume of a suspended device (pdm_dev_uevent()).
 */
int pdm_dev_resume(struct pdm_dev *pd, bool lockfs, char *err)
{
	struct pdm_map *old = NULL;
	bool was_suspended = pd->suspended;
	int ret;

	lockdep_assert_held(&pd->lock);
	if (pd->inactive) {
		ret = pdm_dev_suspend(pd, lockfs, err);
		if (ret)
			return ret;
		/* Drained: the new limits may come before the new map. */
		ret = pdm_map_apply(pd, pd->inactive);
		if (ret) {
			pdm_err(err, "%s: the kernel refuses the new table's limits; the device stays suspended",
				pd->name);
			return ret;
		}
		mutex_lock(&pdm_ctl_mutex);
		old = pd->map;
		WRITE_ONCE(pd->map, pd->inactive);
		pd->inactive = NULL;
		mutex_unlock(&pdm_ctl_mutex);
	}
	if (pd->suspended)
		pdm_dev_unblock(pd);
	/* A stale poll_bio may still look at the old map's queues. */
	if (old)
		synchronize_rcu();
	pdm_map_free(pd, old);
	if (old || was_suspended)
		pdm_dev_uevent(pd, "resume");
	return 0;
}

/**
 * pdm_dev_list() - a struct pdm_list_entry per device, in creation order
 * @out:  where to (NULL if @room is 0)
 * @room: bytes at @out
 *
 * Return: the bytes the whole list needs; only whole entries that fit
 * are written.
 */
size_t pdm_dev_list(void *out, size_t room)
{
	struct pdm_list_entry entry = {};
	struct pdm_dev *pd;
	size_t at = 0;

	lockdep_assert_held(&pdm_ctl_mutex);
	list_for_each_entry(pd, &pdm_devs, node) {
		if (at + sizeof(entry) <= room) {
			entry.dev = new_encode_dev(disk_devt(pd->disk));
			/* No bytes of a longer name before it. */
			strscpy_pad(entry.name, pd->name, sizeof(entry.name));
			strscpy_pad(entry.uuid, pd->uuid, sizeof(entry.uuid));
			entry.flags = pd->shared ? PDM_F_SHARED : 0;
			memcpy(out + at, &entry, sizeof(entry));
		}
		at += sizeof(entry);
	}
	return at;
}
