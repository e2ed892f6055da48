/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * pdm control device ABI (/dev/pdm-control).
 */
#ifndef _UAPI_LINUX_PDM_H
#define _UAPI_LINUX_PDM_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define PDM_CONTROL_NAME	"pdm-control"

/* Bumped on any incompatible change of the structures below. */
#define PDM_ABI_MAJOR		1
#define PDM_ABI_MINOR		0

struct pdm_version {
	__u32 major;
	__u32 minor;
};

#define PDM_IOC_MAGIC		0xfd
#define PDM_IOC_VERSION		_IOR(PDM_IOC_MAGIC, 0x00, struct pdm_version)

#endif /* _UAPI_LINUX_PDM_H */
