// SPDX-License-Identifier: GPL-2.0
/*
 * split-deadline's sysfs tunables (queue/iosched/): the names, units,
 * defaults and clamping of mq-deadline's.  Out-of-range numbers are clamped
 * as mq-deadline does; text that is not a number is refused with EINVAL.
 */
#include <linux/blk-mq.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/sysfs.h>

#include <block/elevator.h>

#include "split-deadline.h"

static ssize_t sd_show_int(struct elevator_queue *e, char *page, int v)
{
	return sysfs_emit(page, "%d\n", v);
}

/* Parse an int and clamp it to [min, max]; 0 or a negative errno. */
static int sd_parse_clamped(const char *page, int min, int max, int *out)
{
	int v, ret = kstrtoint(page, 0, &v);

	if (ret < 0)
		return ret;
	*out = clamp(v, min, max);
	return 0;
}

/*
 * Show and store functions of one tunable.  @var is the tunable's lvalue in
 * terms of sd, the elevator data, as with mq-deadline's SHOW_* and STORE_*.
 */
#define SD_INT_SHOW(name, var)						\
static ssize_t sd_##name##_show(struct elevator_queue *e, char *page)	\
{									\
	struct sd_sched *sd = e->elevator_data;				\
									\
	return sd_show_int(e, page, var);				\
}

#define SD_INT_STORE(name, var, min, max)				\
static ssize_t sd_##name##_store(struct elevator_queue *e,		\
				 const char *page, size_t count)	\
{									\
	struct sd_sched *sd = e->elevator_data;				\
	int v, ret = sd_parse_clamped(page, min, max, &v);		\
									\
	if (ret)							\
		return ret;						\
	WRITE_ONCE(var, v);						\
	return count;							\
}

/* Tunables in milliseconds, kept in jiffies. */
#define SD_MS_SHOW(name, var)						\
static ssize_t sd_##name##_show(struct elevator_queue *e, char *page)	\
{									\
	struct sd_sched *sd = e->elevator_data;				\
									\
	return sd_show_int(e, page, jiffies_to_msecs(var));		\
}

#define SD_MS_STORE(name, var)						\
static ssize_t sd_##name##_store(struct elevator_queue *e,		\
				 const char *page, size_t count)	\
{									\
	struct sd_sched *sd = e->elevator_data;				\
	int v, ret = sd_parse_clamped(page, 0, INT_MAX, &v);		\
									\
	if (ret)							\
		return ret;						\
	WRITE_ONCE(var, msecs_to_jiffies(v));				\
	return count;							\
}

SD_MS_SHOW(read_expire, sd->fifo_expire[SD_READ])
SD_MS_STORE(read_expire, sd->fifo_expire[SD_READ])
SD_MS_SHOW(write_expire, sd->fifo_expire[SD_WRITE])
SD_MS_STORE(write_expire, sd->fifo_expire[SD_WRITE])
SD_MS_SHOW(prio_aging_expire, sd->prio_aging_expire)
SD_MS_STORE(prio_aging_expire, sd->prio_aging_expire)
SD_INT_SHOW(writes_starved, sd->writes_starved)
SD_INT_STORE(writes_starved, sd->writes_starved, INT_MIN, INT_MAX)
SD_INT_SHOW(front_merges, sd->front_merges)
SD_INT_STORE(front_merges, sd->front_merges, 0, 1)
SD_INT_SHOW(async_depth, sd->async_depth)
SD_INT_STORE(async_depth, sd->async_depth, 1, INT_MAX)
SD_INT_SHOW(fifo_batch, sd->fifo_batch)
SD_INT_STORE(fifo_batch, sd->fifo_batch, 0, INT_MAX)

#define SD_ATTR(name) __ATTR(name, 0644, sd_##name##_show, sd_##name##_store)

struct elv_fs_entry sd_attrs[] = {
	SD_ATTR(read_expire),
	SD_ATTR(write_expire),
	SD_ATTR(writes_starved),
	SD_ATTR(front_merges),
	SD_ATTR(async_depth),
	SD_ATTR(fifo_batch),
	SD_ATTR(prio_aging_expire),
	__ATTR_NULL
};
