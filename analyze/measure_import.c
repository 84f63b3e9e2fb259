/*
 * measure_import.c — a `blkpeak measure` results document into the
 * measurements tables (measure_import.h), parsed by SQLite's JSON
 * functions.
 */
#include "measure_import.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db.h"
#include "store_tables.h"

int measure_results_is(const char *path)
{
	/* O_NONBLOCK and a regular file only: a FIFO or a device given as a
	 * trace must not block here before the trace reader refuses it. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char buf[256];
	ssize_t n;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++)
			if (!strchr(" \t\n\r", buf[i]) || !buf[i]) {
				close(fd);
				return buf[i] == '{';
			}
	close(fd);
	return 0;
}

/* The whole file as a string (malloc'ed), at most MEASURE_RESULTS_MAX. */
static char *slurp(const char *path, struct bpt_error *err)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	size_t n;

	if (!f) {
		bpt_error_set(err, -errno, "%s: %s", path, strerror(errno));
		return NULL;
	}
	buf = malloc(MEASURE_RESULTS_MAX + 1);
	if (!buf) {
		fclose(f);
		bpt_error_set(err, -ENOMEM, "%s: out of memory", path);
		return NULL;
	}
	n = fread(buf, 1, MEASURE_RESULTS_MAX + 1, f);
	if (ferror(f) || n > MEASURE_RESULTS_MAX) {
		bpt_error_set(err, ferror(f) ? -EIO : -EFBIG, "%s: %s", path,
			      ferror(f) ? "read error" : "larger than 16 MiB: not a results document");
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/* Required keys and the JSON types they may have. */
struct key_type {
	const char *path;
	const char *types; /* an SQL list for IN (...) */
};

static const struct key_type top_keys[] = {
	{ "$.kind", "'text'" },
	{ "$.target", "'text'" },
	{ "$.capacity_bytes", "'integer'" },
	{ "$.started_wall_ns", "'integer'" },
	{ "$.access", "'text'" },
	{ "$.engine", "'text','null'" },
	{ "$.ios_per_step", "'integer'" },
	{ "$.warmup_ios", "'integer'" },
	{ "$.warmup_ns", "'integer','null'" },
	{ "$.time_limit_ns", "'integer','null'" },
	{ "$.write_cache", "'text','null'" },
	{ "$.weights", "'text','null'" },
	{ "$.weights_from", "'text','null'" },
	{ "$.score_ios_per_s", "'integer','real','null'" },
	{ "$.points", "'array'" },
};

static const struct key_type point_keys[] = {
	{ "$.step", "'integer'" },
	{ "$.depth", "'integer'" },
	{ "$.zone", "'integer','null'" },
	{ "$.offset_bytes", "'integer'" },
	{ "$.span_bytes", "'integer'" },
	{ "$.span_pct", "'integer','real','null'" },
	{ "$.weight", "'integer','real','null'" },
	{ "$.ios", "'integer'" },
	{ "$.bytes", "'integer'" },
	{ "$.errors", "'integer'" },
	{ "$.window_ns", "'integer'" },
	{ "$.ios_per_s", "'integer','real'" },
	{ "$.mb_per_s", "'integer','real'" },
	{ "$.latency.mean_ns", "'integer','real'" },
	{ "$.latency.p50_ns", "'integer'" },
	{ "$.latency.p90_ns", "'integer'" },
	{ "$.latency.p99_ns", "'integer'" },
	{ "$.latency.p99_9_ns", "'integer'" },
	{ "$.latency.p99_99_ns", "'integer'" },
	{ "$.latency.max_ns", "'integer'" },
};

/* What a knee search adds (blkpeak measure knee): its latency target,
 * the answer, and per step the speed and whether it met the target. */
static const struct key_type knee_keys[] = {
	{ "$.slo", "'object'" },
	{ "$.knee_factor", "'integer','real','null'" },
};

static const struct key_type knee_point_keys[] = {
	{ "$.speed_factor", "'integer','real'" },
	{ "$.met", "'true','false'" },
};

/* One integer from SQL with the document bound to ?1; -1 on an error. */
static long long query_doc(sqlite3 *db, const char *sql, const char *doc)
{
	sqlite3_stmt *st;
	long long v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, doc, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* 0 when every point of doc has keys[0..n) of their types, else -EINVAL. */
static int check_points(sqlite3 *db, const char *path, const char *doc,
			const struct key_type *keys, size_t n, struct bpt_error *err)
{
	char sql[512];

	for (size_t i = 0; i < n; i++) {
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM json_each(?1, '$.points')"
			 " WHERE coalesce(json_type(value, '%s') IN (%s), 0) = 0",
			 keys[i].path, keys[i].types);
		if (query_doc(db, sql, doc) != 0)
			return bpt_error_set(err, -EINVAL, "%s: a point's \"%s\" is missing or not of"
					     " type %s", path, keys[i].path + 2, keys[i].types);
	}
	return 0;
}

/* 0 when doc has keys[0..n) of their types, else -EINVAL naming the
 * first that has not ("whose" before its name: "a knee's "). */
static int check_keys(sqlite3 *db, const char *path, const char *doc,
		      const struct key_type *keys, size_t n, const char *whose, struct bpt_error *err)
{
	char sql[512];

	for (size_t i = 0; i < n; i++) {
		snprintf(sql, sizeof(sql), "SELECT coalesce(json_type(?1, '%s') IN (%s), 0)",
			 keys[i].path, keys[i].types);
		if (query_doc(db, sql, doc) != 1)
			return bpt_error_set(err, -EINVAL, "%s: %s\"%s\" is missing or not of type %s",
					     path, whose, keys[i].path + 2, keys[i].types);
	}
	return 0;
}

/* 0 when doc is a results document blkpeak can import, else -EINVAL. */
static int check_doc(sqlite3 *db, const char *path, const char *doc, struct bpt_error *err)
{
	int rc;

	if (query_doc(db, "SELECT json_valid(?1)", doc) != 1)
		return bpt_error_set(err, -EINVAL, "%s: not a trace and not valid JSON", path);
	if (query_doc(db, "SELECT json_extract(?1, '$.format') IS 'blkpeak-measure'"
			  " AND json_extract(?1, '$.format_version') IS 1", doc) != 1)
		return bpt_error_set(err, -EINVAL, "%s: not a blkpeak measure results document"
				     " (\"format\": \"blkpeak-measure\", \"format_version\": 1)", path);
	if ((rc = check_keys(db, path, doc, top_keys, sizeof(top_keys) / sizeof(top_keys[0]), "",
			     err)))
		return rc;
	if (query_doc(db, "SELECT json_extract(?1, '$.kind') IN"
			  " ('qd-sweep', 'zcav', 'seeks', 'commit', 'knee')", doc) != 1)
		return bpt_error_set(err, -EINVAL, "%s: \"kind\" is not qd-sweep, zcav, seeks, commit"
				     " or knee", path);
	if ((rc = check_points(db, path, doc, point_keys,
			       sizeof(point_keys) / sizeof(point_keys[0]), err)))
		return rc;
	/* a point is stored by its step (unique per measurement) */
	if (query_doc(db, "SELECT count(*) <> count(DISTINCT json_extract(value, '$.step'))"
			  " FROM json_each(?1, '$.points')", doc) != 0)
		return bpt_error_set(err, -EINVAL, "%s: two points have the same \"step\"", path);
	if (query_doc(db, "SELECT json_extract(?1, '$.kind') = 'knee'", doc) != 1)
		return 0;
	if ((rc = check_keys(db, path, doc, knee_keys, sizeof(knee_keys) / sizeof(knee_keys[0]),
			     "a knee's ", err)))
		return rc;
	/* the target: figure names replay's summary uses, limits above 0 */
	if (query_doc(db, "SELECT count(*) = 0 OR sum(key NOT IN ('mean_ns', 'p50_ns', 'p90_ns',"
			  " 'p99_ns', 'p99_9_ns', 'p99_99_ns', 'max_ns') OR type <> 'integer'"
			  " OR value <= 0) > 0 FROM json_each(?1, '$.slo')", doc) != 0)
		return bpt_error_set(err, -EINVAL, "%s: a knee's \"slo\" is not an object of one or"
				     " more latency figures (p99_ns, ...) and limits above 0", path);
	if ((rc = check_points(db, path, doc, knee_point_keys,
			       sizeof(knee_point_keys) / sizeof(knee_point_keys[0]), err)))
		return rc;
	if (query_doc(db, "SELECT coalesce(json_extract(?1, '$.knee_factor') <= 0, 0) OR"
			  " (SELECT count(*) FROM json_each(?1, '$.points')"
			  " WHERE json_extract(value, '$.speed_factor') <= 0) > 0", doc) != 0)
		return bpt_error_set(err, -EINVAL, "%s: a knee's speed factor (\"knee_factor\" or"
				     " a point's \"speed_factor\") is not above 0", path);
	return 0;
}

int measure_results_check(const char *path, struct bpt_error *err)
{
	char *doc = slurp(path, err);
	sqlite3 *mem;
	int rc;

	if (!doc)
		return err ? err->code : -EIO;
	if (sqlite3_open(":memory:", &mem) != SQLITE_OK) {
		sqlite3_close(mem);
		free(doc);
		return bpt_error_set(err, -ENOMEM, "%s: cannot open SQLite in memory", path);
	}
	rc = check_doc(mem, path, doc, err);
	sqlite3_close(mem);
	free(doc);
	return rc;
}

static const char insert_measurement[] =
	"INSERT INTO measurements (kind, target, capacity_bytes, started_wall_ns, access,"
	" engine, ios_per_step, warmup_ios, warmup_ns, time_limit_ns, write_cache, weights, weights_from,"
	" score_ios_per_s, tool_version, path, imported_at, label, knee_slo, knee_factor)"
	" SELECT json_extract(?1, '$.kind'), json_extract(?1, '$.target'),"
	" json_extract(?1, '$.capacity_bytes'), json_extract(?1, '$.started_wall_ns'),"
	" json_extract(?1, '$.access'), json_extract(?1, '$.engine'),"
	" json_extract(?1, '$.ios_per_step'), json_extract(?1, '$.warmup_ios'),"
	" json_extract(?1, '$.warmup_ns'), json_extract(?1, '$.time_limit_ns'),"
	" json_extract(?1, '$.write_cache'), json_extract(?1, '$.weights'),"
	" json_extract(?1, '$.weights_from'), json_extract(?1, '$.score_ios_per_s'),"
	" json_extract(?1, '$.tool_version'), ?2, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'),"
	" json_extract(?1, '$.label'),"
	" CASE json_extract(?1, '$.kind') WHEN 'knee' THEN json(json_extract(?1, '$.slo')) END,"
	" CASE json_extract(?1, '$.kind') WHEN 'knee' THEN json_extract(?1, '$.knee_factor') END";

static const char insert_points[] =
	"INSERT INTO measurement_points (" ST_POINTS ") SELECT ?2,"
	" json_extract(value, '$.step'), json_extract(value, '$.depth'),"
	" json_extract(value, '$.zone'), json_extract(value, '$.offset_bytes'),"
	" json_extract(value, '$.span_bytes'), json_extract(value, '$.span_pct'),"
	" json_extract(value, '$.weight'), json_extract(value, '$.ios'),"
	" json_extract(value, '$.bytes'), json_extract(value, '$.errors'),"
	" json_extract(value, '$.window_ns'), json_extract(value, '$.ios_per_s'),"
	" json_extract(value, '$.mb_per_s'), json_extract(value, '$.latency.mean_ns'),"
	" json_extract(value, '$.latency.p50_ns'), json_extract(value, '$.latency.p90_ns'),"
	" json_extract(value, '$.latency.p99_ns'), json_extract(value, '$.latency.p99_9_ns'),"
	" json_extract(value, '$.latency.p99_99_ns'), json_extract(value, '$.latency.max_ns'),"
	" CASE json_extract(?1, '$.kind') WHEN 'knee' THEN json_extract(value, '$.speed_factor') END,"
	" CASE json_extract(?1, '$.kind') WHEN 'knee' THEN json_extract(value, '$.met') END"
	" FROM json_each(?1, '$.points')";

/* Run one statement with the document as ?1 and `text`/`id` as ?2. */
static int run_doc(sqlite3 *db, const char *sql, const char *doc, const char *text,
		   int64_t id, struct bpt_error *err)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return adb_fail(db, err, "cannot prepare the import of a measurement");
	sqlite3_bind_text(st, 1, doc, -1, SQLITE_STATIC);
	if (text)
		sqlite3_bind_text(st, 2, text, -1, SQLITE_STATIC);
	else
		sqlite3_bind_int64(st, 2, id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return adb_fail(db, err, "cannot import a measurement");
	return 0;
}

int measure_import(sqlite3 *db, const char *path, struct measure_import_result *res,
		   struct bpt_error *err)
{
	char *doc = slurp(path, err);
	sqlite3_stmt *st;
	int rc;

	memset(res, 0, sizeof(*res));
	if (!doc)
		return err ? err->code : -EIO;
	if ((rc = check_doc(db, path, doc, err)) || (rc = adb_exec(db, "BEGIN IMMEDIATE", err))) {
		free(doc);
		return rc;
	}
	rc = sqlite3_prepare_v2(db, "SELECT id, (SELECT count(*) FROM measurement_points"
				" WHERE measurement_id = id) FROM measurements"
				" WHERE kind = json_extract(?1, '$.kind')"
				" AND target = json_extract(?1, '$.target')"
				" AND started_wall_ns = json_extract(?1, '$.started_wall_ns')",
				-1, &st, NULL);
	if (rc != SQLITE_OK) {
		rc = adb_fail(db, err, "cannot look up a measurement");
		goto fail;
	}
	sqlite3_bind_text(st, 1, doc, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		res->id = sqlite3_column_int64(st, 0);
		res->points = (unsigned)sqlite3_column_int64(st, 1);
		res->already = 1;
	}
	sqlite3_finalize(st);
	if (!res->already) {
		if ((rc = run_doc(db, insert_measurement, doc, path, 0, err)))
			goto fail;
		res->id = sqlite3_last_insert_rowid(db);
		if ((rc = run_doc(db, insert_points, doc, NULL, res->id, err)))
			goto fail;
		res->points = (unsigned)sqlite3_changes(db);
	}
	if ((rc = adb_exec(db, "COMMIT", err)))
		goto fail;
	if (sqlite3_prepare_v2(db, "SELECT json_extract(?1, '$.kind')", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, doc, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
			snprintf(res->kind, sizeof(res->kind), "%s",
				 (const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
	}
	free(doc);
	return 0;
fail:
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	free(doc);
	return rc;
}
