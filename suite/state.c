/*
 * state.c — a suite run's record of finished items (state.h).
 */
#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define STATE_MAGIC "blkpeak-suite-state 1"
#define STATE_MAX (4u << 20)

struct done {
	char *key;
	double secs;
};

struct suite_state {
	int fd;
	char *path;
	size_t n, cap;
	struct done *done;
};

static int add_done(struct suite_state *st, const char *key, double secs)
{
	if (st->n == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 64;
		struct done *d = realloc(st->done, cap * sizeof(*d));

		if (!d)
			return -ENOMEM;
		st->done = d;
		st->cap = cap;
	}
	if (!(st->done[st->n].key = strdup(key)))
		return -ENOMEM;
	st->done[st->n++].secs = secs;
	return 0;
}

static int write_header(struct suite_state *st, const char *digest, const char *label,
			const char *target)
{
	return dprintf(st->fd, STATE_MAGIC "\ndigest %s\nlabel %s\ntarget %s\n", digest, label,
		       target) < 0 || fdatasync(st->fd) ? -errno : 0;
}

/* Read an existing state: its header must be this run's. A torn last line
 * is cut off (the next line is appended after the last whole one), a torn
 * header written again. */
static int read_state(struct suite_state *st, const char *digest, const char *label,
		      const char *target, char *err, size_t errlen)
{
	struct stat sb;
	char *buf, *line, *next;
	int rc = 0;
	ssize_t got;
	size_t keep = 0;
	unsigned ln = 0;

	if (fstat(st->fd, &sb) || sb.st_size > STATE_MAX) {
		snprintf(err, errlen, "%s: not a suite state (too large)", st->path);
		return -EINVAL;
	}
	buf = calloc(1, (size_t)sb.st_size + 1);
	if (!buf)
		return -ENOMEM;
	got = pread(st->fd, buf, (size_t)sb.st_size, 0);
	if (got != sb.st_size) {
		snprintf(err, errlen, "cannot read '%s'", st->path);
		free(buf);
		return -EIO;
	}
	for (line = buf; line && *line; line = next) {
		static const char *const head[] = { "digest ", "label ", "target " };

		next = strchr(line, '\n');
		if (!next)
			break; /* a torn last line: that item runs again */
		*next++ = '\0';
		keep = (size_t)(next - buf);
		ln++;
		if ((ln == 1 && strcmp(line, STATE_MAGIC)) ||
		    (ln >= 2 && ln <= 4 && strncmp(line, head[ln - 2], strlen(head[ln - 2])))) {
			snprintf(err, errlen, "%s:%u: not a blkpeak suite state", st->path, ln);
			rc = -EINVAL;
		} else if (!strncmp(line, "digest ", 7) && strcmp(line + 7, digest)) {
			snprintf(err, errlen, "%s: of suite version %s, not %s", st->path, line + 7, digest);
			rc = -EINVAL;
		} else if (!strncmp(line, "label ", 6) && strcmp(line + 6, label)) {
			snprintf(err, errlen, "%s: the run of label '%s' (its folder's name is this"
				 " label's): choose a label that differs in more than punctuation",
				 st->path, line + 6);
			rc = -EINVAL;
		} else if (!strncmp(line, "target ", 7) && strcmp(line + 7, target)) {
			snprintf(err, errlen, "label '%s' was run on target '%s', not '%s': resume it"
				 " with that target, or give this configuration a label of its own",
				 label, line + 7, target);
			rc = -EINVAL;
		} else if (!strncmp(line, "done ", 5)) {
			char *sp = strrchr(line + 5, ' ');

			if (sp) {
				*sp = '\0';
				rc = add_done(st, line + 5, strtod(sp + 1, NULL));
			}
		}
		if (rc)
			break;
	}
	if (!rc && ln == 0 && strncmp(buf, STATE_MAGIC, strlen(buf))) {
		snprintf(err, errlen, "%s:1: not a blkpeak suite state", st->path);
		rc = -EINVAL;
	}
	if (!rc && (ln < 4 || keep < (size_t)sb.st_size) && ftruncate(st->fd, ln < 4 ? 0 : (off_t)keep)) {
		rc = -errno;
		snprintf(err, errlen, "cannot cut the torn end of '%s': %s", st->path, strerror(-rc));
	}
	if (!rc && ln < 4 && (rc = write_header(st, digest, label, target)))
		snprintf(err, errlen, "cannot write '%s': %s", st->path, strerror(-rc));
	free(buf);
	return rc;
}

int state_open(const char *path, const char *digest, const char *label, const char *target,
	       struct suite_state **out, char *err, size_t errlen)
{
	struct suite_state *st = calloc(1, sizeof(*st));
	struct stat sb;
	int rc;

	*out = NULL;
	if (!st || !(st->path = strdup(path))) {
		free(st);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	st->fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (st->fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		goto fail;
	}
	if (fstat(st->fd, &sb) || !S_ISREG(sb.st_mode)) {
		rc = -EINVAL;
		snprintf(err, errlen, "'%s': not a regular file", path);
		goto fail;
	}
	if (flock(st->fd, LOCK_EX | LOCK_NB)) {
		rc = -EBUSY;
		snprintf(err, errlen, "'%s': another 'blkpeak suite run' of this suite and label"
			 " is running", path);
		goto fail;
	}
	if (sb.st_size == 0) {
		if ((rc = write_header(st, digest, label, target))) {
			snprintf(err, errlen, "cannot write '%s': %s", path, strerror(-rc));
			goto fail;
		}
	} else if ((rc = read_state(st, digest, label, target, err, errlen))) {
		goto fail;
	}
	*out = st;
	return 0;
fail:
	state_close(st);
	return rc;
}

int state_done(struct suite_state *st, const char *key, double secs, char *err, size_t errlen)
{
	if (dprintf(st->fd, "done %s %.3f\n", key, secs) < 0 || fdatasync(st->fd)) {
		snprintf(err, errlen, "cannot write '%s': %s", st->path, strerror(errno));
		return -EIO;
	}
	return add_done(st, key, secs);
}

int state_is_done(const struct suite_state *st, const char *key, double *secs)
{
	for (size_t i = 0; i < st->n; i++)
		if (!strcmp(st->done[i].key, key)) {
			if (secs)
				*secs = st->done[i].secs;
			return 1;
		}
	return 0;
}

void state_close(struct suite_state *st)
{
	if (!st)
		return;
	if (st->fd >= 0)
		close(st->fd);
	for (size_t i = 0; i < st->n; i++)
		free(st->done[i].key);
	free(st->done);
	free(st->path);
	free(st);
}
