// SPDX-License-Identifier: GPL-2.0
/*
 * pdm's striped target, "<start> <length> striped <nr> <chunk_sectors>
 * <dev> <offset>...": consecutive chunks of the segment go to the nr legs
 * in turn (the arithmetic is pdm-stripe.h's).  Pure (see pdm-target.h).
 */
#include "pdm-stripe.h"
#include "pdm-table.h"
#include "pdm-target.h"

/*
 * The limits of a striped segment: PDM_MAX_STRIPES legs bound the memory
 * one line can ask for; a chunk of PDM_MIN_CHUNK sectors (4 KiB) or more,
 * being a power of two, is a multiple of every logical block size a lower
 * device can have (512 to 4096), so splitting a bio at chunk boundaries
 * never cuts a logical block in two.
 */
#define PDM_MAX_STRIPES		64
#define PDM_MIN_CHUNK		8

/* What a striped segment keeps in seg->args: its geometry. */
struct pdm_striped_args {
	u32 chunk_sectors;	/* a power of two, >= PDM_MIN_CHUNK */
	u32 chunk_shift;	/* log2(chunk_sectors) */
};

static_assert(sizeof(struct pdm_striped_args) <=
	      sizeof(((struct pdm_seg_spec *)NULL)->args), "seg->args too small");

static const struct pdm_striped_args *
pdm_striped_args(const struct pdm_seg_spec *seg)
{
	return (const struct pdm_striped_args *)seg->args;
}

/* <nr> <chunk_sectors>, and the checks they allow with the length. */
static int pdm_striped_parse(struct pdm_parser *p, struct pdm_seg_spec *seg)
{
	u64 len = seg->len;
	struct pdm_striped_args *args = (struct pdm_striped_args *)seg->args;
	u64 nr64, chunk64, chunks;
	u32 rem;
	int ret;

	ret = pdm_parse_number(p, "nr", U32_MAX, &nr64);
	if (ret)
		return ret;
	ret = pdm_parse_number(p, "chunk_sectors", U32_MAX, &chunk64);
	if (ret)
		return ret;
	if (!nr64)
		return pdm_parse_fail(p, -EINVAL, "striped over 0 devices");
	if (nr64 > PDM_MAX_STRIPES)
		return pdm_parse_fail(p, -E2BIG, "%llu stripes, over %u",
				      (unsigned long long)nr64,
				      PDM_MAX_STRIPES);
	if (!is_power_of_2(chunk64))
		return pdm_parse_fail(p, -EINVAL,
				      "chunk_sectors %llu is not a power of two",
				      (unsigned long long)chunk64);
	if (chunk64 < PDM_MIN_CHUNK)
		return pdm_parse_fail(p, -EINVAL,
				      "chunk_sectors %llu is under %u (4 KiB)",
				      (unsigned long long)chunk64,
				      PDM_MIN_CHUNK);
	/*
	 * pdm-stripe.h maps whole rows of nr chunks only.  nr * chunk may
	 * not fit a u32 divisor, so divide by each in turn.
	 */
	chunks = div_u64_rem(len, chunk64, &rem);
	if (!rem)
		div_u64_rem(chunks, nr64, &rem);
	if (rem)
		return pdm_parse_fail(p, -EINVAL,
				      "length %llu is not a multiple of %llu stripes * %llu sectors",
				      (unsigned long long)len,
				      (unsigned long long)nr64,
				      (unsigned long long)chunk64);
	seg->nr_legs = nr64;
	args->chunk_sectors = chunk64;
	args->chunk_shift = ilog2(chunk64);
	return 0;
}

static struct pdm_stripe_geom pdm_striped_geom(const struct pdm_seg_spec *seg)
{
	struct pdm_stripe_geom g = {
		.nr = seg->nr_legs,
		.chunk_shift = pdm_striped_args(seg)->chunk_shift,
	};

	return g;
}

static u64 pdm_striped_leg_len(const struct pdm_seg_spec *seg)
{
	struct pdm_stripe_geom g = pdm_striped_geom(seg);

	return pdm_stripe_leg_len(&g, seg->len);
}

int pdm_striped_locate(const struct pdm_seg_spec *seg, u64 off, u32 *leg,
		       u64 *leg_sector, u64 *left)
{
	struct pdm_stripe_geom g = pdm_striped_geom(seg);
	struct pdm_stripe_pos pos;

	pdm_stripe_map(&g, off, &pos);
	*leg = pos.leg;
	*leg_sector = pos.leg_sector;
	*left = seg->len - off < pos.chunk_left ? seg->len - off :
						   pos.chunk_left;
	return 0;
}

static int pdm_striped_format(const struct pdm_seg_spec *seg, char *buf,
			      size_t size)
{
	return snprintf(buf, size, " %u %u", seg->nr_legs,
			pdm_striped_args(seg)->chunk_sectors);
}

/* Discards are mapped a chunk at a time. */
static u32 pdm_striped_discard_limit(const struct pdm_seg_spec *seg)
{
	return pdm_striped_args(seg)->chunk_sectors;
}

const struct pdm_target_type pdm_striped_target = {
	.name		= "striped",
	.parse		= pdm_striped_parse,
	.leg_len	= pdm_striped_leg_len,
	.locate		= pdm_striped_locate,
	.format		= pdm_striped_format,
	.discard_limit	= pdm_striped_discard_limit,
};
