/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pdm table text: parsing and device-independent validation.  Pure: also
 * built in user space by the host unit tests and the fuzz target.
 *
 * The text is dmsetup's: one segment per line,
 *	<start> <length> <target> <the target's arguments>
 * in 512-byte sectors (the targets: pdm-targets.h).  '#' to the end of a
 * line is a comment, blank lines are allowed.  Device names are kept as
 * text: resolving them (path or major:minor) and the checks that need the
 * device (size, logical block size, no pdm below itself) belong to the
 * kernel side.
 *
 * The details, all enforced by pdm_table_parse():
 *  - fields are separated by spaces and tabs; lines end with '\n', the last
 *    one may lack it, and a '\r' right before the '\n' (or at the very end)
 *    is dropped so that CRLF files parse;
 *  - numbers are unsigned decimal, digits only (no sign, no 0x); leading
 *    zeros are harmless and accepted, as dmsetup's %llu does;
 *  - outside comments every byte is a blank or printable ASCII; a comment
 *    may hold anything but a NUL (UTF-8 notes are fine);
 *  - segments tile the device from sector 0 with neither gap nor overlap;
 *  - each target checks its own arguments (pdm-target.h).
 */
#ifndef _PDM_TABLE_H
#define _PDM_TABLE_H

#include <blkfast/compat.h>

struct pdm_target_type;

#define PDM_MAX_SEGMENTS	1024	/* segments of one table */
#define PDM_MAX_LINE		4096	/* bytes of one line, '\n' excluded */
#define PDM_MAX_TABLE		(1024 * 1024)	/* bytes of a whole table */
#define PDM_ERR_LEN		128	/* room for one error message */
#define PDM_MAX_DEV_NAME	255	/* bytes of a device name, like NAME_MAX */

struct pdm_leg_spec {
	const char *dev;	/* points into the parsed text */
	u64 offset;		/* sectors into the lower device */
	void *bdev;		/* kernel: the opened lower device; NULL here */
	void *handle;		/* kernel: what closes it (kcompat.h) */
	u32 dev_idx;		/* kernel: bdev's index in the map's bdevs[] */
};

struct pdm_seg_spec {
	u64 start;		/* sectors */
	u64 len;		/* sectors, > 0 */
	const struct pdm_target_type *type;	/* pdm-target.h */
	u32 line;		/* 1-based line of the text, for messages */
	u32 nr_legs;		/* 0 for a target with no devices */
	/*
	 * The target's own arguments, kept in the segment rather than
	 * allocated: nothing to free, and the I/O path's locate finds them
	 * beside the rest.  Only the target's file knows their layout.
	 */
	u64 args[2];
	struct pdm_leg_spec *legs;
};

struct pdm_table_spec {
	u32 nr_segs;
	u64 sectors;		/* sum of all lengths */
	struct pdm_seg_spec *segs;
};

/**
 * pdm_table_parse() - parse a table text into segments
 * @text:  the text; modified in place (NULs written) and referenced by the
 *         result, so it must outlive @spec.  Need not be NUL-terminated.
 * @len:   bytes of @text
 * @spec:  filled on success; empty on failure
 * @err:   on failure, a message naming the line and the reason
 *         ("line 3: gap: segment starts at 100, expected 64"), always
 *         NUL-terminated and cut to @errlen; "" on success.  Errors about
 *         the whole text name line 1 (too big) or its last line (no
 *         segments).
 * @errlen: size of @err, PDM_ERR_LEN is enough for every message
 *
 * Return: 0, or a negative errno: -EINVAL for syntax (missing or extra
 * arguments, a number that is not decimal, a non-printable byte, a NUL
 * byte), unknown targets, gaps, overlaps, zero lengths, arguments a target
 * refuses or an empty table; -ERANGE for a number that does not fit (u64,
 * or what the target allows), a segment whose end overflows or an offset
 * whose end on the leg overflows; -E2BIG for too many segments (or what a
 * target finds too many, e.g. stripes), a line longer than PDM_MAX_LINE
 * or a text over PDM_MAX_TABLE; -ENAMETOOLONG for a device name over
 * PDM_MAX_DEV_NAME; -ENOMEM.
 */
int pdm_table_parse(char *text, size_t len, struct pdm_table_spec *spec,
		    char *err, size_t errlen);

/**
 * pdm_table_spec_free() - free what pdm_table_parse() allocated
 * @spec: a parsed (or empty) table; left empty, so freeing twice is harmless
 */
void pdm_table_spec_free(struct pdm_table_spec *spec);

/* Where a lower device lies: its whole disk (any key) and first sector. */
struct pdm_dev_base {
	u64 disk;
	u64 start;
};

/* Where two tables' legs share sectors (pdm_table_overlap()). */
struct pdm_overlap {
	u32 seg, leg;		/* in the first table */
	u32 other_seg;		/* in the second */
	u64 sector, sectors;	/* on the disk: the first shared, how many */
};

/**
 * pdm_table_overlap() - do two tables' legs share sectors of a disk?
 * @a:      a parsed table whose legs' dev_idx are set
 * @a_base: per dev_idx of @a, where that device lies
 * @b:      another, likewise
 * @b_base: per dev_idx of @b
 * @where:  on overlap, the first leg of @a that shares sectors with a leg
 *          of @b, that leg's segment, and the sectors shared
 *
 * Partitions of one disk, or the disk and a partition of it, overlap when
 * their sectors do: each leg is placed on its whole disk.  Legs of
 * targets without a device are none.  Every leg of @a against every leg
 * of @b: at most PDM_MAX_SEGMENTS legs of each in practice.
 *
 * Return: true if they share a sector.
 */
bool pdm_table_overlap(const struct pdm_table_spec *a,
		       const struct pdm_dev_base *a_base,
		       const struct pdm_table_spec *b,
		       const struct pdm_dev_base *b_base,
		       struct pdm_overlap *where);

/**
 * pdm_table_find() - the segment that holds a sector
 * @spec:   a parsed table
 * @sector: a sector below spec->sectors
 *
 * Return: index into spec->segs (binary search); the last segment for a
 * sector past the end, 0 for an empty table.  Inline: every I/O asks.
 */
static inline u32 pdm_table_find(const struct pdm_table_spec *spec,
				 u64 sector)
{
	u32 lo = 0, hi = spec->nr_segs;

	/* The last segment starting at or before @sector is in [lo, hi). */
	while (hi - lo > 1) {
		u32 mid = lo + (hi - lo) / 2;

		if (spec->segs[mid].start <= sector)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

#endif /* _PDM_TABLE_H */
