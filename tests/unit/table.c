// SPDX-License-Identifier: GPL-2.0
/*
 * pdm_table_parse(): valid tables with their fields, pdm_table_find() at the
 * boundaries, and a corpus of malformed tables with the errno, line and
 * message each must give.
 *
 * The corpus is tests/pdm-tables/, the one copy that the VM test
 * (tests/vm/pdm-bad-tables.sh) and the fuzzer's seeds also use: good/
 * holds tables that must parse, bad/ malformed ones, text only, and
 * bad/EXPECTED a line per file: "FILE ERRNO LINE MESSAGE", MESSAGE being
 * what must follow "line LINE: " (a prefix).  Every .table file in bad/
 * must be listed there.
 *
 * Every text is copied into a buffer of its exact length, not
 * NUL-terminated, so ASan catches a parser that reads past @len.
 */
#include <blkfast/compat.h>

/* Allocation failure injection: the Nth allocation from now fails. */
static int alloc_fail_in;

static bool alloc_fails(void)
{
	return alloc_fail_in > 0 && --alloc_fail_in == 0;
}

static void *test_kcalloc(size_t n, size_t size)
{
	return alloc_fails() ? NULL : calloc(n, size);
}

static void *test_krealloc(const void *p, size_t size)
{
	return alloc_fails() ? NULL : realloc((void *)p, size);
}

#define kcalloc(n, size, flags)		test_kcalloc(n, size)
#define krealloc(p, size, flags)	test_krealloc(p, size)

#include "pdm-table.c"
#include "table-invariants.h"
#include "unit.h"

#include <dirent.h>
#include <string.h>

#define BAD_DIR		"tests/pdm-tables/bad"
#define GOOD_DIR	"tests/pdm-tables/good"

/* A parse of a copy of @text; the copy lives as long as the spec. */
struct parsed {
	struct pdm_table_spec spec;
	char *buf;
	char err[PDM_ERR_LEN];
	int ret;
};

static void parse(struct parsed *p, const char *text, size_t len)
{
	p->buf = malloc(len ? len : 1);
	if (!p->buf)
		exit(2);
	memcpy(p->buf, text, len);
	memset(p->err, 'x', sizeof(p->err));
	p->ret = pdm_table_parse(p->buf, len, &p->spec, p->err,
				 sizeof(p->err));
}

static void done(struct parsed *p)
{
	pdm_table_spec_free(&p->spec);
	free(p->buf);
}

/* What must hold of any successfully parsed table. */
static void check_invariants(const char *name, const struct pdm_table_spec *s)
{
	const char *broken = pdm_spec_broken(s);

	CHECK_STR(name, "", broken ? broken : "");
}

static void check_good(const char *name, const char *text, size_t len,
		       struct parsed *p)
{
	parse(p, text, len);
	CHECK_EQ(name, 0, p->ret);
	if (p->ret) {
		printf("  %s: %s\n", name, p->err);
		return;
	}
	CHECK_STR(name, "", p->err);
	check_invariants(name, &p->spec);
}

/* A literal as the two arguments text, len: it may hold NUL bytes. */
#define TXT(s)	s, sizeof(s) - 1

/* @seg's target puts sector @off on @leg at @leg_sector, @left in reach. */
static void check_locate(const char *name, const struct pdm_seg_spec *seg,
			 u64 off, u32 leg, u64 leg_sector, u64 left)
{
	u64 got_sector, got_left;
	u32 got_leg;

	CHECK_EQ(name, 0, seg->type->locate(seg, off, &got_leg, &got_sector,
					    &got_left));
	CHECK_EQ(name, leg, got_leg);
	CHECK_EQ(name, leg_sector, got_sector);
	CHECK_EQ(name, left, got_left);
}

static void test_linear(void)
{
	struct parsed p;
	struct pdm_seg_spec *seg;

	check_good("linear", TXT("0 2048 linear /dev/nullb0 0\n"), &p);
	CHECK_EQ("linear segs", 1, p.spec.nr_segs);
	CHECK_EQ("linear sectors", 2048, p.spec.sectors);
	seg = &p.spec.segs[0];
	CHECK_EQ("linear target", 1, seg->type == &pdm_linear_target);
	CHECK_EQ("linear line", 1, seg->line);
	CHECK_EQ("linear legs", 1, seg->nr_legs);
	CHECK_STR("linear dev", "/dev/nullb0", seg->legs[0].dev);
	CHECK_EQ("linear offset", 0, seg->legs[0].offset);
	CHECK_EQ("linear find", 0, pdm_table_find(&p.spec, 2047));
	check_locate("linear", seg, 5, 0, 5, 2043);
	CHECK_EQ("linear leg_len", 2048, seg->type->leg_len(seg));
	CHECK_EQ("linear format", 1, seg->type->format == NULL);
	done(&p);
}

static void test_striped(void)
{
	struct parsed p;
	struct pdm_seg_spec *seg;
	char buf[16];

	check_good("striped",
		   TXT("0 4096 striped 2 128 /dev/nullb0 0 /dev/nullb1 2048"),
		   &p);
	CHECK_EQ("striped sectors", 4096, p.spec.sectors);
	seg = &p.spec.segs[0];
	CHECK_EQ("striped target", 1, seg->type == &pdm_striped_target);
	CHECK_EQ("striped legs", 2, seg->nr_legs);
	CHECK_STR("striped dev 0", "/dev/nullb0", seg->legs[0].dev);
	CHECK_STR("striped dev 1", "/dev/nullb1", seg->legs[1].dev);
	CHECK_EQ("striped offset 1", 2048, seg->legs[1].offset);
	check_locate("striped, chunk 0", seg, 0, 0, 0, 128);
	check_locate("striped, in chunk 1", seg, 130, 1, 2, 126);
	check_locate("striped, row 1", seg, 256 + 7, 0, 128 + 7, 121);
	check_locate("striped, last sector", seg, 4095, 1, 2047, 1);
	CHECK_EQ("striped leg_len", 2048, seg->type->leg_len(seg));
	CHECK_EQ("striped discard limit", 128, seg->type->discard_limit(seg));
	seg->type->format(seg, buf, sizeof(buf));
	CHECK_STR("striped format", " 2 128", buf);
	CHECK_EQ("striped format length", 6,
		 seg->type->format(seg, NULL, 0));
	done(&p);
}

/*
 * A target without devices after a linear segment: no legs, no
 * arguments, no format or discard limit of its own; locate answers
 * @locate_ret for every sector, to the segment's end.
 */
static void check_no_device(const struct pdm_target_type *type,
			    int locate_ret)
{
	char text[64], what[64];
	struct parsed p;
	struct pdm_seg_spec *seg;
	u64 sector = 1, left = 0;
	u32 leg = 7;
	int n;

	n = snprintf(text, sizeof(text),
		     "0 2048 linear /dev/nullb0 0\n2048 100 %s\n", type->name);
	check_good(type->name, text, n, &p);
	snprintf(what, sizeof(what), "%s: segments, sectors, legs", type->name);
	CHECK_EQ(what, 2, p.spec.nr_segs);
	CHECK_EQ(what, 2148, p.spec.sectors);
	seg = &p.spec.segs[1];
	CHECK_EQ(what, 1, seg->type == type);
	CHECK_EQ(what, 0, seg->nr_legs);
	CHECK_EQ(what, 1, pdm_table_find(&p.spec, 2147));
	snprintf(what, sizeof(what), "%s: locate", type->name);
	CHECK_EQ(what, locate_ret,
		 seg->type->locate(seg, 30, &leg, &sector, &left));
	CHECK_EQ(what, 70, left);
	CHECK_EQ(what, 7, leg);
	snprintf(what, sizeof(what), "%s: no format, no discard limit",
		 type->name);
	CHECK_EQ(what, 1, !seg->type->format && !seg->type->discard_limit);
	done(&p);
	n = snprintf(text, sizeof(text), "0 8 %s 1\n", type->name);
	parse(&p, text, n);
	snprintf(what, sizeof(what), "%s takes no arguments", type->name);
	CHECK_EQ(what, -EINVAL, p.ret);
	CHECK_STR(what, "line 1: extra argument '1'", p.err);
	done(&p);
}

/* Every sector fails with EIO; a flush has nothing to fail. */
static void test_error(void)
{
	check_no_device(&pdm_error_target, -EIO);
}

/* Every sector reads as zeroes, and writes go nowhere. */
static void test_zero(void)
{
	check_no_device(&pdm_zero_target, PDM_LOCATE_ZEROES);
}

/* Comments, blank lines, tabs, CRLF, no final '\n', leading zeros. */
static void test_mixed(void)
{
	static const char text[] =
		"# pdm table\n"
		"\n"
		"  0\t100\tlinear /dev/nullb0 8 # first\n"
		"\t \n"
		"100 64 striped 4 8 /dev/nullb0 1000 /dev/nullb1 0 8:16 5 253:0 7\r\n"
		"# caf\xc3\xa9 \x01\x7f anything but NUL in a comment\n"
		"164 1 linear\t\t/dev/nullb1 00042";
	struct parsed p;
	struct pdm_seg_spec *s;

	check_good("mixed", TXT(text), &p);
	if (p.ret)
		return;
	s = p.spec.segs;
	CHECK_EQ("mixed segs", 3, p.spec.nr_segs);
	CHECK_EQ("mixed sectors", 165, p.spec.sectors);
	CHECK_EQ("mixed line 0", 3, s[0].line);
	CHECK_EQ("mixed line 1", 5, s[1].line);
	CHECK_EQ("mixed line 2", 7, s[2].line);
	CHECK_EQ("mixed offset 0", 8, s[0].legs[0].offset);
	CHECK_EQ("mixed len 1", 64, s[1].len);
	CHECK_EQ("mixed chunk 1", 8, s[1].type->discard_limit(&s[1]));
	CHECK_EQ("mixed legs 1", 4, s[1].nr_legs);
	CHECK_STR("mixed dev 1.2", "8:16", s[1].legs[2].dev);
	CHECK_EQ("mixed offset 1.2", 5, s[1].legs[2].offset);
	CHECK_STR("mixed dev 1.3", "253:0", s[1].legs[3].dev);
	CHECK_EQ("mixed offset 1.3", 7, s[1].legs[3].offset);
	CHECK_STR("mixed dev 2", "/dev/nullb1", s[2].legs[0].dev);
	CHECK_EQ("mixed offset 2", 42, s[2].legs[0].offset);
	CHECK_EQ("find 0", 0, pdm_table_find(&p.spec, 0));
	CHECK_EQ("find 99", 0, pdm_table_find(&p.spec, 99));
	CHECK_EQ("find 100", 1, pdm_table_find(&p.spec, 100));
	CHECK_EQ("find 163", 1, pdm_table_find(&p.spec, 163));
	CHECK_EQ("find 164", 2, pdm_table_find(&p.spec, 164));
	done(&p);
}

/* Every limit, reached exactly, is still accepted. */
static void test_limits(void)
{
	char *buf = malloc(PDM_MAX_TABLE + 1);
	struct parsed p;
	size_t n, i;
	u32 k;

	if (!buf)
		exit(2);

	check_good("u64 length", TXT("0 18446744073709551615 linear d 0\n"),
		   &p);
	CHECK_EQ("u64 sectors", U64_MAX, p.spec.sectors);
	done(&p);
	check_good("u64 leg end",
		   TXT("0 18446744073709551614 linear d 1\n"), &p);
	done(&p);
	check_good("largest chunk",
		   TXT("0 4294967296 striped 2 2147483648 a 0 b 0\n"), &p);
	CHECK_EQ("largest chunk", 1U << 31,
		 p.spec.segs[0].type->discard_limit(&p.spec.segs[0]));
	done(&p);

	/* 64 stripes (striped's most), names of PDM_MAX_DEV_NAME bytes. */
	n = sprintf(buf, "0 %u striped %u 8", 8 * 64, 64);
	for (k = 0; k < 64; k++)
		n += sprintf(buf + n, " d%u %u", k, 8 * k);
	check_good("max stripes", buf, n, &p);
	CHECK_EQ("max stripes", 64, p.spec.segs[0].nr_legs);
	CHECK_STR("max stripes dev", "d63", p.spec.segs[0].legs[63].dev);
	done(&p);
	n = sprintf(buf, "0 8 linear /");
	memset(buf + n, 'd', PDM_MAX_DEV_NAME - 1);
	n += PDM_MAX_DEV_NAME - 1;
	n += sprintf(buf + n, " 0\n");
	check_good("max dev name", buf, n, &p);
	done(&p);

	/* PDM_MAX_SEGMENTS segments; find() at every boundary. */
	for (n = 0, k = 0; k < PDM_MAX_SEGMENTS; k++)
		n += sprintf(buf + n, "%u %u linear /dev/nullb%u %u\n",
			     k * 8 + k * (k - 1) / 2, 8 + k, k % 2, k);
	check_good("max segments", buf, n, &p);
	CHECK_EQ("max segments", PDM_MAX_SEGMENTS, p.spec.nr_segs);
	CHECK_EQ("last line", PDM_MAX_SEGMENTS,
		 p.spec.segs[PDM_MAX_SEGMENTS - 1].line);
	CHECK_EQ("find past end", PDM_MAX_SEGMENTS - 1,
		 pdm_table_find(&p.spec, p.spec.sectors));
	done(&p);

	/* A line of exactly PDM_MAX_LINE bytes, '\n' excluded. */
	n = sprintf(buf, "0 8 linear /dev/nullb0 0 #");
	memset(buf + n, 'x', PDM_MAX_LINE - n);
	buf[PDM_MAX_LINE] = '\n';
	check_good("max line", buf, PDM_MAX_LINE + 1, &p);
	done(&p);

	/* A table of exactly PDM_MAX_TABLE bytes, mostly comments. */
	n = sprintf(buf, "0 8 linear /dev/nullb0 0\n");
	for (i = n; i < PDM_MAX_TABLE; i++)
		buf[i] = (i - n) % 64 == 63 ? '\n' : '#';
	check_good("max table", buf, PDM_MAX_TABLE, &p);
	done(&p);
	free(buf);

	/* An empty spec finds 0. */
	p.spec.nr_segs = 0;
	CHECK_EQ("find empty", 0, pdm_table_find(&p.spec, 5));
}

/* Messages are cut to errlen and always NUL-terminated. */
static void test_errlen(void)
{
	static const char text[] = "0 8 bogus /dev/nullb0 0\n";
	struct pdm_table_spec spec;
	char buf[sizeof(text)], err[12];
	int ret;

	memcpy(buf, text, sizeof(text));
	err[11] = 'z';
	ret = pdm_table_parse(buf, sizeof(text) - 1, &spec, err, 11);
	CHECK_EQ("errlen 11", -EINVAL, ret);
	CHECK_STR("errlen 11", "line 1: un", err);
	CHECK_EQ("errlen 11 untouched", 'z', err[11]);
	memcpy(buf, text, sizeof(text));
	ret = pdm_table_parse(buf, sizeof(text) - 1, &spec, err, 1);
	CHECK_STR("errlen 1", "", err);
	memcpy(buf, text, sizeof(text));
	ret = pdm_table_parse(buf, sizeof(text) - 1, &spec, NULL, 0);
	CHECK_EQ("errlen 0", -EINVAL, ret);
	CHECK_EQ("errlen 0 empty", 0, spec.nr_segs);
	pdm_table_spec_free(&spec);
	pdm_table_spec_free(&spec);
}

/* Each allocation failing in turn: -ENOMEM, an empty spec, no leak. */
static void test_enomem(void)
{
	static const char text[] =
		"0 16 linear a 0\n16 64 striped 4 8 a 0 b 0 c 0 d 0\n";
	char many[32 * 24];
	struct parsed p;
	size_t n = 0;
	int k;

	for (k = 1; k < 100; k++) {
		alloc_fail_in = k;
		parse(&p, TXT(text));
		if (!p.ret)
			break;
		CHECK_EQ("enomem", -ENOMEM, p.ret);
		CHECK_EQ("enomem", 0, p.spec.nr_segs);
		CHECK_EQ("enomem", 0, (uintptr_t)p.spec.segs);
		/* The segment array and line 1's legs, then line 2's legs. */
		CHECK_STR("enomem", k < 3 ? "line 1: out of memory" :
			  "line 2: out of memory", p.err);
		done(&p);
	}
	CHECK_EQ("enomem allocations", 4, k);	/* segs, 2 legs, success */
	done(&p);

	/* Failing to grow the segment array, past its first size. */
	for (k = 0; k < 24; k++)
		n += sprintf(many + n, "%d 8 linear a 0\n", 8 * k);
	alloc_fail_in = 18;	/* 16 segments in: the krealloc() */
	parse(&p, many, n);
	CHECK_EQ("enomem grow", -ENOMEM, p.ret);
	CHECK_STR("enomem grow", "line 17: out of memory", p.err);
	done(&p);
	alloc_fail_in = 0;
}

/* ---- the malformed corpus ---- */

static const int errnos[] = { EINVAL, ERANGE, E2BIG, ENAMETOOLONG };

static const char *errno_name(int err)
{
	switch (err) {
	case EINVAL: return "EINVAL";
	case ERANGE: return "ERANGE";
	case E2BIG: return "E2BIG";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	}
	return "?";
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;

	if (!f)
		return NULL;
	buf = malloc(PDM_MAX_TABLE + 2);
	if (!buf)
		exit(2);
	*len = fread(buf, 1, PDM_MAX_TABLE + 2, f);
	fclose(f);
	return buf;
}

static void check_bad(const char *name, const char *text, size_t len,
		      int err, u32 line, const char *msg)
{
	struct parsed p;
	char head[32];

	parse(&p, text, len);
	CHECK_EQ(name, -err, p.ret);
	CHECK_EQ(name, 0, p.spec.nr_segs);
	CHECK_EQ(name, 0, (uintptr_t)p.spec.segs);
	CHECK_EQ(name, 0, p.spec.sectors);
	CHECK_EQ(name, 1, memchr(p.err, '\0', sizeof(p.err)) != NULL);
	if (line) {
		snprintf(head, sizeof(head), "line %u: ", line);
		CHECK_EQ(name, 0, strncmp(p.err, head, strlen(head)));
	}
	if (msg) {
		const char *got = strstr(p.err, ": ");

		CHECK_EQ(name, 0, got ? strncmp(got + 2, msg, strlen(msg)) : 1);
	}
	if (p.ret != -err || (msg && !strstr(p.err, msg)))
		printf("  %s: got %d '%s'\n", name, p.ret, p.err);
	else if (msg)
		printf("ok %s: %s\n", name, p.err);
	done(&p);
}

/*
 * A table of PDM_MAX_TABLE + 1 bytes, which is not a file: pdmsetup
 * refuses it before the kernel sees it (pdm-bad-tables.sh checks that).
 */
static void test_oversize(void)
{
	char *buf = malloc(PDM_MAX_TABLE + 1);
	int n;

	if (!buf)
		exit(2);
	n = sprintf(buf, "0 8 linear /dev/nullb0 0\n");
	memset(buf + n, '\n', PDM_MAX_TABLE + 1 - n);
	check_bad("oversize", buf, PDM_MAX_TABLE + 1, E2BIG, 1,
		  "table of 1048577 bytes is over");
	free(buf);
}

/* Each file EXPECTED lists fails as it says; it lists every file. */
static void test_bad_files(void)
{
	FILE *f = fopen(BAD_DIR "/EXPECTED", "r");
	char line[512], file[128], name[32], path[192];
	size_t entries = 0, files = 0, i, len;
	struct dirent *e;
	DIR *d;

	CHECK_EQ("EXPECTED", 1, f != NULL);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *text, *msg;
		unsigned int at;
		int err = 0, off = 0;

		line[strcspn(line, "\n")] = '\0';
		CHECK_EQ(line, 3, sscanf(line, "%127s %31s %u %n", file, name,
					 &at, &off));
		if (!off)
			continue;
		msg = line + off;
		entries++;
		for (i = 0; i < ARRAY_SIZE(errnos); i++)
			if (!strcmp(errno_name(errnos[i]), name))
				err = errnos[i];
		CHECK_EQ(file, 1, err != 0);
		CHECK_EQ(file, 1, *msg != '\0');
		snprintf(path, sizeof(path), BAD_DIR "/%s", file);
		text = read_file(path, &len);
		CHECK_EQ(path, 1, text != NULL);
		if (text && err)
			check_bad(path, text, len, err, at, msg);
		free(text);
	}
	fclose(f);

	d = opendir(BAD_DIR);
	CHECK_EQ("bad dir", 1, d != NULL);
	if (!d)
		return;
	while ((e = readdir(d)))
		files += strstr(e->d_name, ".table") != NULL;
	closedir(d);
	CHECK_EQ("EXPECTED lists every file", files, entries);
	CHECK_EQ("at least 30", 1, entries >= 30);
}

static void test_good_files(void)
{
	DIR *d = opendir(GOOD_DIR);
	struct dirent *e;
	char path[512];
	int files = 0;

	CHECK_EQ("good dir", 1, d != NULL);
	if (!d)
		return;
	while ((e = readdir(d))) {
		struct parsed p;
		char *text;
		size_t len;

		if (!strstr(e->d_name, ".table"))
			continue;
		snprintf(path, sizeof(path), GOOD_DIR "/%s", e->d_name);
		text = read_file(path, &len);
		CHECK_EQ(path, 1, text != NULL);
		if (!text)
			continue;
		check_good(path, text, len, &p);
		done(&p);
		free(text);
		files++;
	}
	closedir(d);
	CHECK_EQ("good files", 1, files >= 3);
}

/* Set each leg's dev_idx: the index of its device's name in @names. */
static void set_dev_idx(struct pdm_table_spec *s, const char *const *names,
			u32 n)
{
	u32 i, l, k;

	for (i = 0; i < s->nr_segs; i++)
		for (l = 0; l < s->segs[i].nr_legs; l++)
			for (k = 0; k < n; k++)
				if (!strcmp(s->segs[i].legs[l].dev, names[k]))
					s->segs[i].legs[l].dev_idx = k;
}

static void test_overlap(void)
{
	static const char *const ab[] = { "/dev/a", "/dev/b" };
	static const char *const b[] = { "/dev/b" };
	static const char *const st[] = { "/dev/c", "/dev/a" };
	/* a and b are disks 1 and 2; c is a partition of disk 2 at 1000. */
	static const struct pdm_dev_base ab_base[] = { { 1, 0 }, { 2, 0 } };
	static const struct pdm_dev_base b_base[] = { { 2, 0 } };
	static const struct pdm_dev_base st_base[] = { { 2, 1000 }, { 1, 0 } };
	struct pdm_overlap w;
	struct parsed x, y, z;

	check_good("overlap x", TXT("0 100 linear /dev/a 0\n"
				   "100 100 linear /dev/b 150\n"), &x);
	set_dev_idx(&x.spec, ab, 2);
	/* b's sectors 150-249 (x's second leg) against 0-149: apart. */
	check_good("overlap y", TXT("0 150 linear /dev/b 0\n"), &y);
	set_dev_idx(&y.spec, b, 1);
	CHECK_EQ("adjacent ranges", 0,
		 pdm_table_overlap(&x.spec, ab_base, &y.spec, b_base, &w));
	done(&y);
	/* ...against 0-150: sector 150 is shared. */
	check_good("overlap y2", TXT("0 151 linear /dev/b 0\n"), &y);
	set_dev_idx(&y.spec, b, 1);
	CHECK_EQ("one shared sector", 1,
		 pdm_table_overlap(&x.spec, ab_base, &y.spec, b_base, &w));
	CHECK_EQ("its segment", 1, w.seg);
	CHECK_EQ("its leg", 0, w.leg);
	CHECK_EQ("the other's segment", 0, w.other_seg);
	CHECK_EQ("the sector", 150, w.sector);
	CHECK_EQ("one sector", 1, w.sectors);
	/* Both ways round. */
	CHECK_EQ("symmetric", 1,
		 pdm_table_overlap(&y.spec, b_base, &x.spec, ab_base, &w));
	CHECK_EQ("symmetric sector", 150, w.sector);
	done(&y);
	/*
	 * A stripe of 2 legs of 64 sectors each over c (disk 2 from 1000)
	 * and a: c's leg covers disk 2's 1000-1063, apart from x's 150-249
	 * there, and a's 0-63 meets x's first segment on disk 1.
	 */
	check_good("overlap z", TXT("0 128 striped 2 8 /dev/c 0 /dev/a 0\n"),
		   &z);
	set_dev_idx(&z.spec, st, 2);
	CHECK_EQ("striped leg_len", 64, z.spec.segs[0].type->leg_len(
		 &z.spec.segs[0]));
	CHECK_EQ("a stripe's leg", 1,
		 pdm_table_overlap(&z.spec, st_base, &x.spec, ab_base, &w));
	CHECK_EQ("the stripe's second leg", 1, w.leg);
	CHECK_EQ("on disk 1 from 0", 0, w.sector);
	CHECK_EQ("64 sectors", 64, w.sectors);
	/* A partition and its disk: c's 1000 is disk 2's 1000. */
	check_good("overlap y3", TXT("0 2000 linear /dev/b 0\n"), &y);
	set_dev_idx(&y.spec, b, 1);
	CHECK_EQ("partition inside its disk", 1,
		 pdm_table_overlap(&z.spec, st_base, &y.spec, b_base, &w));
	CHECK_EQ("the partition's leg", 0, w.leg);
	CHECK_EQ("at the partition's start", 1000, w.sector);
	done(&y);
	/* A target without devices overlaps nothing. */
	check_good("overlap zero", TXT("0 5000 zero\n"), &y);
	CHECK_EQ("no legs", 0,
		 pdm_table_overlap(&y.spec, b_base, &x.spec, ab_base, &w));
	done(&y);
	done(&z);
	done(&x);
}

int main(void)
{
	test_linear();
	test_striped();
	test_error();
	test_zero();
	test_mixed();
	test_limits();
	test_errlen();
	test_enomem();
	test_oversize();
	test_bad_files();
	test_good_files();
	test_overlap();
	return unit_done("table");
}
