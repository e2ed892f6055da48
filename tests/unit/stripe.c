// SPDX-License-Identifier: GPL-2.0
/*
 * pdm_stripe_map() against a naive model: walk the segment chunk by chunk,
 * dealing chunks to legs round-robin, and compare every sector.
 */
#include "pdm-stripe.h"
#include "unit.h"

static void check_geometry(u32 nr, u32 shift, u32 rows)
{
	struct pdm_stripe_geom g = { .nr = nr, .chunk_shift = shift };
	u64 chunk_sectors = 1ULL << shift;
	u64 len = (u64)nr * rows * chunk_sectors;
	u64 next_on_leg[16] = { 0 };
	u64 off = 0;

	CHECK_EQ("leg length", rows * chunk_sectors, pdm_stripe_leg_len(&g, len));
	for (u64 c = 0; c < (u64)nr * rows; c++) {
		u32 leg = c % nr;

		for (u64 s = 0; s < chunk_sectors; s++, off++) {
			struct pdm_stripe_pos pos;

			pdm_stripe_map(&g, off, &pos);
			CHECK_EQ("leg", leg, pos.leg);
			CHECK_EQ("leg sector", next_on_leg[leg] + s,
				 pos.leg_sector);
			CHECK_EQ("chunk left", chunk_sectors - s,
				 pos.chunk_left);
		}
		next_on_leg[leg] += chunk_sectors;
	}
}

int main(void)
{
	struct pdm_stripe_geom g = { .nr = 3, .chunk_shift = 7 };
	struct pdm_stripe_pos pos;

	for (u32 nr = 1; nr <= 16; nr++)
		for (u32 shift = 0; shift <= 9; shift += 3)
			check_geometry(nr, shift, 5);

	/* Offsets beyond 32 bits keep their high bits. */
	pdm_stripe_map(&g, (1ULL << 40) + 5, &pos);
	CHECK_EQ("high leg", ((1ULL << 40) >> 7) % 3, pos.leg);
	CHECK_EQ("high leg sector", (((1ULL << 40) >> 7) / 3 << 7) + 5,
		 pos.leg_sector);
	CHECK_EQ("high chunk left", 128 - 5, pos.chunk_left);
	return unit_done("stripe");
}
