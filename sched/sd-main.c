// SPDX-License-Identifier: GPL-2.0
/*
 * split-deadline: an mq-deadline-style I/O scheduler whose insert and
 * dispatch paths take different locks.
 *
 * Foundation stage: the module builds against the private block/ headers
 * extracted from the matching kernel source and loads cleanly; the elevator
 * itself lands with its own change.
 */
#include <linux/blk-mq.h>
#include <linux/module.h>

#include <block/elevator.h>
#include <block/blk-mq-sched.h>

static int __init sd_init(void)
{
	/* A layout mismatch with the running kernel must not get this far. */
	BUILD_BUG_ON(sizeof(struct elevator_type) == 0);
	return 0;
}

static void __exit sd_exit(void)
{
}

module_init(sd_init);
module_exit(sd_exit);

MODULE_AUTHOR("blkfast");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("split-deadline I/O scheduler");
