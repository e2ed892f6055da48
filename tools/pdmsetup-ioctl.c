// SPDX-License-Identifier: GPL-2.0
/*
 * The one way pdmsetup's commands reach the driver: a seam of its own so
 * that a test-only build (tests/progs/pdmsetup-fail-nth.c) links its own
 * version instead, one that injects faults into the command's ioctl,
 * while the shipped pdmsetup carries no such thing.
 */
#include <sys/ioctl.h>

#include "pdmsetup.h"

int pdm_ctl_ioctl(int fd, unsigned long cmd, struct pdm_ioctl *hdr)
{
	return ioctl(fd, cmd, hdr);
}
