/*
 * merge.c — one SQLite database into another store (merge.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "import.h"
#include "merge.h"
#include "pg.h"
#include "pg_import.h"
#include "pg_measure.h"
#include "store_io.h"
#include "store_tables.h"
#include "xfer.h"

/* Source id -> destination id, for the traces copied or found. */
struct idpairs {
	int64_t *from, *to;
	size_t n;
};

static int pair_add(struct idpairs *p, int64_t from, int64_t to)
{
	int64_t *f = realloc(p->from, (p->n + 1) * sizeof(*f)), *t;

	if (!f)
		return -ENOMEM;
	p->from = f;
	if (!(t = realloc(p->to, (p->n + 1) * sizeof(*t))))
		return -ENOMEM;
	p->to = t;
	p->from[p->n] = from;
	p->to[p->n++] = to;
	return 0;
}

static int pair_find(const struct idpairs *p, int64_t from, int64_t *to)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->from[i] == from) {
			*to = p->to[i];
			return 1;
		}
	return 0;
}

/* A trace's I/Os read from the source's `ios` rows, in idx order. */
struct src_rows {
	sqlite3 *db;
	sqlite3_stmt *st;
};

static int src_next(void *arg, struct bpt_record *rec, struct bpt_error *err)
{
	struct src_rows *r = arg;
	int rc = sqlite3_step(r->st);

	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return adb_fail(r->db, err, "cannot read the I/Os");
	struct st_io io;

	for (int i = 0; i < ST_IO_N; i++) {
		io.null[i] = sqlite3_column_type(r->st, i) == SQLITE_NULL;
		io.v[i] = sqlite3_column_int64(r->st, i);
	}
	st_io_to_record(&io, rec);
	return 1;
}

static int src_open(struct src_rows *r, sqlite3 *db, int64_t id, struct bpt_error *err)
{
	r->db = db;
	/* the view: it has the file and cause columns too */
	if (sqlite3_prepare_v2(db, "SELECT " ST_IO_COLS " FROM ios WHERE trace_id = ?1 ORDER BY idx",
			       -1, &r->st, NULL) != SQLITE_OK)
		return adb_fail(db, err, "cannot read the I/Os");
	sqlite3_bind_int64(r->st, 1, id);
	return 0;
}

/* Maps of a trace's rows into a SQLite destination: the source id to the
 * new one (none yet: NULL, SQLite picks it), the source's link NULL. */
struct trace_map {
	int64_t from, to;
};

static int map_trace(void *arg, const char *col, int64_t v, int64_t *out)
{
	const struct trace_map *m = arg;

	if ((!strcmp(col, "id") || !strcmp(col, "trace_id")) && v == m->from) {
		*out = m->to;
		return m->to ? XFER_VALUE : XFER_NULL;
	}
	return !strcmp(col, "source_trace_id") ? XFER_NULL : XFER_KEEP;
}

static int64_t sqlite_int(sqlite3 *db, const char *sql, const char *text, int *found)
{
	sqlite3_stmt *st;
	int64_t v = 0;

	*found = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		v = sqlite3_column_int64(st, 0);
		*found = 1;
	}
	sqlite3_finalize(st);
	return v;
}

static int sqlite_copy_trace(sqlite3 *src, sqlite3 *dst, int64_t sid, const char *digest,
			     uint32_t cols, int64_t *did, int *already, struct bpt_error *err)
{
	static const struct { const char *table, *cols; } rows[] = {
		{ "devices", ST_DEVICES }, { "processes", ST_PROCESSES },
		{ "losses", ST_LOSSES }, { "paths", ST_PATHS }, { "runs", ST_RUNS },
	};
	struct trace_map m = { sid, 0 };
	const struct xfer_map xm = { map_trace, &m };
	struct src_rows r = { 0 };
	sqlite3_stmt *st;
	int rc, found;

	*already = 0;
	if ((rc = adb_exec(dst, "BEGIN IMMEDIATE", err)))
		return rc;
	*did = sqlite_int(dst, "SELECT id FROM traces WHERE digest = ?", digest, &found);
	if (found) {
		*already = 1;
		return adb_exec(dst, "COMMIT", err);
	}
	if ((rc = xfer_sqlite(src, dst, "traces", ST_TRACES, "id = ?1", sid, &xm, NULL, NULL, err)))
		goto fail;
	m.to = *did = sqlite3_last_insert_rowid(dst);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if ((rc = xfer_sqlite(src, dst, rows[i].table, rows[i].cols, "trace_id = ?1", sid,
				      &xm, NULL, NULL, err)))
			goto fail;
	if ((rc = src_open(&r, src, sid, err)) ||
	    (rc = import_ios(dst, *did, cols, src_next, &r, err)))
		goto fail;
	if (sqlite3_prepare_v2(dst, "UPDATE runs SET source_trace_id = ?1 WHERE source_digest = ?2",
			       -1, &st, NULL) != SQLITE_OK) {
		rc = adb_fail(dst, err, "cannot link the runs");
		goto fail;
	}
	sqlite3_bind_int64(st, 1, *did);
	sqlite3_bind_text(st, 2, digest, -1, SQLITE_STATIC);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : adb_fail(dst, err, "cannot link the runs");
	sqlite3_finalize(st);
	if (rc || (rc = adb_exec(dst, "UPDATE runs SET source_trace_id = (SELECT t.id FROM traces t"
				 " WHERE t.digest = runs.source_digest) WHERE source_trace_id IS NULL", err)))
		goto fail;
	sqlite3_finalize(r.st);
	return adb_exec(dst, "COMMIT", err);
fail:
	sqlite3_finalize(r.st);
	sqlite3_exec(dst, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

static int merge_traces(sqlite3 *src, sqlite3 *dst, PGconn *pg, struct idpairs *ids,
			struct merge_counts *n, struct bpt_error *err)
{
	sqlite3_stmt *st;
	int rc = 0, step;

	if (sqlite3_prepare_v2(src, "SELECT id, digest, host, columns, ios FROM traces ORDER BY id",
			       -1, &st, NULL) != SQLITE_OK)
		return adb_fail(src, err, "cannot read the traces");
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t sid = sqlite3_column_int64(st, 0), did = 0;
		const char *digest = (const char *)sqlite3_column_text(st, 1);
		const char *host = (const char *)sqlite3_column_text(st, 2);
		uint32_t cols = (uint32_t)sqlite3_column_int64(st, 3);
		int already = 0;

		if (pg) {
			struct src_rows r = { 0 };

			if (!(rc = src_open(&r, src, sid, err)))
				rc = pg_copy_trace(pg, src, sid, digest, host, cols, src_next, &r, &did,
						   &already, err);
			sqlite3_finalize(r.st);
		} else {
			rc = sqlite_copy_trace(src, dst, sid, digest, cols, &did, &already, err);
		}
		if (!rc && pair_add(ids, sid, did))
			rc = bpt_error_set(err, -ENOMEM, "out of memory");
		if (!rc && already)
			n->traces_had++;
		else if (!rc) {
			n->traces++;
			n->ios += (uint64_t)sqlite3_column_int64(st, 4);
		}
	}
	if (!rc && step != SQLITE_DONE)
		rc = adb_fail(src, err, "cannot read the traces");
	sqlite3_finalize(st);
	return rc;
}

/* Comparison ids and the traces they name. */
struct cmp_map {
	const struct idpairs *traces;
	int64_t from, to;
};

static int map_cmp(void *arg, const char *col, int64_t v, int64_t *out)
{
	const struct cmp_map *m = arg;

	if ((!strcmp(col, "id") || !strcmp(col, "comparison_id")) && v == m->from) {
		*out = m->to;
		return m->to ? XFER_VALUE : XFER_NULL;
	}
	if ((!strcmp(col, "trace_id") || !strcmp(col, "baseline_trace_id")) &&
	    pair_find(m->traces, v, out))
		return XFER_VALUE;
	return XFER_KEEP;
}

/* Is a comparison of this time, baseline and source in the destination? */
static int cmp_there(sqlite3 *dst, PGconn *pg, const char *created, int64_t baseline,
		     const char *source, int *there, struct bpt_error *err)
{
	char b[24];
	const char *p[3] = { created, b, source ? source : "" };
	int64_t v;
	int rc = 0;

	snprintf(b, sizeof(b), "%" PRId64, baseline);
	sqlite3_stmt *st;

	if (pg) {
		rc = pg_query_int(pg, "SELECT count(*) FROM comparisons WHERE created_at = $1 AND"
				  " baseline_trace_id = $2 AND coalesce(source_digest, '') = $3",
				  3, p, &v, NULL, err);
		*there = v > 0;
		return rc;
	}

	if (sqlite3_prepare_v2(dst, "SELECT count(*) FROM comparisons WHERE created_at = ?1 AND"
			       " baseline_trace_id = ?2 AND coalesce(source_digest, '') = ?3",
			       -1, &st, NULL) != SQLITE_OK)
		return adb_fail(dst, err, "cannot read the comparisons");
	sqlite3_bind_text(st, 1, created, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, baseline);
	sqlite3_bind_text(st, 3, p[2], -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		*there = sqlite3_column_int64(st, 0) > 0;
	else
		rc = adb_fail(dst, err, "cannot read the comparisons");
	sqlite3_finalize(st);
	return rc;
}

static int merge_comparisons(sqlite3 *src, sqlite3 *dst, PGconn *pg, const struct idpairs *ids,
			     struct merge_counts *n, struct bpt_error *err)
{
	sqlite3_stmt *st;
	int rc = 0, step;

	if (sqlite3_prepare_v2(src, "SELECT id, created_at, baseline_trace_id, source_digest"
			       " FROM comparisons ORDER BY id", -1, &st, NULL) != SQLITE_OK)
		return adb_fail(src, err, "cannot read the comparisons");
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		struct cmp_map m = { ids, sqlite3_column_int64(st, 0), 0 };
		const struct xfer_map xm = { map_cmp, &m };
		int64_t baseline;
		int there = 0;

		if (!pair_find(ids, sqlite3_column_int64(st, 2), &baseline))
			continue; /* cannot happen: every trace was merged */
		if ((rc = cmp_there(dst, pg, (const char *)sqlite3_column_text(st, 1), baseline,
				    (const char *)sqlite3_column_text(st, 3), &there, err)))
			break;
		if (there) {
			n->comparisons_had++;
			continue;
		}
		if (pg) {
			if ((rc = pg_exec(pg, "BEGIN", err)))
				break;
			if (!(rc = pg_query_int(pg, "SELECT nextval(pg_get_serial_sequence("
						"'comparisons', 'id'))", 0, NULL, &m.to, NULL, err)) &&
			    !(rc = xfer_to_pg(src, pg, "comparisons", ST_COMPARISONS, "id = ?1", m.from,
					      &xm, "", NULL, err)) &&
			    !(rc = xfer_to_pg(src, pg, "comparison_entries", ST_ENTRIES,
					      "comparison_id = ?1", m.from, &xm, "", NULL, err)))
				rc = pg_exec(pg, "COMMIT", err);
			if (rc)
				pg_exec(pg, "ROLLBACK", NULL);
		} else {
			if ((rc = adb_exec(dst, "BEGIN IMMEDIATE", err)))
				break;
			if (!(rc = xfer_sqlite(src, dst, "comparisons", ST_COMPARISONS, "id = ?1", m.from,
					       &xm, NULL, NULL, err))) {
				m.to = sqlite3_last_insert_rowid(dst);
				rc = xfer_sqlite(src, dst, "comparison_entries", ST_ENTRIES,
						 "comparison_id = ?1", m.from, &xm, NULL, NULL, err);
			}
			if (!rc)
				rc = adb_exec(dst, "COMMIT", err);
			else
				sqlite3_exec(dst, "ROLLBACK", NULL, NULL, NULL);
		}
		if (!rc)
			n->comparisons++;
	}
	if (!rc && step != SQLITE_DONE && step != SQLITE_ROW)
		rc = adb_fail(src, err, "cannot read the comparisons");
	sqlite3_finalize(st);
	return rc;
}

static int map_meas(void *arg, const char *col, int64_t v, int64_t *out)
{
	const int64_t *m = arg; /* from, to */

	if ((!strcmp(col, "id") || !strcmp(col, "measurement_id")) && v == m[0]) {
		*out = m[1];
		return m[1] ? XFER_VALUE : XFER_NULL;
	}
	return XFER_KEEP;
}

static int merge_measurements(sqlite3 *src, sqlite3 *dst, PGconn *pg, struct merge_counts *n,
			      struct bpt_error *err)
{
	sqlite3_stmt *st;
	int rc = 0, step;

	if (sqlite3_prepare_v2(src, "SELECT id FROM measurements ORDER BY id", -1, &st, NULL))
		return adb_fail(src, err, "cannot read the measurements");
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t m[2] = { sqlite3_column_int64(st, 0), 0 };
		const struct xfer_map xm = { map_meas, m };
		uint64_t rows = 0;
		int already = 0;

		if (pg) {
			if ((rc = pg_exec(pg, "BEGIN", err)))
				break;
			rc = pg_measure_copy(src, m[0], pg, &m[1], &already, err);
			rc = rc ? rc : pg_exec(pg, "COMMIT", err);
			if (rc)
				pg_exec(pg, "ROLLBACK", NULL);
		} else {
			if ((rc = adb_exec(dst, "BEGIN IMMEDIATE", err)))
				break;
			rc = xfer_sqlite(src, dst, "measurements", ST_MEASUREMENTS, "id = ?1", m[0], &xm,
					 "INSERT OR IGNORE", &rows, err);
			already = !rows;
			if (!rc && rows) {
				m[1] = sqlite3_last_insert_rowid(dst);
				rc = xfer_sqlite(src, dst, "measurement_points", ST_POINTS,
						 "measurement_id = ?1", m[0], &xm, NULL, NULL, err);
			}
			if (!rc)
				rc = adb_exec(dst, "COMMIT", err);
			else
				sqlite3_exec(dst, "ROLLBACK", NULL, NULL, NULL);
		}
		if (!rc && already)
			n->measurements_had++;
		else if (!rc)
			n->measurements++;
	}
	if (!rc && step != SQLITE_DONE && step != SQLITE_ROW)
		rc = adb_fail(src, err, "cannot read the measurements");
	sqlite3_finalize(st);
	return rc;
}

int merge_from(sqlite3 *src, sqlite3 *dst, PGconn *pg, struct merge_counts *n,
	       struct bpt_error *err)
{
	struct idpairs ids = { 0 };
	int rc;

	memset(n, 0, sizeof(*n));
	if (!(rc = merge_traces(src, dst, pg, &ids, n, err)) &&
	    !(rc = merge_comparisons(src, dst, pg, &ids, n, err)))
		rc = merge_measurements(src, dst, pg, n, err);
	free(ids.from);
	free(ids.to);
	return rc;
}
