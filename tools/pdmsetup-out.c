// SPDX-License-Identifier: GPL-2.0
/*
 * pdmsetup's output formats: info's text, its columns (info -c) and the
 * JSON of info and status.  They print what pdmsetup.c gathered from the
 * driver and sysfs, and do no I/O of their own besides the FILE they are
 * given, so that the host unit tests (tests/unit/pdmsetup.c) can check
 * them.  The JSON is written by hand: a static pdmsetup carries no
 * library for it.  Its strings are escaped all the same, though the
 * driver now takes names and uuids of letters, digits and #+-.:=@_
 * only: a driver before that rule took any printable byte.
 */
#include <stdio.h>
#include <string.h>

#include "pdmsetup.h"

/* A JSON string: quotes, backslashes and control bytes escaped. */
void json_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', out);
	for (; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		default:
			/* Bytes >= 0x80 pass: a UTF-8 name stays one. */
			if (*p < 0x20 || *p == 0x7f)
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
		}
	}
	fputc('"', out);
}

size_t status_split(char *text, size_t len, struct pdm_devinfo *di)
{
	size_t end = len, start;

	if (end && text[end - 1] == '\n')
		end--;
	start = end;
	while (start && text[start - 1] != '\n')
		start--;
	if (end - start == 7 && !memcmp(text + start, "poll on", 7)) {
		di->poll_why[0] = '\0';
	} else if (end - start > 10 &&
		   !memcmp(text + start, "poll off: ", 10)) {
		snprintf(di->poll_why, sizeof(di->poll_why), "%.*s",
			 (int)(end - start - 10), text + start + 10);
	} else {
		return len;
	}
	di->poll_known = 1;
	return start;
}

/*
 * A sysfs choice ("tracked [sweep] direct") cut down in place to its
 * bracketed word; a value without brackets stays as it is.
 */
void sysfs_choice(char *v)
{
	char *open = strchr(v, '['), *close = open ? strchr(open, ']') : NULL;

	if (!close)
		return;
	*close = '\0';
	memmove(v, open + 1, strlen(open + 1) + 1);
}

static const char *poll_text(const struct pdm_devinfo *di, char *buf,
			     size_t size)
{
	if (di->flags & PDM_F_POLL)
		return "on";
	if (!di->poll_known || !di->poll_why[0])
		return "off";
	snprintf(buf, size, "off: %s", di->poll_why);
	return buf;
}

/* dmsetup's shape; the lines tests and scripts grep stay as they were. */
void print_info(FILE *out, const struct pdm_devinfo *di)
{
	char buf[PDM_MSG_LEN + 8];

	fprintf(out, "Name:              %s\n", di->name);
	fprintf(out, "State:             %s\n",
		di->flags & PDM_F_SUSPENDED ? "SUSPENDED" : "ACTIVE");
	fprintf(out, "Read-only:         %s\n",
		di->flags & PDM_F_READONLY ? "yes" : "no");
	fprintf(out, "Tables present:    %s\n",
		di->flags & PDM_F_INACTIVE ? "LIVE & INACTIVE" : "LIVE");
	fprintf(out, "Open count:        %d\n", di->open_count);
	fprintf(out, "Major, minor:      %u, %u\n", di->major, di->minor);
	fprintf(out, "Number of targets: %u\n", di->nr_segments);
	fprintf(out, "Sectors:           %llu\n", di->sectors);
	fprintf(out, "Polling:           %s\n", poll_text(di, buf, sizeof(buf)));
	if (di->uuid[0])
		fprintf(out, "UUID:              %s\n", di->uuid);
	if (di->flags & PDM_F_DEFERRED)
		fprintf(out, "Deferred remove:   pending\n");
	if (di->flags & PDM_F_SHARED)
		fprintf(out, "Shared:            yes\n");
}

/* One device's value of one column. */
static const char *field_text(const struct pdm_devinfo *di, int f,
			      char *buf, size_t size)
{
	switch (f) {
	case FIELD_NAME:
		return di->name;
	case FIELD_DEV:
		snprintf(buf, size, "%u:%u", di->major, di->minor);
		return buf;
	case FIELD_SECTORS:
		snprintf(buf, size, "%llu", di->sectors);
		return buf;
	case FIELD_STATE:
		return di->flags & PDM_F_SUSPENDED ? "SUSPENDED" : "ACTIVE";
	case FIELD_OPEN:
		snprintf(buf, size, "%d", di->open_count);
		return buf;
	case FIELD_TABLES:
		return di->flags & PDM_F_INACTIVE ? "LIVE+INACTIVE" : "LIVE";
	case FIELD_POLL:
		return di->flags & PDM_F_POLL ? "on" : "off";
	case FIELD_POLL_MODE:
		return di->poll_mode[0] ? di->poll_mode : "-";
	case FIELD_HYBRID:
		return di->hybrid[0] ? di->hybrid : "-";
	case FIELD_SEGMENTS:
		snprintf(buf, size, "%u", di->nr_segments);
		return buf;
	case FIELD_UUID:
		return di->uuid[0] ? di->uuid : "-";
	case FIELD_RO:
		return di->flags & PDM_F_READONLY ? "ro" : "rw";
	}
	return "?";
}

static const char *const field_titles[NR_FIELDS] = {
	[FIELD_NAME]		= "Name",
	[FIELD_DEV]		= "Dev",
	[FIELD_SECTORS]		= "Sectors",
	[FIELD_STATE]		= "State",
	[FIELD_OPEN]		= "Open",
	[FIELD_TABLES]		= "Tables",
	[FIELD_POLL]		= "Poll",
	[FIELD_POLL_MODE]	= "PollMode",
	[FIELD_HYBRID]		= "Hybrid",
	[FIELD_SEGMENTS]	= "Segs",
	[FIELD_UUID]		= "UUID",
	[FIELD_RO]		= "RO",
};

/*
 * info -c: with the default separator (one space), columns padded to
 * their widest value, as dmsetup aligns them; with --separator, values
 * joined by it as they are, for scripts to split.  No padding after the
 * last column either way.
 */
void print_columns(FILE *out, const struct pdmsetup_args *a,
		   const struct pdm_devinfo *di, int nr)
{
	int align = !strcmp(a->separator, " ");
	size_t width[MAX_COLUMNS] = { 0 };
	char buf[64];
	int i, c;

	for (c = 0; c < a->nr_fields && align; c++) {
		if (!(a->opts & OPT_NOHEADINGS))
			width[c] = strlen(field_titles[a->fields[c]]);
		for (i = 0; i < nr; i++) {
			size_t n = strlen(field_text(&di[i], a->fields[c], buf,
						     sizeof(buf)));
			if (n > width[c])
				width[c] = n;
		}
	}
	for (i = (a->opts & OPT_NOHEADINGS) ? 0 : -1; i < nr; i++) {
		for (c = 0; c < a->nr_fields; c++) {
			const char *v = i < 0 ? field_titles[a->fields[c]] :
				field_text(&di[i], a->fields[c], buf,
					   sizeof(buf));
			int last = c == a->nr_fields - 1;

			fprintf(out, "%s%-*s", c ? a->separator : "",
				last ? 0 : (int)width[c], v);
		}
		fputc('\n', out);
	}
}

static void json_kv_str(FILE *out, const char *sep, const char *key,
			const char *val)
{
	fprintf(out, "%s\"%s\": ", sep, key);
	if (val)
		json_string(out, val);
	else
		fputs("null", out);
}

static void json_poll(FILE *out, const struct pdm_devinfo *di)
{
	fprintf(out, ", \"poll\": %s",
		di->flags & PDM_F_POLL ? "true" : "false");
	json_kv_str(out, ", ", "poll_reason",
		    !(di->flags & PDM_F_POLL) && di->poll_known &&
		    di->poll_why[0] ? di->poll_why : NULL);
}

/* One device of info --json: an object, no newline. */
void print_info_json(FILE *out, const struct pdm_devinfo *di)
{
	char dev[32];

	snprintf(dev, sizeof(dev), "%u:%u", di->major, di->minor);
	json_kv_str(out, "{", "name", di->name);
	json_kv_str(out, ", ", "dev", dev);
	fprintf(out, ", \"major\": %u, \"minor\": %u, \"sectors\": %llu",
		di->major, di->minor, di->sectors);
	json_kv_str(out, ", ", "state",
		    di->flags & PDM_F_SUSPENDED ? "SUSPENDED" : "ACTIVE");
	fprintf(out, ", \"open\": %d", di->open_count);
	json_kv_str(out, ", ", "tables",
		    di->flags & PDM_F_INACTIVE ? "LIVE+INACTIVE" : "LIVE");
	fprintf(out, ", \"segments\": %u", di->nr_segments);
	json_poll(out, di);
	json_kv_str(out, ", ", "poll_mode",
		    di->poll_mode[0] ? di->poll_mode : NULL);
	json_kv_str(out, ", ", "hybrid",
		    di->hybrid[0] ? di->hybrid : NULL);
	json_kv_str(out, ", ", "uuid", di->uuid[0] ? di->uuid : NULL);
	fprintf(out, ", \"read_only\": %s, \"deferred_remove\": %s",
		di->flags & PDM_F_READONLY ? "true" : "false",
		di->flags & PDM_F_DEFERRED ? "true" : "false");
	fprintf(out, ", \"shared\": %s",
		di->flags & PDM_F_SHARED ? "true" : "false");
	fputc('}', out);
}

/*
 * status --json: {"name", "segments": [{"start", "length", "target",
 * "legs"}], "poll", "poll_reason"}, from the segment lines "<start>
 * <length> <target>[ <legs>]".
 */
void print_status_json(FILE *out, const char *name, const char *text,
		       size_t len, const struct pdm_devinfo *di)
{
	const char *p = text, *end = text + len;
	int first = 1;

	json_kv_str(out, "{", "name", name);
	fputs(", \"segments\": [", out);
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		unsigned long long start, length;
		char line[256], target[32], legs[128];
		int n;

		if (!nl)
			nl = end;
		snprintf(line, sizeof(line), "%.*s", (int)(nl - p), p);
		p = nl + 1;
		legs[0] = '\0';
		n = sscanf(line, "%llu %llu %31s %127s", &start, &length,
			   target, legs);
		if (n < 3)
			continue;
		fprintf(out, "%s{\"start\": %llu, \"length\": %llu",
			first ? "" : ", ", start, length);
		json_kv_str(out, ", ", "target", target);
		json_kv_str(out, ", ", "legs", legs);
		fputc('}', out);
		first = 0;
	}
	fputc(']', out);
	json_poll(out, di);
	fputs("}\n", out);
}
