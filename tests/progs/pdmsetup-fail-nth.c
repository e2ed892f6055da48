// SPDX-License-Identifier: GPL-2.0
/*
 * pdmsetup-fail-nth: pdmsetup built with this file in place of
 * tools/pdmsetup-ioctl.c, for tests on a fault-injection kernel
 * (tests/vm/pdm-fault-ctl.sh); a test-only program, never installed.
 *
 *   PDMSETUP_FAIL_NTH=N pdmsetup-fail-nth COMMAND [ARGS]
 *
 * makes the N-th fault-injection check (failslab, fail_page_alloc, ...)
 * that the command's first ioctl reaches fail, through
 * /proc/thread-self/fail-nth, and prints "pdmsetup: fail-nth: K left" on
 * stderr after it: K > 0 means the ioctl ended before its N-th check, so
 * nothing was injected.  fail-nth counts the calling task's checks, so it
 * must be armed in the task that issues the ioctl, right before it: a
 * wrapper that armed it and exec'd pdmsetup would spend it on the exec.
 * Without PDMSETUP_FAIL_NTH, this is pdmsetup.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../../tools/pdmsetup.h"

#define FAIL_NTH_PATH	"/proc/thread-self/fail-nth"

/*
 * Arm fail-nth just before the first ioctl, and after it say what was
 * left and disarm it.  Nothing between the two may allocate in the
 * kernel: the buffers are on the stack, and the file was opened ahead.
 * errno is kept for the caller.
 */
int pdm_ctl_ioctl(int fd, unsigned long cmd, struct pdm_ioctl *hdr)
{
	static int done;
	const char *env = getenv("PDMSETUP_FAIL_NTH");
	unsigned long n;
	char buf[16], *end;
	int nth, ret, err, len;
	ssize_t got;

	if (done || !env || !*env)
		return ioctl(fd, cmd, hdr);
	done = 1;
	n = strtoul(env, &end, 10);
	if (*end || !n) {
		fprintf(stderr, "pdmsetup: PDMSETUP_FAIL_NTH: '%s' is not a positive number\n",
			env);
		exit(1);
	}
	nth = open(FAIL_NTH_PATH, O_RDWR | O_CLOEXEC);
	if (nth < 0) {
		fprintf(stderr,
			"pdmsetup: %s: %s (PDMSETUP_FAIL_NTH needs CONFIG_FAULT_INJECTION)\n",
			FAIL_NTH_PATH, strerror(errno));
		exit(1);
	}
	len = snprintf(buf, sizeof(buf), "%lu", n);
	if (pwrite(nth, buf, len, 0) != len)
		perror("pdmsetup: arming fail-nth");
	ret = ioctl(fd, cmd, hdr);
	err = errno;
	got = pread(nth, buf, sizeof(buf) - 1, 0);
	if (pwrite(nth, "0", 1, 0) != 1 || got <= 0) {
		perror("pdmsetup: disarming fail-nth");
	} else {
		buf[got] = '\0';
		fprintf(stderr, "pdmsetup: fail-nth: %lu left\n",
			strtoul(buf, NULL, 10));
	}
	close(nth);
	errno = err;
	return ret;
}
