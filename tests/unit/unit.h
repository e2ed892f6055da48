/* SPDX-License-Identifier: GPL-2.0 */
/* A minimal unit-test helper: each failed check prints expected and got. */
#ifndef _BLKFAST_UNIT_H
#define _BLKFAST_UNIT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int unit_failures;
static int unit_checks;

#define CHECK_EQ(what, expected, got) do {				\
	unsigned long long e_ = (expected), g_ = (got);			\
	unit_checks++;							\
	if (e_ != g_) {							\
		unit_failures++;					\
		printf("FAIL %s:%d: %s: expected %llu, got %llu\n",	\
		       __FILE__, __LINE__, (what), e_, g_);		\
		if (unit_failures > 20)					\
			exit(1);					\
	}								\
} while (0)

#define CHECK_STR(what, expected, got) do {				\
	const char *e_ = (expected), *g_ = (got);			\
	unit_checks++;							\
	if (strcmp(e_, g_)) {						\
		unit_failures++;					\
		printf("FAIL %s:%d: %s: expected '%s', got '%s'\n",	\
		       __FILE__, __LINE__, (what), e_, g_);		\
	}								\
} while (0)

#define CHECK_CONTAINS(what, needle, hay) do {				\
	const char *h_ = (hay), *n_ = (needle);				\
	unit_checks++;							\
	if (!strstr(h_, n_)) {						\
		unit_failures++;					\
		printf("FAIL %s:%d: %s: expected '%s' in '%s'\n",	\
		       __FILE__, __LINE__, (what), n_, h_);		\
	}								\
} while (0)

static inline int unit_done(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, unit_checks, unit_failures);
	return unit_failures ? 1 : 0;
}

#endif
