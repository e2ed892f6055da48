// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only: logs one WARN on load.  The harness's negative test loads it to
 * prove that a guest kernel warning fails a run whose script passed.
 */
#include <linux/bug.h>
#include <linux/module.h>

static int __init blkfast_warn_init(void)
{
	WARN(1, "blkfast-warn: deliberate warning for the harness self-test\n");
	return 0;
}

static void __exit blkfast_warn_exit(void)
{
}

module_init(blkfast_warn_init);
module_exit(blkfast_warn_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("blkfast harness self-test: WARN on load");
