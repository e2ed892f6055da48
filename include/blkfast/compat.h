/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few kernel types and helpers that blkfast's pure-logic files use, so
 * that those files also compile in user space for host unit tests and
 * fuzzing.
 */
#ifndef _BLKFAST_COMPAT_H
#define _BLKFAST_COMPAT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/math64.h>
#include <linux/log2.h>
#else
#include <stdbool.h>
#include <stdint.h>

typedef uint32_t u32;
typedef uint64_t u64;

static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *remainder)
{
	*remainder = dividend % divisor;
	return dividend / divisor;
}

static inline bool is_power_of_2(unsigned long n)
{
	return n != 0 && (n & (n - 1)) == 0;
}
#endif

#endif /* _BLKFAST_COMPAT_H */
