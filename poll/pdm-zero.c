// SPDX-License-Identifier: GPL-2.0
/*
 * pdm's zero target, "<start> <length> zero": no devices; reads return
 * zeroes and writes and discards succeed and are dropped, as dm-zero's
 * do.  Pure (see pdm-target.h).
 */
#include "pdm-table.h"
#include "pdm-target.h"

static int pdm_zero_parse(struct pdm_parser *p, struct pdm_seg_spec *seg)
{
	(void)p;	/* no arguments */
	seg->nr_legs = 0;
	return 0;
}

static int pdm_zero_locate(const struct pdm_seg_spec *seg, u64 off,
			   u32 *leg, u64 *leg_sector, u64 *left)
{
	(void)leg;
	(void)leg_sector;
	*left = seg->len - off;
	return PDM_LOCATE_ZEROES;
}

const struct pdm_target_type pdm_zero_target = {
	.name		= "zero",
	.parse		= pdm_zero_parse,
	.locate		= pdm_zero_locate,
};
