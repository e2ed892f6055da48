// SPDX-License-Identifier: GPL-2.0
/*
 * pdmsetup: configure pdm devices, in the manner of dmsetup.
 *
 * Every verb is one ioctl on /dev/pdm-control; the driver does all the
 * checking and explains a refusal in pdm_ioctl.err, which is printed as
 * "pdmsetup: VERB NAME: <strerror>: <reason>".
 *
 * For tests on a fault-injection kernel, PDMSETUP_FAIL_NTH=N makes the
 * N-th fault-injection check (failslab, fail_page_alloc, ...) that the
 * command's first ioctl reaches fail, through /proc/thread-self/fail-nth,
 * and prints "pdmsetup: fail-nth: K left" on stderr after it: K > 0 means
 * the ioctl ended before its N-th check, so nothing was injected.
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

#define CONTROL_PATH	"/dev/" PDM_CONTROL_NAME
#define FAIL_NTH_PATH	"/proc/thread-self/fail-nth"
#define MAX_TABLE	(1U << 20)	/* as the driver's PDM_MAX_TABLE */

static void usage(FILE *out)
{
	fprintf(out,
"Usage: pdmsetup COMMAND [ARGS]\n"
"Commands:\n"
"  create NAME [--table TABLE | FILE]   create a device with a live table;\n"
"                                       the table comes from stdin if no\n"
"                                       TABLE or FILE is given; prints the\n"
"                                       device node\n"
"  remove NAME                          remove a device nobody has open\n"
"  ls                                   list devices: NAME (MAJOR:MINOR)\n"
"  table [--inactive] NAME              print the live (or inactive) table\n"
"  status NAME                          per segment: legs that poll (P) or\n"
"                                       not (I); then whether polling is on\n"
"  info NAME                            state, tables, open count, numbers\n"
"  reload NAME [--table TABLE | FILE]   load an inactive table\n"
"  suspend NAME                         hold back new I/O, wait for I/O\n"
"                                       in flight\n"
"  resume NAME                          make an inactive table live, if\n"
"                                       any, and let I/O flow\n"
"  version                              the tool's and the driver's ABI\n"
"  --help                               this text\n"
"Tables are dmsetup's, in 512-byte sectors, one segment per line:\n"
"  <start> <length> linear <dev> <offset>\n"
"  <start> <length> striped <nr> <chunk_sectors> <dev> <offset>...\n"
"where <dev> is a path or MAJOR:MINOR.\n"
"Environment (tests on a fault-injection kernel):\n"
"  PDMSETUP_FAIL_NTH=N   fail the N-th allocation the command's ioctl\n"
"                        reaches (/proc/thread-self/fail-nth) and say\n"
"                        how many were left unreached\n");
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

/* PDMSETUP_FAIL_NTH: the fail-nth file, opened ahead, and N; else -1. */
static int fail_nth_fd = -1;
static unsigned int fail_nth;

static int fail_nth_open(void)
{
	const char *env = getenv("PDMSETUP_FAIL_NTH");
	char *end;

	if (!env || !*env)
		return 0;
	fail_nth = strtoul(env, &end, 10);
	if (*end || !fail_nth) {
		fprintf(stderr, "pdmsetup: PDMSETUP_FAIL_NTH: '%s' is not a "
			"positive number\n", env);
		return -1;
	}
	fail_nth_fd = open(FAIL_NTH_PATH, O_RDWR | O_CLOEXEC);
	if (fail_nth_fd < 0) {
		fprintf(stderr, "pdmsetup: %s: %s (PDMSETUP_FAIL_NTH needs "
			"CONFIG_FAULT_INJECTION)\n", FAIL_NTH_PATH,
			strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Arm fail-nth just before the ioctl, and after it say what was left and
 * disarm it.  Nothing between the two may allocate in the kernel: the
 * buffers are on the stack, and the file was opened ahead.  errno is
 * kept for the caller.
 */
static void fail_nth_arm(void)
{
	char buf[16];
	int len;

	if (fail_nth_fd < 0)
		return;
	len = snprintf(buf, sizeof(buf), "%u", fail_nth);
	if (pwrite(fail_nth_fd, buf, len, 0) != len)
		perror("pdmsetup: arming fail-nth");
}

static void fail_nth_disarm(void)
{
	int err = errno;
	char buf[16];
	ssize_t len;

	if (fail_nth_fd < 0)
		return;
	len = pread(fail_nth_fd, buf, sizeof(buf) - 1, 0);
	if (pwrite(fail_nth_fd, "0", 1, 0) != 1 || len <= 0) {
		perror("pdmsetup: disarming fail-nth");
	} else {
		buf[len] = '\0';
		fprintf(stderr, "pdmsetup: fail-nth: %u left\n",
			(unsigned int)strtoul(buf, NULL, 10));
	}
	close(fail_nth_fd);
	fail_nth_fd = -1;
	errno = err;
}

/* A command's buffer: the header, then room for data. */
struct req {
	struct pdm_ioctl *hdr;
	size_t size;
};

static int req_init(struct req *r, const char *name, size_t room)
{
	r->size = sizeof(*r->hdr) + room;
	/* Not calloc: the pages are touched now, not in the ioctl. */
	r->hdr = malloc(r->size);
	if (!r->hdr) {
		perror("pdmsetup");
		return -1;
	}
	memset(r->hdr, 0, r->size);
	r->hdr->version[0] = PDM_ABI_MAJOR;
	r->hdr->version[1] = PDM_ABI_MINOR;
	r->hdr->data_size = r->size;
	r->hdr->data_start = sizeof(*r->hdr);
	if (name) {
		if (strlen(name) >= PDM_NAME_LEN) {
			fprintf(stderr, "pdmsetup: %s: name longer than %d\n",
				name, PDM_NAME_LEN - 1);
			return -1;
		}
		strcpy(r->hdr->name, name);
	}
	return 0;
}

static char *req_data(struct req *r)
{
	return (char *)r->hdr + r->hdr->data_start;
}

/*
 * Issue a command; for commands with output, grow the buffer until it
 * fits.  Prints the error and returns -1 on failure.
 */
static int req_run(int fd, struct req *r, unsigned long cmd, const char *verb)
{
	for (;;) {
		int ret;

		fail_nth_arm();
		ret = ioctl(fd, cmd, r->hdr);
		fail_nth_disarm();
		if (ret < 0) {
			int err = errno;

			fprintf(stderr, "pdmsetup: %s%s%s: %s%s%s\n", verb,
				r->hdr->name[0] ? " " : "", r->hdr->name,
				strerror(err), r->hdr->err[0] ? ": " : "",
				r->hdr->err);
			return -1;
		}
		if (!(r->hdr->flags & PDM_F_BUFFER_FULL))
			return 0;
		{
			size_t size = sizeof(*r->hdr) + r->hdr->data_len;
			struct pdm_ioctl *bigger = realloc(r->hdr, size);

			if (!bigger) {
				perror("pdmsetup");
				return -1;
			}
			r->hdr = bigger;
			r->size = size;
			r->hdr->data_size = size;
			r->hdr->flags &= ~PDM_F_BUFFER_FULL;
		}
	}
}

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
static char *get_table(int argc, char **argv, size_t *len)
{
	char *text;
	FILE *f;

	if (argc == 2) {
		*len = strlen(argv[1]);
		text = strdup(argv[1]);
		if (!text)
			perror("pdmsetup");
		return text;
	}
	if (argc == 0)
		return read_table(stdin, "stdin", len);
	f = fopen(argv[0], "r");
	if (!f) {
		fprintf(stderr, "pdmsetup: %s: %s\n", argv[0], strerror(errno));
		return NULL;
	}
	text = read_table(f, argv[0], len);
	fclose(f);
	return text;
}

static int cmd_load(int fd, unsigned long cmd, const char *verb,
		    const char *name, int argc, char **argv)
{
	struct req r = {};
	size_t len = 0;
	char *text;
	int ret = 1;

	if (!(argc == 0 || (argc == 1 && argv[0][0] != '-') ||
	      (argc == 2 && !strcmp(argv[0], "--table"))))
		return -1;
	text = get_table(argc, argv, &len);
	if (!text)
		return 1;
	if (req_init(&r, name, len) == 0) {
		memcpy(req_data(&r), text, len);
		r.hdr->data_len = len;
		if (req_run(fd, &r, cmd, verb) == 0) {
			/* devtmpfs names the node after the disk */
			if (cmd == PDM_IOC_CREATE)
				printf("/dev/pdm%u\n", minor(r.hdr->dev));
			ret = 0;
		}
	}
	free(r.hdr);
	free(text);
	return ret;
}

static int cmd_simple(int fd, unsigned long cmd, const char *verb,
		      const char *name)
{
	struct req r = {};
	int ret = 1;

	if (req_init(&r, name, 0) == 0 && req_run(fd, &r, cmd, verb) == 0)
		ret = 0;
	free(r.hdr);
	return ret;
}

static int cmd_text(int fd, unsigned long cmd, const char *verb,
		    const char *name, unsigned int flags)
{
	struct req r = {};
	int ret = 1;

	if (req_init(&r, name, 16384) == 0) {
		r.hdr->flags = flags;
		if (req_run(fd, &r, cmd, verb) == 0) {
			fwrite(req_data(&r), 1, r.hdr->data_len, stdout);
			ret = 0;
		}
	}
	free(r.hdr);
	return ret;
}

static int cmd_ls(int fd)
{
	struct pdm_list_entry *e;
	struct req r = {};
	size_t i, n;
	int ret = 1;

	if (req_init(&r, NULL, 64 * sizeof(*e)) == 0 &&
	    req_run(fd, &r, PDM_IOC_LIST, "ls") == 0) {
		e = (struct pdm_list_entry *)req_data(&r);
		n = r.hdr->data_len / sizeof(*e);
		if (!n)
			printf("No devices found\n");
		for (i = 0; i < n; i++)
			printf("%s\t(%u:%u)\n", e[i].name, major(e[i].dev),
			       minor(e[i].dev));
		ret = 0;
	}
	free(r.hdr);
	return ret;
}

static int cmd_info(int fd, const char *name)
{
	struct pdm_ioctl *h;
	struct req r = {};
	int ret = 1;

	if (req_init(&r, name, 0) == 0 &&
	    req_run(fd, &r, PDM_IOC_INFO, "info") == 0) {
		h = r.hdr;
		printf("Name:              %s\n", h->name);
		printf("State:             %s\n",
		       h->flags & PDM_F_SUSPENDED ? "SUSPENDED" : "ACTIVE");
		printf("Tables present:    %s\n",
		       h->flags & PDM_F_INACTIVE ? "LIVE & INACTIVE" : "LIVE");
		printf("Open count:        %d\n", h->open_count);
		printf("Major, minor:      %u, %u\n", major(h->dev),
		       minor(h->dev));
		printf("Number of targets: %u\n", h->nr_segments);
		printf("Sectors:           %llu\n",
		       (unsigned long long)h->sectors);
		printf("Polling:           %s\n",
		       h->flags & PDM_F_POLL ? "on" : "off");
		ret = 0;
	}
	free(r.hdr);
	return ret;
}

static int cmd_version(int fd)
{
	struct pdm_version ver;

	printf("Tool ABI:          %u.%u\n", PDM_ABI_MAJOR, PDM_ABI_MINOR);
	if (ioctl(fd, PDM_IOC_VERSION, &ver) < 0) {
		fprintf(stderr, "pdmsetup: version: %s\n", strerror(errno));
		return 1;
	}
	printf("Driver ABI:        %u.%u\n", ver.major, ver.minor);
	return 0;
}

static const struct {
	const char *verb;
	unsigned long cmd;
} simple_verbs[] = {
	{ "remove", PDM_IOC_REMOVE },
	{ "suspend", PDM_IOC_SUSPEND },
	{ "resume", PDM_IOC_RESUME },
};

static int run(int fd, int argc, char **argv)
{
	const char *verb = argv[0];
	size_t i;

	if (!strcmp(verb, "version") && argc == 1)
		return cmd_version(fd);
	if (!strcmp(verb, "ls") && argc == 1)
		return cmd_ls(fd);
	if (!strcmp(verb, "create") && argc >= 2)
		return cmd_load(fd, PDM_IOC_CREATE, verb, argv[1], argc - 2,
				argv + 2);
	if (!strcmp(verb, "reload") && argc >= 2)
		return cmd_load(fd, PDM_IOC_RELOAD, verb, argv[1], argc - 2,
				argv + 2);
	if (!strcmp(verb, "table") && argc == 3 &&
	    !strcmp(argv[1], "--inactive"))
		return cmd_text(fd, PDM_IOC_TABLE, verb, argv[2],
				PDM_F_QUERY_INACTIVE);
	if (argc != 2)
		return -1;
	if (!strcmp(verb, "table"))
		return cmd_text(fd, PDM_IOC_TABLE, verb, argv[1], 0);
	if (!strcmp(verb, "status"))
		return cmd_text(fd, PDM_IOC_STATUS, verb, argv[1], 0);
	if (!strcmp(verb, "info"))
		return cmd_info(fd, argv[1]);
	for (i = 0; i < sizeof(simple_verbs) / sizeof(simple_verbs[0]); i++)
		if (!strcmp(verb, simple_verbs[i].verb))
			return cmd_simple(fd, simple_verbs[i].cmd, verb,
					  argv[1]);
	return -1;
}

int main(int argc, char **argv)
{
	int fd, ret;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (fail_nth_open() < 0)
		return 1;
	fd = open_control();
	if (fd < 0)
		return 1;
	ret = run(fd, argc - 1, argv + 1);
	close(fd);
	if (ret < 0) {
		fprintf(stderr, "pdmsetup: bad command line: '%s'\n", argv[1]);
		usage(stderr);
		return 2;
	}
	return ret;
}
