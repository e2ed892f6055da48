// SPDX-License-Identifier: GPL-2.0
/*
 * pdmsetup's command line: the whole of it is parsed and checked here,
 * before /dev/pdm-control is opened, so that a script's mistake is a
 * usage error (exit 2) with one line saying what is wrong, whether or not
 * the module is loaded, and never half a command.  No I/O here besides
 * the usage text: the host unit tests (tests/unit/pdmsetup.c) include
 * this file.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdmsetup.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

void pdmsetup_usage(FILE *out)
{
	fprintf(out,
"Usage: pdmsetup [OPTIONS] COMMAND [ARGS]   (options may go anywhere; --\n"
"ends them)\n"
"Commands:\n"
"  create NAME [--table TABLE | FILE]   create a device with a live table\n"
"         [--uuid UUID] [--readonly]    (from stdin if neither is given);\n"
"         [--shared]                    prints its path (/dev/pdm/NAME\n"
"                                       with udev); --uuid: a\n"
"                                       unique id, kept for its lifetime;\n"
"                                       --readonly: lower devices opened\n"
"                                       read-only, the device read-only;\n"
"                                       --shared: its writable sectors\n"
"                                       may be another device's too\n"
"  reload NAME [--table TABLE | FILE]   load an inactive table (--readonly\n"
"         [--readonly]                  for a read-only device)\n"
"  remove [--retry] [--force]           remove a device nobody has open;\n"
"         [--deferred] NAME             --retry: on EBUSY, retry for about\n"
"                                       5 s; --force: first swap in an\n"
"                                       error table of the same size;\n"
"                                       --deferred: if open, remove it on\n"
"                                       its last close\n"
"  remove --cancel-deferred NAME        keep a device whose deferred\n"
"                                       removal is pending\n"
"  suspend [--nolockfs] NAME            freeze the file system on it (not\n"
"                                       with --nolockfs), hold back new\n"
"                                       I/O, wait for I/O in flight\n"
"  resume [--nolockfs] NAME             make an inactive table live, if\n"
"                                       any, and let I/O flow\n"
"  rename OLD NEW                       give a device another name, live\n"
"  ls [--tree | --json]                 list devices: NAME (MAJOR:MINOR);\n"
"                                       --tree: with the devices below\n"
"  table [--inactive] [--paths] NAME    the live (or inactive) table;\n"
"                                       --paths: lower devices by their\n"
"                                       /dev/disk/by-id (or by-path)\n"
"                                       links, as pdmtab wants them\n"
"  status [--json] NAME                 per segment: legs that poll (P) or\n"
"                                       not (I)\n"
"  info [--json] [NAME...]              state, tables, open count, size,\n"
"                                       polling (and why not); all devices\n"
"                                       if no NAME\n"
"  info -c [-o FIELDS] [--noheadings] [--separator S] [NAME...]\n"
"                                       the same in columns\n"
"  deps NAME                            lower devices: MAJOR:MINOR (name)\n"
"  version                              the tool's and the driver's\n"
"                                       versions and ABIs\n"
"  help, --help, -h                     this text\n"
"  --version                            as version; works without pdm.ko\n"
"  --noudevsync                         create, remove, resume, rename:\n"
"                                       do not wait (up to 20 s) for udev\n"
"                                       to make or drop the device's links\n"
"  (-c is --columns, -o --options; --separator S joins the values with S,\n"
"  unpadded)\n"
"Fields of -o (a leading + adds to the default\n"
"name,dev,state,open,segments,sectors,tables,poll):\n"
"  name dev sectors state open tables poll poll_mode hybrid segments uuid\n"
"  ro\n"
"Tables are dmsetup's, in 512-byte sectors, one segment per line:\n"
#define PDM_TARGET(name, args, what) "  <start> <length> " #name args "\n"
#include "pdm-targets.h"
#undef PDM_TARGET
"where <dev> is a path or MAJOR:MINOR.  If /dev/pdm-control is missing,\n"
"pdmsetup runs 'modprobe pdm' once.\n"
"Exit status: 0 success, 1 failure, 2 bad command line.\n");
}

const char *const pdmsetup_field_names[NR_FIELDS] = {
	[FIELD_NAME]		= "name",
	[FIELD_DEV]		= "dev",
	[FIELD_SECTORS]		= "sectors",
	[FIELD_STATE]		= "state",
	[FIELD_OPEN]		= "open",
	[FIELD_TABLES]		= "tables",
	[FIELD_POLL]		= "poll",
	[FIELD_POLL_MODE]	= "poll_mode",
	[FIELD_HYBRID]		= "hybrid",
	[FIELD_SEGMENTS]	= "segments",
	[FIELD_UUID]		= "uuid",
	[FIELD_RO]		= "ro",
};

static const int default_fields[] = {
	FIELD_NAME, FIELD_DEV, FIELD_STATE, FIELD_OPEN, FIELD_SEGMENTS,
	FIELD_SECTORS, FIELD_TABLES, FIELD_POLL,
};

static const struct {
	const char *name;
	enum pdmsetup_verb verb;
	int min, max;		/* positional arguments after the verb */
	unsigned int opts;	/* OPT_* it takes */
} verbs[] = {
	{ "create",  VERB_CREATE,  1, 2,  OPT_TABLE | OPT_UUID | OPT_READONLY |
					  OPT_SHARED | OPT_NOUDEVSYNC },
	{ "reload",  VERB_RELOAD,  1, 2,  OPT_TABLE | OPT_READONLY },
	{ "remove",  VERB_REMOVE,  1, 1,  OPT_RETRY | OPT_FORCE | OPT_DEFERRED |
					  OPT_CANCEL_DEFERRED |
					  OPT_NOUDEVSYNC },
	{ "ls",      VERB_LS,      0, 0,  OPT_JSON | OPT_TREE },
	{ "table",   VERB_TABLE,   1, 1,  OPT_INACTIVE | OPT_PATHS },
	{ "status",  VERB_STATUS,  1, 1,  OPT_JSON },
	{ "info",    VERB_INFO,    0, -1, OPT_JSON | OPT_COLUMNS | OPT_FIELDS |
					  OPT_NOHEADINGS | OPT_SEPARATOR },
	{ "deps",    VERB_DEPS,    1, 1,  0 },
	{ "suspend", VERB_SUSPEND, 1, 1,  OPT_NOLOCKFS },
	{ "resume",  VERB_RESUME,  1, 1,  OPT_NOLOCKFS | OPT_NOUDEVSYNC },
	{ "rename",  VERB_RENAME,  2, 2,  OPT_NOUDEVSYNC },
	{ "version", VERB_VERSION, 0, 0,  0 },
	{ "help",    VERB_HELP,    0, 0,  0 },
};

enum { LONG_HELP = 0x100, LONG_VERSION, LONG_OPT };

/* val: LONG_OPT + the bit's index, so that one table says both. */
static const struct option long_opts[] = {
	{ "help",	no_argument,		NULL, LONG_HELP },
	{ "version",	no_argument,		NULL, LONG_VERSION },
	{ "table",	required_argument,	NULL, LONG_OPT + 0 },
	{ "inactive",	no_argument,		NULL, LONG_OPT + 1 },
	{ "nolockfs",	no_argument,		NULL, LONG_OPT + 2 },
	{ "retry",	no_argument,		NULL, LONG_OPT + 3 },
	{ "force",	no_argument,		NULL, LONG_OPT + 4 },
	{ "json",	no_argument,		NULL, LONG_OPT + 5 },
	{ "tree",	no_argument,		NULL, LONG_OPT + 6 },
	{ "columns",	no_argument,		NULL, LONG_OPT + 7 },
	{ "options",	required_argument,	NULL, LONG_OPT + 8 },
	{ "noheadings",	no_argument,		NULL, LONG_OPT + 9 },
	{ "separator",	required_argument,	NULL, LONG_OPT + 10 },
	{ "uuid",	required_argument,	NULL, LONG_OPT + 11 },
	{ "readonly",	no_argument,		NULL, LONG_OPT + 12 },
	{ "deferred",	no_argument,		NULL, LONG_OPT + 13 },
	{ "cancel-deferred", no_argument,	NULL, LONG_OPT + 14 },
	{ "shared",	no_argument,		NULL, LONG_OPT + 15 },
	{ "paths",	no_argument,		NULL, LONG_OPT + 16 },
	{ "noudevsync",	no_argument,		NULL, LONG_OPT + 17 },
	{ NULL, 0, NULL, 0 },
};

/* The option of bit @bit, as the usage spells it, for messages. */
static const char *opt_name(unsigned int bit)
{
	static char buf[32];
	int i = __builtin_ctz(bit);

	if (bit == OPT_COLUMNS)
		return "-c";
	if (bit == OPT_FIELDS)
		return "-o";
	snprintf(buf, sizeof(buf), "--%s", long_opts[2 + i].name);
	return buf;
}

__attribute__((format(printf, 2, 3)))
static enum pdmsetup_parse bad(struct pdmsetup_args *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->err, sizeof(a->err), fmt, ap);
	va_end(ap);
	return PARSE_ERR;
}

static void set_default_fields(struct pdmsetup_args *a)
{
	memcpy(a->fields, default_fields, sizeof(default_fields));
	a->nr_fields = ARRAY_SIZE(default_fields);
}

int pdmsetup_parse_fields(struct pdmsetup_args *a, const char *list)
{
	const char *p = list, *end;
	size_t n;
	int f;

	a->nr_fields = 0;
	if (*p == '+') {
		set_default_fields(a);
		p++;
	}
	for (;; p = end + 1) {
		end = p + strcspn(p, ",");
		n = end - p;
		for (f = 0; f < NR_FIELDS; f++)
			if (strlen(pdmsetup_field_names[f]) == n &&
			    !strncmp(pdmsetup_field_names[f], p, n))
				break;
		if (f == NR_FIELDS) {
			bad(a, "pdmsetup: info: unknown field '%.*s'", (int)n,
			    p);
			return -1;
		}
		if (a->nr_fields == MAX_COLUMNS) {
			bad(a, "pdmsetup: info: more than %d fields",
			    MAX_COLUMNS);
			return -1;
		}
		a->fields[a->nr_fields++] = f;
		if (!*end)
			return 0;
	}
}

/* Set the verb from the first positional argument. */
static int find_verb(struct pdmsetup_args *a, const char *word, int *verb)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(verbs); i++) {
		if (!strcmp(word, verbs[i].name)) {
			a->verb = verbs[i].verb;
			a->verb_name = verbs[i].name;
			*verb = i;
			return 0;
		}
	}
	bad(a, "pdmsetup: unknown command '%s'", word);
	return -1;
}

/* Everything getopt_long found, checked against the verb's needs. */
static enum pdmsetup_parse check(struct pdmsetup_args *a, int v,
				 const char *fields)
{
	const char *vn = a->verb_name;
	unsigned int stray = a->opts & ~verbs[v].opts;

	if (stray)
		return bad(a, "pdmsetup: %s: option '%s' does not apply to %s",
			   vn, opt_name(stray & -stray), vn);
	if (a->nr_names < verbs[v].min)
		return bad(a, "pdmsetup: %s: missing %s", vn,
			   a->verb == VERB_RENAME && a->nr_names ? "NEW" :
			   "NAME");
	if (verbs[v].max >= 0 && a->nr_names > verbs[v].max)
		return bad(a, "pdmsetup: %s: unexpected argument '%s'", vn,
			   a->names[verbs[v].max]);
	if (a->verb == VERB_CREATE || a->verb == VERB_RELOAD) {
		if (a->nr_names == 2) {
			if (a->table)
				return bad(a, "pdmsetup: %s: --table and FILE '%s' both given",
					   vn, a->names[1]);
			a->file = a->names[1];
			a->nr_names = 1;
		}
	}
	for (v = 0; v < a->nr_names; v++)
		if (strlen(a->names[v]) >= PDM_NAME_LEN)
			return bad(a, "pdmsetup: %s: NAME longer than %d bytes",
				   vn, PDM_NAME_LEN - 1);
	if (a->uuid && strlen(a->uuid) >= PDM_UUID_LEN)
		return bad(a, "pdmsetup: %s: UUID longer than %d bytes", vn,
			   PDM_UUID_LEN - 1);
	if (a->uuid && !*a->uuid)
		return bad(a, "pdmsetup: %s: empty UUID", vn);
	if ((a->opts & (OPT_FORCE | OPT_DEFERRED)) ==
	    (OPT_FORCE | OPT_DEFERRED))
		return bad(a, "pdmsetup: remove: --force and --deferred together");
	stray = a->opts & (OPT_RETRY | OPT_FORCE | OPT_DEFERRED);
	if ((a->opts & OPT_CANCEL_DEFERRED) && stray)
		return bad(a, "pdmsetup: remove: --cancel-deferred and %s together",
			   opt_name(stray & -stray));
	if ((a->opts & (OPT_JSON | OPT_TREE)) == (OPT_JSON | OPT_TREE))
		return bad(a, "pdmsetup: ls: --tree and --json together");
	if ((a->opts & (OPT_JSON | OPT_COLUMNS)) == (OPT_JSON | OPT_COLUMNS))
		return bad(a, "pdmsetup: info: -c and --json together");
	stray = a->opts & (OPT_FIELDS | OPT_NOHEADINGS | OPT_SEPARATOR);
	if (stray && !(a->opts & OPT_COLUMNS))
		return bad(a, "pdmsetup: info: %s needs -c", opt_name(stray & -stray));
	if (fields && pdmsetup_parse_fields(a, fields))
		return PARSE_ERR;
	return PARSE_OK;
}

enum pdmsetup_parse pdmsetup_parse(struct pdmsetup_args *a, int argc,
				   char **argv)
{
	const char *fields = NULL;
	int c, v = -1, help = 0;

	memset(a, 0, sizeof(*a));
	a->separator = " ";
	set_default_fields(a);
	/* Options and names interleave: room for every argument. */
	a->names = calloc(argc + 1, sizeof(*a->names));
	if (!a->names)
		return bad(a, "pdmsetup: out of memory");
	/*
	 * "-": positional arguments come back in order as option 1, so
	 * that options may go anywhere whatever POSIXLY_CORRECT says; ":":
	 * a missing option argument is told apart from an unknown option.
	 */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "-:hco:", long_opts, NULL)) != -1) {
		switch (c) {
		case 1:
			if (v < 0) {
				if (find_verb(a, optarg, &v))
					return PARSE_ERR;
			} else {
				a->names[a->nr_names++] = optarg;
			}
			break;
		case 'h':
		case LONG_HELP:
			help = 1;
			break;
		case LONG_VERSION:
			a->version = 1;
			break;
		case 'c':
			a->opts |= OPT_COLUMNS;
			break;
		case 'o':
			a->opts |= OPT_FIELDS;
			fields = optarg;
			break;
		case ':':
			return bad(a, "pdmsetup: option '%s' needs an argument",
				   argv[optind - 1]);
		case '?':
			if (optopt)
				return bad(a, "pdmsetup: unknown option '-%c'",
					   optopt);
			return bad(a, "pdmsetup: unknown option '%.*s'",
				   (int)strcspn(argv[optind - 1], "="),
				   argv[optind - 1]);
		default:
			a->opts |= 1U << (c - LONG_OPT);
			if (c == LONG_OPT + 0)
				a->table = optarg;
			else if (c == LONG_OPT + 8)
				fields = optarg;
			else if (c == LONG_OPT + 10)
				a->separator = optarg;
			else if (c == LONG_OPT + 11)
				a->uuid = optarg;
			break;
		}
	}
	/* After "--": the rest is positional, a verb first if none yet. */
	for (; optind < argc; optind++) {
		if (v < 0) {
			if (find_verb(a, argv[optind], &v))
				return PARSE_ERR;
			continue;
		}
		a->names[a->nr_names++] = argv[optind];
	}
	if (help)
		return PARSE_HELP;
	if (v < 0 && a->version)
		return PARSE_VERSION;
	if (v < 0)
		return bad(a, "pdmsetup: missing COMMAND");
	if (a->verb == VERB_HELP)
		return PARSE_HELP;
	if (a->version)
		return bad(a, "pdmsetup: %s: option '--version' does not apply to %s",
			   a->verb_name, a->verb_name);
	if (check(a, v, fields) != PARSE_OK)
		return PARSE_ERR;
	/* The verb is --version spelt another way: it loads nothing. */
	return a->verb == VERB_VERSION ? PARSE_VERSION : PARSE_OK;
}
