// SPDX-License-Identifier: GPL-2.0
/*
 * uring-resume: polled io_uring reads held back by a suspended pdm device,
 * resumed by another thread of the same process, for
 * tests/vm/pdm-resume-thread.sh.
 *
 *   uring-resume DEV NAME N
 *
 * Submits N 4 KiB polled (IORING_SETUP_IOPOLL) O_DIRECT reads of DEV,
 * which must be pdm device NAME, suspended; checks for 200 ms that none
 * completes; then a second thread sets its own make-it-fail (fault
 * injection, where the kernel has it) and issues PDM_IOC_RESUME for NAME,
 * while this thread reaps.  io_uring reissues a polled request that ends
 * with EAGAIN in a thread of its own process, and so never completes it:
 * pdm must replay held-back bios so that none can.  Prints
 * "before resume: K completed", "resume: OK" (or the error) and
 * "completed K of N, errors E"; exits 0 only if all N read 4096 bytes and
 * the resume succeeded, and 1 after 30 s without all completions.  A
 * test-only program, never installed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/pdm.h>

#define BS	4096

static const char *dev_name;
static int resume_err = -1;
static unsigned int reaped;
static unsigned int nr_ios;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *resume_thread(void *arg)
{
	struct pdm_ioctl io;
	int fd, mif;

	(void)arg;
	/* Fault injection for this thread only, where the kernel has it. */
	mif = open("/proc/thread-self/make-it-fail", O_WRONLY);
	if (mif >= 0) {
		if (write(mif, "1", 1) != 1)
			perror("uring-resume: make-it-fail");
		close(mif);
	}
	fd = open("/dev/pdm-control", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		resume_err = errno;
		return NULL;
	}
	memset(&io, 0, sizeof(io));
	io.version[0] = PDM_ABI_MAJOR;
	io.version[1] = PDM_ABI_MINOR;
	io.data_size = sizeof(io);
	io.data_start = sizeof(io);
	snprintf(io.name, sizeof(io.name), "%s", dev_name);
	resume_err = ioctl(fd, PDM_IOC_RESUME, &io) ? errno : 0;
	if (resume_err)
		fprintf(stderr, "uring-resume: resume: %s\n", io.err);
	close(fd);
	return NULL;
}

/* Reap what has completed, polling once; returns how many had errors. */
static unsigned int reap(struct io_uring *ring)
{
	struct io_uring_cqe *cqe;
	unsigned int errors = 0;

	while (io_uring_peek_cqe(ring, &cqe) == 0) {
		if (cqe->res != BS) {
			if (!errors)
				fprintf(stderr, "uring-resume: read: %d\n",
					cqe->res);
			errors++;
		}
		io_uring_cqe_seen(ring, cqe);
		reaped++;
	}
	return errors;
}

int main(int argc, char **argv)
{
	struct io_uring ring;
	unsigned int i, errors = 0;
	double deadline;
	pthread_t thread;
	void *buf;
	int fd, ret;

	if (argc != 4 || atoi(argv[3]) <= 0) {
		fprintf(stderr, "usage: uring-resume DEV NAME N\n");
		return 2;
	}
	dev_name = argv[2];
	nr_ios = atoi(argv[3]);
	fd = open(argv[1], O_RDONLY | O_DIRECT);
	if (fd < 0) {
		perror(argv[1]);
		return 2;
	}
	if (posix_memalign(&buf, BS, (size_t)BS * nr_ios))
		return 2;
	ret = io_uring_queue_init(nr_ios, &ring, IORING_SETUP_IOPOLL);
	if (ret) {
		fprintf(stderr, "io_uring_queue_init: %s\n", strerror(-ret));
		return 2;
	}
	for (i = 0; i < nr_ios; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		io_uring_prep_read(sqe, fd, (char *)buf + (size_t)i * BS, BS,
				   (off_t)i * BS);
	}
	ret = io_uring_submit(&ring);
	if (ret != (int)nr_ios) {
		fprintf(stderr, "io_uring_submit: %d\n", ret);
		return 2;
	}
	/* Suspended: polling finds nothing for a while. */
	for (i = 0; i < 20; i++) {
		io_uring_get_events(&ring);
		errors += reap(&ring);
		usleep(10000);
	}
	printf("before resume: %u completed\n", reaped);
	fflush(stdout);

	deadline = now_s() + 30;
	if (pthread_create(&thread, NULL, resume_thread, NULL))
		return 2;
	while (reaped < nr_ios) {
		io_uring_get_events(&ring);
		errors += reap(&ring);
		if (now_s() > deadline) {
			/* What never completes holds the ring: no clean exit. */
			printf("timeout: completed %u of %u\n", reaped, nr_ios);
			fflush(stdout);
			_exit(1);
		}
	}
	pthread_join(thread, NULL);
	if (resume_err)
		printf("resume: %s\n", strerror(resume_err));
	else
		printf("resume: OK\n");
	printf("completed %u of %u, errors %u\n", reaped, nr_ios, errors);
	io_uring_queue_exit(&ring);
	return errors || resume_err ? 1 : 0;
}
