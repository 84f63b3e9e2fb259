/*
 * filemap_glob.c — the keys of file and task maps and their glob lists
 * (filemap.h): "path:GLOB" and "comm:GLOB", alternatives joined by '|'
 * outside [...] and not escaped, each matched by fnmatch(3) without flags
 * (as analyze's --files patterns are).
 */
#include <errno.h>
#include <fnmatch.h>
#include <string.h>

#include "filemap.h"

/* Length of the glob alternative at p: up to a '|' outside [...]. */
static size_t alt_len(const char *p)
{
	size_t i = 0;

	while (p[i] && p[i] != '|') {
		if (p[i] == '\\' && p[i + 1]) {
			i += 2;
			continue;
		}
		if (p[i] == '[') {
			size_t j = i + 1;

			if (p[j] == '!' || p[j] == '^')
				j++;
			if (p[j] == ']')
				j++;
			while (p[j] && p[j] != ']')
				j++;
			if (p[j] == ']') {
				i = j + 1;
				continue;
			}
		}
		i++;
	}
	return i;
}

int filemap_parse_key(const char *key, enum filemap_kind *kind, const char **glob,
		      struct bpt_error *error)
{
	const char *g;
	size_t n;

	if (!strncmp(key, "path:", 5))
		*kind = FILEMAP_PATH;
	else if (!strncmp(key, "comm:", 5))
		*kind = FILEMAP_COMM;
	else
		return 0;
	g = key + 5;
	n = strlen(g);
	if (!n)
		return bpt_error_set(error, -EINVAL, "'%s': no %s glob after '%.5s'", key,
				     *kind == FILEMAP_PATH ? "path" : "task name", key);
	if (n > FILEMAP_GLOB_MAX)
		return bpt_error_set(error, -EINVAL, "'%.5s...': a glob of %zu bytes (at most %u)",
				     key, n, FILEMAP_GLOB_MAX);
	for (const char *p = g;; p++) {
		size_t a = alt_len(p);

		if (!a)
			return bpt_error_set(error, -EINVAL, "'%s': an empty alternative in the "
					     "glob list (globs are separated by '|')", key);
		p += a;
		if (!*p)
			break;
	}
	*glob = g;
	return 1;
}

int filemap_glob_match(const char *list, const char *name)
{
	char one[FILEMAP_GLOB_MAX + 1];

	for (const char *p = list;; p++) {
		size_t a = alt_len(p);

		if (a <= FILEMAP_GLOB_MAX) {
			memcpy(one, p, a);
			one[a] = 0;
			if (fnmatch(one, name, 0) == 0)
				return 1;
		}
		p += a;
		if (!*p)
			return 0;
	}
}
