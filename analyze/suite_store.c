/*
 * suite_store.c — tag stored results with their suite (suite_store.h).
 */
#include "suite_store.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "db.h"

int suite_tag_check(const struct suite_tag *t, struct bpt_error *err)
{
	if (!t->digest || strlen(t->digest) != 16 ||
	    strspn(t->digest, "0123456789abcdef") != 16)
		return bpt_error_set(err, -EINVAL, "--suite: '%s': not a suite digest (16 lowercase hex digits)",
				     t->digest ? t->digest : "");
	if (!t->name || !*t->name || strlen(t->name) > 63)
		return bpt_error_set(err, -EINVAL, "--suite-name: a name of 1 to 63 bytes is needed");
	if (!t->workload || !*t->workload || strlen(t->workload) > 127)
		return bpt_error_set(err, -EINVAL, "--workload: a name of 1 to 127 bytes is needed");
	if (!t->kind || (strcmp(t->kind, "replay") && strcmp(t->kind, "mix") &&
			 strcmp(t->kind, "qd-sweep")))
		return bpt_error_set(err, -EINVAL, "--workload-kind: '%s': not replay, mix or qd-sweep",
				     t->kind ? t->kind : "");
	if (t->repeat < 1 || t->repeat > 1000)
		return bpt_error_set(err, -EINVAL, "--repeat-no: from 1 to 1000");
	if (t->label && (!*t->label || strlen(t->label) > 127))
		return bpt_error_set(err, -EINVAL, "--suite-label: a label of 1 to 127 bytes is needed");
	return 0;
}

/* One text column of the first row of sql bound to i64 a, or "" (none). */
static int text_of(sqlite3 *db, const char *sql, int64_t a, char *out, size_t len,
		   struct bpt_error *err)
{
	sqlite3_stmt *st;
	int rc;

	out[0] = '\0';
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return adb_fail(db, err, "cannot read the result's label");
	sqlite3_bind_int64(st, 1, a);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(out, len, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : adb_fail(db, err, "cannot read the result's label");
}

int suite_tag_store(sqlite3 *db, const struct suite_tag *t, int64_t trace_id,
		    int64_t measurement_id, struct bpt_error *err)
{
	static const char other_sql[] =
		"SELECT suite_digest FROM suite_results WHERE suite_name = ? AND label = ?"
		" AND host = ? AND suite_digest <> ? LIMIT 1";
	static const char upsert_sql[] =
		"INSERT INTO suite_results (suite_digest, suite_name, workload, kind, label, host,"
		" repeat_no, trace_id, measurement_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
		" ON CONFLICT (suite_digest, workload, label, host, repeat_no) DO UPDATE SET"
		" suite_name = excluded.suite_name, kind = excluded.kind,"
		" trace_id = excluded.trace_id, measurement_id = excluded.measurement_id";
	char label[128], host[256], other[32];
	sqlite3_stmt *st;
	int rc;

	if ((rc = suite_tag_check(t, err)))
		return rc;
	if (trace_id > 0) {
		if ((rc = text_of(db, "SELECT label FROM traces WHERE id = ?", trace_id, label,
				  sizeof(label), err)) ||
		    (rc = text_of(db, "SELECT host FROM runs WHERE trace_id = ?", trace_id, host,
				  sizeof(host), err)))
			return rc;
	} else {
		if ((rc = text_of(db, "SELECT label FROM measurements WHERE id = ?", measurement_id,
				  label, sizeof(label), err)))
			return rc;
		if (gethostname(host, sizeof(host)))
			snprintf(host, sizeof(host), "?");
		host[sizeof(host) - 1] = '\0';
	}
	if (t->label)
		snprintf(label, sizeof(label), "%s", t->label);
	if (!label[0])
		return bpt_error_set(err, -EINVAL, "the result has no label (replay or measure --label):"
				     " a suite's results are ranked by label");
	if (!host[0])
		snprintf(host, sizeof(host), "?");
	if (sqlite3_prepare_v2(db, other_sql, -1, &st, NULL) != SQLITE_OK)
		return adb_fail(db, err, "cannot read suite_results");
	sqlite3_bind_text(st, 1, t->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, label, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, host, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, t->digest, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	other[0] = '\0';
	if (rc == SQLITE_ROW)
		snprintf(other, sizeof(other), "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return adb_fail(db, err, "cannot read suite_results");
	if (other[0] && !t->new_version)
		return bpt_error_set(err, -EEXIST, "suite '%s': label '%s' on %s has results of version %s;"
				     " this is version %s (its manifest or a recording changed):"
				     " --new-version stores it as a new version (a leaderboard shows one"
				     " version)", t->name, label, host, other, t->digest);
	if (sqlite3_prepare_v2(db, upsert_sql, -1, &st, NULL) != SQLITE_OK)
		return adb_fail(db, err, "cannot store into suite_results");
	sqlite3_bind_text(st, 1, t->digest, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, t->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, t->workload, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, t->kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, label, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, host, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 7, (int)t->repeat);
	if (trace_id > 0)
		sqlite3_bind_int64(st, 8, trace_id);
	else
		sqlite3_bind_null(st, 8);
	if (measurement_id > 0 && trace_id <= 0)
		sqlite3_bind_int64(st, 9, measurement_id);
	else
		sqlite3_bind_null(st, 9);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : adb_fail(db, err, "cannot store into suite_results");
}
