/*
 * run_label.c — display labels of traces, runs and measurements (see
 * run_label.h). The short names read a target spec as replay writes it
 * in the run's `target` meta (schemas/trace-format.md, "Meta keys"), and
 * only as far as a name needs: they never fail, an unknown shape falls
 * back to the last part of the spec.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "run_label.h"

static const char *const kinds[] = { "raid0", "raid1", "raid10", "raid5", "raid6", "linear" };

/* The layout kind spec starts with ("raid0:"), else NULL. */
static const char *layout_kind(const char *spec)
{
	for (unsigned i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t l = strlen(kinds[i]);

		if (!strncmp(spec, kinds[i], l) && spec[l] == ':')
			return kinds[i];
	}
	return NULL;
}

/* The last part of a path ("loop3" of "/dev/loop3"), n bytes of s. */
static void base_name(const char *s, size_t n, char *buf, size_t len)
{
	const char *b = s;

	for (size_t i = 0; i < n; i++)
		if (s[i] == '/' && i + 1 < n)
			b = s + i + 1;
	snprintf(buf, len, "%.*s", (int)(n - (size_t)(b - s)), b);
}

/* "hdd:MODEL..." : "hdd:" and MODEL's first item into buf. */
static void hdd_name(const char *spec, char *buf, size_t len)
{
	const char *m = spec + 4;
	size_t n = strcspn(m, ",:");

	if (memchr(m, '=', n)) /* file=PATH or key=value first: no preset name */
		snprintf(buf, len, "hdd");
	else
		snprintf(buf, len, "hdd:%.*s", (int)n, m);
}

/* The members of an array's list: pieces between commas, not counting
 * the key=value items of an emulated member's model. */
static unsigned count_members(const char *p, size_t n)
{
	unsigned k = 0;

	while (n) {
		size_t l = 0, eq;

		while (l < n && p[l] != ',')
			l++;
		eq = strcspn(p, "=:/,");
		if (!(eq < l && p[eq] == '=')) /* key=value: an hdd model's item */
			k++;
		p += l, n -= l;
		if (n)
			p++, n--;
	}
	return k;
}

/* The short name of one spec (no --map pairs), n bytes of s. */
static void one_name(const char *s, size_t n, char *buf, size_t len)
{
	char spec[512], chunk[32] = "";
	const char *kind, *p;
	int degraded = 0;

	snprintf(spec, sizeof(spec), "%.*s", (int)n, s);
	if (!strncmp(spec, "hdd:", 4)) {
		char h[64];

		hdd_name(spec, h, sizeof(h));
		snprintf(buf, len, "single %s", h);
		return;
	}
	if (!(kind = layout_kind(spec))) {
		char b[RUN_LABEL_MAX];

		base_name(spec, strlen(spec), b, sizeof(b));
		snprintf(buf, len, "single %s", b);
		return;
	}
	p = spec + strlen(kind) + 1;
	for (;;) { /* the options, then the members */
		size_t l = strcspn(p, ":");

		if (!strncmp(p, "chunk=", 6))
			snprintf(chunk, sizeof(chunk), " %.*s", (int)(l - 6), p + 6);
		else if (!strncmp(p, "missing=", 8))
			degraded = 1;
		else if (strncmp(p, "layout=", 7))
			break;
		p += l + (p[l] == ':');
	}
	snprintf(buf, len, "%s x%u%s%s", kind, count_members(p, strlen(p)), chunk,
		 degraded ? " degraded" : "");
}

/* A --map spec ("KEY=SPEC;KEY=SPEC"), as replay writes it? A plain spec
 * has a '=' only inside an array's or model's options. */
static int is_map(const char *spec)
{
	return strchr(spec, ';') ||
	       (strchr(spec, '=') && !layout_kind(spec) && strncmp(spec, "hdd:", 4));
}

const char *run_label_target(const char *spec, char *buf, size_t len)
{
	char names[8][RUN_LABEL_MAX], dev[8][128];
	unsigned n = 0, same = 1, split = 0;
	const char *p = spec;

	if (!len)
		return buf;
	if (!spec || !*spec) {
		snprintf(buf, len, "?");
		return buf;
	}
	if (!is_map(spec)) {
		one_name(spec, strlen(spec), buf, len);
		return buf;
	}
	while (*p && n < 8) {
		size_t l = strcspn(p, ";"), k = strcspn(p, "="), s;

		if (k < l) {
			/* key: DEV, DEV:REGION, PART or *; spec up to an @OFFSET */
			snprintf(dev[n], sizeof(dev[n]), "%.*s", (int)strcspn(p, ":="), p);
			s = strcspn(p + k + 1, "@;");
			one_name(p + k + 1, s < l - k - 1 ? s : l - k - 1, names[n], sizeof(names[n]));
			split |= p[strcspn(p, ":=")] == ':'; /* a region of a disk */
			for (unsigned i = 0; i < n; i++)
				split |= !strcmp(dev[i], dev[n]);
			same &= !n || !strcmp(names[n], names[0]);
			n++;
		}
		p += l + (p[l] == ';');
	}
	if (!n) {
		one_name(spec, strlen(spec), buf, len);
	} else if (split) {
		const char *common = same && !strncmp(names[0], "single ", 7) ? names[0] + 7 : NULL;

		if (n == 2)
			snprintf(buf, len, "dual%s%s", common ? " " : "", common ? common : "");
		else
			snprintf(buf, len, "split x%u%s%s", n, common ? " " : "", common ? common : "");
	} else if (same) {
		snprintf(buf, len, "%s", names[0]);
	} else {
		size_t o = 0;

		buf[0] = 0;
		for (unsigned i = 0; i < n && o + 1 < len; i++)
			o += snprintf(buf + o, len - o, "%s%s", i ? " + " : "", names[i]);
	}
	return buf;
}

const char *run_label_make(const char *given, const char *target, const char *path,
			   char *buf, size_t len)
{
	if (!len)
		return buf;
	if (given && *given)
		snprintf(buf, len < RUN_LABEL_MAX ? len : RUN_LABEL_MAX, "%s", given);
	else if (target && *target)
		run_label_target(target, buf, len < RUN_LABEL_MAX ? len : RUN_LABEL_MAX);
	else if (path && *path)
		base_name(path, strlen(path), buf, len < RUN_LABEL_MAX ? len : RUN_LABEL_MAX);
	else
		snprintf(buf, len, "?");
	return buf;
}

static int label_query(sqlite3 *db, const char *sql, int64_t id, char *buf, size_t len)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		run_label_make((const char *)sqlite3_column_text(st, 0),
			       (const char *)sqlite3_column_text(st, 1),
			       (const char *)sqlite3_column_text(st, 2), buf, len);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? -ENOENT : -EIO;
}

int run_label_db(sqlite3 *db, int64_t id, char *buf, size_t len)
{
	return label_query(db, "SELECT t.label, r.target, t.path FROM traces t"
			   " LEFT JOIN runs r ON r.trace_id = t.id WHERE t.id = ?", id, buf, len);
}

int run_label_measurement_db(sqlite3 *db, int64_t id, char *buf, size_t len)
{
	return label_query(db, "SELECT label, target, path FROM measurements WHERE id = ?", id,
			   buf, len);
}
