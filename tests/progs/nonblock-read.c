// SPDX-License-Identifier: GPL-2.0
/*
 * The two reads a block device may refuse rather than hold: a read that
 * must not wait, and readahead.
 *
 *   nonblock-read nowait DEV       one 4 KiB O_DIRECT read at 0 with
 *                                  RWF_NOWAIT (a REQ_NOWAIT bio)
 *   nonblock-read willneed DEV LEN POSIX_FADV_WILLNEED over LEN bytes at 0
 *                                  (REQ_RAHEAD bios into the page cache)
 *
 * Prints "ok" or the errno's symbol (EAGAIN, ...) and exits 0 either way:
 * the test judges the outcome; 2 for a usage or set-up error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

static const char *errno_name(int err)
{
	switch (err) {
	case EAGAIN:
		return "EAGAIN";
	case EIO:
		return "EIO";
	case EOPNOTSUPP:
		return "EOPNOTSUPP";
	case EINVAL:
		return "EINVAL";
	default:
		return strerror(err);
	}
}

static int read_nowait(int fd)
{
	struct iovec iov = { .iov_len = 4096 };
	ssize_t n;

	if (posix_memalign(&iov.iov_base, 4096, iov.iov_len)) {
		fprintf(stderr, "nonblock-read: no memory\n");
		return 2;
	}
	n = preadv2(fd, &iov, 1, 0, RWF_NOWAIT);
	if (n < 0)
		printf("%s\n", errno_name(errno));
	else if (n != (ssize_t)iov.iov_len)
		printf("short read of %zd\n", n);
	else
		printf("ok\n");
	free(iov.iov_base);
	return 0;
}

int main(int argc, char **argv)
{
	int fd, err, ret;

	if (argc < 3 || (strcmp(argv[1], "nowait") &&
			 strcmp(argv[1], "willneed")) ||
	    (!strcmp(argv[1], "willneed") && argc != 4)) {
		fprintf(stderr, "usage: nonblock-read nowait DEV\n"
				"       nonblock-read willneed DEV LEN\n");
		return 2;
	}
	fd = open(argv[2], O_RDONLY | (argv[1][0] == 'n' ? O_DIRECT : 0));
	if (fd < 0) {
		fprintf(stderr, "nonblock-read: %s: %s\n", argv[2],
			strerror(errno));
		return 2;
	}
	if (argv[1][0] == 'n') {
		ret = read_nowait(fd);
	} else {
		err = posix_fadvise(fd, 0, strtoll(argv[3], NULL, 0),
				    POSIX_FADV_WILLNEED);
		printf("%s\n", err ? errno_name(err) : "ok");
		ret = 0;
	}
	close(fd);
	return ret;
}
