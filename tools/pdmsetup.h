/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pdmsetup's parts: the command line (pdmsetup-args.c) and the output
 * formats (pdmsetup-out.c) are pure, free of ioctls and of sysfs, so that
 * the host unit tests (tests/unit/pdmsetup.c) can compile them; the
 * commands (pdmsetup.c) talk to the driver through pdmsetup-ctl.c, whose
 * every command ioctl is pdm_ctl_ioctl() (pdmsetup-ioctl.c), the one
 * seam a test-only build replaces (tests/progs/pdmsetup-fail-nth.c).
 */
#ifndef _PDMSETUP_H
#define _PDMSETUP_H

#include <stdio.h>
#include <sys/types.h>

#include <linux/pdm.h>

#ifndef BLKFAST_VERSION
#define BLKFAST_VERSION	"unknown"
#endif

#define PDMSETUP_MSG_LEN	256

/* The verbs; VERB_NONE until the first positional argument names one. */
enum pdmsetup_verb {
	VERB_NONE,
	VERB_CREATE,
	VERB_RELOAD,
	VERB_REMOVE,
	VERB_LS,
	VERB_TABLE,
	VERB_STATUS,
	VERB_INFO,
	VERB_DEPS,
	VERB_SUSPEND,
	VERB_RESUME,
	VERB_RENAME,
	VERB_VERSION,
	VERB_HELP,
};

/* Options, as bits: which were given, and which a verb takes. */
enum {
	OPT_TABLE	= 1 << 0,
	OPT_INACTIVE	= 1 << 1,
	OPT_NOLOCKFS	= 1 << 2,
	OPT_RETRY	= 1 << 3,
	OPT_FORCE	= 1 << 4,
	OPT_JSON	= 1 << 5,
	OPT_TREE	= 1 << 6,
	OPT_COLUMNS	= 1 << 7,
	OPT_FIELDS	= 1 << 8,
	OPT_NOHEADINGS	= 1 << 9,
	OPT_SEPARATOR	= 1 << 10,
	OPT_UUID	= 1 << 11,
	OPT_READONLY	= 1 << 12,
	OPT_DEFERRED	= 1 << 13,
	OPT_CANCEL_DEFERRED = 1 << 14,
	OPT_SHARED	= 1 << 15,
	OPT_PATHS	= 1 << 16,
	OPT_NOUDEVSYNC	= 1 << 17,
};

/* The columns of info -c. */
enum pdmsetup_field {
	FIELD_NAME,
	FIELD_DEV,
	FIELD_SECTORS,
	FIELD_STATE,
	FIELD_OPEN,
	FIELD_TABLES,
	FIELD_POLL,
	FIELD_POLL_MODE,
	FIELD_HYBRID,
	FIELD_SEGMENTS,
	FIELD_UUID,
	FIELD_RO,
	NR_FIELDS,
};

#define MAX_COLUMNS	32

struct pdmsetup_args {
	enum pdmsetup_verb verb;
	const char *verb_name;
	unsigned int opts;		/* OPT_* given */
	int version;			/* --version */
	const char *table;		/* --table TEXT */
	const char *file;		/* create/reload FILE */
	const char *separator;		/* --separator, default " " */
	const char *uuid;		/* create --uuid */
	int fields[MAX_COLUMNS];	/* -o, else the default columns */
	int nr_fields;
	char **names;			/* NAME..., malloc'd; into argv */
	int nr_names;
	char err[PDMSETUP_MSG_LEN];	/* why the command line is refused */
};

enum pdmsetup_parse {
	PARSE_OK,
	PARSE_HELP,	/* --help: usage on stdout, exit 0 */
	PARSE_VERSION,	/* --version: exit 0 */
	PARSE_ERR,	/* args->err says why: exit 2 */
};

/* argv is not permuted, and must outlive @a; free(a->names) after. */
enum pdmsetup_parse pdmsetup_parse(struct pdmsetup_args *a, int argc,
				   char **argv);
void pdmsetup_usage(FILE *out);
/* "name,dev,..." (or "+field,..." to add to the defaults) into @a. */
int pdmsetup_parse_fields(struct pdmsetup_args *a, const char *list);
extern const char *const pdmsetup_field_names[NR_FIELDS];

/* One device as info shows it. */
struct pdm_devinfo {
	char name[PDM_NAME_LEN];
	char uuid[PDM_UUID_LEN];
	unsigned int major, minor;
	unsigned int flags;		/* PDM_F_* out */
	int open_count;
	unsigned int nr_segments;
	unsigned long long sectors;
	int poll_known;			/* the poll line below was read */
	char poll_why[PDM_MSG_LEN];	/* "" when polling is on */
	char poll_mode[32];		/* from sysfs; "" if unreadable */
	char hybrid[16];
};

/* Output formats: pdmsetup-out.c. */
void json_string(FILE *out, const char *s);
/*
 * Split the driver's STATUS text: the segment lines stay in @text (its
 * length is returned); the last line, "poll on" or "poll off: <why>", is
 * taken out into @di (poll_known set).  A text without it stays whole.
 */
size_t status_split(char *text, size_t len, struct pdm_devinfo *di);
void print_info(FILE *out, const struct pdm_devinfo *di);
void print_info_json(FILE *out, const struct pdm_devinfo *di);
void print_columns(FILE *out, const struct pdmsetup_args *a,
		   const struct pdm_devinfo *di, int nr);
void print_status_json(FILE *out, const char *name, const char *text,
		       size_t len, const struct pdm_devinfo *di);
void sysfs_choice(char *sysfs_value);

/* pdmsetup-paths.c: device names and table --paths */
int pdm_dev_name(const char *root, unsigned int major, unsigned int minor,
		 char *buf, size_t size);
int pdm_stable_path(const char *root, unsigned int major, unsigned int minor,
		    char *path, size_t len);
int pdm_table_paths(const char *root, const char *text, size_t len,
		    FILE *out, char *err, size_t errlen);

/*
 * pdmsetup-udev.c: waiting for udev after a command that changes links.
 * udev_sync_wanted(): udev runs and --noudevsync was not given.  The
 * waits return 0, or -1 after about 20 s: udev_wait_links() for
 * /dev/pdm/@name to be @dev (if @name) and /dev/pdm/@gone to be gone (if
 * @gone); udev_wait_db() for @dev's database entry to be another file
 * than @before, udev_db_ino()'s (0: none).
 */
int udev_sync_wanted(unsigned int opts);
void udev_name_link(char *buf, size_t size, const char *name);
int udev_wait_links(const char *name, dev_t dev, const char *gone);
ino_t udev_db_ino(dev_t dev);
int udev_wait_db(dev_t dev, ino_t before);

/* The control device: pdmsetup-ctl.c. */
#define CONTROL_PATH	"/dev/" PDM_CONTROL_NAME

/* A command's buffer: the header, then room for data. */
struct req {
	struct pdm_ioctl *hdr;
	size_t size;
};

int open_control(void);
const char *root_hint(int err);
int req_init(struct req *r, const char *name, size_t room);
char *req_data(struct req *r);
void req_err(struct req *r, const char *verb, int err);
int req_run(int fd, struct req *r, unsigned long cmd, const char *verb);
int simple(int fd, unsigned long cmd, const char *verb, const char *name,
	   unsigned int flags);
int get_text(int fd, struct req *r, unsigned long cmd, const char *verb,
	     const char *name, unsigned int flags);
struct pdm_list_entry *list_devices(int fd, const char *verb, size_t *n);
int driver_abi(int fd, struct pdm_version *ver);

/* The ioctl seam: pdmsetup-ioctl.c, or a test's replacement. */
int pdm_ctl_ioctl(int fd, unsigned long cmd, struct pdm_ioctl *hdr);

#endif
