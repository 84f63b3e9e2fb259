/*
 * run_label.c — display labels of traces, runs and measurements (see
 * run_label.h): a given label first, else chart_label.h's short name of
 * the target (the one implementation of short names), else the file's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "chart_label.h"
#include "run_label.h"

const char *run_label_target(const char *spec, char *buf, size_t len)
{
	if (!len)
		return buf;
	if (!spec || !*spec) {
		snprintf(buf, len, "?");
		return buf;
	}
	return chart_label(spec, NULL, buf, len < RUN_LABEL_MAX ? len : RUN_LABEL_MAX);
}

const char *run_label_make(const char *given, const char *target, const char *path,
			   char *buf, size_t len)
{
	if (!len)
		return buf;
	if (given && *given)
		snprintf(buf, len < RUN_LABEL_MAX ? len : RUN_LABEL_MAX, "%s", given);
	else
		chart_label(target, path, buf, len < RUN_LABEL_MAX ? len : RUN_LABEL_MAX);
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
