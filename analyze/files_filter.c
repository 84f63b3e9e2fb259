/*
 * files_filter.c — the patterns of --files (files_filter.h): parsing,
 * the glob test of one path, the patterns as text.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "files_filter.h"

int files_filter_add(struct files_filter *f, const char *arg, struct bpt_error *err)
{
	size_t len = strlen(arg);

	if (!len)
		return bpt_error_set(err, -EINVAL, "--files: an empty pattern matches nothing;"
				     " give a glob ('/scratch/*') or a class (':journal')");
	if (len >= FF_MAX_PATTERN)
		return bpt_error_set(err, -EINVAL, "--files: a pattern of %zu bytes is longer than"
				     " a path (%d bytes at most)", len, FF_MAX_PATTERN - 1);
	if (f->n >= FF_MAX_PATTERNS)
		return bpt_error_set(err, -EINVAL, "--files: more than %d patterns", FF_MAX_PATTERNS);
	if (arg[0] == ':') {
		int cls = bpt_file_class_parse(arg + 1);

		if (cls < 0)
			return bpt_error_set(err, -EINVAL, "--files: '%.64s': no such class of I/O"
					     " (:data, :metadata, :journal, :swap, :raw, :unknown)",
					     arg);
		f->classes |= 1u << cls;
	}
	f->pattern[f->n++] = arg;
	return 0;
}

int files_filter_path(const struct files_filter *f, const char *path)
{
	for (int i = 0; i < f->n; i++)
		if (f->pattern[i][0] != ':' && fnmatch(f->pattern[i], path, 0) == 0)
			return 1;
	return 0;
}

char *files_filter_lines(const struct files_filter *f, char *buf, size_t len)
{
	size_t at = 0;

	if (len)
		buf[0] = 0;
	for (int i = 0; i < f->n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? "\n" : "", f->pattern[i]);
	return buf;
}
