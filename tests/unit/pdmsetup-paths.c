// SPDX-License-Identifier: GPL-2.0
/*
 * pdmsetup table --paths (tools/pdmsetup-paths.c) against a /sys and a
 * /dev/disk of its own: each MAJOR:MINOR leg becomes the first by-id
 * link, in name order, to that disk (a partition's own link, not its
 * disk's; a kernel name with a directory, as cciss/c0d0; not a link to a
 * name that merely ends like it), by-path where it has no by-id link; the rest of the table is
 * left as it is; a leg with no such device, or with no link, is an error
 * that names it.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../tools/pdmsetup-paths.c"
#include "unit.h"

static char root[64];

static void mkpath(const char *rel)
{
	char p[256], *s;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	mkdir(p, 0755);
}

/* sys/dev/block/@devnum/uevent, naming the device @name. */
static void dev_at(const char *devnum, const char *name)
{
	char rel[64], p[256];
	FILE *f;

	snprintf(rel, sizeof(rel), "sys/dev/block/%s", devnum);
	mkpath(rel);
	snprintf(p, sizeof(p), "%s/%s/uevent", root, rel);
	f = fopen(p, "w");
	if (!f) {
		perror(p);
		return;
	}
	fprintf(f, "MAJOR=%.*s\nDEVNAME=%s\nDEVTYPE=disk\n",
		(int)strcspn(devnum, ":"), devnum, name);
	fclose(f);
}

static void link_at(const char *target, const char *rel)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	if (symlink(target, p))
		perror(p);
}

/* The table through pdm_table_paths(): the text, or "ERR: message". */
static const char *paths(const char *table)
{
	static char out[1024];
	char err[256], *buf = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&buf, &size);
	int ret;

	ret = pdm_table_paths(root, table, strlen(table), mem, err,
			      sizeof(err));
	fclose(mem);
	if (ret)
		snprintf(out, sizeof(out), "ERR: %s", err);
	else
		snprintf(out, sizeof(out), "%s", buf);
	free(buf);
	return out;
}

int main(void)
{
	char cmd[128];

	snprintf(root, sizeof(root), "/tmp/pdmsetup-paths.XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	mkpath("sys/dev/block");
	mkpath("dev/disk/by-id");
	mkpath("dev/disk/by-path");
	dev_at("259:0", "nvme0n1");
	dev_at("259:1", "nvme0n1p1");
	dev_at("254:16", "vdb");
	dev_at("250:0", "nullb0");
	dev_at("104:0", "cciss/c0d0");
	/* Two by-id links to nvme0n1: the first in name order wins; a link
	 * to a name that only ends like it is not one of them. */
	link_at("../../xnvme0n1", "dev/disk/by-id/a-not-it");
	link_at("../../nvme0n1", "dev/disk/by-id/nvme-eui.0001");
	link_at("../../nvme0n1", "dev/disk/by-id/nvme-QEMU_NVMe_Ctrl_s0");
	link_at("../../nvme0n1p1", "dev/disk/by-id/nvme-QEMU_NVMe_Ctrl_s0-part1");
	link_at("../../vdb", "dev/disk/by-path/pci-0000:00:05.0");
	link_at("../../cciss/c0d0", "dev/disk/by-id/cciss-3600508b1");

	CHECK_STR("linear",
		  "0 8 linear /dev/disk/by-id/nvme-QEMU_NVMe_Ctrl_s0 0\n",
		  paths("0 8 linear 259:0 0\n"));
	CHECK_STR("partition",
		  "0 8 linear /dev/disk/by-id/nvme-QEMU_NVMe_Ctrl_s0-part1 2048\n",
		  paths("0 8 linear 259:1 2048\n"));
	CHECK_STR("by-path fallback, striped, two lines",
		  "0 16 striped 2 8 /dev/disk/by-id/nvme-QEMU_NVMe_Ctrl_s0 0 /dev/disk/by-path/pci-0000:00:05.0 0\n16 8 zero\n",
		  paths("0 16 striped 2 8 259:0 0 254:16 0\n16 8 zero\n"));
	CHECK_STR("no link", "ERR: lower device 250:0: no link in /dev/disk/by-id or /dev/disk/by-path (are udev's rules installed?)",
		  paths("0 8 linear 250:0 0\n"));
	CHECK_STR("no device", "ERR: lower device 8:0: no such block device",
		  paths("0 8 linear 8:0 0\n"));
	CHECK_STR("a name in a subdirectory",
		  "0 8 linear /dev/disk/by-id/cciss-3600508b1 0\n",
		  paths("0 8 linear 104:0 0\n"));
	CHECK_STR("paths left alone", "0 8 linear /dev/vdb 0\n",
		  paths("0 8 linear /dev/vdb 0\n"));

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	if (system(cmd))
		perror(cmd);
	return unit_done("pdmsetup-paths");
}
