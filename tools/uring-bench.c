// SPDX-License-Identifier: GPL-2.0
/*
 * uring-bench: an io_uring read benchmark on liburing, in the manner of
 * fio's t/io_uring (same flags and defaults; written from scratch).
 *
 * Each thread owns one ring and a share of the files, keeps -d reads in
 * flight, submits up to -s per io_uring_enter and, once a whole submit
 * batch no longer fits, waits for at least -c completions.  The main
 * thread samples the threads' counters once a second and prints the
 * summary at the end, after -r seconds or on SIGINT/SIGTERM.
 *
 * Options, statistics and output formats live in uring-bench-opts.c,
 * which the host unit tests include.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>

#include <linux/fs.h>
#include <liburing.h>

#include "uring-bench-opts.h"

#define PROG	"uring-bench"

struct file_info {
	const char *name;
	int fd;
	int is_bdev;
	unsigned long long size;	/* bytes */
	unsigned long long nblocks;	/* whole blocks of -b bytes */
};

/* What an in-flight read is, for error messages. */
struct slot {
	unsigned int file;		/* index into the thread's files */
	unsigned long long off;
};

struct thread {
	unsigned int id;
	pthread_t tid;
	int started;
	struct io_uring ring;
	int ring_ok;
	unsigned int nfiles;
	unsigned int *files;		/* indices into files[] */
	int *fds;
	unsigned long long *seq;	/* next block, per file (-R0) */
	unsigned int next_file;
	uint64_t rng;
	void *bufmem;
	struct iovec *iov;		/* one buffer per slot */
	unsigned int *free_slots, nfree;
	struct slot *slots;
	struct io_uring_cqe **cqes;
	unsigned int inflight;		/* slots in use: queued or in kernel */

	/* Written by the thread, read by the main thread (relaxed). */
	unsigned long long ios, calls, submitted, reaped;
	int failed;			/* err is set (release) */

	struct rusage ru0, ru1;
	char err[512];
};

static struct ub_opts opts;
static struct file_info *files;
static struct thread *threads;
static int stop;			/* main -> threads */
static volatile sig_atomic_t got_signal;
static pthread_barrier_t barrier;

static void thread_fail(struct thread *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void thread_fail(struct thread *t, const char *fmt, ...)
{
	va_list ap;

	if (t->failed)
		return;
	va_start(ap, fmt);
	vsnprintf(t->err, sizeof(t->err), fmt, ap);
	va_end(ap);
	__atomic_store_n(&t->failed, 1, __ATOMIC_RELEASE);
}

/* xorshift64*: cheap and good enough for picking offsets. */
static inline uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static inline unsigned long long rand_below(uint64_t *s, unsigned long long n)
{
	return (unsigned long long)(((unsigned __int128)rng_next(s) * n) >> 64);
}

/*
 * A block device refuses polled I/O without saying so (blk-mq drops the
 * polled flag on a queue without poll queues), so ask sysfs first; a
 * partition's queue is its disk's.  1: polls, 0: does not, -1: unknown.
 */
static int bdev_io_poll(dev_t rdev)
{
	char path[128], c = 0;
	int fd;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/io_poll",
		 major(rdev), minor(rdev));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(path, sizeof(path),
			 "/sys/dev/block/%u:%u/../queue/io_poll",
			 major(rdev), minor(rdev));
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		return -1;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c == '0' ? 0 : c == '1' ? 1 : -1;
}

static int open_file(struct file_info *f)
{
	int flags = O_RDONLY | O_CLOEXEC | (opts.direct ? O_DIRECT : 0);
	struct stat st;

	if (stat(f->name, &st)) {
		fprintf(stderr, PROG ": %s: %s\n", f->name, strerror(errno));
		return -1;
	}
	if (!S_ISBLK(st.st_mode) && !S_ISREG(st.st_mode)) {
		fprintf(stderr, PROG ": %s: not a block device or regular file\n",
			f->name);
		return -1;
	}
	f->is_bdev = S_ISBLK(st.st_mode);
	f->fd = open(f->name, flags);
	if (f->fd < 0) {
		if (errno == EINVAL && opts.direct)
			fprintf(stderr, PROG ": %s: O_DIRECT refused (%s); run with -O0\n",
				f->name, strerror(errno));
		else
			fprintf(stderr, PROG ": %s: %s\n", f->name,
				strerror(errno));
		return -1;
	}
	if (f->is_bdev) {
		uint64_t bytes;
		int lbs;

		if (ioctl(f->fd, BLKGETSIZE64, &bytes)) {
			fprintf(stderr, PROG ": %s: BLKGETSIZE64: %s\n",
				f->name, strerror(errno));
			return -1;
		}
		f->size = bytes;
		if (opts.direct && !ioctl(f->fd, BLKSSZGET, &lbs) && lbs > 0 &&
		    opts.bs % lbs) {
			fprintf(stderr, PROG ": %s: -b %llu is not a multiple of the logical block size %d\n",
				f->name, opts.bs, lbs);
			return -1;
		}
		if (opts.polled && bdev_io_poll(st.st_rdev) == 0) {
			fprintf(stderr, PROG ": %s: polling not supported (io_poll=0); run with -p0\n",
				f->name);
			return -1;
		}
	} else {
		f->size = st.st_size;
	}
	f->nblocks = f->size / opts.bs;
	if (!f->nblocks) {
		fprintf(stderr, PROG ": %s: smaller than the block size (%llu < %llu bytes)\n",
			f->name, f->size, opts.bs);
		return -1;
	}
	return 0;
}

static int ring_init(struct thread *t)
{
	static const unsigned int extra[] = {
		IORING_SETUP_SUBMIT_ALL | IORING_SETUP_COOP_TASKRUN |
			IORING_SETUP_SINGLE_ISSUER,
		IORING_SETUP_SUBMIT_ALL,
		0,
	};
	unsigned int base = opts.polled ? IORING_SETUP_IOPOLL : 0;
	size_t i;
	int ret = -EINVAL;

	/* Newer setup flags first; older kernels say EINVAL to them. */
	for (i = 0; i < sizeof(extra) / sizeof(extra[0]) && ret == -EINVAL; i++) {
		struct io_uring_params p;

		memset(&p, 0, sizeof(p));
		p.flags = base | extra[i];
		ret = io_uring_queue_init_params(opts.depth, &t->ring, &p);
	}
	if (ret < 0) {
		thread_fail(t, "io_uring_queue_init (%u entries): %s%s",
			    opts.depth, strerror(-ret),
			    ret == -ENOSYS ? " (no io_uring in this kernel)" :
			    ret == -EPERM ? " (io_uring disabled: kernel.io_uring_disabled?)" :
			    ret == -ENOMEM ? " (RLIMIT_MEMLOCK too low?)" : "");
		return -1;
	}
	t->ring_ok = 1;
	return 0;
}

static int thread_setup(struct thread *t)
{
	unsigned int i, depth = opts.depth;
	size_t len = (size_t)opts.bs * depth;
	int ret;

	t->rng = 0x9E3779B97F4A7C15ULL * (t->id + 1) ^ (uint64_t)time(NULL) ^
		 ((uint64_t)getpid() << 32);
	if (!t->rng)
		t->rng = 1;
	t->fds = calloc(t->nfiles, sizeof(*t->fds));
	t->seq = calloc(t->nfiles, sizeof(*t->seq));
	t->iov = calloc(depth, sizeof(*t->iov));
	t->free_slots = calloc(depth, sizeof(*t->free_slots));
	t->slots = calloc(depth, sizeof(*t->slots));
	t->cqes = calloc(depth, sizeof(*t->cqes));
	if (!t->fds || !t->seq || !t->iov || !t->free_slots || !t->slots ||
	    !t->cqes || posix_memalign(&t->bufmem, 4096, len)) {
		t->bufmem = NULL;
		thread_fail(t, "out of memory for %u buffers of %llu bytes",
			    depth, opts.bs);
		return -1;
	}
	memset(t->bufmem, 0, len);
	for (i = 0; i < depth; i++) {
		t->iov[i].iov_base = (char *)t->bufmem + (size_t)i * opts.bs;
		t->iov[i].iov_len = opts.bs;
		t->free_slots[i] = depth - 1 - i;
	}
	t->nfree = depth;
	for (i = 0; i < t->nfiles; i++) {
		const struct file_info *f = &files[t->files[i]];

		t->fds[i] = f->fd;
		/* Threads sharing a file start -R0 at different places. */
		t->seq[i] = (unsigned long long)
			((unsigned __int128)f->nblocks * t->id / opts.threads);
	}

	if (ring_init(t))
		return -1;
	if (opts.fixedbufs) {
		ret = io_uring_register_buffers(&t->ring, t->iov, depth);
		if (ret < 0) {
			thread_fail(t, "registering %u buffers of %llu bytes: %s%s",
				    depth, opts.bs, strerror(-ret),
				    ret == -ENOMEM ? " (RLIMIT_MEMLOCK too low? try -B0)" : "");
			return -1;
		}
	}
	if (opts.regfiles) {
		ret = io_uring_register_files(&t->ring, t->fds, t->nfiles);
		if (ret < 0) {
			thread_fail(t, "registering %u files: %s%s", t->nfiles,
				    strerror(-ret),
				    ret == -EMFILE ? " (RLIMIT_NOFILE? try -F0)" : "");
			return -1;
		}
	}
	return 0;
}

static inline void prep_one(struct thread *t, struct io_uring_sqe *sqe)
{
	unsigned int slot = t->free_slots[--t->nfree];
	unsigned int lf = t->next_file;
	const struct file_info *f = &files[t->files[lf]];
	unsigned long long blk, off;
	void *buf = t->iov[slot].iov_base;
	int fd = opts.regfiles ? (int)lf : f->fd;

	if (++t->next_file == t->nfiles)
		t->next_file = 0;
	if (opts.random) {
		blk = rand_below(&t->rng, f->nblocks);
	} else {
		blk = t->seq[lf];
		if (++t->seq[lf] == f->nblocks)
			t->seq[lf] = 0;
	}
	off = blk * opts.bs;
	if (opts.fixedbufs)
		io_uring_prep_read_fixed(sqe, fd, buf, opts.bs, off, slot);
	else
		io_uring_prep_read(sqe, fd, buf, opts.bs, off);
	if (opts.regfiles)
		sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data64(sqe, slot);
	t->slots[slot].file = lf;
	t->slots[slot].off = off;
}

/* Check a completion; 1: a good read, 0: to retry, -1: failed. */
static int check_cqe(struct thread *t, const struct io_uring_cqe *cqe,
		     unsigned int slot)
{
	const struct slot *s = &t->slots[slot];
	const char *name = files[t->files[s->file]].name;
	int res = cqe->res;

	if (res >= 0 && (unsigned long long)res == opts.bs)
		return 1;
	if (res == -EAGAIN)
		return 0;
	if (res == -EOPNOTSUPP && opts.polled)
		thread_fail(t, "%s: polling not supported (io_poll=0?); run with -p0",
			    name);
	else if (res == -EINVAL && opts.direct)
		thread_fail(t, "%s: read of %llu bytes at offset %llu: %s (O_DIRECT alignment? try another -b, or -O0)",
			    name, opts.bs, s->off, strerror(-res));
	else if (res < 0)
		thread_fail(t, "%s: read of %llu bytes at offset %llu: %s",
			    name, opts.bs, s->off, strerror(-res));
	else
		thread_fail(t, "%s: short read: %d of %llu bytes at offset %llu",
			    name, res, opts.bs, s->off);
	return -1;
}

/* Reap what is there; returns the number of good reads, -1 on failure. */
static int reap(struct thread *t, int counting)
{
	unsigned int n, i, good = 0;
	int bad = 0;

	while ((n = io_uring_peek_batch_cqe(&t->ring, t->cqes, opts.depth))) {
		for (i = 0; i < n; i++) {
			unsigned int slot = io_uring_cqe_get_data64(t->cqes[i]);
			int ret = counting ? check_cqe(t, t->cqes[i], slot) : 1;

			good += ret > 0;
			bad |= ret < 0;
			t->free_slots[t->nfree++] = slot;
		}
		t->inflight -= n;
		io_uring_cq_advance(&t->ring, n);
	}
	return bad ? -1 : (int)good;
}

static void run_loop(struct thread *t)
{
	unsigned long long ios = 0, calls = 0, submitted = 0, reaped = 0;
	unsigned int depth = opts.depth;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		unsigned int to_submit = depth - t->inflight, i;
		unsigned int wait_nr = 0;
		int ret;

		if (to_submit > opts.batch_submit)
			to_submit = opts.batch_submit;
		for (i = 0; i < to_submit; i++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&t->ring);

			if (!sqe)
				break;
			prep_one(t, sqe);
		}
		to_submit = i;
		t->inflight += to_submit;
		/*
		 * Keep the queue full: once a whole submit batch no longer
		 * fits, wait for a completion batch.  SUBMIT_ALL: everything
		 * queued goes to the kernel.
		 */
		if (depth - t->inflight < opts.batch_submit)
			wait_nr = t->inflight < opts.batch_complete ?
				  t->inflight : opts.batch_complete;
		ret = io_uring_submit_and_wait(&t->ring, wait_nr);
		if (ret < 0) {
			if (ret == -EINTR || ret == -EAGAIN || ret == -EBUSY) {
				if (reap(t, 1) < 0)
					break;
				continue;
			}
			thread_fail(t, "io_uring_enter: %s", strerror(-ret));
			break;
		}
		/* liburing enters when there is something to submit or wait
		 * for, and always with IOPOLL. */
		if (ret > 0 || wait_nr || opts.polled)
			calls++;
		submitted += ret;
		ret = reap(t, 1);
		if (ret < 0)
			break;
		ios += ret;
		reaped += ret;
		__atomic_store_n(&t->ios, ios, __ATOMIC_RELAXED);
		__atomic_store_n(&t->calls, calls, __ATOMIC_RELAXED);
		__atomic_store_n(&t->submitted, submitted, __ATOMIC_RELAXED);
		__atomic_store_n(&t->reaped, reaped, __ATOMIC_RELAXED);
	}
	getrusage(RUSAGE_THREAD, &t->ru1);
}

/* Wait for every read in flight before the ring and buffers go. */
static void drain(struct thread *t)
{
	while (t->inflight) {
		int ret = io_uring_submit_and_wait(&t->ring, 1);

		if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY)
			break;
		reap(t, 0);
	}
}

static void *thread_main(void *arg)
{
	struct thread *t = arg;
	int ok = !thread_setup(t);

	pthread_barrier_wait(&barrier);		/* setup done */
	pthread_barrier_wait(&barrier);		/* main checked */
	if (ok && !__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		getrusage(RUSAGE_THREAD, &t->ru0);
		run_loop(t);
		drain(t);
	}
	if (t->ring_ok)
		io_uring_queue_exit(&t->ring);
	free(t->bufmem);
	free(t->iov);
	free(t->free_slots);
	free(t->slots);
	free(t->cqes);
	free(t->fds);
	free(t->seq);
	return NULL;
}

static void on_signal(int sig)
{
	(void)sig;
	got_signal = 1;
}

static int any_failed(void)
{
	unsigned int i;

	for (i = 0; i < opts.threads; i++)
		if (__atomic_load_n(&threads[i].failed, __ATOMIC_ACQUIRE))
			return 1;
	return 0;
}

static double ts_diff(struct timespec a, struct timespec b)
{
	return (a.tv_sec - b.tv_sec) + (a.tv_nsec - b.tv_nsec) / 1e9;
}

static int ts_before(struct timespec a, struct timespec b)
{
	return a.tv_sec < b.tv_sec ||
	       (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

static void sum_counters(struct ub_interval *c)
{
	unsigned int i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < opts.threads; i++) {
		struct thread *t = &threads[i];

		c->ios += __atomic_load_n(&t->ios, __ATOMIC_RELAXED);
		c->calls += __atomic_load_n(&t->calls, __ATOMIC_RELAXED);
		c->submitted += __atomic_load_n(&t->submitted, __ATOMIC_RELAXED);
		c->reaped += __atomic_load_n(&t->reaped, __ATOMIC_RELAXED);
	}
}

/* Sample once a second until the runtime is up, a signal, or a failure. */
static double monitor(struct ub_stats *st, struct timespec t0)
{
	struct timespec now = t0, next = t0, prev_time = t0;
	struct ub_interval prev, cur;

	memset(&prev, 0, sizeof(prev));
	next.tv_sec++;
	for (;;) {
		struct timespec until;

		clock_gettime(CLOCK_MONOTONIC, &now);
		if (got_signal || any_failed())
			break;
		if (!ts_before(now, next)) {
			struct ub_interval iv;
			char line[160];

			sum_counters(&cur);
			iv.ios = cur.ios - prev.ios;
			iv.calls = cur.calls - prev.calls;
			iv.submitted = cur.submitted - prev.submitted;
			iv.reaped = cur.reaped - prev.reaped;
			iv.secs = ts_diff(now, prev_time);
			if (ub_stats_add(st, ub_rate(iv.ios, iv.secs)))
				fprintf(stderr, PROG ": out of memory for samples\n");
			if (!opts.json) {
				ub_format_interval(line, sizeof(line), &iv, opts.bs);
				printf("%s\n", line);
				fflush(stdout);
			}
			prev = cur;
			prev_time = now;
			if (opts.runtime &&
			    ts_diff(now, t0) >= opts.runtime - 0.001)
				break;
			/* After a late wake-up, skip the ticks missed rather
			 * than take samples over slivers of time. */
			while (!ts_before(now, next))
				next.tv_sec++;
			continue;
		}
		/* Wake at the next tick, or in 100 ms to notice a failure. */
		until = now;
		until.tv_nsec += 100 * 1000 * 1000;
		if (until.tv_nsec >= 1000 * 1000 * 1000) {
			until.tv_sec++;
			until.tv_nsec -= 1000 * 1000 * 1000;
		}
		if (ts_before(next, until))
			until = next;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL);
	}
	return ts_diff(now, t0);
}

/* Files are dealt round-robin; with more threads than files, shared. */
static int assign_files(void)
{
	unsigned int i, f;

	for (i = 0; i < opts.threads; i++) {
		struct thread *t = &threads[i];

		t->id = i;
		t->files = calloc(opts.nfiles, sizeof(*t->files));
		if (!t->files)
			return -1;
		if (opts.nfiles <= opts.threads) {
			t->files[t->nfiles++] = i % opts.nfiles;
			continue;
		}
		for (f = i; f < opts.nfiles; f += opts.threads)
			t->files[t->nfiles++] = f;
	}
	return 0;
}

static void cleanup(void)
{
	unsigned int i;

	for (i = 0; i < opts.nfiles; i++)
		if (files[i].fd >= 0)
			close(files[i].fd);
	for (i = 0; i < opts.threads; i++)
		free(threads[i].files);
	free(files);
	free(threads);
}

int main(int argc, char **argv)
{
	struct ub_thread_result *tres;
	struct ub_result res;
	struct ub_stats st;
	struct sigaction sa;
	struct timespec t0;
	sigset_t sigs, old;
	unsigned int i, nstarted = 0;
	int failed = 0, ret;
	double runtime;

	switch (ub_parse_args(&opts, argc, argv)) {
	case UB_PARSE_HELP:
		ub_usage(stdout);
		return 0;
	case UB_PARSE_ERR:
		fprintf(stderr, PROG ": %s\nTry '" PROG " --help'.\n", opts.err);
		return 2;
	case UB_PARSE_OK:
		break;
	}
	if (opts.warn[0])
		fprintf(stderr, PROG ": %s\n", opts.warn);

	files = calloc(opts.nfiles, sizeof(*files));
	threads = calloc(opts.threads, sizeof(*threads));
	tres = calloc(opts.threads, sizeof(*tres));
	if (!files || !threads || !tres || assign_files()) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	for (i = 0; i < opts.nfiles; i++) {
		files[i].name = opts.files[i];
		files[i].fd = -1;
	}
	for (i = 0; i < opts.nfiles; i++) {
		if (open_file(&files[i])) {
			cleanup();
			free(tres);
			return 1;
		}
	}

	/* Signals go to the main thread only. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, &old);

	pthread_barrier_init(&barrier, NULL, opts.threads + 1);
	for (i = 0; i < opts.threads; i++) {
		ret = pthread_create(&threads[i].tid, NULL, thread_main,
				     &threads[i]);
		if (ret) {
			fprintf(stderr, PROG ": pthread_create: %s\n",
				strerror(ret));
			/* Release the ones started: they see stop set. */
			__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
			return 1;
		}
		nstarted++;
	}
	pthread_barrier_wait(&barrier);
	if (any_failed())
		__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pthread_barrier_wait(&barrier);
	pthread_sigmask(SIG_SETMASK, &old, NULL);

	ub_stats_init(&st);
	runtime = __atomic_load_n(&stop, __ATOMIC_RELAXED) ? 0 : monitor(&st, t0);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < nstarted; i++)
		pthread_join(threads[i].tid, NULL);

	/* Threads sharing a file may fail alike: say each thing once. */
	for (i = 0; i < opts.threads; i++) {
		unsigned int j;

		if (!threads[i].failed)
			continue;
		failed = 1;
		for (j = 0; j < i; j++)
			if (threads[j].failed &&
			    !strcmp(threads[j].err, threads[i].err))
				break;
		if (j == i)
			fprintf(stderr, PROG ": %s\n", threads[i].err);
	}
	if (failed) {
		cleanup();
		free(tres);
		return 1;
	}

	memset(&res, 0, sizeof(res));
	for (i = 0; i < opts.threads; i++) {
		struct thread *t = &threads[i];

		tres[i].ios = t->ios;
		tres[i].usr_us_per_io = ub_us_per_io(t->ru0.ru_utime,
						     t->ru1.ru_utime, t->ios);
		tres[i].sys_us_per_io = ub_us_per_io(t->ru0.ru_stime,
						     t->ru1.ru_stime, t->ios);
		res.ios += t->ios;
		res.calls += t->calls;
		res.submitted += t->submitted;
		res.reaped += t->reaped;
	}
	res.opts = &opts;
	res.runtime_s = runtime;
	res.stats = &st;
	res.threads = tres;
	res.nthreads = opts.threads;
	res.interrupted = got_signal;
	if (opts.json)
		ub_print_json(stdout, &res);
	else
		ub_print_summary(stdout, &res);
	ub_stats_free(&st);
	cleanup();
	free(tres);
	return 0;
}
