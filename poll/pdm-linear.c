// SPDX-License-Identifier: GPL-2.0
/*
 * pdm's linear target, "<start> <length> linear <dev> <offset>": the
 * segment maps onto one leg, sector for sector.  Pure (see pdm-target.h).
 */
#include "pdm-table.h"
#include "pdm-target.h"

static int pdm_linear_parse(struct pdm_parser *p, struct pdm_seg_spec *seg)
{
	(void)p;	/* no arguments before the device */
	seg->nr_legs = 1;
	return 0;
}

static u64 pdm_linear_leg_len(const struct pdm_seg_spec *seg)
{
	return seg->len;
}

int pdm_linear_locate(const struct pdm_seg_spec *seg, u64 off, u32 *leg,
		      u64 *leg_sector, u64 *left)
{
	*leg = 0;
	*leg_sector = off;
	*left = seg->len - off;
	return 0;
}

const struct pdm_target_type pdm_linear_target = {
	.name		= "linear",
	.parse		= pdm_linear_parse,
	.leg_len	= pdm_linear_leg_len,
	.locate		= pdm_linear_locate,
};
