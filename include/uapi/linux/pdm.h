/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * pdm control device ABI (/dev/pdm-control).
 *
 * Every command but PDM_IOC_VERSION takes a struct pdm_ioctl at the start
 * of a buffer of data_size bytes.  Variable data (table text in, table or
 * status text or a device list out) lives in the same buffer at
 * data_start.  The header is copied back on success and on failure, so
 * that a failed command can explain itself in err[].
 */
#ifndef _UAPI_LINUX_PDM_H
#define _UAPI_LINUX_PDM_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define PDM_CONTROL_NAME	"pdm-control"

/*
 * Bumped on any incompatible change of the structures below.  2.0: uuid
 * in struct pdm_ioctl and struct pdm_list_entry (which changes the
 * ioctl numbers), PDM_F_READONLY and PDM_F_DEFERRED.  3.0: pdm's own
 * ioctl magic, PDM_IOC_MAGIC (2.x borrowed device-mapper's 0xfd).  3.1:
 * PDM_F_CANCEL_DEFERRED (a 3.0 driver ignores it: check the minor first)
 * and PDM_F_SHARED.  3.2: PDM_IOC_RENAME (ENOTTY from an older driver).
 */
#define PDM_ABI_MAJOR		3
#define PDM_ABI_MINOR		2

#define PDM_NAME_LEN		128	/* device name, NUL included */
#define PDM_UUID_LEN		128	/* device uuid, NUL included */
#define PDM_MSG_LEN		256	/* err[], NUL included */

struct pdm_version {
	__u32 major;
	__u32 minor;
};

/* pdm_ioctl.flags */
#define PDM_F_SUSPENDED		(1U << 0)	/* out: I/O is held back */
#define PDM_F_INACTIVE		(1U << 1)	/* out: a reloaded table waits */
#define PDM_F_POLL		(1U << 2)	/* out: io_uring IOPOLL works */
#define PDM_F_BUFFER_FULL	(1U << 3)	/* out: data did not fit */
#define PDM_F_QUERY_INACTIVE	(1U << 4)	/* in: TABLE of the inactive */
/* in: SUSPEND, RESUME: do not freeze the file system (ABI 1.1) */
#define PDM_F_NOLOCKFS		(1U << 5)
/*
 * in: CREATE, RELOAD: open the lower devices read-only and make the disk
 * read-only (a reload must keep the device's mode); out: the device is
 */
#define PDM_F_READONLY		(1U << 6)
/* in: REMOVE: if open, remove on the last close; out: that is pending */
#define PDM_F_DEFERRED		(1U << 7)
/* in: REMOVE: cancel a pending deferred removal instead (ABI 3.1) */
#define PDM_F_CANCEL_DEFERRED	(1U << 8)
/*
 * in: CREATE: its writable sectors may be another device's writable
 * sectors too (otherwise such a table is refused, EBUSY); out: the device
 * was created so (ABI 3.1)
 */
#define PDM_F_SHARED		(1U << 9)
#define PDM_F_IN		(PDM_F_QUERY_INACTIVE | PDM_F_NOLOCKFS | \
				 PDM_F_READONLY | PDM_F_DEFERRED | \
				 PDM_F_CANCEL_DEFERRED | PDM_F_SHARED)

struct pdm_ioctl {
	__u32 version[2];	/* in: PDM_ABI_MAJOR, PDM_ABI_MINOR */
	__u32 data_size;	/* in: bytes of the whole buffer */
	__u32 data_start;	/* in/out: offset of the data in the buffer */
	__u32 data_len;		/* in/out: bytes of data used */
	__u32 flags;		/* in/out: PDM_F_* */
	__u32 dev;		/* out: the device, new_encode_dev() */
	__s32 open_count;	/* out: openers of the device */
	__u32 nr_segments;	/* out: segments of the active table */
	__u32 padding;
	__u64 sectors;		/* out: size of the active table */
	char name[PDM_NAME_LEN];	/* in: the device's name */
	/*
	 * in: CREATE: a unique id for the device's lifetime, optional
	 * (empty: none), of the bytes a name may hold (ASCII letters,
	 * digits and "#+-.:=@_"), e.g. "LVM-..."; out: the
	 * device's
	 */
	char uuid[PDM_UUID_LEN];
	char err[PDM_MSG_LEN];		/* out: why a command failed */
};

/* One entry of the PDM_IOC_LIST output, packed back to back. */
struct pdm_list_entry {
	__u32 dev;		/* new_encode_dev() */
	__u32 flags;		/* PDM_F_SHARED (ABI 3.1; 0 before) */
	char name[PDM_NAME_LEN];
	char uuid[PDM_UUID_LEN];	/* empty if none */
};

/*
 * Free in the kernel's Documentation/userspace-api/ioctl/ioctl-number.rst
 * (6.1).  PDM_IOC_VERSION's number stays as it is from here on: a tool of
 * another ABI can still ask which one the driver speaks.
 */
#define PDM_IOC_MAGIC		0xbd
#define PDM_IOC_VERSION		_IOR(PDM_IOC_MAGIC, 0x00, struct pdm_version)
/* name + table text: create the device and make the table live */
#define PDM_IOC_CREATE		_IOWR(PDM_IOC_MAGIC, 0x01, struct pdm_ioctl)
/* name: remove an unopened device (or, PDM_F_DEFERRED, on last close) */
#define PDM_IOC_REMOVE		_IOWR(PDM_IOC_MAGIC, 0x02, struct pdm_ioctl)
/* out: struct pdm_list_entry per device */
#define PDM_IOC_LIST		_IOWR(PDM_IOC_MAGIC, 0x03, struct pdm_ioctl)
/* name: header fields only */
#define PDM_IOC_INFO		_IOWR(PDM_IOC_MAGIC, 0x04, struct pdm_ioctl)
/* name, out: table text (major:minor devices) */
#define PDM_IOC_TABLE		_IOWR(PDM_IOC_MAGIC, 0x05, struct pdm_ioctl)
/* name, out: status text, one line per segment, then polling state */
#define PDM_IOC_STATUS		_IOWR(PDM_IOC_MAGIC, 0x06, struct pdm_ioctl)
/* name + table text: load it as the inactive table */
#define PDM_IOC_RELOAD		_IOWR(PDM_IOC_MAGIC, 0x07, struct pdm_ioctl)
/* name: hold back new I/O and wait for the I/O in flight */
#define PDM_IOC_SUSPEND		_IOWR(PDM_IOC_MAGIC, 0x08, struct pdm_ioctl)
/* name: make an inactive table live, if any, and let I/O flow */
#define PDM_IOC_RESUME		_IOWR(PDM_IOC_MAGIC, 0x09, struct pdm_ioctl)
/*
 * name, data: the new name (data_len bytes, no NUL): rename the device,
 * live; a change event says the new name (PDM_EVENT=rename)
 */
#define PDM_IOC_RENAME		_IOWR(PDM_IOC_MAGIC, 0x0a, struct pdm_ioctl)

#endif /* _UAPI_LINUX_PDM_H */
