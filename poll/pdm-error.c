// SPDX-License-Identifier: GPL-2.0
/*
 * pdm's error target, "<start> <length> error": no devices; every read,
 * write and discard of the segment fails with EIO, as dm-error's does.
 * A flush has no device to go to and succeeds.  Pure (see pdm-target.h).
 */
#include "pdm-table.h"
#include "pdm-target.h"

static int pdm_error_parse(struct pdm_parser *p, struct pdm_seg_spec *seg)
{
	(void)p;	/* no arguments */
	seg->nr_legs = 0;
	return 0;
}

static int pdm_error_locate(const struct pdm_seg_spec *seg, u64 off,
			    u32 *leg, u64 *leg_sector, u64 *left)
{
	(void)leg;
	(void)leg_sector;
	*left = seg->len - off;
	return -EIO;
}

const struct pdm_target_type pdm_error_target = {
	.name		= "error",
	.parse		= pdm_error_parse,
	.locate		= pdm_error_locate,
};
