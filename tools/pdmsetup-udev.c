// SPDX-License-Identifier: GPL-2.0
/*
 * pdmsetup's wait for udev after a command that changes a device's links
 * (create, rename, remove, a resume that sends an event), as dmsetup
 * waits for its udev cookie: a script may use /dev/pdm/NAME, or reuse a
 * name, as soon as the command returns.  pdm has no cookie to wait on, so
 * each wait is for what udev must have done: a link that names the
 * device, a link gone, the device's udev database entry rewritten.
 *
 * Where no udev runs (an initramfs, a container: no /run/udev/control)
 * or --noudevsync is given, nothing waits.  Each wait is bounded: udevd
 * busy with a boot's events may take seconds, and a missing rule file
 * must not hang a script; a wait that runs out is said, and the command
 * still succeeds (what the driver did, it did).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "pdmsetup.h"

/* 1000 tries 20 ms apart. */
#define UDEV_TRIES	1000
#define UDEV_POLL_US	20000

int udev_sync_wanted(unsigned int opts)
{
	return !(opts & OPT_NOUDEVSYNC) &&
	       access("/run/udev/control", F_OK) == 0;
}

/* Whether @path is the block device @dev. */
static int is_dev(const char *path, dev_t dev)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISBLK(st.st_mode) &&
	       st.st_rdev == dev;
}

/* Whether @path is gone (a dangling link counts as there). */
static int is_gone(const char *path)
{
	struct stat st;

	return lstat(path, &st) < 0 && errno == ENOENT;
}

void udev_name_link(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "/dev/pdm/%s", name);
}

static void db_path(char *buf, size_t size, dev_t dev)
{
	snprintf(buf, size, "/run/udev/data/b%u:%u", major(dev), minor(dev));
}

ino_t udev_db_ino(dev_t dev)
{
	char path[64];
	struct stat st;

	db_path(path, sizeof(path), dev);
	return stat(path, &st) == 0 ? st.st_ino : 0;
}

int udev_wait_links(const char *name, dev_t dev, const char *gone)
{
	char link[sizeof("/dev/pdm/") + PDM_NAME_LEN];
	char old[sizeof("/dev/pdm/") + PDM_NAME_LEN];
	int i;

	if (name)
		udev_name_link(link, sizeof(link), name);
	if (gone)
		udev_name_link(old, sizeof(old), gone);
	for (i = 0; i < UDEV_TRIES; i++) {
		if ((!name || is_dev(link, dev)) && (!gone || is_gone(old)))
			return 0;
		usleep(UDEV_POLL_US);
	}
	return -1;
}

int udev_wait_db(dev_t dev, ino_t before)
{
	int i;

	for (i = 0; i < UDEV_TRIES; i++) {
		/* udev writes a new file and renames it over the old. */
		if (udev_db_ino(dev) != before)
			return 0;
		usleep(UDEV_POLL_US);
	}
	return -1;
}
