/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few kernel types and helpers that blkfast's pure-logic files use, so
 * that those files also compile in user space for host unit tests and
 * fuzzing.
 */
#ifndef _BLKFAST_COMPAT_H
#define _BLKFAST_COMPAT_H

#ifdef __KERNEL__
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/math64.h>
#include <linux/log2.h>
#else
#include <assert.h>
#include <errno.h>
#include <linux/types.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef __u32 u32;
typedef __u64 u64;
typedef unsigned int __bitwise gfp_t;

#define GFP_KERNEL	0U
#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

static inline void *kcalloc(size_t n, size_t size, gfp_t flags)
{
	(void)flags;
	return calloc(n, size);
}

/* Never called with a size of 0 here, where the kernel's would free. */
static inline void *krealloc(const void *p, size_t size, gfp_t flags)
{
	(void)flags;
	return realloc((void *)p, size);
}

static inline void kfree(const void *p)
{
	free((void *)p);
}

static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *remainder)
{
	*remainder = dividend % divisor;
	return dividend / divisor;
}

static inline bool is_power_of_2(unsigned long n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

/* floor(log2(@n)), @n > 0 */
static inline int ilog2(u64 n)
{
	return 63 - __builtin_clzll(n);
}

#endif

#endif /* _BLKFAST_COMPAT_H */
