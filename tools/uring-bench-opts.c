// SPDX-License-Identifier: GPL-2.0
/*
 * uring-bench's pure logic: options, statistics and output formats.  No
 * liburing and no I/O here (besides writing to a FILE), so that the host
 * unit tests (tests/unit/uring-bench-*.c) can include this file.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uring-bench-opts.h"

void ub_usage(FILE *out)
{
	fprintf(out,
"Usage: uring-bench [OPTIONS] FILE...\n"
"Random (or sequential) reads from block devices or regular files through\n"
"io_uring, one ring per thread, in the manner of fio's t/io_uring.  Reads\n"
"only: nothing is ever written to FILE.\n"
"Options (a value may follow the letter directly, -d128, or as the next\n"
"argument, -d 128):\n"
"  -d N     I/Os kept in flight per thread, 1..%u (default 128)\n"
"  -s N     batch submit: at most N SQEs per io_uring_enter, 1..%u\n"
"           (default 32; more than -d is clamped to -d)\n"
"  -c N     batch complete: wait for at least N completions per enter once\n"
"           a full submit batch no longer fits, 1..%u (default 32; more\n"
"           than -d is clamped to -d)\n"
"  -b N     block size in bytes, k/m suffixes allowed, up to 16m (default\n"
"           4096); with O_DIRECT a multiple of 512 and of the device's\n"
"           logical block size\n"
"  -p 0|1   polled completions, IORING_SETUP_IOPOLL (default 1); needs\n"
"           O_DIRECT and, for a block device, queue/io_poll = 1\n"
"  -B 0|1   fixed (registered) buffers (default 1)\n"
"  -F 0|1   registered files (default 1)\n"
"  -n N     threads, 1..%u, one ring each (default 1); files are dealt\n"
"           round-robin to threads; with more threads than files, threads\n"
"           share files\n"
"  -r N     run for N seconds; 0 runs until SIGINT or SIGTERM (default 0)\n"
"  -R 0|1   random offsets, aligned to the block size (default 1); 0 reads\n"
"           sequentially, wrapping at the end\n"
"  -O 0|1   open with O_DIRECT (default 1)\n"
"  --json   print one JSON object at the end (with the per-second IOPS in\n"
"           \"samples\") instead of the text output\n"
"  -h, --help  this text\n"
"Once a second: IOPS=<reads/s>, BW=<MiB/s>, IOS/call=<submitted per\n"
"enter>/<reaped per enter>, all threads summed.  At the end (also after\n"
"SIGINT/SIGTERM): maximum and mean of the per-second IOPS, totals, and per\n"
"thread the user and system CPU time per I/O (getrusage RUSAGE_THREAD).\n"
"Exit status: 0 on success, 1 on an I/O or setup error, 2 on bad usage.\n",
		UB_MAX_DEPTH, UB_MAX_DEPTH, UB_MAX_DEPTH, UB_MAX_THREADS);
}

void ub_opts_default(struct ub_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->depth = 128;
	o->batch_submit = 32;
	o->batch_complete = 32;
	o->bs = 4096;
	o->polled = 1;
	o->fixedbufs = 1;
	o->regfiles = 1;
	o->threads = 1;
	o->runtime = 0;
	o->random = 1;
	o->direct = 1;
}

int ub_parse_u64(const char *s, int suffixes, unsigned long long *val)
{
	unsigned long long v = 0, mult = 1;
	const char *p = s;
	int overflow = 0;

	if (!s || *s < '0' || *s > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned int d = *p - '0';

		if (v > (ULLONG_MAX - d) / 10)
			overflow = 1;
		else
			v = v * 10 + d;
	}
	if (*p && suffixes && !p[1]) {
		switch (*p) {
		case 'k': case 'K': mult = 1ULL << 10; break;
		case 'm': case 'M': mult = 1ULL << 20; break;
		case 'g': case 'G': mult = 1ULL << 30; break;
		default: return -1;
		}
		p++;
	}
	if (*p)
		return -1;
	if (overflow || v > ULLONG_MAX / mult)
		return -2;
	*val = v * mult;
	return 0;
}

static enum ub_parse perr(struct ub_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static enum ub_parse perr(struct ub_opts *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(o->err, sizeof(o->err), fmt, ap);
	va_end(ap);
	return UB_PARSE_ERR;
}

/* Options that take a number: letter, range, whether k/m/g apply. */
struct numopt {
	char letter;
	unsigned long long min, max;
	int suffixes;
};

static const struct numopt numopts[] = {
	{ 'd', 1, UB_MAX_DEPTH, 0 },
	{ 's', 1, UB_MAX_DEPTH, 0 },
	{ 'c', 1, UB_MAX_DEPTH, 0 },
	{ 'b', 1, UB_MAX_BS, 1 },
	{ 'p', 0, 1, 0 },
	{ 'B', 0, 1, 0 },
	{ 'F', 0, 1, 0 },
	{ 'n', 1, UB_MAX_THREADS, 0 },
	{ 'r', 0, UB_MAX_RUNTIME, 0 },
	{ 'R', 0, 1, 0 },
	{ 'O', 0, 1, 0 },
};

static const struct numopt *find_numopt(char letter)
{
	size_t i;

	for (i = 0; i < sizeof(numopts) / sizeof(numopts[0]); i++)
		if (numopts[i].letter == letter)
			return &numopts[i];
	return NULL;
}

static void store(struct ub_opts *o, char letter, unsigned long long v)
{
	switch (letter) {
	case 'd': o->depth = v; break;
	case 's': o->batch_submit = v; break;
	case 'c': o->batch_complete = v; break;
	case 'b': o->bs = v; break;
	case 'p': o->polled = v; break;
	case 'B': o->fixedbufs = v; break;
	case 'F': o->regfiles = v; break;
	case 'n': o->threads = v; break;
	case 'r': o->runtime = v; break;
	case 'R': o->random = v; break;
	case 'O': o->direct = v; break;
	}
}

/* Clamp a batch size to the depth, with a note if the user asked for it. */
static void clamp_batch(struct ub_opts *o, unsigned int *batch, int given,
			char letter)
{
	size_t len;

	if (*batch <= o->depth)
		return;
	if (given) {
		len = strlen(o->warn);
		snprintf(o->warn + len, sizeof(o->warn) - len,
			 "%s-%c %u is more than -d %u: using %u", len ? "; " : "",
			 letter, *batch, o->depth, o->depth);
	}
	*batch = o->depth;
}

enum ub_parse ub_parse_args(struct ub_opts *o, int argc, char **argv)
{
	int i, only_files = 0, given_s = 0, given_c = 0;

	ub_opts_default(o);
	/* Positional arguments are collected in place, in argv's order. */
	o->files = argv + 1;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val;
		const struct numopt *no;
		unsigned long long v;
		int ret;

		if (only_files || a[0] != '-' || !a[1]) {
			o->files[o->nfiles++] = argv[i];
			continue;
		}
		if (!strcmp(a, "--")) {
			only_files = 1;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			return UB_PARSE_HELP;
		if (!strcmp(a, "--json")) {
			o->json = 1;
			continue;
		}
		no = a[1] != '-' ? find_numopt(a[1]) : NULL;
		if (!no)
			return perr(o, "unknown option '%s'", a);
		if (a[2]) {
			val = a + 2;
		} else {
			if (i + 1 >= argc)
				return perr(o, "-%c needs a value", no->letter);
			val = argv[++i];
		}
		ret = ub_parse_u64(val, no->suffixes, &v);
		if (ret == -2)
			return perr(o, "-%c %s: out of range (%llu..%llu)",
				    no->letter, val, no->min, no->max);
		if (ret)
			return perr(o, "-%c '%s': not a number%s", no->letter,
				    val, no->suffixes ?
				    " (digits, optionally k, m or g)" : "");
		if (v < no->min || v > no->max) {
			if (no->max == 1)
				return perr(o, "-%c %s: must be 0 or 1",
					    no->letter, val);
			return perr(o, "-%c %s: out of range (%llu..%llu)",
				    no->letter, val, no->min, no->max);
		}
		store(o, no->letter, v);
		given_s |= no->letter == 's';
		given_c |= no->letter == 'c';
	}

	if (!o->nfiles)
		return perr(o, "no files given");
	if (o->polled && !o->direct)
		return perr(o, "-p1 (polled) needs O_DIRECT: use -p0 with -O0");
	if (o->direct && o->bs % 512)
		return perr(o, "-b %llu: with O_DIRECT (-O1) the block size must be a multiple of 512",
			    o->bs);
	clamp_batch(o, &o->batch_submit, given_s, 's');
	clamp_batch(o, &o->batch_complete, given_c, 'c');
	return UB_PARSE_OK;
}

void ub_stats_init(struct ub_stats *st)
{
	memset(st, 0, sizeof(*st));
}

int ub_stats_add(struct ub_stats *st, double iops)
{
	if (st->n == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 64;
		double *s = realloc(st->samples, cap * sizeof(*s));

		if (!s)
			return -1;
		st->samples = s;
		st->cap = cap;
	}
	st->samples[st->n++] = iops;
	if (st->n == 1 || iops > st->max)
		st->max = iops;
	st->sum += iops;
	return 0;
}

double ub_stats_max(const struct ub_stats *st)
{
	return st->n ? st->max : 0;
}

double ub_stats_mean(const struct ub_stats *st)
{
	return st->n ? st->sum / st->n : 0;
}

void ub_stats_free(struct ub_stats *st)
{
	free(st->samples);
	ub_stats_init(st);
}

double ub_rate(unsigned long long ios, double secs)
{
	return secs > 0 ? ios / secs : 0;
}

double ub_us_per_io(struct timeval start, struct timeval end,
		    unsigned long long ios)
{
	double us = (end.tv_sec - start.tv_sec) * 1e6 +
		    (end.tv_usec - start.tv_usec);

	if (!ios)
		return -1;
	return us < 0 ? 0 : us / ios;
}

static unsigned long long round_u64(double x)
{
	return x <= 0 ? 0 : (unsigned long long)(x + 0.5);
}

static double ratio(unsigned long long a, unsigned long long b)
{
	return b ? (double)a / b : 0;
}

int ub_format_interval(char *buf, size_t len, const struct ub_interval *iv,
		       unsigned long long bs)
{
	double iops = ub_rate(iv->ios, iv->secs);

	return snprintf(buf, len, "IOPS=%llu, BW=%lluMiB/s, IOS/call=%llu/%llu",
			round_u64(iops), round_u64(iops * bs / (1 << 20)),
			round_u64(ratio(iv->submitted, iv->calls)),
			round_u64(ratio(iv->reaped, iv->calls)));
}

/* With no full one-second sample (a run shorter than a second), the
 * overall rate stands in for both. */
static double result_max(const struct ub_result *r)
{
	return r->stats->n ? ub_stats_max(r->stats) :
			     ub_rate(r->ios, r->runtime_s);
}

static double result_mean(const struct ub_result *r)
{
	return r->stats->n ? ub_stats_mean(r->stats) :
			     ub_rate(r->ios, r->runtime_s);
}

void ub_print_summary(FILE *out, const struct ub_result *r)
{
	struct ub_interval all = {
		.ios = r->ios, .calls = r->calls, .submitted = r->submitted,
		.reaped = r->reaped, .secs = r->runtime_s,
	};
	char line[160];
	unsigned int i;

	ub_format_interval(line, sizeof(line), &all, r->opts->bs);
	fprintf(out, "Maximum IOPS=%llu, mean IOPS=%llu\n",
		round_u64(result_max(r)), round_u64(result_mean(r)));
	fprintf(out, "Total: %llu I/Os in %.2fs%s, %s\n", r->ios, r->runtime_s,
		r->interrupted ? " (interrupted)" : "", line);
	for (i = 0; i < r->nthreads; i++) {
		const struct ub_thread_result *t = &r->threads[i];

		if (t->usr_us_per_io < 0)
			fprintf(out, "thread %u: no I/O\n", i);
		else
			fprintf(out, "thread %u: user %.2f us/IO, sys %.2f us/IO\n",
				i, t->usr_us_per_io, t->sys_us_per_io);
	}
}

static void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void json_us(FILE *out, double us)
{
	if (us < 0)
		fputs("null", out);
	else
		fprintf(out, "%.3f", us);
}

void ub_print_json(FILE *out, const struct ub_result *r)
{
	const struct ub_opts *o = r->opts;
	double iops = ub_rate(r->ios, r->runtime_s);
	unsigned int i;
	size_t k;

	fprintf(out, "{\n  \"options\": {\"depth\": %u, \"batch_submit\": %u, "
		"\"batch_complete\": %u, \"bs\": %llu, \"polled\": %d, "
		"\"fixedbufs\": %d, \"regfiles\": %d, \"threads\": %u, "
		"\"runtime\": %llu, \"random\": %d, \"direct\": %d, \"files\": [",
		o->depth, o->batch_submit, o->batch_complete, o->bs, o->polled,
		o->fixedbufs, o->regfiles, o->threads, o->runtime, o->random,
		o->direct);
	for (i = 0; i < o->nfiles; i++) {
		if (i)
			fputs(", ", out);
		json_str(out, o->files[i]);
	}
	fprintf(out, "]},\n");
	fprintf(out, "  \"ios\": %llu,\n  \"runtime_s\": %.3f,\n"
		"  \"interrupted\": %s,\n"
		"  \"iops\": %.0f,\n  \"iops_max\": %.0f,\n  \"iops_mean\": %.0f,\n"
		"  \"bw_mib_s\": %.1f,\n"
		"  \"ios_per_call_submit\": %.2f,\n  \"ios_per_call_reap\": %.2f,\n"
		"  \"samples\": [",
		r->ios, r->runtime_s, r->interrupted ? "true" : "false", iops,
		result_max(r), result_mean(r), iops * o->bs / (1 << 20),
		ratio(r->submitted, r->calls), ratio(r->reaped, r->calls));
	for (k = 0; k < r->stats->n; k++)
		fprintf(out, "%s%.0f", k ? ", " : "", r->stats->samples[k]);
	fprintf(out, "],\n  \"threads\": [");
	for (i = 0; i < r->nthreads; i++) {
		const struct ub_thread_result *t = &r->threads[i];

		fprintf(out, "%s\n    {\"thread\": %u, \"ios\": %llu, "
			"\"usr_us_per_io\": ", i ? "," : "", i, t->ios);
		json_us(out, t->usr_us_per_io);
		fputs(", \"sys_us_per_io\": ", out);
		json_us(out, t->sys_us_per_io);
		fputc('}', out);
	}
	fprintf(out, "\n  ]\n}\n");
}
