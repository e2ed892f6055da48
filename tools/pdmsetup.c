// SPDX-License-Identifier: GPL-2.0
/*
 * pdmsetup: configure pdm devices, in the manner of dmsetup.
 *
 * Foundation stage: `version` reports the tool's and the driver's ABI.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/pdm.h>

#define CONTROL_PATH	"/dev/" PDM_CONTROL_NAME

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: pdmsetup COMMAND\n"
		"Commands:\n"
		"  version    print the tool's and the driver's ABI version\n"
		"  --help     this text\n");
}

static int open_control(void)
{
	int fd = open(CONTROL_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		fprintf(stderr, "pdmsetup: %s: %s%s\n", CONTROL_PATH,
			strerror(errno),
			errno == ENOENT ? " (is pdm.ko loaded?)" : "");
	return fd;
}

static int cmd_version(void)
{
	struct pdm_version ver;
	int fd = open_control();

	printf("Tool ABI:          %u.%u\n", PDM_ABI_MAJOR, PDM_ABI_MINOR);
	if (fd < 0)
		return 1;
	if (ioctl(fd, PDM_IOC_VERSION, &ver) < 0) {
		fprintf(stderr, "pdmsetup: version: %s\n", strerror(errno));
		close(fd);
		return 1;
	}
	close(fd);
	printf("Driver ABI:        %u.%u\n", ver.major, ver.minor);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "version"))
		return cmd_version();
	fprintf(stderr, "pdmsetup: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
