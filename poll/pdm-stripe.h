/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stripe arithmetic for pdm's striped target.  Pure: also built in user
 * space by the host unit tests.
 *
 * A striped segment spreads consecutive chunks of chunk_sectors over nr
 * legs round-robin: chunk c lives on leg c % nr, as that leg's chunk c / nr.
 */
#ifndef _PDM_STRIPE_H
#define _PDM_STRIPE_H

#include <blkfast/compat.h>

struct pdm_stripe_geom {
	u32 nr;			/* legs, >= 1 */
	u32 chunk_shift;	/* log2(chunk_sectors) */
};

struct pdm_stripe_pos {
	u32 leg;		/* which leg */
	u64 leg_sector;		/* sector within the leg's area */
	u32 chunk_left;		/* sectors from here to the chunk's end */
};

/**
 * pdm_stripe_map() - locate a sector of a striped segment
 * @g:   the segment's geometry
 * @off: sector offset from the start of the segment
 * @pos: filled with the leg, the sector within that leg's area, and how many
 *       sectors a bio starting at @off may span before the chunk ends
 */
static inline void pdm_stripe_map(const struct pdm_stripe_geom *g, u64 off,
				  struct pdm_stripe_pos *pos)
{
	u64 mask = (1ULL << g->chunk_shift) - 1;
	u64 chunk = off >> g->chunk_shift;
	u64 row = div_u64_rem(chunk, g->nr, &pos->leg);

	pos->leg_sector = (row << g->chunk_shift) | (off & mask);
	pos->chunk_left = (u32)((mask + 1) - (off & mask));
}

/**
 * pdm_stripe_leg_len() - sectors a striped segment of @len uses on each leg
 * @g:   the segment's geometry; @len must be a multiple of nr chunks
 * @len: the segment's length in sectors
 */
static inline u64 pdm_stripe_leg_len(const struct pdm_stripe_geom *g, u64 len)
{
	u32 rem;

	return div_u64_rem(len, g->nr, &rem);
}

#endif /* _PDM_STRIPE_H */
