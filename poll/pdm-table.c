// SPDX-License-Identifier: GPL-2.0
/*
 * pdm table text parser: see pdm-table.h for the format.
 *
 * The text comes from user space, so it is treated as hostile: nothing past
 * @len is read, every number is range-checked before it is used, and the
 * work and memory are bounded by PDM_MAX_TABLE, PDM_MAX_SEGMENTS and each
 * target's own limits.  The same file is built in user space for the host
 * unit test and the fuzz target (see blkfast/compat.h).
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>
#endif

#include "pdm-table.h"
#include "pdm-target.h"

/* @leg of @seg against every leg of @b: see pdm_table_overlap(). */
static bool pdm_leg_overlap(const struct pdm_seg_spec *seg,
			    const struct pdm_leg_spec *leg,
			    const struct pdm_dev_base *base,
			    const struct pdm_table_spec *b,
			    const struct pdm_dev_base *b_base,
			    struct pdm_overlap *where)
{
	u64 start = base->start + leg->offset;
	u64 end = start + seg->type->leg_len(seg);
	u32 t, m;

	for (t = 0; t < b->nr_segs; t++) {
		const struct pdm_seg_spec *other = &b->segs[t];
		u64 len;

		if (!other->nr_legs)
			continue;
		len = other->type->leg_len(other);
		for (m = 0; m < other->nr_legs; m++) {
			const struct pdm_dev_base *ob =
				&b_base[other->legs[m].dev_idx];
			u64 ostart = ob->start + other->legs[m].offset;
			/* Plain ternaries: this file builds in user space. */
			u64 lo = start > ostart ? start : ostart;
			u64 hi = end < ostart + len ? end : ostart + len;

			if (ob->disk != base->disk || lo >= hi)
				continue;
			where->other_seg = t;
			where->sector = lo;
			where->sectors = hi - lo;
			return true;
		}
	}
	return false;
}

bool pdm_table_overlap(const struct pdm_table_spec *a,
		       const struct pdm_dev_base *a_base,
		       const struct pdm_table_spec *b,
		       const struct pdm_dev_base *b_base,
		       struct pdm_overlap *where)
{
	u32 s, l;

	for (s = 0; s < a->nr_segs; s++) {
		const struct pdm_seg_spec *seg = &a->segs[s];

		for (l = 0; l < seg->nr_legs; l++) {
			if (!pdm_leg_overlap(seg, &seg->legs[l],
					     &a_base[seg->legs[l].dev_idx], b,
					     b_base, where))
				continue;
			where->seg = s;
			where->leg = l;
			return true;
		}
	}
	return false;
}

/* Tokens quoted in messages are cut so the message fits PDM_ERR_LEN. */
#define PDM_TOK_SHOWN	24

struct pdm_parser {
	char *pos;		/* next unread byte of the current line */
	char *end;		/* end of the line, comment and '\r' cut off */
	u32 line;		/* 1-based, for messages */
	u32 cap;		/* segments allocated in the spec */
	char *err;
	size_t errlen;
};

/* Write "line N: <reason>" to the caller's buffer and return @ret. */
__printf(3, 4) int pdm_parse_fail(struct pdm_parser *p, int ret,
				  const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!p->errlen)
		return ret;
	n = snprintf(p->err, p->errlen, "line %u: ", p->line);
	if (n >= 0 && (size_t)n < p->errlen) {
		va_start(ap, fmt);
		vsnprintf(p->err + n, p->errlen - n, fmt, ap);
		va_end(ap);
	}
	return ret;
}

static int pdm_shown(size_t len)
{
	return len > PDM_TOK_SHOWN ? PDM_TOK_SHOWN : (int)len;
}

static bool pdm_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The next token of the line: its length, 0 at the end of the line. */
static size_t pdm_token(struct pdm_parser *p, char **tok)
{
	while (p->pos < p->end && pdm_blank(*p->pos))
		p->pos++;
	*tok = p->pos;
	while (p->pos < p->end && !pdm_blank(*p->pos))
		p->pos++;
	return p->pos - *tok;
}

static bool pdm_token_is(const char *tok, size_t len, const char *word)
{
	return len == strlen(word) && !memcmp(tok, word, len);
}

/*
 * An unsigned decimal number no larger than @max.  Tokens are not
 * NUL-terminated, hence no kstrtou64(); digits only, so no sign, no 0x and
 * no trailing junk.
 */
int pdm_parse_number(struct pdm_parser *p, const char *what, u64 max,
		     u64 *val)
{
	char *tok;
	size_t len = pdm_token(p, &tok), i;
	u64 v = 0;

	if (!len)
		return pdm_parse_fail(p, -EINVAL, "missing %s", what);
	for (i = 0; i < len; i++)
		if (tok[i] < '0' || tok[i] > '9')
			return pdm_parse_fail(p, -EINVAL,
					      "%s '%.*s' is not a decimal number",
					      what, pdm_shown(len), tok);
	for (i = 0; i < len; i++) {
		u32 d = tok[i] - '0';

		/* v * 10 + d <= max, without overflowing on the way. */
		if (v > (max - d) / 10)
			return pdm_parse_fail(p, -ERANGE,
					      "%s '%.*s' is over %llu",
					      what, pdm_shown(len), tok,
					      (unsigned long long)max);
		v = v * 10 + d;
	}
	*val = v;
	return 0;
}

/*
 * One <dev> <offset> pair.  @leg_len is what the segment uses on the leg,
 * so the leg's end, offset + leg_len, must be a valid sector number.
 */
static int pdm_leg(struct pdm_parser *p, struct pdm_seg_spec *seg, u32 i,
		   u64 leg_len)
{
	struct pdm_leg_spec *leg = &seg->legs[i];
	char *dev;
	size_t len = pdm_token(p, &dev);
	u64 offset, leg_end;
	int ret;

	if (!len) {
		if (seg->nr_legs == 1)
			return pdm_parse_fail(p, -EINVAL, "missing device");
		return pdm_parse_fail(p, -EINVAL, "missing device %u of %u",
				      i + 1, seg->nr_legs);
	}
	if (len > PDM_MAX_DEV_NAME)
		return pdm_parse_fail(p, -ENAMETOOLONG,
				      "device name of %zu bytes is over %u",
				      len, PDM_MAX_DEV_NAME);
	ret = pdm_parse_number(p, "offset", U64_MAX, &offset);
	if (ret)
		return ret;
	if (check_add_overflow(offset, leg_len, &leg_end))
		return pdm_parse_fail(p, -ERANGE,
				      "offset %llu + %llu sectors overflows",
				      (unsigned long long)offset,
				      (unsigned long long)leg_len);
	/*
	 * The offset token followed the name on this line, so the byte after
	 * the name is a blank inside the text: safe to overwrite, even when
	 * the text is not NUL-terminated.
	 */
	dev[len] = '\0';
	leg->dev = dev;
	leg->offset = offset;
	leg->bdev = NULL;
	return 0;
}

/* A slot at the end of spec->segs, zeroed and counted. */
static struct pdm_seg_spec *pdm_new_seg(struct pdm_parser *p,
					struct pdm_table_spec *spec)
{
	struct pdm_seg_spec *segs;

	if (spec->nr_segs == p->cap) {
		/* Doubling up to PDM_MAX_SEGMENTS: the size cannot overflow. */
		u32 cap = p->cap ? 2 * p->cap : 16;

		if (cap > PDM_MAX_SEGMENTS)
			cap = PDM_MAX_SEGMENTS;
		segs = krealloc(spec->segs, cap * sizeof(*segs), GFP_KERNEL);
		if (!segs)
			return NULL;
		spec->segs = segs;
		p->cap = cap;
	}
	segs = &spec->segs[spec->nr_segs++];
	memset(segs, 0, sizeof(*segs));
	return segs;
}

/* Every target a table may name (pdm-targets.h). */
static const struct pdm_target_type *const pdm_targets[] = {
#define PDM_TARGET(name, args, what) &pdm_##name##_target,
#include "pdm-targets.h"
#undef PDM_TARGET
};

static const struct pdm_target_type *
pdm_target_find(const char *tok, size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(pdm_targets); i++)
		if (pdm_token_is(tok, len, pdm_targets[i]->name))
			return pdm_targets[i];
	return NULL;
}

/* One segment: the tokens of a line that has some. */
static int pdm_segment(struct pdm_parser *p, struct pdm_table_spec *spec)
{
	struct pdm_seg_spec *seg;
	const struct pdm_target_type *type;
	u64 start, len, end, leg_len = 0;
	u32 i;
	char *tok;
	size_t toklen;
	int ret;

	if (spec->nr_segs == PDM_MAX_SEGMENTS)
		return pdm_parse_fail(p, -E2BIG, "more than %u segments",
				      PDM_MAX_SEGMENTS);
	ret = pdm_parse_number(p, "start", U64_MAX, &start);
	if (ret)
		return ret;
	ret = pdm_parse_number(p, "length", U64_MAX, &len);
	if (ret)
		return ret;
	if (!len)
		return pdm_parse_fail(p, -EINVAL, "zero length");
	if (check_add_overflow(start, len, &end))
		return pdm_parse_fail(p, -ERANGE,
				      "start %llu + length %llu overflows",
				      (unsigned long long)start,
				      (unsigned long long)len);
	if (start != spec->sectors)
		return pdm_parse_fail(p, -EINVAL,
				      "%s: segment starts at %llu, expected %llu",
				      start > spec->sectors ? "gap" : "overlap",
				      (unsigned long long)start,
				      (unsigned long long)spec->sectors);

	toklen = pdm_token(p, &tok);
	if (!toklen)
		return pdm_parse_fail(p, -EINVAL, "missing target");
	type = pdm_target_find(tok, toklen);
	if (!type)
		return pdm_parse_fail(p, -EINVAL, "unknown target '%.*s'",
				      pdm_shown(toklen), tok);

	seg = pdm_new_seg(p, spec);
	if (!seg)
		return pdm_parse_fail(p, -ENOMEM, "out of memory");
	seg->start = start;
	seg->len = len;
	seg->type = type;
	seg->line = p->line;
	ret = type->parse(p, seg);
	if (ret)
		return ret;
	if (seg->nr_legs) {
		seg->legs = kcalloc(seg->nr_legs, sizeof(*seg->legs),
				    GFP_KERNEL);
		if (!seg->legs)
			return pdm_parse_fail(p, -ENOMEM, "out of memory");
		leg_len = type->leg_len(seg);
	}
	for (i = 0; i < seg->nr_legs; i++) {
		ret = pdm_leg(p, seg, i, leg_len);
		if (ret)
			return ret;
	}
	toklen = pdm_token(p, &tok);
	if (toklen)
		return pdm_parse_fail(p, -EINVAL, "extra argument '%.*s'",
				      pdm_shown(toklen), tok);
	spec->sectors = end;
	return 0;
}

/* One line of @n bytes, its '\n' excluded. */
static int pdm_line(struct pdm_parser *p, struct pdm_table_spec *spec,
		    char *s, size_t n)
{
	char *cut;
	size_t i;

	if (n > PDM_MAX_LINE)
		return pdm_parse_fail(p, -E2BIG, "longer than %u bytes",
				      PDM_MAX_LINE);
	/* A NUL would end the device names early: never allowed. */
	cut = memchr(s, '\0', n);
	if (cut)
		return pdm_parse_fail(p, -EINVAL, "NUL byte at column %zu",
				      (size_t)(cut - s) + 1);
	if (n && s[n - 1] == '\r')
		n--;
	cut = memchr(s, '#', n);
	if (cut)
		n = cut - s;
	/* Device names end up in messages and logs: printable only. */
	for (i = 0; i < n; i++)
		if (!pdm_blank(s[i]) && (s[i] < '!' || s[i] > '~'))
			return pdm_parse_fail(p, -EINVAL,
					      "non-printable byte 0x%02x at column %zu",
					      (unsigned char)s[i], i + 1);
	p->pos = s;
	p->end = s + n;
	while (p->pos < p->end && pdm_blank(*p->pos))
		p->pos++;
	if (p->pos == p->end)
		return 0;	/* blank or comment only */
	return pdm_segment(p, spec);
}

int pdm_table_parse(char *text, size_t len, struct pdm_table_spec *spec,
		    char *err, size_t errlen)
{
	struct pdm_parser p = { .line = 1, .err = err, .errlen = errlen };
	size_t off = 0;
	int ret;

	spec->nr_segs = 0;
	spec->sectors = 0;
	spec->segs = NULL;
	if (errlen)
		err[0] = '\0';
	if (len > PDM_MAX_TABLE)
		return pdm_parse_fail(&p, -E2BIG,
				      "table of %zu bytes is over %u", len,
				      PDM_MAX_TABLE);

	while (off < len) {
		char *s = text + off;
		size_t rest = len - off, n;
		/* A line over the limit is refused without scanning it all. */
		char *nl = memchr(s, '\n', rest > PDM_MAX_LINE ?
				  PDM_MAX_LINE + 1 : rest);

		n = nl ? (size_t)(nl - s) : rest;
		ret = pdm_line(&p, spec, s, n);
		if (ret)
			goto fail;
		off += nl ? n + 1 : n;
		if (off < len)
			p.line++;
	}
	if (!spec->nr_segs) {
		ret = pdm_parse_fail(&p, -EINVAL, "no segments");
		goto fail;
	}
	return 0;

fail:
	pdm_table_spec_free(spec);
	return ret;
}

void pdm_table_spec_free(struct pdm_table_spec *spec)
{
	u32 i;

	for (i = 0; i < spec->nr_segs; i++)
		kfree(spec->segs[i].legs);
	kfree(spec->segs);
	spec->segs = NULL;
	spec->nr_segs = 0;
	spec->sectors = 0;
}
