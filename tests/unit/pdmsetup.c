// SPDX-License-Identifier: GPL-2.0
/*
 * pdmsetup's pure parts: the command line (each usage error's one line,
 * options anywhere, --, per-verb options and argument counts, -o fields)
 * and the output formats (the poll line split off the status text, JSON
 * escaping, info -c columns, status --json).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <string.h>

#include "../../tools/pdmsetup-args.c"
#include "../../tools/pdmsetup-out.c"
#include "unit.h"

#define MAXARGS 32

static struct pdmsetup_args args;
static char *argbuf[MAXARGS + 1];

/* Parse a NULL-terminated list of arguments (argv[0] is added). */
static enum pdmsetup_parse parse(const char *first, ...)
{
	static char prog[] = "pdmsetup";
	const char *s;
	va_list ap;
	int argc = 0;

	free(args.names);
	argbuf[argc++] = prog;
	va_start(ap, first);
	for (s = first; s; s = va_arg(ap, const char *))
		if (argc < MAXARGS)
			argbuf[argc++] = (char *)s;
	va_end(ap);
	argbuf[argc] = NULL;
	return pdmsetup_parse(&args, argc, argbuf);
}

/* Parsing must fail with exactly @msg. */
#define BAD(msg, ...) do {						\
	CHECK_EQ("parse fails: " msg, PARSE_ERR, parse(__VA_ARGS__, NULL)); \
	CHECK_STR("message", msg, args.err);				\
} while (0)

static void test_usage_errors(void)
{
	CHECK_EQ("no command", PARSE_ERR, parse(NULL));
	CHECK_STR("no command", "pdmsetup: missing COMMAND", args.err);
	BAD("pdmsetup: unknown command 'foo'", "foo");
	BAD("pdmsetup: unknown option '--bogus'", "--bogus", "ls");
	BAD("pdmsetup: unknown option '--bogus'", "ls", "--bogus=x");
	BAD("pdmsetup: unknown option '-x'", "ls", "-x");
	BAD("pdmsetup: create: missing NAME", "create");
	BAD("pdmsetup: create: missing NAME", "create", "--table", "0 8 error");
	BAD("pdmsetup: option '--table' needs an argument", "create", "a",
	    "--table");
	BAD("pdmsetup: option '-o' needs an argument", "info", "-c", "-o");
	BAD("pdmsetup: ls: unexpected argument 'x'", "ls", "x");
	BAD("pdmsetup: remove: unexpected argument 'b'", "remove", "a", "b");
	BAD("pdmsetup: remove: option '--tree' does not apply to remove",
	    "remove", "--tree", "a");
	BAD("pdmsetup: status: option '--nolockfs' does not apply to status",
	    "status", "a", "--nolockfs");
	BAD("pdmsetup: ls: option '-c' does not apply to ls", "ls", "-c");
	BAD("pdmsetup: create: --table and FILE 'f' both given", "create",
	    "a", "f", "--table", "0 8 error");
	BAD("pdmsetup: info: unknown field 'bogus'", "info", "-c", "-o",
	    "name,bogus");
	BAD("pdmsetup: info: unknown field ''", "info", "-c", "-o", "name,");
	BAD("pdmsetup: info: -o needs -c", "info", "-o", "name");
	BAD("pdmsetup: info: --noheadings needs -c", "info", "--noheadings");
	BAD("pdmsetup: info: -c and --json together", "info", "-c", "--json");
	BAD("pdmsetup: ls: --tree and --json together", "ls", "--tree",
	    "--json");
	BAD("pdmsetup: ls: option '--version' does not apply to ls", "ls",
	    "--version");
	/* 128 bytes: one more than a name holds */
	BAD("pdmsetup: remove: NAME longer than 127 bytes", "remove",
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	/* after --, an option is a name */
	BAD("pdmsetup: ls: unexpected argument '--json'", "ls", "--", "--json");
}

static void test_good(void)
{
	CHECK_EQ("help", PARSE_HELP, parse("--help", NULL));
	CHECK_EQ("help anywhere", PARSE_HELP, parse("create", "-h", NULL));
	CHECK_EQ("help verb", PARSE_HELP, parse("help", NULL));
	CHECK_EQ("version", PARSE_VERSION, parse("--version", NULL));
	CHECK_EQ("version verb", PARSE_VERSION, parse("version", NULL));

	CHECK_EQ("options anywhere", PARSE_OK,
		 parse("--table", "0 8 error", "create", "a", NULL));
	CHECK_EQ("verb", VERB_CREATE, args.verb);
	CHECK_STR("name", "a", args.names[0]);
	CHECK_STR("table", "0 8 error", args.table);
	CHECK_EQ("no file", 1, args.file == NULL);

	CHECK_EQ("file", PARSE_OK, parse("reload", "a", "t.table", NULL));
	CHECK_STR("file", "t.table", args.file);
	CHECK_EQ("one name", 1, args.nr_names);

	CHECK_EQ("-- ends options", PARSE_OK,
		 parse("remove", "--", "--force", NULL));
	CHECK_STR("name after --", "--force", args.names[0]);
	CHECK_EQ("no force", 0, args.opts & OPT_FORCE);

	/* The boot units' form (system/systemd/pdm-generator). */
	CHECK_EQ("generated create", PARSE_OK,
		 parse("create", "--uuid", "u-1", "--readonly", "--", "-a",
		       "/etc/pdm/t%1", NULL));
	CHECK_STR("generated create: name", "-a", args.names[0]);
	CHECK_STR("generated create: file", "/etc/pdm/t%1", args.file);
	CHECK_STR("generated create: uuid", "u-1", args.uuid);
	CHECK_EQ("generated create: readonly", OPT_READONLY,
		 args.opts & OPT_READONLY);

	CHECK_EQ("verb after --", PARSE_OK, parse("--", "ls", NULL));
	CHECK_EQ("ls", VERB_LS, args.verb);

	CHECK_EQ("remove flags", PARSE_OK,
		 parse("remove", "--retry", "a", "--force", NULL));
	CHECK_EQ("retry and force", OPT_RETRY | OPT_FORCE, args.opts);
	CHECK_EQ("create --shared", PARSE_OK,
		 parse("create", "--shared", "a", "--table", "0 8 zero", NULL));
	CHECK_EQ("shared flag", OPT_SHARED | OPT_TABLE, args.opts);
	BAD("pdmsetup: reload: option '--shared' does not apply to reload",
	    "reload", "--shared", "a", "t");
	CHECK_EQ("cancel-deferred", PARSE_OK,
		 parse("remove", "--cancel-deferred", "a", NULL));
	CHECK_EQ("cancel-deferred flag", OPT_CANCEL_DEFERRED, args.opts);
	BAD("pdmsetup: remove: --cancel-deferred and --deferred together",
	    "remove", "--deferred", "--cancel-deferred", "a");
	BAD("pdmsetup: remove: --cancel-deferred and --retry together",
	    "remove", "--cancel-deferred", "--retry", "a");
	BAD("pdmsetup: remove: --cancel-deferred and --force together",
	    "remove", "--force", "--cancel-deferred", "a");
	BAD("pdmsetup: info: option '--cancel-deferred' does not apply to info",
	    "info", "--cancel-deferred", "a");

	CHECK_EQ("nolockfs", PARSE_OK, parse("resume", "a", "--nolockfs", NULL));
	CHECK_EQ("nolockfs flag", OPT_NOLOCKFS, args.opts);

	CHECK_EQ("info names around options", PARSE_OK,
		 parse("info", "a", "-c", "b", "--noheadings", "-o",
		       "name,hybrid", "c", NULL));
	CHECK_EQ("three names", 3, args.nr_names);
	CHECK_STR("second name", "b", args.names[1]);
	CHECK_STR("third name", "c", args.names[2]);
	CHECK_EQ("two fields", 2, args.nr_fields);
	CHECK_EQ("field 0", FIELD_NAME, args.fields[0]);
	CHECK_EQ("field 1", FIELD_HYBRID, args.fields[1]);

	CHECK_EQ("default fields", PARSE_OK, parse("info", "-c", NULL));
	CHECK_EQ("8 default fields", 8, args.nr_fields);
	CHECK_EQ("+fields", PARSE_OK,
		 parse("info", "-c", "-o", "+poll_mode", "--separator", ":",
		       NULL));
	CHECK_EQ("9 fields", 9, args.nr_fields);
	CHECK_EQ("added last", FIELD_POLL_MODE, args.fields[8]);
	CHECK_STR("separator", ":", args.separator);
	CHECK_EQ("long forms", PARSE_OK,
		 parse("info", "--columns", "--options=dev", NULL));
	CHECK_EQ("one field", 1, args.nr_fields);
	CHECK_EQ("empty name passes to the driver", PARSE_OK,
		 parse("create", "", "--table", "0 8 error", NULL));
}

/* What @fn printed, in a static buffer. */
static char outbuf[4096];
#define CAPTURE(call) do {						\
	FILE *f_ = fmemopen(outbuf, sizeof(outbuf), "w");		\
	FILE *out = f_;							\
	call;								\
	fclose(f_);							\
} while (0)

static void test_status_split(void)
{
	struct pdm_devinfo di = {};
	char on[] = "0 8 linear P\n8 8 error\npoll on\n";
	char off[] = "0 8 linear I\npoll off: 259:1 does not poll\n";
	char none[] = "0 8 linear P\n";

	CHECK_EQ("on: segments", strlen("0 8 linear P\n8 8 error\n"),
		 status_split(on, strlen(on), &di));
	CHECK_EQ("on: known", 1, di.poll_known);
	CHECK_STR("on: no reason", "", di.poll_why);
	memset(&di, 0, sizeof(di));
	CHECK_EQ("off: segments", strlen("0 8 linear I\n"),
		 status_split(off, strlen(off), &di));
	CHECK_STR("off: reason", "259:1 does not poll", di.poll_why);
	memset(&di, 0, sizeof(di));
	CHECK_EQ("no poll line: whole", strlen(none),
		 status_split(none, strlen(none), &di));
	CHECK_EQ("no poll line: unknown", 0, di.poll_known);
}

static void test_output(void)
{
	struct pdm_devinfo di[2] = {
		{ .name = "a\"b\\c\td\x01", .major = 253, .minor = 0,
		  .flags = PDM_F_POLL, .sectors = 16, .nr_segments = 1,
		  .poll_known = 1, .poll_mode = "tracked", .hybrid = "sleep" },
		{ .name = "long-name", .major = 253, .minor = 11,
		  .flags = PDM_F_SUSPENDED | PDM_F_INACTIVE, .open_count = 2,
		  .sectors = 2097152, .nr_segments = 3, .poll_known = 1,
		  .poll_why = "259:1 does not poll" },
	};
	const char st[] = "0 8 linear PI\n8 8 error\n";
	char choice[32];

	CAPTURE(json_string(out, di[0].name));
	CHECK_STR("json escapes", "\"a\\\"b\\\\c\\td\\u0001\"", outbuf);
	CAPTURE(print_info_json(out, &di[1]));
	CHECK_STR("info json",
		  "{\"name\": \"long-name\", \"dev\": \"253:11\", \"major\": 253, "
		  "\"minor\": 11, \"sectors\": 2097152, \"state\": \"SUSPENDED\", "
		  "\"open\": 2, \"tables\": \"LIVE+INACTIVE\", \"segments\": 3, "
		  "\"poll\": false, \"poll_reason\": \"259:1 does not poll\", "
		  "\"poll_mode\": null, \"hybrid\": null, \"uuid\": null, "
		  "\"read_only\": false, \"deferred_remove\": false, "
		  "\"shared\": false}", outbuf);
	CAPTURE(print_info(out, &di[1]));
	CHECK_CONTAINS("info text poll", "Polling:           off: 259:1 does not poll\n",
		       outbuf);
	CHECK_CONTAINS("info text tables", "Tables present:    LIVE & INACTIVE\n",
		       outbuf);
	CHECK_EQ("not shared: no line", 0, strstr(outbuf, "Shared:") != NULL);
	di[1].flags |= PDM_F_SHARED;
	CAPTURE(print_info(out, &di[1]));
	CHECK_CONTAINS("info text shared", "Shared:            yes\n", outbuf);
	CAPTURE(print_info_json(out, &di[1]));
	CHECK_CONTAINS("info json shared", "\"shared\": true}", outbuf);
	di[1].flags &= ~PDM_F_SHARED;
	CAPTURE(print_status_json(out, "x", st, strlen(st), &di[0]));
	CHECK_STR("status json",
		  "{\"name\": \"x\", \"segments\": [{\"start\": 0, \"length\": 8, "
		  "\"target\": \"linear\", \"legs\": \"PI\"}, {\"start\": 8, "
		  "\"length\": 8, \"target\": \"error\", \"legs\": \"\"}], "
		  "\"poll\": true, \"poll_reason\": null}\n", outbuf);

	parse("info", "-c", "-o", "name,dev,hybrid,poll,tables", NULL);
	strcpy(di[0].name, "a");
	CAPTURE(print_columns(out, &args, di, 2));
	CHECK_STR("aligned columns",
		  "Name      Dev    Hybrid Poll Tables\n"
		  "a         253:0  sleep  on   LIVE\n"
		  "long-name 253:11 -      off  LIVE+INACTIVE\n", outbuf);
	parse("info", "-c", "-o", "name,open", "--noheadings",
	      "--separator", ":", NULL);
	CAPTURE(print_columns(out, &args, di, 2));
	CHECK_STR("separated columns", "a:0\nlong-name:2\n", outbuf);
	strcpy(choice, "off [gate] sleep\n");
	sysfs_choice(choice);
	CHECK_STR("sysfs choice", "gate", choice);
	strcpy(choice, "[tracked] sweep");
	sysfs_choice(choice);
	CHECK_STR("sysfs choice first", "tracked", choice);
	strcpy(choice, "7");
	sysfs_choice(choice);
	CHECK_STR("sysfs value without brackets", "7", choice);
}

int main(void)
{
	test_usage_errors();
	test_good();
	test_status_split();
	test_output();
	free(args.names);
	return unit_done("pdmsetup");
}
