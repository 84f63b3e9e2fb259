/*
 * chart_label.c — short labels of traces and runs (chart_label.h).
 *
 * A target spec is read only as far as a label needs: the array level,
 * its member count and chunk, and the disk model when every member is an
 * emulated disk. Anything not understood falls back to the last path
 * component, so a label is never longer than a few words.
 */
#include <stdio.h>
#include <string.h>

#include "chart_label.h"

#define MAX_LABEL 48 /* a joined label longer than this becomes "N targets" */

static const char *const levels[] = { "raid0", "raid1", "raid10", "raid5", "raid6", "linear" };

/* Does s start with word followed by ':' (or end)? */
static int starts_word(const char *s, size_t n, const char *word)
{
	size_t w = strlen(word);

	return n >= w && !strncmp(s, word, w) && (n == w || s[w] == ':');
}

/* The model of an emulated disk "hdd:MODEL[,opt...]:PATH" into m; 0 if not one. */
static int hdd_model(const char *s, size_t n, char *m, size_t len)
{
	size_t k = 4;

	if (!starts_word(s, n, "hdd") || n <= 4)
		return 0;
	while (k < n && s[k] != ':' && s[k] != ',')
		k++;
	snprintf(m, len, "%.*s", (int)(k - 4), s + 4);
	return 1;
}

/* The last path component of s[0..n) ("/dev/loop5" -> "loop5"). */
static void base_name(const char *s, size_t n, char *out, size_t len)
{
	size_t b = n;

	while (b > 0 && s[b - 1] != '/' && s[b - 1] != ':')
		b--;
	snprintf(out, len, "%.*s", (int)(n - b), s + b);
}

/* One spec (no ';', no "DEV=" key) s[0..n) into out. */
static void spec_label(const char *s, size_t n, char *out, size_t len)
{
	char model[32] = "", m[32], chunk[16] = "", name[64];
	const char *p = s, *end = s + n;
	unsigned members = 0, models = 0, degraded = 0;
	int level = -1;

	for (unsigned i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
		if (starts_word(s, n, levels[i]))
			level = (int)i;
	if (level < 0) {
		if (hdd_model(s, n, model, sizeof(model))) {
			snprintf(out, len, "single hdd:%s", model);
		} else if (n == 4 && !strncmp(s, "null", 4)) {
			snprintf(out, len, "null");
		} else {
			base_name(s, n, name, sizeof(name));
			snprintf(out, len, "single %s", name);
		}
		return;
	}
	/* level, then key=value fields, then the members */
	p += strlen(levels[level]);
	while (p < end && *p == ':') {
		const char *f = ++p, *fe = f;

		while (fe < end && *fe != ':')
			fe++;
		if (!memchr(f, '=', (size_t)(fe - f)))
			break;
		if (fe - f > 6 && !strncmp(f, "chunk=", 6))
			snprintf(chunk, sizeof(chunk), "%.*s", (int)(fe - f - 6), f + 6);
		else if (fe - f > 8 && !strncmp(f, "missing=", 8))
			degraded = 1;
		p = fe;
	}
	/* members: ','-separated, but an emulated disk's options hold commas
	 * too ("hdd:7200,wcache=off:PATH"): a piece whose first field is a
	 * key=value continues the member before it */
	while (p < end) {
		const char *pe = p, *colon;

		while (pe < end && *pe != ',')
			pe++;
		colon = memchr(p, ':', (size_t)(pe - p));
		if (!memchr(p, '=', (size_t)((colon ? colon : pe) - p))) {
			members++;
			if (hdd_model(p, (size_t)(end - p), m, sizeof(m))) {
				if (!models++)
					snprintf(model, sizeof(model), "%s", m);
				else if (strcmp(model, m))
					model[0] = '\0';
			}
		}
		p = pe < end ? pe + 1 : pe;
	}
	snprintf(out, len, "%s x%u%s%s%s%s%s", levels[level], members, chunk[0] ? " " : "", chunk,
		 models == members && model[0] ? " hdd:" : "", models == members ? model : "",
		 degraded ? " degraded" : "");
}

char *chart_label(const char *target, const char *path, char *buf, size_t len)
{
	char part[96];
	const char *s = target;
	unsigned parts = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	if (!target || !target[0]) {
		const char *b = path ? strrchr(path, '/') : NULL;

		snprintf(buf, len, "%s", b ? b + 1 : path ? path : "?");
		return buf;
	}
	while (*s) {
		const char *e = strchr(s, ';'), *eq, *at;
		size_t n = e ? (size_t)(e - s) : strlen(s);
		int keyed = 1;

		for (unsigned i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
			keyed &= !starts_word(s, n, levels[i]);
		keyed &= !starts_word(s, n, "hdd");
		eq = keyed ? memchr(s, '=', n) : NULL;
		if (eq) {
			n -= (size_t)(eq + 1 - s);
			s = eq + 1;
		}
		at = memchr(s, '@', n); /* DEV=SPEC@OFFSET */
		if (at)
			n = (size_t)(at - s);
		spec_label(s, n, part, sizeof(part));
		if (!strstr(buf, part)) /* the same target for two regions: once */
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", parts ? " + " : "", part);
		parts++;
		s += n;
		while (*s && *s != ';')
			s++;
		if (*s == ';')
			s++;
	}
	if (parts > 1) {
		char joined[256];

		snprintf(joined, sizeof(joined), "%s", buf);
		if (!strstr(joined, " + ") && !strncmp(joined, "single", 6) && parts == 2)
			snprintf(buf, len, "dual%s", joined + 6); /* two disks of one kind */
		else if (!strstr(joined, " + "))
			snprintf(buf, len, "%u x %s", parts, joined);
		else if (strlen(joined) > MAX_LABEL)
			snprintf(buf, len, "%u targets", parts);
	}
	return buf;
}
