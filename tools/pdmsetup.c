// SPDX-License-Identifier: GPL-2.0
/*
 * pdmsetup: configure pdm devices, in the manner of dmsetup.
 *
 * The whole command line is checked first (pdmsetup-args.c): a usage
 * error exits 2 with one line, before /dev/pdm-control is opened.  Then
 * each verb is one or a few ioctls on the control device; the driver does
 * all the checking of tables and states and explains a refusal in
 * pdm_ioctl.err, which is printed as "pdmsetup: VERB NAME: <strerror>:
 * <reason>" (exit 1).  The control device and the ioctl buffers are in
 * pdmsetup-ctl.c, the output formats in pdmsetup-out.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "pdmsetup.h"

#define MAX_TABLE	(1U << 20)	/* as the driver's PDM_MAX_TABLE */
/* remove --retry: as libdevmapper's, 25 tries over about 5 s. */
#define REMOVE_TRIES	25
#define MAX_DEPS	256
#define MAX_DEPTH	16		/* ls --tree: pdm on pdm on ... */

/* Read a whole table from a stream. */
static char *read_table(FILE *f, const char *what, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);

	while (buf) {
		size_t got = fread(buf + n, 1, cap - n, f);

		n += got;
		if (n > MAX_TABLE) {
			fprintf(stderr, "pdmsetup: %s: table over %u bytes\n",
				what, MAX_TABLE);
			free(buf);
			return NULL;
		}
		if (got == 0) {
			if (ferror(f)) {
				fprintf(stderr, "pdmsetup: %s: read error\n",
					what);
				free(buf);
				return NULL;
			}
			*len = n;
			return buf;
		}
		if (n == cap) {
			char *bigger = realloc(buf, cap * 2);

			if (!bigger)
				free(buf);
			buf = bigger;
			cap *= 2;
		}
	}
	perror("pdmsetup");
	return NULL;
}

/* The table of create/reload: --table TEXT, a FILE, or stdin. */
static char *get_table(const struct pdmsetup_args *a, size_t *len)
{
	char *text;
	FILE *f;

	if (a->table) {
		*len = strlen(a->table);
		text = strdup(a->table);
		if (!text)
			perror("pdmsetup");
		return text;
	}
	if (!a->file)
		return read_table(stdin, "stdin", len);
	f = fopen(a->file, "r");
	if (!f) {
		fprintf(stderr, "pdmsetup: %s: %s\n", a->file, strerror(errno));
		return NULL;
	}
	text = read_table(f, a->file, len);
	fclose(f);
	return text;
}

/*
 * The path to print for a new device.  Where udev runs, pdm's rules make
 * /dev/pdm/NAME: wait for it (pdmsetup-udev.c), so that a script can use
 * the path at once; without udev (an initramfs, a container), or with
 * --noudevsync, the node devtmpfs made, /dev/pdmN.
 */
static void print_node(const char *name, dev_t dev, unsigned int opts)
{
	char path[sizeof("/dev/pdm/") + PDM_NAME_LEN];

	udev_name_link(path, sizeof(path), name);
	if (udev_sync_wanted(opts)) {
		if (udev_wait_links(name, dev, NULL) == 0) {
			printf("%s\n", path);
			return;
		}
		fprintf(stderr, "pdmsetup: %s did not appear in 20 s (are "
			"pdm's udev rules, 60-pdm.rules, installed?)\n", path);
	}
	printf("/dev/pdm%u\n", minor(dev));
}

/*
 * create or reload: PDM_F_READONLY (and, create, PDM_F_SHARED) in @flags;
 * @uuid (create) or NULL.
 */
static int load(int fd, unsigned long cmd, const char *verb,
		const char *name, const char *text, size_t len,
		unsigned int flags, const char *uuid, unsigned int opts)
{
	struct req r = {};
	int ret = -1;

	if (req_init(&r, name, len) == 0) {
		memcpy(req_data(&r), text, len);
		r.hdr->data_len = len;
		r.hdr->flags = flags;
		if (uuid)
			snprintf(r.hdr->uuid, sizeof(r.hdr->uuid), "%s", uuid);
		ret = req_run(fd, &r, cmd, verb);
		if (!ret && cmd == PDM_IOC_CREATE)
			print_node(name, r.hdr->dev, opts);
	}
	free(r.hdr);
	return ret;
}

/*
 * suspend/resume.  A driver of another ABI major (which a 1.x driver,
 * without PDM_F_NOLOCKFS, is) refuses the command outright (ENOTTY, see
 * req_err()), so the flag is never silently dropped.
 */
/*
 * While a device is suspended, a page fault that needs I/O through it
 * (swap on it, or this program's own pages on a file system over it)
 * waits for a resume that may be this very process's: lock our memory
 * first, as libdevmapper does around suspend and resume.  Best effort:
 * a failure is said, not fatal (root has no RLIMIT_MEMLOCK to meet).
 */
static void lock_memory(const char *verb)
{
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		fprintf(stderr, "pdmsetup: %s: cannot lock memory (%s); going on\n",
			verb, strerror(errno));
}

static int cmd_suspend(int fd, const struct pdmsetup_args *a)
{
	lock_memory(a->verb_name);
	return simple(fd, PDM_IOC_SUSPEND, a->verb_name, a->names[0],
		      a->opts & OPT_NOLOCKFS ? PDM_F_NOLOCKFS : 0);
}

/*
 * resume: the resume of a suspended device sends a change event (its
 * table may show udev another file system), and udev's links follow it:
 * wait for udev to have taken it, known by the device's database entry
 * rewritten.  A device that was not suspended sends none.
 */
static int cmd_resume(int fd, const struct pdmsetup_args *a)
{
	const char *name = a->names[0];
	int sync = udev_sync_wanted(a->opts), suspended = 0;
	struct req r = {};
	ino_t before = 0;
	dev_t dev = 0;
	int ret = -1;

	lock_memory(a->verb_name);
	if (req_init(&r, name, 0))
		return -1;
	if (sync && req_run(fd, &r, PDM_IOC_INFO, NULL) == 0) {
		suspended = r.hdr->flags & PDM_F_SUSPENDED;
		dev = r.hdr->dev;
		before = udev_db_ino(dev);
	}
	r.hdr->flags = a->opts & OPT_NOLOCKFS ? PDM_F_NOLOCKFS : 0;
	ret = req_run(fd, &r, PDM_IOC_RESUME, "resume");
	if (!ret && suspended && udev_wait_db(dev, before))
		fprintf(stderr, "pdmsetup: resume %s: udev did not take the device's event in 20 s\n",
			name);
	free(r.hdr);
	return ret;
}

/*
 * rename OLD NEW: the driver sends a change event with the new name;
 * wait for udev to move /dev/pdm/OLD to /dev/pdm/NEW.
 */
static int cmd_rename(int fd, const struct pdmsetup_args *a)
{
	const char *old = a->names[0], *new = a->names[1];
	size_t len = strlen(new);
	struct req r = {};
	int ret;

	if (req_init(&r, old, len))
		return -1;
	memcpy(req_data(&r), new, len);
	r.hdr->data_len = len;
	ret = req_run(fd, &r, PDM_IOC_RENAME, "rename");
	if (!ret && udev_sync_wanted(a->opts) &&
	    udev_wait_links(new, r.hdr->dev, old))
		fprintf(stderr, "pdmsetup: rename %s: udev did not move /dev/pdm/%s to /dev/pdm/%s in 20 s (are pdm's udev rules, 60-pdm.rules, installed?)\n",
			old, old, new);
	free(r.hdr);
	return ret;
}

/*
 * After a remove: wait for udev to drop /dev/pdm/NAME, so that the name
 * may be used again at once; not while a --deferred removal waits for
 * the last close (the device, and its links, are still there).
 */
static void remove_wait_udev(int fd, const struct pdmsetup_args *a)
{
	const char *name = a->names[0];
	struct req r = {};

	if (a->opts & OPT_DEFERRED) {
		if (req_init(&r, name, 0))
			return;
		if (req_run(fd, &r, PDM_IOC_INFO, NULL) == 0 ||
		    errno != ENXIO) {
			free(r.hdr);
			return;
		}
		free(r.hdr);
	}
	if (udev_wait_links(NULL, 0, name))
		fprintf(stderr, "pdmsetup: remove %s: udev did not drop /dev/pdm/%s in 20 s\n",
			name, name);
}

/*
 * remove: --force first swaps in an error table of the same size and
 * resumes it (as dmsetup's), so that openers see EIO from then on;
 * --retry retries EBUSY (a udev probe or a short-lived opener) with
 * backoff, 25 tries over about 5 s.  --cancel-deferred keeps a device
 * whose --deferred removal is pending.
 */
static int cmd_remove(int fd, const struct pdmsetup_args *a)
{
	const char *name = a->names[0];
	unsigned int delay_ms = 20, try;
	struct pdm_version ver;
	struct req r = {};
	char table[64];
	int ret = -1;

	if (a->opts & OPT_CANCEL_DEFERRED) {
		/* A 3.0 driver drops flags it does not know: it would remove. */
		if (driver_abi(fd, &ver) < 0) {
			fprintf(stderr, "pdmsetup: remove --cancel-deferred: %s\n",
				strerror(errno));
			return -1;
		}
		if (ver.major == PDM_ABI_MAJOR && ver.minor < 1) {
			fprintf(stderr, "pdmsetup: remove --cancel-deferred: the driver's ABI %u.%u cannot cancel; it needs 3.1\n",
				ver.major, ver.minor);
			return -1;
		}
		if (req_init(&r, name, 0))
			goto out;
		r.hdr->flags = PDM_F_CANCEL_DEFERRED;
		ret = req_run(fd, &r, PDM_IOC_REMOVE, "remove --cancel-deferred");
		goto out;
	}
	if (a->opts & OPT_FORCE) {
		lock_memory("remove --force");
		if (req_init(&r, name, 0) ||
		    req_run(fd, &r, PDM_IOC_INFO, "remove --force: info"))
			goto out;
		snprintf(table, sizeof(table), "0 %llu error\n",
			 (unsigned long long)r.hdr->sectors);
		if (load(fd, PDM_IOC_RELOAD, "remove --force: reload", name,
			 table, strlen(table),
			 r.hdr->flags & PDM_F_READONLY, NULL, 0) ||
		    simple(fd, PDM_IOC_RESUME, "remove --force: resume", name,
			   0))
			goto out;
		free(r.hdr);
		r.hdr = NULL;
	}
	if (req_init(&r, name, 0))
		goto out;
	if (a->opts & OPT_DEFERRED)
		r.hdr->flags = PDM_F_DEFERRED;
	for (try = 1;; try++) {
		ret = req_run(fd, &r, PDM_IOC_REMOVE, NULL);
		if (!ret || errno != EBUSY || !(a->opts & OPT_RETRY) ||
		    try == REMOVE_TRIES)
			break;
		usleep(delay_ms * 1000);
		delay_ms = delay_ms * 2 > 250 ? 250 : delay_ms * 2;
	}
	if (ret)
		req_err(&r, "remove", errno);
	else if (udev_sync_wanted(a->opts))
		remove_wait_udev(fd, a);
out:
	free(r.hdr);
	return ret;
}

static void fill_devinfo(struct pdm_devinfo *di, const struct pdm_ioctl *h)
{
	snprintf(di->name, sizeof(di->name), "%s", h->name);
	snprintf(di->uuid, sizeof(di->uuid), "%s", h->uuid);
	di->major = major(h->dev);
	di->minor = minor(h->dev);
	di->flags = h->flags;
	di->open_count = h->open_count;
	di->nr_segments = h->nr_segments;
	di->sectors = h->sectors;
}

static int cmd_status(int fd, const struct pdmsetup_args *a)
{
	struct pdm_devinfo di = {};
	struct req r = {};
	size_t len;
	int ret = -1;

	if (get_text(fd, &r, PDM_IOC_STATUS, "status", a->names[0], 0) == 0) {
		fill_devinfo(&di, r.hdr);
		len = status_split(req_data(&r), r.hdr->data_len, &di);
		if (a->opts & OPT_JSON)
			print_status_json(stdout, a->names[0], req_data(&r),
					  len, &di);
		else
			fwrite(req_data(&r), 1, len, stdout);
		ret = 0;
	}
	free(r.hdr);
	return ret;
}

/* A sysfs attribute's first line into @buf ("" if unreadable). */
static void read_attr(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, size, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/*
 * A device's sysfs choice ("tracked sweep sweep_wait [direct]"), its
 * bracketed word into @buf.  Read whole before it is cut: the list is
 * longer than the word.
 */
static void read_dev_choice(const struct pdm_devinfo *di, const char *attr,
			    char *buf, size_t size)
{
	char path[96], line[256];
	size_t n;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/pdm/%s", di->major,
		 di->minor, attr);
	read_attr(path, line, sizeof(line));
	sysfs_choice(line);
	n = strnlen(line, size - 1);
	memcpy(buf, line, n);
	buf[n] = '\0';
}

/*
 * One device for info: the header fields (INFO, or STATUS when @why asks
 * for the reason polling is off, which only the status text tells), then
 * poll_mode and hybrid from sysfs (the bracketed word of "tracked [sweep]
 * ...").  Returns 0, or -1 with errno set, having said why, unless @gone
 * is set and the device no longer exists (ENXIO).
 */
static int get_devinfo(int fd, const char *name, int why, int gone,
		       struct pdm_devinfo *di)
{
	struct req r = {};
	int ret, err;

	memset(di, 0, sizeof(*di));
	if (req_init(&r, name, why ? 4096 : 0))
		return -1;
	ret = req_run(fd, &r, why ? PDM_IOC_STATUS : PDM_IOC_INFO, NULL);
	err = errno;
	if (ret && !(gone && err == ENXIO))
		req_err(&r, "info", err);
	if (!ret) {
		fill_devinfo(di, r.hdr);
		if (why)
			status_split(req_data(&r), r.hdr->data_len, di);
	}
	free(r.hdr);
	if (ret) {
		errno = err;
		return -1;
	}
	read_dev_choice(di, "poll_mode", di->poll_mode, sizeof(di->poll_mode));
	read_dev_choice(di, "hybrid", di->hybrid, sizeof(di->hybrid));
	return 0;
}

/*
 * info [NAME...]: the devices named, or all of them (a device removed
 * meanwhile is left out).  Text, columns or JSON.
 */
static int cmd_info(int fd, const struct pdmsetup_args *a)
{
	int cols = a->opts & OPT_COLUMNS, json = a->opts & OPT_JSON;
	struct pdm_list_entry *all = NULL;
	struct pdm_devinfo *di;
	size_t i, n = a->nr_names, nr = 0;
	int ret = 0;

	if (!n) {
		all = list_devices(fd, "info", &n);
		if (!all)
			return -1;
	}
	di = calloc(n + 1, sizeof(*di));
	if (!di) {
		perror("pdmsetup");
		free(all);
		return -1;
	}
	for (i = 0; i < n; i++) {
		const char *name = all ? all[i].name : a->names[i];

		if (get_devinfo(fd, name, !cols, !!all, &di[nr]) == 0)
			nr++;
		else if (!all || errno != ENXIO)
			ret = -1;
	}
	if (cols) {
		print_columns(stdout, a, di, nr);
	} else if (json) {
		fputs("{\"devices\": [", stdout);
		for (i = 0; i < nr; i++) {
			fputs(i ? ", " : "", stdout);
			print_info_json(stdout, &di[i]);
		}
		fputs("]}\n", stdout);
	} else if (!nr && all) {
		printf("No devices found\n");
	} else {
		for (i = 0; i < nr; i++) {
			fputs(i ? "\n" : "", stdout);
			print_info(stdout, &di[i]);
		}
	}
	free(di);
	free(all);
	return ret;
}

/* A block device's name, from its uevent's DEVNAME ("?" if none). */
static void dev_name(unsigned int maj, unsigned int min, char *buf,
		     size_t size)
{
	if (pdm_dev_name("", maj, min, buf, size))
		snprintf(buf, size, "?");
}

/*
 * The lower devices of a live table, in order of first use, each once:
 * every MAJOR:MINOR word of its TABLE text, which names devices that way
 * whatever the target.  The number of them, or -1 (said why).
 */
static int get_deps(int fd, const char *verb, const char *name,
		    dev_t *deps)
{
	struct req r = {};
	char *p, *end;
	int n = 0, i;

	if (get_text(fd, &r, PDM_IOC_TABLE, verb, name, 0)) {
		free(r.hdr);
		return -1;
	}
	p = req_data(&r);
	end = p + r.hdr->data_len;
	while (p < end) {
		unsigned int maj, min;
		size_t w = strcspn(p, " \t\n");
		char word[32];
		int used;

		if (w && w < sizeof(word)) {
			snprintf(word, sizeof(word), "%.*s", (int)w, p);
			if (sscanf(word, "%u:%u%n", &maj, &min, &used) == 2 &&
			    word[used] == '\0') {
				for (i = 0; i < n; i++)
					if (deps[i] == makedev(maj, min))
						break;
				if (i == n && n < MAX_DEPS)
					deps[n++] = makedev(maj, min);
			}
		}
		p += w + 1;
	}
	free(r.hdr);
	return n;
}

static int cmd_deps(int fd, const struct pdmsetup_args *a)
{
	dev_t deps[MAX_DEPS];
	char name[64];
	int n, i;

	n = get_deps(fd, "deps", a->names[0], deps);
	for (i = 0; i < n; i++) {
		dev_name(major(deps[i]), minor(deps[i]), name, sizeof(name));
		printf("%u:%u (%s)\n", major(deps[i]), minor(deps[i]), name);
	}
	return n < 0 ? -1 : 0;
}

struct tree {
	struct pdm_list_entry *e;
	size_t n;
	int fd;
};

/* The pdm device @dev, if it is one: its index, else -1. */
static int tree_find(const struct tree *t, dev_t dev)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (major(t->e[i].dev) == major(dev) &&
		    minor(t->e[i].dev) == minor(dev))
			return i;
	return -1;
}

/* @dev and, if it is a pdm device, what it sits on, beneath it. */
static int tree_print(const struct tree *t, dev_t dev, const char *prefix,
		      int last, int depth)
{
	char name[PDM_NAME_LEN], sub[2 * MAX_DEPTH + 8];
	int i = tree_find(t, dev), n, k, ret = 0;
	dev_t deps[MAX_DEPS];

	if (i >= 0)
		snprintf(name, sizeof(name), "%s", t->e[i].name);
	else
		dev_name(major(dev), minor(dev), name, sizeof(name));
	printf("%s%s%s (%u:%u)%s\n", prefix, depth ? (last ? "`-" : "|-") : "",
	       name, major(dev), minor(dev),
	       i >= 0 && (t->e[i].flags & PDM_F_SHARED) ? " [shared]" : "");
	if (i < 0 || depth >= MAX_DEPTH)
		return 0;
	n = get_deps(t->fd, "ls", t->e[i].name, deps);
	if (n < 0)
		return -1;
	snprintf(sub, sizeof(sub), "%s%s", prefix,
		 depth ? (last ? "  " : "| ") : " ");
	for (k = 0; k < n; k++)
		ret |= tree_print(t, deps[k], sub, k == n - 1, depth + 1);
	return ret;
}

/* ls --tree: the devices no other pdm device sits on, each a root. */
static int ls_tree(int fd, struct pdm_list_entry *e, size_t n)
{
	struct tree t = { .e = e, .n = n, .fd = fd };
	dev_t deps[MAX_DEPS];
	char *below = calloc(n + 1, 1);
	size_t i;
	int k, d, ret = 0;

	if (!below) {
		perror("pdmsetup");
		return -1;
	}
	for (i = 0; i < n; i++) {
		d = get_deps(fd, "ls", e[i].name, deps);
		for (k = 0; k < d; k++)
			if (tree_find(&t, deps[k]) >= 0)
				below[tree_find(&t, deps[k])] = 1;
	}
	for (i = 0; i < n; i++)
		if (!below[i])
			ret |= tree_print(&t, makedev(major(e[i].dev),
						      minor(e[i].dev)),
					  "", 1, 0);
	free(below);
	return ret;
}

static int cmd_ls(int fd, const struct pdmsetup_args *a)
{
	struct pdm_list_entry *e;
	size_t i, n;
	int ret = 0;

	e = list_devices(fd, "ls", &n);
	if (!e)
		return -1;
	if (a->opts & OPT_JSON) {
		fputs("{\"devices\": [", stdout);
		for (i = 0; i < n; i++) {
			fputs(i ? ", {\"name\": " : "{\"name\": ", stdout);
			json_string(stdout, e[i].name);
			printf(", \"dev\": \"%u:%u\", \"major\": %u, \"minor\": %u",
			       major(e[i].dev), minor(e[i].dev),
			       major(e[i].dev), minor(e[i].dev));
			fputs(", \"uuid\": ", stdout);
			if (e[i].uuid[0])
				json_string(stdout, e[i].uuid);
			else
				fputs("null", stdout);
			fputc('}', stdout);
		}
		fputs("]}\n", stdout);
	} else if (!n) {
		printf("No devices found\n");
	} else if (a->opts & OPT_TREE) {
		ret = ls_tree(fd, e, n);
	} else {
		/* dmsetup's shape; a uuid, if any, after it. */
		for (i = 0; i < n; i++)
			printf("%s\t(%u:%u)%s%s\n", e[i].name, major(e[i].dev),
			       minor(e[i].dev), e[i].uuid[0] ? "\t" : "",
			       e[i].uuid);
	}
	free(e);
	return ret;
}

/*
 * table --paths: the table with its legs as stable paths, printed only
 * whole, so that a leg with none leaves no half table in a saved file.
 */
static int print_table_paths(const char *text, size_t len)
{
	char err[160], *buf = NULL;
	size_t size = 0;
	FILE *mem;
	int ret;

	mem = open_memstream(&buf, &size);
	if (!mem) {
		perror("pdmsetup: table");
		return 1;
	}
	ret = pdm_table_paths("", text, len, mem, err, sizeof(err));
	if (fclose(mem) && !ret) {
		snprintf(err, sizeof(err), "%s", strerror(errno));
		ret = -1;
	}
	if (ret)
		fprintf(stderr, "pdmsetup: table: %s\n", err);
	else
		fwrite(buf, 1, size, stdout);
	free(buf);
	return ret ? 1 : 0;
}

/*
 * version, --version: the tool's release and ABI, then the loaded
 * driver's (/sys/module/pdm/version, from the same dkms.conf, and
 * PDM_IOC_VERSION).  Both load nothing and fail for nothing: they say
 * what is there, and why there is no driver ABI if there is none.
 */
static void cmd_version(void)
{
	struct pdm_version ver;
	char mod[64];
	int fd, err = 0;

	printf("Tool version:      %s\n", BLKFAST_VERSION);
	printf("Tool ABI:          %u.%u\n", PDM_ABI_MAJOR, PDM_ABI_MINOR);
	if (access("/sys/module/pdm", F_OK)) {
		printf("Driver:            not loaded\n");
		return;
	}
	read_attr("/sys/module/pdm/version", mod, sizeof(mod));
	printf("Driver version:    %s\n", mod[0] ? mod : "unknown");
	fd = open(CONTROL_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		printf("Driver ABI:        unknown (%s: %s)\n", CONTROL_PATH,
		       strerror(errno));
		return;
	}
	if (driver_abi(fd, &ver) < 0)
		err = errno;
	close(fd);
	if (err)
		printf("Driver ABI:        unknown (%s)\n", strerror(err));
	else
		printf("Driver ABI:        %u.%u\n", ver.major, ver.minor);
}

static int run(int fd, const struct pdmsetup_args *a)
{
	const char *name = a->nr_names ? a->names[0] : NULL;
	struct req r = {};
	size_t len = 0;
	char *text;
	int ret;

	switch (a->verb) {
	case VERB_CREATE:
	case VERB_RELOAD:
		/* Read before the ioctl, after the checks of the name. */
		text = get_table(a, &len);
		if (!text)
			return -1;
		ret = load(fd, a->verb == VERB_CREATE ? PDM_IOC_CREATE :
			   PDM_IOC_RELOAD, a->verb_name, name, text, len,
			   (a->opts & OPT_READONLY ? PDM_F_READONLY : 0) |
			   (a->opts & OPT_SHARED ? PDM_F_SHARED : 0),
			   a->uuid, a->opts);
		free(text);
		return ret;
	case VERB_REMOVE:
		return cmd_remove(fd, a);
	case VERB_SUSPEND:
		return cmd_suspend(fd, a);
	case VERB_RESUME:
		return cmd_resume(fd, a);
	case VERB_RENAME:
		return cmd_rename(fd, a);
	case VERB_LS:
		return cmd_ls(fd, a);
	case VERB_TABLE:
		ret = get_text(fd, &r, PDM_IOC_TABLE, "table", name,
			       a->opts & OPT_INACTIVE ?
			       PDM_F_QUERY_INACTIVE : 0);
		if (!ret && (a->opts & OPT_PATHS))
			ret = print_table_paths(req_data(&r), r.hdr->data_len);
		else if (!ret)
			fwrite(req_data(&r), 1, r.hdr->data_len, stdout);
		free(r.hdr);
		return ret;
	case VERB_STATUS:
		return cmd_status(fd, a);
	case VERB_INFO:
		return cmd_info(fd, a);
	case VERB_DEPS:
		return cmd_deps(fd, a);
	default:
		return -1;
	}
}

int main(int argc, char **argv)
{
	struct pdmsetup_args a;
	int fd, ret;

	switch (pdmsetup_parse(&a, argc, argv)) {
	case PARSE_ERR:
		fprintf(stderr, "%s\n", a.err);
		free(a.names);
		return 2;
	case PARSE_HELP:
		pdmsetup_usage(stdout);
		free(a.names);
		return 0;
	case PARSE_VERSION:
		cmd_version();
		free(a.names);
		return 0;
	case PARSE_OK:
		break;
	}
	fd = open_control();
	if (fd < 0) {
		free(a.names);
		return 1;
	}
	ret = run(fd, &a);
	close(fd);
	free(a.names);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "pdmsetup: stdout: %s\n", strerror(errno));
		return 1;
	}
	return ret ? 1 : 0;
}
