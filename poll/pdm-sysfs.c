// SPDX-License-Identifier: GPL-2.0
/*
 * pdm's sysfs files, in /sys/block/pdmN/pdm/.  Lock-free: remove holds the
 * device's lock across del_gendisk, which waits for these to finish, so
 * they must not take it.  The polling knobs are plain words
 * that poll_bio reads once per call, so they may change at any time.
 */
#include <linux/blkdev.h>
#include <linux/device.h>
#include <linux/kstrtox.h>
#include <linux/string.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sysfs.h>

#include "pdm.h"

static struct pdm_dev *pdm_from_dev(struct device *dev)
{
	return dev_to_disk(dev)->private_data;
}

/* Copied under name_lock: a rename may be under way. */
static ssize_t name_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct pdm_dev *pd = pdm_from_dev(dev);
	char name[PDM_NAME_LEN];

	spin_lock(&pd->name_lock);
	memcpy(name, pd->name, sizeof(name));
	spin_unlock(&pd->name_lock);
	return sysfs_emit(buf, "%s\n", name);
}
static DEVICE_ATTR_RO(name);

static ssize_t uuid_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n", pdm_from_dev(dev)->uuid);
}
static DEVICE_ATTR_RO(uuid);

static ssize_t suspended_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", pdm_dev_suspended(pdm_from_dev(dev)));
}
static DEVICE_ATTR_RO(suspended);

/* Sum one counter over the CPUs. */
static unsigned long pdm_stat_sum(struct pdm_dev *pd, size_t offset)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *(unsigned long *)((char *)per_cpu_ptr(pd->stats, cpu) +
					  offset);
	return sum;
}

/* A counter's sysfs file has the name of its struct pdm_stats field. */
#define PDM_STAT_ATTR(field)						\
static ssize_t field##_show(struct device *dev,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	return sysfs_emit(buf, "%lu\n", pdm_stat_sum(pdm_from_dev(dev), \
			  offsetof(struct pdm_stats, field)));		\
}									\
static DEVICE_ATTR_RO(field)

PDM_STAT_ATTR(bios);
PDM_STAT_ATTR(polled_bios);
PDM_STAT_ATTR(poll_bio_calls);
PDM_STAT_ATTR(lower_polls);
PDM_STAT_ATTR(completions_found);
PDM_STAT_ATTR(clones);
PDM_STAT_ATTR(remapped);
PDM_STAT_ATTR(deferred);
PDM_STAT_ATTR(trylock_skips);
PDM_STAT_ATTR(hybrid_early_returns);
PDM_STAT_ATTR(nowait_again);
PDM_STAT_ATTR(requeued);
PDM_STAT_ATTR(stale_polls);
PDM_STAT_ATTR(hybrid_sleeps);
PDM_STAT_ATTR(hybrid_slept_ns);
PDM_STAT_ATTR(hybrid_late_wakeups);
PDM_STAT_ATTR(hybrid_sleeps_interrupted);
PDM_STAT_ATTR(hybrid_sleeps_called_off);
PDM_STAT_ATTR(hybrid_late_ns);
PDM_STAT_ATTR(hybrid_sleep_ready);
PDM_STAT_ATTR(hybrid_sleep_early);
PDM_STAT_ATTR(hybrid_sleep_refused);
PDM_STAT_ATTR(eagain_returned);

/*
 * "tracked [sweep] sweep_wait direct": the modes, the current one
 * bracketed.
 */
/* Every choice of @names, the current one in brackets, as the kernel's. */
static ssize_t pdm_show_choice(char *buf, const char * const *names, int cur)
{
	ssize_t len = 0;
	int i;

	for (i = 0; names[i]; i++)
		len += sysfs_emit_at(buf, len, i == cur ? "%s[%s]" : "%s%s",
				     i ? " " : "", names[i]);
	return len + sysfs_emit_at(buf, len, "\n");
}

static ssize_t poll_mode_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return pdm_show_choice(buf, pdm_poll_mode_names,
			       READ_ONCE(pdm_from_dev(dev)->poll_mode));
}

static ssize_t poll_mode_store(struct device *dev,
			       struct device_attribute *attr, const char *buf,
			       size_t count)
{
	int i = __sysfs_match_string(pdm_poll_mode_names, -1, buf);

	if (i < 0)
		return i;
	WRITE_ONCE(pdm_from_dev(dev)->poll_mode, i);
	return count;
}
static DEVICE_ATTR_RW(poll_mode);

/*
 * Reads as "[off] gate sleep", as poll_mode does; a name or its number
 * (0, 1 or 2) may be written.
 */
static ssize_t hybrid_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return pdm_show_choice(buf, pdm_hybrid_names,
			       READ_ONCE(pdm_from_dev(dev)->hybrid));
}

static ssize_t hybrid_store(struct device *dev, struct device_attribute *attr,
			    const char *buf, size_t count)
{
	int i = __sysfs_match_string(pdm_hybrid_names, -1, buf);
	unsigned int n;

	if (i < 0) {
		if (kstrtouint(buf, 10, &n) || n > PDM_HYBRID_SLEEP)
			return -EINVAL;
		i = n;
	}
	WRITE_ONCE(pdm_from_dev(dev)->hybrid, i);
	return count;
}
static DEVICE_ATTR_RW(hybrid);

/*
 * The learned completion times, lower quartiles (pdm-hybrid.h), a line
 * per lower device of the live table: "<read ns> <write ns> <maj:min>".
 * The map goes after a grace period (pdm_dev_resume(), pdm_dev_remove()).
 */
static ssize_t hybrid_estimate_ns_show(struct device *dev,
				       struct device_attribute *attr,
				       char *buf)
{
	struct pdm_dev *pd = pdm_from_dev(dev);
	const struct pdm_map *map;
	int len = 0;
	u32 i;

	rcu_read_lock();
	map = READ_ONCE(pd->map);
	for (i = 0; map && i < map->nr_bdevs; i++)
		len += sysfs_emit_at(buf, len, "%llu %llu %u:%u\n",
				     READ_ONCE(map->hybrid_estimate_ns[i][0]),
				     READ_ONCE(map->hybrid_estimate_ns[i][1]),
				     MAJOR(map->bdevs[i]->bd_dev),
				     MINOR(map->bdevs[i]->bd_dev));
	rcu_read_unlock();
	return len;
}
static DEVICE_ATTR_RO(hybrid_estimate_ns);

/* How late hybrid sleeps wake after their timers, learned: ns. */
static ssize_t hybrid_wake_late_ns_show(struct device *dev,
					struct device_attribute *attr,
					char *buf)
{
	return sysfs_emit(buf, "%llu\n",
			  READ_ONCE(pdm_from_dev(dev)->hybrid_wake_late_ns));
}
static DEVICE_ATTR_RO(hybrid_wake_late_ns);

/* What the sleeps' verdicts add to the lateness, learned: ns. */
static ssize_t hybrid_wake_margin_ns_show(struct device *dev,
					  struct device_attribute *attr,
					  char *buf)
{
	return sysfs_emit(buf, "%llu\n",
			  READ_ONCE(pdm_from_dev(dev)->hybrid_wake_margin_ns));
}
static DEVICE_ATTR_RO(hybrid_wake_margin_ns);

static struct attribute *pdm_attrs[] = {
	&dev_attr_name.attr,
	&dev_attr_uuid.attr,
	&dev_attr_suspended.attr,
	&dev_attr_bios.attr,
	&dev_attr_polled_bios.attr,
	&dev_attr_poll_bio_calls.attr,
	&dev_attr_lower_polls.attr,
	&dev_attr_completions_found.attr,
	&dev_attr_clones.attr,
	&dev_attr_remapped.attr,
	&dev_attr_deferred.attr,
	&dev_attr_nowait_again.attr,
	&dev_attr_requeued.attr,
	&dev_attr_stale_polls.attr,
	&dev_attr_trylock_skips.attr,
	&dev_attr_hybrid_early_returns.attr,
	&dev_attr_poll_mode.attr,
	&dev_attr_hybrid.attr,
	&dev_attr_hybrid_estimate_ns.attr,
	&dev_attr_hybrid_wake_late_ns.attr,
	&dev_attr_hybrid_wake_margin_ns.attr,
	&dev_attr_hybrid_sleeps.attr,
	&dev_attr_hybrid_slept_ns.attr,
	&dev_attr_hybrid_late_wakeups.attr,
	&dev_attr_hybrid_sleeps_interrupted.attr,
	&dev_attr_hybrid_sleeps_called_off.attr,
	&dev_attr_hybrid_late_ns.attr,
	&dev_attr_hybrid_sleep_ready.attr,
	&dev_attr_hybrid_sleep_early.attr,
	&dev_attr_hybrid_sleep_refused.attr,
	&dev_attr_eagain_returned.attr,
	NULL,
};

static const struct attribute_group pdm_attr_group = {
	.name	= "pdm",
	.attrs	= pdm_attrs,
};

const struct attribute_group *pdm_attr_groups[] = {
	&pdm_attr_group,
	NULL,
};
