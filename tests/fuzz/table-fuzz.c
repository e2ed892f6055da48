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
#include "table-invariants.h"

#include <stddef.h>

#define REQUIRE(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "invariant failed: %s\n", #cond);	\
		abort();						\
	}								\
} while (0)

/* pdm_spec_broken(), and device names that lie inside the input. */
static void check(const struct pdm_table_spec *spec, const char *buf,
		  size_t size)
{
	const char *broken = pdm_spec_broken(spec);
	u32 i, j;

	if (broken) {
		fprintf(stderr, "invariant failed: %s\n", broken);
		abort();
	}
	for (i = 0; i < spec->nr_segs; i++) {
		const struct pdm_seg_spec *seg = &spec->segs[i];

		for (j = 0; j < seg->nr_legs; j++) {
			const char *dev = seg->legs[j].dev;
			size_t k, n;

			/* The name lies inside the input, NUL-terminated. */
			REQUIRE(dev >= buf && dev < buf + size);
			n = strnlen(dev, buf + size - dev);
			REQUIRE(dev + n < buf + size);
			for (k = 0; k < n; k++)
				REQUIRE(dev[k] > ' ' && dev[k] < 0x7f &&
					dev[k] != '#');
		}
	}
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
