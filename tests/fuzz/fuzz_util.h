/*
 * fuzz_util.h — what the fuzz targets (tests/fuzz/fuzz_*.c) share: the
 * contract every record a reader returns must keep, a private temporary
 * folder for the few parsers that read a named file, and the fuzz input
 * as a NUL-terminated string or an argv.
 *
 * A target never touches a device or a file outside its folder: the
 * folder is made under $TMPDIR (or /tmp) at the first input and removed
 * at exit (a crash leaves it; tests/fuzz/run.sh gives every run a
 * TMPDIR of its own and removes it).
 */
#ifndef BLKPEAK_FUZZ_UTIL_H
#define BLKPEAK_FUZZ_UTIL_H

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpt.h"

/* A record as the reader's contract promises it (bpt.h): device, op,
 * flags and process name in range. A broken promise is a finding. */
static inline void fuzz_check_record(const struct bpt_reader *r, const struct bpt_record *rec)
{
	const struct bpt_header *h = bpt_reader_header(r);

	if (rec->dev >= h->ndevices || rec->op >= BPT_OP__COUNT ||
	    (rec->flags & ~BPT_F__ALL) || !bpt_reader_string(r, rec->comm_id))
		abort();
}

/*
 * Is the known defect WORD listed in $FUZZ_AVOID (words separated by
 * ','; tests/fuzz/run.sh sets it from tests/fuzz/known-defects)? A target
 * steers around a listed defect so that fuzzing goes past it; once the
 * defect is fixed its word leaves the file and its crash-* inputs in the
 * corpus become regression inputs.
 */
static inline int fuzz_avoid(const char *word)
{
	const char *l = getenv("FUZZ_AVOID");
	size_t n = strlen(word);

	for (const char *p = l; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, word, n) && (p[n] == ',' || !p[n]))
			return 1;
	return 0;
}

static char fuzz_dir[64];

static void fuzz_dir_remove(void)
{
	DIR *d = opendir(fuzz_dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	rmdir(fuzz_dir);
}

/* The target's temporary folder (made on first use). */
static inline const char *fuzz_tmpdir(void)
{
	if (!fuzz_dir[0]) {
		const char *t = getenv("TMPDIR");

		snprintf(fuzz_dir, sizeof(fuzz_dir), "%.40s/blkpeak-fuzz-XXXXXX",
			 t && *t && strlen(t) < 40 ? t : "/tmp");
		if (!mkdtemp(fuzz_dir)) {
			perror("fuzz: mkdtemp");
			abort();
		}
		atexit(fuzz_dir_remove);
	}
	return fuzz_dir;
}

/* Write data[0..size) to the file NAME of the folder; its path in path. */
static inline void fuzz_write_file(const char *name, const void *data, size_t size,
				   char *path, size_t len)
{
	int fd;

	snprintf(path, len, "%s/%s", fuzz_tmpdir(), name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size) || close(fd)) {
		perror(path);
		abort();
	}
}

/* data as a NUL-terminated string (cut at its first NUL, as a command
 * line would be); free() it. */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = 0;
	return s;
}

/* data split at '\n' into an argv of at most max - 1 words after argv0
 * (NULL-terminated); the words point into *buf, which the caller frees. */
static inline int fuzz_argv(const uint8_t *data, size_t size, const char *argv0, char **argv,
			    int max, char **buf)
{
	int argc = 0;
	char *s = fuzz_string(data, size), *p = s;

	*buf = s;
	argv[argc++] = (char *)argv0;
	while (argc < max - 1) {
		char *nl = strchr(p, '\n');

		argv[argc++] = p;
		if (!nl)
			break;
		*nl = 0;
		p = nl + 1;
	}
	argv[argc] = NULL;
	return argc;
}

#endif
