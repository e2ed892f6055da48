// SPDX-License-Identifier: GPL-2.0
/*
 * fsync-log: the workload and the judge of a crash-consistency test
 * (tests/vm/pdm-power-cut.sh).
 *
 *   fsync-log write DIR LOG SEED
 *   fsync-log check DIR LOG
 *
 * write creates files DIR/SEED-N, N = 0, 1, ..., each of a size and
 * content that follow from (SEED, N) alone, and makes each durable the
 * way an application must: write, fsync the file, fsync the directory.
 * Only then is the file's line ("SEED N SIZE") appended to LOG, which
 * lives outside the devices under test, so that LOG lists exactly the
 * files the file system has promised to keep.  Between files it also
 * appends a record to DIR/SEED-append and logs its new length the same
 * way ("SEED a LENGTH"), for a file that grows across many commits.  It
 * runs until a call fails (the power cut), says which, and exits 0.
 *
 * check reads LOG back and verifies every file it names against the
 * content its (SEED, N) gives, and each append file up to the longest
 * length logged for it.  It prints "checked F files, A append files,
 * B bad" and exits 1 if any is missing, short or different.  A test-only
 * program, never installed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_SIZE	(256 * 1024)
#define RECORD		4096

static unsigned char buf[MAX_SIZE], got[MAX_SIZE];

/* splitmix64: the content of byte block i of stream s, and the sizes. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static void fill(unsigned char *p, size_t len, uint64_t stream)
{
	size_t i;

	for (i = 0; i < len; i += 8) {
		uint64_t v = mix(stream * 0x100000001b3ULL + i / 8);

		memcpy(p + i, &v, len - i < 8 ? len - i : 8);
	}
}

/* File N of SEED: 512 bytes to 256 KiB, most of them small. */
static size_t file_size(unsigned long seed, unsigned long n)
{
	uint64_t r = mix(seed << 32 ^ n);
	size_t max = (r & 3) == 0 ? MAX_SIZE : 16384;

	return 512 + (r >> 8) % (max - 511);
}

static uint64_t file_stream(unsigned long seed, unsigned long n)
{
	return (uint64_t)seed << 32 | n;
}

/* Record k of the append file of SEED. */
static uint64_t record_stream(unsigned long seed, unsigned long k)
{
	return (uint64_t)seed << 32 | 0x80000000UL | k;
}

static int write_all(int fd, const unsigned char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

static int do_write(const char *dir, const char *logpath, unsigned long seed)
{
	char path[4096];
	unsigned long n, logged = 0, len = 0;
	FILE *log;
	int dfd, afd;

	log = fopen(logpath, "a");
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	snprintf(path, sizeof(path), "%s/%lu-append", dir, seed);
	afd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (!log || dfd < 0 || afd < 0) {
		perror("fsync-log: setup");
		return 1;
	}
	for (n = 0;; n++) {
		size_t size = file_size(seed, n);
		const char *step = "create";
		int fd;

		snprintf(path, sizeof(path), "%s/%lu-%lu", dir, seed, n);
		fill(buf, size, file_stream(seed, n));
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0)
			goto out;
		step = "write";
		if (write_all(fd, buf, size))
			goto out_close;
		step = "fsync";
		if (fsync(fd))
			goto out_close;
		close(fd);
		step = "fsync dir";
		if (fsync(dfd))
			goto out;
		fprintf(log, "%lu %lu %zu\n", seed, n, size);
		if (fflush(log))
			goto out_log;
		logged++;

		fill(buf, RECORD, record_stream(seed, n));
		step = "append";
		if (write_all(afd, buf, RECORD))
			goto out;
		step = "fsync append";
		if (fdatasync(afd))
			goto out;
		len += RECORD;
		fprintf(log, "%lu a %lu\n", seed, len);
		if (fflush(log))
			goto out_log;
		continue;
out_close:
		close(fd);
out:
		printf("fsync-log: %lu files logged, then %s: %s\n", logged,
		       step, strerror(errno));
		return 0;
	}
out_log:
	perror("fsync-log: log");
	return 1;
}

static int check_file(const char *path, const unsigned char *want,
		      size_t len, int exact)
{
	ssize_t n;
	off_t end;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		printf("bad: %s: %s\n", path, strerror(errno));
		return 1;
	}
	end = lseek(fd, 0, SEEK_END);
	n = pread(fd, got, len, 0);
	close(fd);
	if (n != (ssize_t)len || (exact && end != (off_t)len)) {
		printf("bad: %s: %jd bytes, %zu logged\n", path, (intmax_t)end,
		       len);
		return 1;
	}
	if (memcmp(got, want, len)) {
		size_t i = 0;

		while (got[i] == want[i])
			i++;
		printf("bad: %s: differs from byte %zu of %zu\n", path, i, len);
		return 1;
	}
	return 0;
}

static int zeroes(const unsigned char *p, size_t len)
{
	while (len--)
		if (*p++)
			return 0;
	return 1;
}

/* The append files: up to 64 seeds, each with its longest logged length. */
#define MAX_SEEDS	64

static int check_appends(const char *dir, const unsigned long *seeds,
			 const unsigned long *lens, int nseeds)
{
	char path[4096];
	unsigned long k;
	int i, bad = 0;

	for (i = 0; i < nseeds; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/%lu-append", dir, seeds[i]);
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			printf("bad: %s: %s\n", path, strerror(errno));
			bad++;
			continue;
		}
		for (k = 0; k < lens[i] / RECORD; k++) {
			ssize_t n;

			fill(buf, RECORD, record_stream(seeds[i], k));
			n = pread(fd, got, RECORD, k * RECORD);
			if (n != RECORD || memcmp(got, buf, RECORD)) {
				printf("bad: %s: record %lu of %lu: %s "
				       "(file of %jd bytes)\n", path, k,
				       lens[i] / RECORD,
				       n != RECORD ? "short" :
				       zeroes(got, RECORD) ? "zeroes" :
				       "other data",
				       (intmax_t)lseek(fd, 0, SEEK_END));
				bad++;
				break;
			}
		}
		close(fd);
	}
	return bad;
}

static int do_check(const char *dir, const char *logpath)
{
	unsigned long seeds[MAX_SEEDS], lens[MAX_SEEDS];
	unsigned long seed, n, size, files = 0;
	char line[256], path[4096];
	int i, nseeds = 0, bad = 0;
	FILE *log;

	log = fopen(logpath, "r");
	if (!log) {
		perror(logpath);
		return 2;
	}
	while (fgets(line, sizeof(line), log)) {
		if (sscanf(line, "%lu a %lu", &seed, &size) == 2) {
			for (i = 0; i < nseeds && seeds[i] != seed; i++)
				;
			if (i == nseeds && nseeds < MAX_SEEDS)
				seeds[nseeds++] = seed;
			if (i < nseeds)
				lens[i] = size;
			continue;
		}
		if (sscanf(line, "%lu %lu %lu", &seed, &n, &size) != 3 ||
		    size > MAX_SIZE || size != file_size(seed, n)) {
			printf("bad log line: %s", line);
			bad++;
			continue;
		}
		snprintf(path, sizeof(path), "%s/%lu-%lu", dir, seed, n);
		fill(buf, size, file_stream(seed, n));
		bad += check_file(path, buf, size, 1);
		files++;
	}
	fclose(log);
	bad += check_appends(dir, seeds, lens, nseeds);
	printf("checked %lu files, %d append files, %d bad\n", files, nseeds,
	       bad);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "write"))
		return do_write(argv[2], argv[3], strtoul(argv[4], NULL, 0));
	if (argc == 4 && !strcmp(argv[1], "check"))
		return do_check(argv[2], argv[3]);
	fprintf(stderr, "usage: fsync-log write DIR LOG SEED\n"
			"       fsync-log check DIR LOG\n");
	return 2;
}
