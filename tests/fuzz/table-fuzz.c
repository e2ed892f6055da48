// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for pdm_table_parse().  The input is copied into a
 * buffer of its exact size, not NUL-terminated, as the kernel gets it, so
 * ASan sees any read past the end.  A table that parses must hold what the
 * kernel side relies on; any violation aborts.
 *
 * Built and run by tests/host/table-fuzz.sh.
 */
#include "pdm-table.c"
#include "pdm-linear.c"
#include "pdm-striped.c"
#include "pdm-error.c"

#include <stddef.h>

#define REQUIRE(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "invariant failed: %s\n", #cond);	\
		abort();						\
	}								\
} while (0)

static void check(const struct pdm_table_spec *spec, const char *buf,
		  size_t size)
{
	u64 next = 0;
	u32 i, j;

	REQUIRE(spec->nr_segs >= 1 && spec->nr_segs <= PDM_MAX_SEGMENTS);
	REQUIRE(spec->segs);
	for (i = 0; i < spec->nr_segs; i++) {
		const struct pdm_seg_spec *seg = &spec->segs[i];
		u64 leg_len = seg->nr_legs ? seg->type->leg_len(seg) : 0;

		REQUIRE(seg->start == next);
		REQUIRE(seg->len > 0);
		REQUIRE(!__builtin_add_overflow(seg->start, seg->len, &next));
		REQUIRE(!seg->nr_legs == !seg->legs);
		REQUIRE(seg->line >= 1);
		REQUIRE(i == 0 || seg->line > spec->segs[i - 1].line);
		if (seg->type == &pdm_linear_target) {
			REQUIRE(seg->nr_legs == 1);
			REQUIRE(seg->chunk_sectors == 0);
		} else if (seg->type == &pdm_error_target) {
			REQUIRE(seg->nr_legs == 0);
			REQUIRE(seg->chunk_sectors == 0);
		} else {
			REQUIRE(seg->type == &pdm_striped_target);
			REQUIRE(seg->nr_legs >= 1 &&
				seg->nr_legs <= PDM_MAX_STRIPES);
			REQUIRE(is_power_of_2(seg->chunk_sectors));
			REQUIRE(seg->chunk_sectors >= PDM_MIN_CHUNK);
			REQUIRE(seg->len %
				((u64)seg->nr_legs * seg->chunk_sectors) == 0);
		}
		for (j = 0; j < seg->nr_legs; j++) {
			const struct pdm_leg_spec *leg = &seg->legs[j];
			u64 end;
			size_t k, n;

			/* The name lies inside the input, NUL-terminated. */
			REQUIRE(leg->dev >= buf && leg->dev < buf + size);
			n = strnlen(leg->dev, buf + size - leg->dev);
			REQUIRE(n >= 1 && n <= PDM_MAX_DEV_NAME);
			REQUIRE(leg->dev + n < buf + size);
			for (k = 0; k < n; k++)
				REQUIRE(leg->dev[k] > ' ' && leg->dev[k] < 0x7f &&
					leg->dev[k] != '#');
			REQUIRE(!__builtin_add_overflow(leg->offset, leg_len,
							&end));
			REQUIRE(!leg->bdev);
		}
		REQUIRE(pdm_table_find(spec, seg->start) == i);
		REQUIRE(pdm_table_find(spec, next - 1) == i);
	}
	REQUIRE(next == spec->sectors);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pdm_table_spec spec;
	char err[PDM_ERR_LEN];
	char *buf = malloc(size ? size : 1);
	int ret;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	ret = pdm_table_parse(buf, size, &spec, err, sizeof(err));
	REQUIRE(memchr(err, '\0', sizeof(err)));
	if (ret) {
		REQUIRE(ret == -EINVAL || ret == -ERANGE || ret == -E2BIG ||
			ret == -ENAMETOOLONG || ret == -ENOMEM);
		REQUIRE(!strncmp(err, "line ", 5));
		REQUIRE(!spec.nr_segs && !spec.segs && !spec.sectors);
	} else {
		REQUIRE(err[0] == '\0');
		check(&spec, buf, size);
	}
	pdm_table_spec_free(&spec);
	free(buf);
	return 0;
}
