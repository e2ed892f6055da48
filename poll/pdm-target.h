/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pdm's targets: what a segment of each kind means, behind one table of
 * operations, as dm's target_type.  A new target is one file that defines
 * a struct pdm_target_type and one line in pdm-targets.h.
 * Pure, like the parser that calls them: also built in user space by the
 * host unit tests and the fuzz target.
 */
#ifndef _PDM_TARGET_H
#define _PDM_TARGET_H

#include <blkfast/compat.h>

struct pdm_parser;
struct pdm_seg_spec;

/**
 * struct pdm_target_type - the operations of one kind of segment
 * @name:    the word in the table ("linear")
 * @parse:   read the arguments between the name and the legs, with
 *           pdm_parse_number() and pdm_parse_fail(); set @seg's nr_legs
 *           (0 for a target with no devices) and the target's own
 *           fields.  @seg's start, len and line are set.  Return: 0 or
 *           pdm_parse_fail()'s errno.
 * @leg_len: sectors of each leg's device that @seg uses (not called for a
 *           segment with no legs)
 * @locate:  where sector @off of @seg is: its leg, the sector within that
 *           leg's area (add the leg's offset), and how many sectors from
 *           there on stay on that leg contiguously (at most to the
 *           segment's end).  Return: 0; PDM_LOCATE_ZEROES for sectors
 *           served without a device (reads return zeroes, writes and
 *           discards are dropped); or the negative errno with which I/O
 *           to those sectors fails (@leg and @leg_sector unset but for 0).
 * @format:  optional: the arguments @parse read, as the table shows them,
 *           with a leading space (" 2 128"); snprintf()'s contract
 * @discard_limit: optional: the most sectors one discard may span (a
 *           striped segment maps one chunk at a time); 0 or absent: no
 *           limit of the target's own
 */
/* What @locate returns for sectors that read as zeroes, on no device. */
#define PDM_LOCATE_ZEROES	1

struct pdm_target_type {
	const char *name;
	int (*parse)(struct pdm_parser *p, struct pdm_seg_spec *seg);
	u64 (*leg_len)(const struct pdm_seg_spec *seg);
	int (*locate)(const struct pdm_seg_spec *seg, u64 off, u32 *leg,
		      u64 *leg_sector, u64 *left);
	int (*format)(const struct pdm_seg_spec *seg, char *buf, size_t size);
	u32 (*discard_limit)(const struct pdm_seg_spec *seg);
};

/* pdm_<name>_target for every target of the list. */
#define PDM_TARGET(name, args, what) \
	extern const struct pdm_target_type pdm_##name##_target;
#include "pdm-targets.h"
#undef PDM_TARGET

/*
 * The locate operations of the targets that carry I/O, named for the I/O
 * path's INDIRECT_CALL_2(): a direct call where a retpoline would be.
 */
int pdm_linear_locate(const struct pdm_seg_spec *seg, u64 off, u32 *leg,
		      u64 *leg_sector, u64 *left);
int pdm_striped_locate(const struct pdm_seg_spec *seg, u64 off, u32 *leg,
		       u64 *leg_sector, u64 *left);

/* For targets' @parse (pdm-table.c): the next number, and an error. */
int pdm_parse_number(struct pdm_parser *p, const char *what, u64 max,
		     u64 *val);
__printf(3, 4) int pdm_parse_fail(struct pdm_parser *p, int ret,
				  const char *fmt, ...);

#endif /* _PDM_TARGET_H */
