/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What must hold of any table pdm_table_parse() accepts, whatever its
 * targets: checked through the targets' operations only, so that a new
 * target is covered without a line here.  Shared by the unit test
 * (tests/unit/table.c) and the fuzz target (tests/fuzz/table-fuzz.c).
 */
#ifndef _BLKFAST_TABLE_INVARIANTS_H
#define _BLKFAST_TABLE_INVARIANTS_H

#include "pdm-table.h"
#include "pdm-target.h"

/*
 * Sector @off of @seg, as its target locates it: on a leg, inside the
 * leg's area, with a reach that stays on the leg to its last sector.
 */
static const char *pdm_locate_broken(const struct pdm_seg_spec *seg, u64 off)
{
	u64 leg_len = seg->type->leg_len(seg);
	u64 sector, left, last_sector, last_left;
	u32 leg, last_leg;

	if (seg->type->locate(seg, off, &leg, &sector, &left))
		return "locate fails on a segment with legs";
	if (leg >= seg->nr_legs)
		return "locate names a leg past nr_legs";
	if (!left || left > seg->len - off)
		return "locate's reach is 0 or past the segment";
	if (sector >= leg_len || left > leg_len - sector)
		return "locate's range leaves the leg's area";
	if (seg->type->locate(seg, off + left - 1, &last_leg, &last_sector,
			      &last_left))
		return "locate fails at the end of its own reach";
	if (last_leg != leg || last_sector != sector + left - 1 ||
	    last_left != 1)
		return "locate's reach is not contiguous on one leg";
	return NULL;
}

/* NULL if @s holds every invariant, else the first one it breaks. */
static const char *pdm_spec_broken(const struct pdm_table_spec *s)
{
	u64 next = 0, end, leg_end;
	u32 i, j;

	if (s->nr_segs < 1 || s->nr_segs > PDM_MAX_SEGMENTS || !s->segs)
		return "segment count";
	for (i = 0; i < s->nr_segs; i++) {
		const struct pdm_seg_spec *seg = &s->segs[i];
		u64 sector, left;
		u32 l;

		if (seg->start != next || !seg->len)
			return "segments do not tile the device";
		if (__builtin_add_overflow(seg->start, seg->len, &end))
			return "segment end overflows";
		if (!seg->type || seg->line < 1 ||
		    (i && seg->line <= s->segs[i - 1].line))
			return "target or line";
		if (!seg->nr_legs != !seg->legs)
			return "legs allocated without nr_legs or the reverse";
		if (!seg->nr_legs) {
			/* Served without a device: fails, or zeroes. */
			if (!seg->type->locate(seg, 0, &l, &sector, &left))
				return "a segment without legs locates a leg";
			if (left != seg->len)
				return "a segment without legs has a short reach";
		} else {
			const char *why = pdm_locate_broken(seg, 0);

			if (!why)
				why = pdm_locate_broken(seg, seg->len - 1);
			if (!why)
				why = pdm_locate_broken(seg, seg->len / 2);
			if (why)
				return why;
		}
		for (j = 0; j < seg->nr_legs; j++) {
			const struct pdm_leg_spec *lg = &seg->legs[j];
			size_t n = strlen(lg->dev);

			if (n < 1 || n > PDM_MAX_DEV_NAME)
				return "device name length";
			if (lg->bdev)
				return "bdev set by the parser";
			if (__builtin_add_overflow(lg->offset,
						   seg->type->leg_len(seg),
						   &leg_end))
				return "leg end overflows";
		}
		if (pdm_table_find(s, seg->start) != i ||
		    pdm_table_find(s, end - 1) != i)
			return "pdm_table_find() misses the segment";
		next = end;
	}
	if (next != s->sectors)
		return "sectors is not the sum of the lengths";
	return NULL;
}

#endif /* _BLKFAST_TABLE_INVARIANTS_H */
