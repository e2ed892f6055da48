// SPDX-License-Identifier: GPL-2.0
/*
 * pdmsetup's way to the driver: opening /dev/pdm-control (loading pdm.ko
 * if it is missing) and issuing commands, each a struct pdm_ioctl header
 * with its data in one buffer, grown until the driver's output fits.
 * Every command ioctl goes through pdm_ctl_ioctl() (pdmsetup-ioctl.c, or
 * a test's fault-injecting replacement).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pdmsetup.h"

/* modprobe pdm, from PATH or /sbin; its own errors go to stderr. */
static int modprobe_pdm(void)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		execlp("modprobe", "modprobe", "pdm", (char *)NULL);
		execl("/sbin/modprobe", "modprobe", "pdm", (char *)NULL);
		fprintf(stderr, "pdmsetup: modprobe: %s\n", strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/*
 * Open the control device; if it is missing, load the module once, as
 * dmsetup has the kernel load dm-mod, and try again.  devtmpfs makes the
 * node before the module's init returns, udev may take a moment more.
 */
int open_control(void)
{
	int fd = open(CONTROL_PATH, O_RDWR | O_CLOEXEC);
	int loaded, i;

	/* modprobe would fail too, and say less. */
	if (fd < 0 && errno == ENOENT && geteuid() != 0) {
		fprintf(stderr, "pdmsetup: %s: %s (pdm.ko is not loaded, and loading it needs root)\n",
			CONTROL_PATH, strerror(errno));
		return -1;
	}
	if (fd < 0 && errno == ENOENT) {
		fprintf(stderr, "pdmsetup: loading pdm.ko (modprobe pdm)\n");
		loaded = modprobe_pdm() == 0;
		for (i = 0; i < (loaded ? 20 : 1); i++) {
			fd = open(CONTROL_PATH, O_RDWR | O_CLOEXEC);
			if (fd >= 0 || errno != ENOENT)
				break;
			usleep(50000);
		}
		if (fd < 0 && errno == ENOENT) {
			fprintf(stderr, "pdmsetup: %s: %s (%s)\n", CONTROL_PATH,
				strerror(errno), loaded ?
				"not created by pdm.ko" : "modprobe pdm failed");
			return -1;
		}
	}
	if (fd < 0)
		fprintf(stderr, "pdmsetup: %s: %s%s\n", CONTROL_PATH,
			strerror(errno), errno == EACCES || errno == EPERM ?
			" (pdmsetup needs root)" : "");
	return fd;
}

int req_init(struct req *r, const char *name, size_t room)
{
	r->size = sizeof(*r->hdr) + room;
	/* Not calloc: the pages are touched now, not in the ioctl. */
	r->hdr = malloc(r->size);
	if (!r->hdr) {
		perror("pdmsetup");
		return -1;
	}
	memset(r->hdr, 0, r->size);
	r->hdr->version[0] = PDM_ABI_MAJOR;
	r->hdr->version[1] = PDM_ABI_MINOR;
	r->hdr->data_size = r->size;
	r->hdr->data_start = sizeof(*r->hdr);
	/* pdmsetup_parse() refused longer names. */
	if (name)
		snprintf(r->hdr->name, sizeof(r->hdr->name), "%s", name);
	return 0;
}

char *req_data(struct req *r)
{
	return (char *)r->hdr + r->hdr->data_start;
}

/* What to add to a command's EPERM: the driver asks for CAP_SYS_ADMIN. */
const char *root_hint(int err)
{
	return err == EPERM ? " (pdmsetup needs root: CAP_SYS_ADMIN)" : "";
}

/* "pdmsetup: VERB NAME: <strerror>: <reason>" for a failed command. */
void req_err(struct req *r, const char *verb, int err)
{
	fprintf(stderr, "pdmsetup: %s%s%s: %s%s%s%s\n", verb,
		r->hdr->name[0] ? " " : "", r->hdr->name, strerror(err),
		r->hdr->err[0] ? ": " : "", r->hdr->err,
		err == ENOTTY ? " (pdm.ko speaks another ABI than this "
		"pdmsetup: see 'pdmsetup version')" : root_hint(err));
}

/*
 * Issue a command; for commands with output, grow the buffer until it
 * fits.  On failure returns -1 with errno set, and says why unless
 * @verb is NULL (the caller decides).
 */
int req_run(int fd, struct req *r, unsigned long cmd, const char *verb)
{
	for (;;) {
		struct pdm_ioctl *bigger;
		size_t size;

		if (pdm_ctl_ioctl(fd, cmd, r->hdr) < 0) {
			int err = errno;

			if (verb)
				req_err(r, verb, err);
			errno = err;
			return -1;
		}
		if (!(r->hdr->flags & PDM_F_BUFFER_FULL))
			return 0;
		size = sizeof(*r->hdr) + r->hdr->data_len;
		bigger = realloc(r->hdr, size);
		if (!bigger) {
			perror("pdmsetup");
			return -1;
		}
		r->hdr = bigger;
		r->size = size;
		r->hdr->data_size = size;
		r->hdr->flags &= ~PDM_F_BUFFER_FULL;
	}
}

/* Run a command with no data in or out: 0, or -1 (said why). */
int simple(int fd, unsigned long cmd, const char *verb,
		  const char *name, unsigned int flags)
{
	struct req r = {};
	int ret = -1;

	if (req_init(&r, name, 0) == 0) {
		r.hdr->flags = flags;
		ret = req_run(fd, &r, cmd, verb);
	}
	free(r.hdr);
	return ret;
}

/* The driver's ABI, or -1 (errno set). */
int driver_abi(int fd, struct pdm_version *ver)
{
	return ioctl(fd, PDM_IOC_VERSION, ver);
}

/* TABLE or STATUS text into @r: 0, or -1 (said why). */
int get_text(int fd, struct req *r, unsigned long cmd,
		    const char *verb, const char *name, unsigned int flags)
{
	if (req_init(r, name, 16384))
		return -1;
	r->hdr->flags = flags;
	return req_run(fd, r, cmd, verb);
}

/* Every device: a malloc'd array of LIST entries, or NULL (said why). */
struct pdm_list_entry *list_devices(int fd, const char *verb,
					   size_t *n)
{
	struct pdm_list_entry *e;
	struct req r = {};

	if (req_init(&r, NULL, 64 * sizeof(*e)) ||
	    req_run(fd, &r, PDM_IOC_LIST, verb)) {
		free(r.hdr);
		return NULL;
	}
	*n = r.hdr->data_len / sizeof(*e);
	e = malloc(*n * sizeof(*e) + 1);
	if (e)
		memcpy(e, req_data(&r), *n * sizeof(*e));
	else
		perror("pdmsetup");
	free(r.hdr);
	return e;
}
