/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uring-bench's pure logic, kept free of liburing and of any I/O so that
 * host unit tests can compile it: option parsing and validation, the
 * per-second statistics, CPU time per I/O, and the output formats.
 */
#ifndef _URING_BENCH_OPTS_H
#define _URING_BENCH_OPTS_H

#include <stdio.h>
#include <sys/time.h>

#define UB_MAX_DEPTH	4096U
#define UB_MAX_THREADS	256U
#define UB_MAX_BS	(16ULL << 20)
#define UB_MAX_RUNTIME	(365ULL * 24 * 3600)

struct ub_opts {
	unsigned int depth;		/* -d: I/Os in flight per thread */
	unsigned int batch_submit;	/* -s: SQEs per io_uring_enter */
	unsigned int batch_complete;	/* -c: min completions to wait for */
	unsigned long long bs;		/* -b: bytes per read */
	int polled;			/* -p: IORING_SETUP_IOPOLL */
	int fixedbufs;			/* -B: registered buffers */
	int regfiles;			/* -F: registered files */
	unsigned int threads;		/* -n: one ring each */
	unsigned long long runtime;	/* -r: seconds, 0 = until SIGINT */
	int random;			/* -R: random offsets, else sequential */
	int direct;			/* -O: O_DIRECT */
	int json;			/* --json */
	char **files;			/* positional arguments (into argv) */
	unsigned int nfiles;
	char warn[256];			/* a note for stderr (clamped batch) */
	char err[256];			/* why parsing failed */
};

enum ub_parse {
	UB_PARSE_OK,
	UB_PARSE_HELP,	/* -h or --help: print usage, exit 0 */
	UB_PARSE_ERR,	/* opts->err says why: exit 2 */
};

void ub_opts_default(struct ub_opts *o);
/* files points into argv, which must outlive opts. */
enum ub_parse ub_parse_args(struct ub_opts *o, int argc, char **argv);
void ub_usage(FILE *out);

/*
 * Strict unsigned decimal, optional k/m/g (1024-based) if suffixes != 0.
 * -1: not a number, -2: does not fit in 64 bits.
 */
int ub_parse_u64(const char *s, int suffixes, unsigned long long *val);

/* Per-second IOPS samples: max and mean. */
struct ub_stats {
	double *samples;
	size_t n, cap;
	double max, sum;
};

void ub_stats_init(struct ub_stats *st);
int ub_stats_add(struct ub_stats *st, double iops);	/* -1: no memory */
double ub_stats_max(const struct ub_stats *st);
double ub_stats_mean(const struct ub_stats *st);
void ub_stats_free(struct ub_stats *st);

/* I/Os over seconds; 0 if no time passed. */
double ub_rate(unsigned long long ios, double secs);
/* Microseconds of CPU per I/O between two rusage times; -1 if no I/O. */
double ub_us_per_io(struct timeval start, struct timeval end,
		    unsigned long long ios);

/* One per-second line: "IOPS=.., BW=..MiB/s, IOS/call=S/R". */
struct ub_interval {
	unsigned long long ios, calls, submitted, reaped;
	double secs;
};
int ub_format_interval(char *buf, size_t len, const struct ub_interval *iv,
		       unsigned long long bs);

struct ub_thread_result {
	unsigned long long ios;
	double usr_us_per_io, sys_us_per_io;	/* -1: no I/O */
};

struct ub_result {
	const struct ub_opts *opts;
	unsigned long long ios, calls, submitted, reaped;
	double runtime_s;
	const struct ub_stats *stats;
	const struct ub_thread_result *threads;
	unsigned int nthreads;
	int interrupted;
};

/* The end-of-run summary, as text or as one JSON object. */
void ub_print_summary(FILE *out, const struct ub_result *r);
void ub_print_json(FILE *out, const struct ub_result *r);

#endif
