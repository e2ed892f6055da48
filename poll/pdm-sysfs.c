// SPDX-License-Identifier: GPL-2.0
/*
 * pdm's sysfs files, in /sys/block/pdmN/pdm/.  Read-only, and lock-free:
 * the control commands hold pdm_ctl_mutex across del_gendisk, which waits
 * for these to finish, so they must not take it.
 */
#include <linux/blkdev.h>
#include <linux/device.h>
#include <linux/percpu.h>
#include <linux/sysfs.h>

#include "pdm.h"

static struct pdm_dev *pdm_from_dev(struct device *dev)
{
	return dev_to_disk(dev)->private_data;
}

static ssize_t name_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n", pdm_from_dev(dev)->name);
}
static DEVICE_ATTR_RO(name);

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

#define PDM_STAT_ATTR(file, field)					\
static ssize_t file##_show(struct device *dev,				\
			   struct device_attribute *attr, char *buf)	\
{									\
	return sysfs_emit(buf, "%lu\n", pdm_stat_sum(pdm_from_dev(dev), \
			  offsetof(struct pdm_stats, field)));		\
}									\
static DEVICE_ATTR_RO(file)

PDM_STAT_ATTR(bios, bios);
PDM_STAT_ATTR(polled_bios, polled_bios);
PDM_STAT_ATTR(poll_bio_calls, poll_calls);
PDM_STAT_ATTR(lower_polls, lower_polls);
PDM_STAT_ATTR(completions_found, found);
PDM_STAT_ATTR(clones, clones);
PDM_STAT_ATTR(deferred, deferred);

static struct attribute *pdm_attrs[] = {
	&dev_attr_name.attr,
	&dev_attr_suspended.attr,
	&dev_attr_bios.attr,
	&dev_attr_polled_bios.attr,
	&dev_attr_poll_bio_calls.attr,
	&dev_attr_lower_polls.attr,
	&dev_attr_completions_found.attr,
	&dev_attr_clones.attr,
	&dev_attr_deferred.attr,
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
