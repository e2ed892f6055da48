// SPDX-License-Identifier: GPL-2.0
/*
 * pdm-ctl-out: issue one output command of /dev/pdm-control (LIST, TABLE,
 * STATUS) with a data area of exactly ROOM bytes, and show what the driver
 * did with it, for tests of the output protocol (tests/vm/pdm-ctl-out.sh).
 *
 *   pdm-ctl-out list|table|inactive|status NAME ROOM
 *
 * stderr gets one line: "full=F len=N reach=R", where F is 1 if
 * PDM_F_BUFFER_FULL came back, N is data_len and R is how far into the
 * data area (and a guard area after it) the driver wrote: the offset
 * after the last byte that no longer holds the fill pattern.  stdout gets
 * the data: for text, the data_len bytes as they are; for list, one line
 * per entry, "MAJOR:MINOR NAME clean|dirty", dirty if any byte after the
 * name's NUL or in the padding is not zero.  A test-only program, never
 * installed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/pdm.h>

#define FILL	0xa5
#define GUARD	4096

static int usage(void)
{
	fprintf(stderr,
		"usage: pdm-ctl-out list|table|inactive|status NAME ROOM\n");
	return 2;
}

static void print_list(const unsigned char *data, size_t len)
{
	size_t at;

	for (at = 0; at + sizeof(struct pdm_list_entry) <= len;
	     at += sizeof(struct pdm_list_entry)) {
		struct pdm_list_entry e;
		size_t n, i;
		int clean;

		memcpy(&e, data + at, sizeof(e));
		n = strnlen(e.name, sizeof(e.name));
		clean = n < sizeof(e.name) && !(e.flags & ~PDM_F_SHARED);
		for (i = n; i < sizeof(e.name); i++)
			if (e.name[i])
				clean = 0;
		/* No bytes of another device's uuid after this one's. */
		for (i = strnlen(e.uuid, sizeof(e.uuid)); i < sizeof(e.uuid); i++)
			if (e.uuid[i])
				clean = 0;
		printf("%u:%u %.*s %s\n", major(e.dev), minor(e.dev), (int)n,
		       e.name, clean ? "clean" : "dirty");
	}
}

int main(int argc, char **argv)
{
	unsigned long cmd;
	struct pdm_ioctl *hdr;
	unsigned char *data;
	size_t room, total, reach, len;
	char *end;
	int fd;

	if (argc != 4)
		return usage();
	if (!strcmp(argv[1], "list"))
		cmd = PDM_IOC_LIST;
	else if (!strcmp(argv[1], "table") || !strcmp(argv[1], "inactive"))
		cmd = PDM_IOC_TABLE;
	else if (!strcmp(argv[1], "status"))
		cmd = PDM_IOC_STATUS;
	else
		return usage();
	errno = 0;
	room = strtoul(argv[3], &end, 0);
	if (errno || *end || !*argv[3])
		return usage();

	total = sizeof(*hdr) + room;
	hdr = malloc(total + GUARD);
	if (!hdr) {
		perror("pdm-ctl-out");
		return 1;
	}
	memset(hdr, 0, sizeof(*hdr));
	data = (unsigned char *)hdr + sizeof(*hdr);
	memset(data, FILL, room + GUARD);
	hdr->version[0] = PDM_ABI_MAJOR;
	hdr->version[1] = PDM_ABI_MINOR;
	hdr->data_size = total;
	hdr->data_start = sizeof(*hdr);
	if (!strcmp(argv[1], "inactive"))
		hdr->flags = PDM_F_QUERY_INACTIVE;
	snprintf(hdr->name, sizeof(hdr->name), "%s", argv[2]);

	fd = open("/dev/" PDM_CONTROL_NAME, O_RDWR);
	if (fd < 0 || ioctl(fd, cmd, hdr) < 0) {
		fprintf(stderr, "pdm-ctl-out: %s: %s%s%s\n", argv[1],
			strerror(errno), hdr->err[0] ? ": " : "", hdr->err);
		return 1;
	}
	for (reach = room + GUARD; reach > 0 && data[reach - 1] == FILL;
	     reach--)
		;
	fprintf(stderr, "full=%d len=%u reach=%zu\n",
		!!(hdr->flags & PDM_F_BUFFER_FULL), hdr->data_len, reach);
	if (hdr->flags & PDM_F_BUFFER_FULL)
		return 0;
	len = hdr->data_len < room ? hdr->data_len : room;
	if (cmd == PDM_IOC_LIST)
		print_list(data, len);
	else
		fwrite(data, 1, len, stdout);
	return 0;
}
