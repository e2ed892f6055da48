// SPDX-License-Identifier: GPL-2.0
/*
 * pdmsetup table --paths: a table with its lower devices named by stable
 * paths instead of the MAJOR:MINOR numbers the kernel prints.  A number
 * names whatever disk the kernel gave it at this boot: NVMe namespaces and
 * partitions share the dynamic minors handed out in probe order, so a
 * saved table of numbers can map another disk at the next boot.  udev's
 * /dev/disk/by-id links name the disk itself (model and serial, EUI,
 * WWN); by-path, the slot it sits in, is the fallback.
 *
 * Everything is read under a root directory ("" for the running system),
 * so that the unit tests can build a /sys and a /dev of their own.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pdmsetup.h"

/**
 * pdm_dev_name() - the kernel's name of block device @major:@minor
 * @root:  where /sys is ("" for the running system)
 * @buf:   filled with its uevent's DEVNAME ("nvme0n1p2"), cut to @size
 *
 * Return: 0, or -ENODEV where there is no such device.
 */
int pdm_dev_name(const char *root, unsigned int major, unsigned int minor,
		 char *buf, size_t size)
{
	char path[PATH_MAX], line[160];
	int ret = -ENODEV;
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/dev/block/%u:%u/uevent", root,
		 major, minor);
	f = fopen(path, "r");
	if (!f)
		return -ENODEV;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "DEVNAME=", 8)) {
			size_t n = strcspn(line + 8, "\n");

			n = n < size ? n : size - 1;
			memcpy(buf, line + 8, n);
			buf[n] = '\0';
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

/*
 * The first link, in name order, of @root/dev/disk/@dir that points at
 * the device the kernel calls @name (udev's links are "../../NAME"); 0
 * and its path in @path, or -ENOENT.  Name order, so that the same disk
 * gets the same path every time.
 */
static int link_to(const char *root, const char *dir, const char *name,
		   char *path, size_t len)
{
	char d[PATH_MAX], link[PATH_MAX], target[PATH_MAX];
	struct dirent **ents;
	int i, n, ret = -ENOENT;

	snprintf(d, sizeof(d), "%s/dev/disk/%s", root, dir);
	n = scandir(d, &ents, NULL, alphasort);
	if (n < 0)
		return -ENOENT;
	for (i = 0; i < n; i++) {
		size_t tl, nl = strlen(name);
		ssize_t t;

		if (!ret || ents[i]->d_name[0] == '.')
			goto next;
		if ((size_t)snprintf(link, sizeof(link), "%s/%s", d,
				     ents[i]->d_name) >= sizeof(link))
			goto next;
		t = readlink(link, target, sizeof(target) - 1);
		if (t < 0)
			goto next;
		target[t] = '\0';
		tl = t;
		if (tl < nl || strcmp(target + tl - nl, name) ||
		    (tl > nl && target[tl - nl - 1] != '/'))
			goto next;
		if ((size_t)snprintf(path, len, "/dev/disk/%s/%s", dir,
				     ents[i]->d_name) < len)
			ret = 0;
next:
		free(ents[i]);
	}
	free(ents);
	return ret;
}

/**
 * pdm_stable_path() - a stable path for block device @major:@minor
 * @root:  where /sys and /dev are ("" for the running system)
 * @path:  filled with the path, under /dev/disk/by-id or else by-path
 *
 * Return: 0, or a negative errno: -ENODEV where there is no such device,
 * -ENOENT where udev made no stable link to it.
 */
int pdm_stable_path(const char *root, unsigned int major, unsigned int minor,
		    char *path, size_t len)
{
	char name[NAME_MAX + 1];

	if (pdm_dev_name(root, major, minor, name, sizeof(name)))
		return -ENODEV;
	if (!link_to(root, "by-id", name, path, len) ||
	    !link_to(root, "by-path", name, path, len))
		return 0;
	return -ENOENT;
}

/* Whether @tok, of @len bytes, is MAJOR:MINOR; both parsed if so. */
static int is_devnum(const char *tok, size_t len, unsigned int *major,
		     unsigned int *minor)
{
	char buf[32], *end;
	unsigned long ma, mi;

	if (len >= sizeof(buf) || !len || tok[0] < '0' || tok[0] > '9')
		return 0;
	memcpy(buf, tok, len);
	buf[len] = '\0';
	ma = strtoul(buf, &end, 10);
	if (*end != ':' || end[1] < '0' || end[1] > '9')
		return 0;
	mi = strtoul(end + 1, &end, 10);
	if (*end || ma > UINT_MAX || mi > UINT_MAX)
		return 0;
	*major = ma;
	*minor = mi;
	return 1;
}

/**
 * pdm_table_paths() - write table @text with its legs as stable paths
 * @root:   as for pdm_stable_path()
 * @text:   the table as the kernel prints it, @len bytes
 * @out:    where the result goes
 * @err:    a message for the first leg with no stable path
 *
 * Every MAJOR:MINOR field is a leg (no other field of a table has a
 * colon); the rest of the text is copied as it is.
 * Return: 0, or -1 with @err set; @out then holds the table up to that
 * leg, which the caller discards (pdmsetup prints nothing).
 */
int pdm_table_paths(const char *root, const char *text, size_t len,
		    FILE *out, char *err, size_t errlen)
{
	size_t i = 0;

	while (i < len) {
		char path[PATH_MAX];
		unsigned int ma, mi;
		size_t j = i;
		int ret;

		if (text[i] == ' ' || text[i] == '\t' || text[i] == '\n') {
			fputc(text[i++], out);
			continue;
		}
		while (j < len && text[j] != ' ' && text[j] != '\t' &&
		       text[j] != '\n')
			j++;
		if (!is_devnum(text + i, j - i, &ma, &mi)) {
			fwrite(text + i, 1, j - i, out);
			i = j;
			continue;
		}
		ret = pdm_stable_path(root, ma, mi, path, sizeof(path));
		if (ret) {
			snprintf(err, errlen, ret == -ENODEV ?
				 "lower device %u:%u: no such block device" :
				 "lower device %u:%u: no link in /dev/disk/by-id or /dev/disk/by-path (are udev's rules installed?)",
				 ma, mi);
			return -1;
		}
		fputs(path, out);
		i = j;
	}
	return 0;
}
