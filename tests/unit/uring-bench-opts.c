// SPDX-License-Identifier: GPL-2.0
/*
 * uring-bench's option parsing: defaults, both value forms, every flag,
 * bad numbers, ranges, unknown options, -h, clamping and combinations
 * that are refused.
 */
#include <string.h>

#include "../../tools/uring-bench-opts.c"
#include "unit.h"

#define MAXARGS 32

/* Parse a NULL-terminated list of arguments (argv[0] is added). */
static enum ub_parse parse(struct ub_opts *o, char *args[MAXARGS + 1],
			   const char *first, ...)
{
	static char prog[] = "uring-bench";
	va_list ap;
	const char *a;
	int argc = 0;

	args[argc++] = prog;
	va_start(ap, first);
	for (a = first; a; a = va_arg(ap, const char *))
		if (argc < MAXARGS)
			args[argc++] = (char *)a;
	va_end(ap);
	args[argc] = NULL;
	return ub_parse_args(o, argc, args);
}

/* Parsing must fail with a message containing msg. */
#define BAD(msg, ...) do {						\
	struct ub_opts o_;						\
	char *a_[MAXARGS + 1];						\
	CHECK_EQ("parse fails: " msg, UB_PARSE_ERR,			\
		 parse(&o_, a_, __VA_ARGS__, NULL));			\
	CHECK_CONTAINS("message", msg, o_.err);				\
} while (0)

static void test_defaults(void)
{
	struct ub_opts o;
	char *a[MAXARGS + 1];

	CHECK_EQ("one file", UB_PARSE_OK, parse(&o, a, "/dev/nullb0", NULL));
	CHECK_EQ("depth", 128, o.depth);
	CHECK_EQ("batch submit", 32, o.batch_submit);
	CHECK_EQ("batch complete", 32, o.batch_complete);
	CHECK_EQ("bs", 4096, o.bs);
	CHECK_EQ("polled", 1, o.polled);
	CHECK_EQ("fixedbufs", 1, o.fixedbufs);
	CHECK_EQ("regfiles", 1, o.regfiles);
	CHECK_EQ("threads", 1, o.threads);
	CHECK_EQ("runtime", 0, o.runtime);
	CHECK_EQ("random", 1, o.random);
	CHECK_EQ("direct", 1, o.direct);
	CHECK_EQ("json", 0, o.json);
	CHECK_EQ("nfiles", 1, o.nfiles);
	CHECK_EQ("file", 0, strcmp(o.files[0], "/dev/nullb0"));
	CHECK_EQ("no warning", 0, o.warn[0]);
}

static void test_all_flags(void)
{
	struct ub_opts o;
	char *a[MAXARGS + 1];

	/* Attached values. */
	CHECK_EQ("attached", UB_PARSE_OK,
		 parse(&o, a, "-d64", "-s8", "-c4", "-b8192", "-p0", "-B0",
		       "-F0", "-n3", "-r10", "-R0", "-O0", "--json", "f1",
		       "f2", NULL));
	CHECK_EQ("depth", 64, o.depth);
	CHECK_EQ("batch submit", 8, o.batch_submit);
	CHECK_EQ("batch complete", 4, o.batch_complete);
	CHECK_EQ("bs", 8192, o.bs);
	CHECK_EQ("polled", 0, o.polled);
	CHECK_EQ("fixedbufs", 0, o.fixedbufs);
	CHECK_EQ("regfiles", 0, o.regfiles);
	CHECK_EQ("threads", 3, o.threads);
	CHECK_EQ("runtime", 10, o.runtime);
	CHECK_EQ("random", 0, o.random);
	CHECK_EQ("direct", 0, o.direct);
	CHECK_EQ("json", 1, o.json);
	CHECK_EQ("nfiles", 2, o.nfiles);
	CHECK_EQ("file 1", 0, strcmp(o.files[0], "f1"));
	CHECK_EQ("file 2", 0, strcmp(o.files[1], "f2"));

	/* Separate values, files mixed in between options. */
	CHECK_EQ("separate", UB_PARSE_OK,
		 parse(&o, a, "f1", "-d", "256", "-s", "16", "f2", "-c", "1",
		       "-b", "4k", "-n", "2", "-r", "3", "f3", NULL));
	CHECK_EQ("depth", 256, o.depth);
	CHECK_EQ("batch submit", 16, o.batch_submit);
	CHECK_EQ("batch complete", 1, o.batch_complete);
	CHECK_EQ("bs 4k", 4096, o.bs);
	CHECK_EQ("threads", 2, o.threads);
	CHECK_EQ("runtime", 3, o.runtime);
	CHECK_EQ("nfiles", 3, o.nfiles);
	CHECK_EQ("file 1", 0, strcmp(o.files[0], "f1"));
	CHECK_EQ("file 2", 0, strcmp(o.files[1], "f2"));
	CHECK_EQ("file 3", 0, strcmp(o.files[2], "f3"));

	/* The VM test's command line. */
	CHECK_EQ("vm test", UB_PARSE_OK,
		 parse(&o, a, "-d128", "-s32", "-c32", "-b4096", "-p1", "-B1",
		       "-F1", "-n1", "-r3", "--json", "/dev/nullb0", NULL));
	CHECK_EQ("runtime", 3, o.runtime);
	CHECK_EQ("json", 1, o.json);
	CHECK_EQ("no warning", 0, o.warn[0]);

	/* Limits are accepted. */
	CHECK_EQ("limits", UB_PARSE_OK,
		 parse(&o, a, "-d4096", "-s4096", "-c4096", "-b16m", "-n256",
		       "-r31536000", "x", NULL));
	CHECK_EQ("depth max", 4096, o.depth);
	CHECK_EQ("bs max", 16 << 20, o.bs);
	CHECK_EQ("threads max", 256, o.threads);
	CHECK_EQ("runtime max", 31536000, o.runtime);
	CHECK_EQ("minimums", UB_PARSE_OK,
		 parse(&o, a, "-d1", "-s1", "-c1", "-b512", "-n1", "-r0",
		       "x", NULL));
	CHECK_EQ("depth min", 1, o.depth);
	CHECK_EQ("bs 512", 512, o.bs);
	CHECK_EQ("suffix M", UB_PARSE_OK, parse(&o, a, "-b1M", "x", NULL));
	CHECK_EQ("bs 1M", 1 << 20, o.bs);
	CHECK_EQ("suffix K", UB_PARSE_OK, parse(&o, a, "-b", "64K", "x", NULL));
	CHECK_EQ("bs 64K", 65536, o.bs);
	/* Without O_DIRECT any block size goes. */
	CHECK_EQ("odd bs buffered", UB_PARSE_OK,
		 parse(&o, a, "-O0", "-p0", "-b1000", "x", NULL));
	CHECK_EQ("bs 1000", 1000, o.bs);
	/* Depth not a power of two: fine (io_uring rounds the ring up). */
	CHECK_EQ("depth 100", UB_PARSE_OK, parse(&o, a, "-d100", "x", NULL));
	CHECK_EQ("depth", 100, o.depth);
	/* The last of a repeated option wins. */
	CHECK_EQ("repeated", UB_PARSE_OK,
		 parse(&o, a, "-d8", "-d", "16", "-d32", "x", NULL));
	CHECK_EQ("depth", 32, o.depth);
}

static void test_files(void)
{
	struct ub_opts o;
	char *a[MAXARGS + 1];

	CHECK_EQ("--", UB_PARSE_OK,
		 parse(&o, a, "-r1", "--", "-d", "--json", NULL));
	CHECK_EQ("nfiles after --", 2, o.nfiles);
	CHECK_EQ("file -d", 0, strcmp(o.files[0], "-d"));
	CHECK_EQ("file --json", 0, strcmp(o.files[1], "--json"));
	CHECK_EQ("json not set", 0, o.json);
	CHECK_EQ("-", UB_PARSE_OK, parse(&o, a, "-", NULL));
	CHECK_EQ("- is a file", 0, strcmp(o.files[0], "-"));
	BAD("no files given", "-d", "8");
	BAD("no files given", "--json");
}

static void test_help(void)
{
	struct ub_opts o;
	char *a[MAXARGS + 1];
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	CHECK_EQ("-h", UB_PARSE_HELP, parse(&o, a, "-h", NULL));
	CHECK_EQ("--help", UB_PARSE_HELP, parse(&o, a, "--help", NULL));
	CHECK_EQ("-h with others", UB_PARSE_HELP,
		 parse(&o, a, "-d8", "x", "-h", "-r", NULL));

	f = open_memstream(&text, &len);
	ub_usage(f);
	fclose(f);
	CHECK_CONTAINS("usage", "Usage: uring-bench", text);
	CHECK_CONTAINS("usage says reads only", "Reads\nonly", text);
	CHECK_CONTAINS("usage names --json", "--json", text);
	CHECK_CONTAINS("usage clamps", "clamped to -d", text);
	free(text);
}

static void test_bad_numbers(void)
{
	BAD("-d 'abc': not a number", "-d", "abc", "x");
	BAD("-d '12x': not a number", "-d12x", "x");
	BAD("-d '-1': not a number", "-d", "-1", "x");
	BAD("-d '+1': not a number", "-d", "+1", "x");
	BAD("-d ' 1': not a number", "-d", " 1", "x");
	BAD("-d '': not a number", "-d", "", "x");
	BAD("-d '1.5': not a number", "-d1.5", "x");
	BAD("-r 99999999999999999999999: out of range (0..31536000)",
	    "-r", "99999999999999999999999", "x");
	BAD("-b '4kb': not a number (digits, optionally k, m or g)",
	    "-b4kb", "x");
	BAD("-b '4x': not a number", "-b4x", "x");
	BAD("-b 17179869184g: out of range (1..16777216)", "-b17179869184g",
	    "x");
	BAD("-d 'k': not a number", "-dk", "x");
	/* Suffixes are for -b only. */
	BAD("-d '1k': not a number", "-d1k", "x");
	BAD("-d needs a value", "x", "-d");
	BAD("-r needs a value", "x", "-r");
}

static void test_ranges(void)
{
	BAD("-d 0: out of range (1..4096)", "-d0", "x");
	BAD("-d 4097: out of range (1..4096)", "-d4097", "x");
	BAD("-s 0: out of range (1..4096)", "-s0", "x");
	BAD("-c 5000: out of range (1..4096)", "-c", "5000", "x");
	BAD("-b 0: out of range (1..16777216)", "-b0", "x");
	BAD("-b 32m: out of range (1..16777216)", "-b32m", "x");
	BAD("-n 0: out of range (1..256)", "-n0", "x");
	BAD("-n 257: out of range (1..256)", "-n257", "x");
	BAD("-r 31536001: out of range (0..31536000)", "-r31536001", "x");
	BAD("-p 2: must be 0 or 1", "-p2", "x");
	BAD("-B 7: must be 0 or 1", "-B", "7", "x");
	BAD("-F 10: must be 0 or 1", "-F10", "x");
	BAD("-R 2: must be 0 or 1", "-R2", "x");
	BAD("-O 3: must be 0 or 1", "-O3", "x");
}

static void test_unknown(void)
{
	BAD("unknown option '-x'", "-x", "f");
	BAD("unknown option '-q1'", "-q1", "f");
	BAD("unknown option '--foo'", "--foo", "f");
	BAD("unknown option '--depth=8'", "--depth=8", "f");
	BAD("unknown option '--jsonx'", "--jsonx", "f");
	/* Options are case sensitive: -D is not -d. */
	BAD("unknown option '-D8'", "-D8", "f");
}

static void test_combinations(void)
{
	struct ub_opts o;
	char *a[MAXARGS + 1];

	BAD("-p1 (polled) needs O_DIRECT: use -p0 with -O0", "-O0", "x");
	BAD("-p1 (polled) needs O_DIRECT", "-p1", "-O0", "x");
	BAD("-b 1000: with O_DIRECT (-O1) the block size must be a multiple of 512",
	    "-b1000", "x");
	BAD("-b 520: with O_DIRECT", "-p0", "-b520", "x");

	/* Batches larger than the depth are clamped; a note if asked for. */
	CHECK_EQ("small depth", UB_PARSE_OK, parse(&o, a, "-d16", "x", NULL));
	CHECK_EQ("submit clamped", 16, o.batch_submit);
	CHECK_EQ("complete clamped", 16, o.batch_complete);
	CHECK_EQ("defaults clamp silently", 0, o.warn[0]);

	CHECK_EQ("-s over depth", UB_PARSE_OK,
		 parse(&o, a, "-d16", "-s32", "x", NULL));
	CHECK_EQ("submit clamped", 16, o.batch_submit);
	CHECK_EQ("complete clamped", 16, o.batch_complete);
	CHECK_CONTAINS("note", "-s 32 is more than -d 16: using 16", o.warn);
	CHECK_EQ("only -s noted", NULL == strstr(o.warn, "-c"), 1);

	CHECK_EQ("both over depth", UB_PARSE_OK,
		 parse(&o, a, "-s64", "-c", "100", "-d", "8", "x", NULL));
	CHECK_EQ("submit clamped", 8, o.batch_submit);
	CHECK_EQ("complete clamped", 8, o.batch_complete);
	CHECK_CONTAINS("note -s", "-s 64 is more than -d 8: using 8", o.warn);
	CHECK_CONTAINS("note -c", "; -c 100 is more than -d 8: using 8",
		       o.warn);

	CHECK_EQ("batch equal to depth", UB_PARSE_OK,
		 parse(&o, a, "-d32", "-s32", "-c32", "x", NULL));
	CHECK_EQ("no note", 0, o.warn[0]);

	/* A parse starts from the defaults, whatever was there before. */
	CHECK_EQ("fresh", UB_PARSE_OK, parse(&o, a, "y", NULL));
	CHECK_EQ("depth back to default", 128, o.depth);
	CHECK_EQ("note cleared", 0, o.warn[0]);
	CHECK_EQ("error cleared", 0, o.err[0]);
}

static void test_parse_u64(void)
{
	unsigned long long v = 7;

	CHECK_EQ("0", 0, ub_parse_u64("0", 0, &v));
	CHECK_EQ("value 0", 0, v);
	CHECK_EQ("max", 0, ub_parse_u64("18446744073709551615", 0, &v));
	CHECK_EQ("value max", ULLONG_MAX, v);
	CHECK_EQ("max + 1", -2, ub_parse_u64("18446744073709551616", 0, &v));
	CHECK_EQ("long", -2, ub_parse_u64("123456789012345678901234567890", 0,
					   &v));
	CHECK_EQ("long with junk", -1, ub_parse_u64("123456789012345678901x",
						    0, &v));
	CHECK_EQ("2g", 0, ub_parse_u64("2g", 1, &v));
	CHECK_EQ("value 2g", 2ULL << 30, v);
	CHECK_EQ("suffix without number", -1, ub_parse_u64("g", 1, &v));
	CHECK_EQ("suffix not allowed", -1, ub_parse_u64("2g", 0, &v));
	CHECK_EQ("suffix overflow", -2,
		 ub_parse_u64("17179869184g", 1, &v));
	CHECK_EQ("NULL", -1, ub_parse_u64(NULL, 0, &v));
	CHECK_EQ("empty", -1, ub_parse_u64("", 0, &v));
	CHECK_EQ("trailing space", -1, ub_parse_u64("1 ", 0, &v));
	CHECK_EQ("hex", -1, ub_parse_u64("0x10", 0, &v));
	CHECK_EQ("leading zeros", 0, ub_parse_u64("0010", 0, &v));
	CHECK_EQ("value 10", 10, v);
}

int main(void)
{
	test_defaults();
	test_all_flags();
	test_files();
	test_help();
	test_bad_numbers();
	test_ranges();
	test_unknown();
	test_combinations();
	test_parse_u64();
	return unit_done("uring-bench-opts");
}
