// SPDX-License-Identifier: GPL-2.0
/*
 * uring-bench's statistics and output: max and mean over per-second
 * samples, rates, CPU time per I/O from rusage deltas, the per-second
 * line, the text summary and the JSON object.
 */
#include <string.h>

#include "../../tools/uring-bench-opts.c"
#include "unit.h"

/* Doubles compared in thousandths. */
#define CHECK_MILLI(what, expected, got)				\
	CHECK_EQ(what, (long long)((expected) * 1000 + 0.5),		\
		 (long long)((got) * 1000 + 0.5))

static struct timeval tv(long sec, long usec)
{
	struct timeval t = { .tv_sec = sec, .tv_usec = usec };

	return t;
}

static void test_stats(void)
{
	struct ub_stats st;
	int i;

	ub_stats_init(&st);
	CHECK_EQ("empty max", 0, ub_stats_max(&st));
	CHECK_EQ("empty mean", 0, ub_stats_mean(&st));

	ub_stats_add(&st, 100);
	CHECK_EQ("one max", 100, ub_stats_max(&st));
	CHECK_EQ("one mean", 100, ub_stats_mean(&st));
	ub_stats_add(&st, 300);
	ub_stats_add(&st, 200);
	CHECK_EQ("max", 300, ub_stats_max(&st));
	CHECK_EQ("mean", 200, ub_stats_mean(&st));
	CHECK_EQ("n", 3, st.n);
	CHECK_EQ("samples kept in order", 200, st.samples[2]);
	ub_stats_free(&st);
	CHECK_EQ("freed", 0, st.n);

	/* A zero first sample is still the max until something beats it. */
	ub_stats_add(&st, 0);
	CHECK_EQ("zero max", 0, ub_stats_max(&st));
	ub_stats_add(&st, 0.5);
	CHECK_MILLI("fraction max", 0.5, ub_stats_max(&st));
	CHECK_MILLI("fraction mean", 0.25, ub_stats_mean(&st));
	ub_stats_free(&st);

	/* Growth past the initial capacity; max in the middle. */
	for (i = 1; i <= 1000; i++)
		CHECK_EQ("add", 0, ub_stats_add(&st, i == 500 ? 1e6 : i));
	CHECK_EQ("n 1000", 1000, st.n);
	CHECK_EQ("max 1e6", 1000000, ub_stats_max(&st));
	/* (1..1000 sum 500500) - 500 + 1e6, over 1000 */
	CHECK_MILLI("mean", (500500.0 - 500 + 1e6) / 1000, ub_stats_mean(&st));
	CHECK_EQ("sample 999", 1000, st.samples[999]);
	ub_stats_free(&st);
}

static void test_rates(void)
{
	CHECK_EQ("rate", 1000, ub_rate(2000, 2.0));
	CHECK_MILLI("rate fraction", 333.333, ub_rate(1000, 3.0));
	CHECK_EQ("no time", 0, ub_rate(1000, 0));
	CHECK_EQ("negative time", 0, ub_rate(1000, -1));
	CHECK_EQ("no I/O", 0, ub_rate(0, 1.5));

	/* 1.5 s of CPU over 1e6 I/Os: 1.5 us/IO. */
	CHECK_MILLI("us/IO", 1.5, ub_us_per_io(tv(10, 0), tv(11, 500000),
					       1000000));
	/* Microseconds borrow across the second. */
	CHECK_MILLI("us/IO borrow", 0.2,
		    ub_us_per_io(tv(1, 900000), tv(2, 100000), 1000000));
	CHECK_EQ("no CPU", 0, ub_us_per_io(tv(5, 5), tv(5, 5), 10));
	CHECK_EQ("no I/O", -1, (long long)ub_us_per_io(tv(0, 0), tv(1, 0), 0));
	/* A clock that went backwards reads as none used. */
	CHECK_EQ("backwards", 0, ub_us_per_io(tv(2, 0), tv(1, 0), 10));
}

static void test_interval(void)
{
	struct ub_interval iv = {
		.ios = 123456, .calls = 3858, .submitted = 123456,
		.reaped = 119598, .secs = 1.0,
	};
	char buf[160];

	ub_format_interval(buf, sizeof(buf), &iv, 4096);
	CHECK_STR("line", "IOPS=123456, BW=482MiB/s, IOS/call=32/31", buf);

	/* Over half a second: a rate, rounded. */
	iv.secs = 0.5;
	ub_format_interval(buf, sizeof(buf), &iv, 4096);
	CHECK_STR("half second", "IOPS=246912, BW=965MiB/s, IOS/call=32/31",
		  buf);

	/* 64k blocks; 10 submitted and 9.6 reaped per call rounds to 10. */
	iv = (struct ub_interval){ .ios = 16000, .calls = 1000,
				   .submitted = 10000, .reaped = 9600,
				   .secs = 1.0 };
	ub_format_interval(buf, sizeof(buf), &iv, 65536);
	CHECK_STR("64k", "IOPS=16000, BW=1000MiB/s, IOS/call=10/10", buf);

	/* An idle second: no calls, no division by zero. */
	iv = (struct ub_interval){ .secs = 1.0 };
	ub_format_interval(buf, sizeof(buf), &iv, 4096);
	CHECK_STR("idle", "IOPS=0, BW=0MiB/s, IOS/call=0/0", buf);
}

/* Render a result into a string. */
static char *render(const struct ub_result *r, int json)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (json)
		ub_print_json(f, r);
	else
		ub_print_summary(f, r);
	fclose(f);
	return text;
}

static void test_summary(void)
{
	static char f1[] = "/dev/nullb0", f2[] = "we\"ird\\name\n";
	char *files[] = { f1, f2 };
	struct ub_opts o;
	struct ub_stats st;
	struct ub_thread_result tr[2] = {
		{ .ios = 600000, .usr_us_per_io = 0.5, .sys_us_per_io = 2.25 },
		{ .ios = 0, .usr_us_per_io = -1, .sys_us_per_io = -1 },
	};
	struct ub_result r = {
		.opts = &o, .ios = 600000, .calls = 20000,
		.submitted = 640000, .reaped = 600000, .runtime_s = 3.0,
		.stats = &st, .threads = tr, .nthreads = 2,
	};
	char *text;

	ub_opts_default(&o);
	o.files = files;
	o.nfiles = 2;
	o.runtime = 3;
	ub_stats_init(&st);
	ub_stats_add(&st, 150000);
	ub_stats_add(&st, 250000);
	ub_stats_add(&st, 200000);

	text = render(&r, 0);
	CHECK_CONTAINS("max and mean",
		       "Maximum IOPS=250000, mean IOPS=200000\n", text);
	CHECK_CONTAINS("total",
		       "Total: 600000 I/Os in 3.00s, IOPS=200000, BW=781MiB/s, IOS/call=32/30\n",
		       text);
	CHECK_CONTAINS("thread 0", "thread 0: user 0.50 us/IO, sys 2.25 us/IO\n",
		       text);
	CHECK_CONTAINS("thread 1", "thread 1: no I/O\n", text);
	free(text);

	r.interrupted = 1;
	text = render(&r, 0);
	CHECK_CONTAINS("interrupted", "in 3.00s (interrupted),", text);
	free(text);
	r.interrupted = 0;

	text = render(&r, 1);
	CHECK_EQ("json starts with {", '{', text[0]);
	CHECK_EQ("json ends with }\\n", 0, strcmp(text + strlen(text) - 2,
						  "}\n"));
	CHECK_CONTAINS("ios", "\"ios\": 600000,", text);
	CHECK_CONTAINS("runtime", "\"runtime_s\": 3.000,", text);
	CHECK_CONTAINS("iops", "\"iops\": 200000,", text);
	CHECK_CONTAINS("iops_max", "\"iops_max\": 250000,", text);
	CHECK_CONTAINS("iops_mean", "\"iops_mean\": 200000,", text);
	CHECK_CONTAINS("bw", "\"bw_mib_s\": 781.2,", text);
	CHECK_CONTAINS("per call", "\"ios_per_call_submit\": 32.00,", text);
	CHECK_CONTAINS("per call", "\"ios_per_call_reap\": 30.00,", text);
	CHECK_CONTAINS("samples", "\"samples\": [150000, 250000, 200000]",
		       text);
	CHECK_CONTAINS("thread 0",
		       "{\"thread\": 0, \"ios\": 600000, \"usr_us_per_io\": 0.500, \"sys_us_per_io\": 2.250}",
		       text);
	CHECK_CONTAINS("thread 1 null",
		       "{\"thread\": 1, \"ios\": 0, \"usr_us_per_io\": null, \"sys_us_per_io\": null}",
		       text);
	CHECK_CONTAINS("escaped file name",
		       "\"files\": [\"/dev/nullb0\", \"we\\\"ird\\\\name\\u000a\"]",
		       text);
	CHECK_CONTAINS("options", "\"depth\": 128, \"batch_submit\": 32", text);
	CHECK_CONTAINS("interrupted", "\"interrupted\": false", text);
	free(text);
	ub_stats_free(&st);

	/* Stopped before the first full second: the overall rate stands in
	 * for max and mean, and there are no samples. */
	r.runtime_s = 0.5;
	r.ios = 50000;
	text = render(&r, 0);
	CHECK_CONTAINS("short run", "Maximum IOPS=100000, mean IOPS=100000\n",
		       text);
	free(text);
	text = render(&r, 1);
	CHECK_CONTAINS("short run json max", "\"iops_max\": 100000,", text);
	CHECK_CONTAINS("short run json samples", "\"samples\": []", text);
	free(text);

	/* Nothing ran at all. */
	r.runtime_s = 0;
	r.ios = r.calls = r.submitted = r.reaped = 0;
	text = render(&r, 0);
	CHECK_CONTAINS("no run", "Maximum IOPS=0, mean IOPS=0\n", text);
	CHECK_CONTAINS("no run total", "IOS/call=0/0", text);
	free(text);
}

int main(void)
{
	test_stats();
	test_rates();
	test_interval();
	test_summary();
	return unit_done("uring-bench-stats");
}
