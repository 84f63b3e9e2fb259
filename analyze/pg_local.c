/*
 * pg_local.c — the local working copy of a PostgreSQL store.
 *
 * report, compare, export, plot and html compute their figures with the
 * same code on both engines: opened read-only on a PostgreSQL value,
 * adb_open() gives them an in-memory SQLite database with the schema,
 * every row of the store's small tables (traces, devices, processes,
 * losses, runs, comparisons, measurements) and, on demand
 * (adb_need_ios), the I/Os of the traces they read, fetched by COPY
 * (binary) from the trace's partition. The store is read in one
 * REPEATABLE READ, READ ONLY transaction, so the I/Os fetched later are
 * of the same snapshot as the rows copied first. So the answers are the
 * SQLite answers by construction; the price is the fetch (bench/
 * RESULTS.md, "PostgreSQL store").
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "import.h"
#include "pg.h"
#include "pg_copyout.h"
#include "pg_rows.h"
#include "store_io.h"
#include "store_tables.h"
#include "xfer.h"

#define LOCAL_MAX 8

/* The working copies this process has open. */
static struct local {
	sqlite3 *db;
	PGconn *c;     /* the reads, one snapshot */
	PGconn *w;     /* the writes (adb_publish*), opened when first needed */
	char *value;   /* the --db value, to open w */
	int64_t *loaded;
	size_t nloaded;
	/* adb_remote_ios: the last two traces a report read (a run and the
	 * trace it replayed, under --files); id 0: none */
	struct adb_ios rows[2];
	uint64_t used[2], tick;
} locals[LOCAL_MAX];

static void close_all(void)
{
	for (int i = 0; i < LOCAL_MAX; i++) {
		PQfinish(locals[i].c);
		PQfinish(locals[i].w);
		free(locals[i].value);
		free(locals[i].loaded);
		pg_rows_free(&locals[i].rows[0]);
		pg_rows_free(&locals[i].rows[1]);
		memset(&locals[i], 0, sizeof(locals[i]));
	}
}

static struct local *find(sqlite3 *db)
{
	for (int i = 0; i < LOCAL_MAX; i++)
		if (locals[i].db == db && db)
			return &locals[i];
	return NULL;
}

int pg_local_open(sqlite3 **out, const char *value, enum adb_mode mode, struct bpt_error *err)
{
	static const struct { const char *table, *cols; } tables[] = {
		{ "traces", ST_TRACES }, { "devices", ST_DEVICES }, { "processes", ST_PROCESSES },
		{ "losses", ST_LOSSES }, { "paths", ST_PATHS }, { "runs", ST_RUNS }, { "comparisons", ST_COMPARISONS },
		{ "comparison_entries", ST_ENTRIES }, { "measurements", ST_MEASUREMENTS },
		{ "measurement_points", ST_POINTS }, { "suite_results", ST_SUITE_RESULTS },
	};
	static int registered;
	struct local *l = NULL;
	sqlite3 *db = NULL;
	PGconn *c = NULL;
	int rc;

	*out = NULL;
	if (mode == ADB_CREATE) {
		char safe[512];

		return bpt_error_set(err, -ENOTSUP, "%s: this command cannot create a PostgreSQL"
				     " store (analyze import and analyze merge can)",
				     pg_redact(value, safe, sizeof(safe)));
	}
	for (int i = 0; i < LOCAL_MAX && !l; i++)
		if (!locals[i].db)
			l = &locals[i];
	if (!l)
		return bpt_error_set(err, -EMFILE, "too many PostgreSQL stores open");
	if (!registered && !atexit(close_all))
		registered = 1;
	if ((rc = pg_open(&c, value, ADB_READONLY, err)))
		return rc;
	if ((rc = pg_exec(c, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", err)) ||
	    (rc = pg_exec(c, "SET synchronize_seqscans = off;"
			  " SET max_parallel_workers_per_gather = 0", err)) ||
	    (rc = adb_open_memory(&db, err)) ||
	    (rc = adb_exec(db, "PRAGMA foreign_keys = OFF; BEGIN", err)))
		goto fail;
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		if ((rc = xfer_from_pg(c, db, tables[i].table, tables[i].cols, err)))
			goto fail;
	if ((rc = adb_exec(db, "COMMIT; PRAGMA foreign_keys = ON", err)))
		goto fail;
	if (!(l->value = strdup(value))) {
		rc = bpt_error_set(err, -ENOMEM, "out of memory");
		goto fail;
	}
	l->db = db;
	l->c = c;
	*out = db;
	return 0;
fail:
	sqlite3_close(db);
	PQfinish(c);
	return rc;
}

/* The COPY (binary) stream of one trace's I/Os, read record by record. */
struct rows {
	struct pg_copyout in;
	int64_t id;
	int check;   /* 1: rows must come in idx order (no ORDER BY asked) */
	int64_t next_idx;
};

static int next_row(void *arg, struct bpt_record *rec, struct bpt_error *err)
{
	static unsigned char width[1 + ST_IO_N];
	struct rows *r = arg;
	int64_t v[1 + ST_IO_N];
	unsigned char null[1 + ST_IO_N];
	struct st_io io;
	int rc;

	if (!width[0]) {
		width[0] = 8;
		memcpy(width + 1, st_io_width, ST_IO_N);
	}
	if ((rc = pg_copyout_row(&r->in, 1 + ST_IO_N, width, v, null, err)) <= 0)
		return rc;
	if (r->check && v[0] != r->next_idx)
		return bpt_error_set(err, -EAGAIN, "trace %" PRId64 ": rows out of order", r->id);
	r->next_idx++;
	memcpy(io.v, v + 1, sizeof(io.v));
	memcpy(io.null, null + 1, sizeof(io.null));
	st_io_to_record(&io, rec);
	return 1;
}

/*
 * The I/Os of trace id into l->db, in idx order. A trace's partition is
 * written once, in idx order, by one COPY and never updated, so a plain
 * scan (synchronised scans and parallel workers off: pg_local_open)
 * returns its rows in that order without the cost of sorting them; the
 * order is checked row by row, and a scan that breaks it (-EAGAIN: a
 * partition rewritten by CLUSTER, say) is read again with ORDER BY.
 */
static int fetch_once(struct local *l, int64_t id, uint32_t columns, int ordered,
		      struct bpt_error *err)
{
	struct rows r = { .id = id, .check = !ordered };
	PGresult *res;
	char sql[1024], what[40];
	int rc;

	snprintf(sql, sizeof(sql), "COPY (SELECT idx, " ST_IO_COLS " FROM ios WHERE trace_id = %"
		 PRId64 "%s) TO STDOUT (FORMAT binary)", id, ordered ? " ORDER BY idx" : "");
	res = PQexec(l->c, sql);
	if (PQresultStatus(res) != PGRES_COPY_OUT) {
		rc = pg_fail(l->c, res, err, "cannot read the I/Os");
		PQclear(res);
		return rc;
	}
	PQclear(res);
	snprintf(what, sizeof(what), "trace %" PRId64, id);
	pg_copyout_init(&r.in, l->c, what);
	/* a savepoint: the reader may be inside a transaction of its own */
	if (!(rc = adb_exec(l->db, "SAVEPOINT fetch", err))) {
		rc = import_ios(l->db, id, columns, next_row, &r, err);
		if (rc)
			sqlite3_exec(l->db, "ROLLBACK TO fetch", NULL, NULL, NULL);
		if (sqlite3_exec(l->db, "RELEASE fetch", NULL, NULL, NULL) != SQLITE_OK && !rc)
			rc = adb_fail(l->db, err, "cannot keep the I/Os");
	}
	return pg_copyout_end(&r.in, rc, err);
}

static int fetch(struct local *l, int64_t id, struct bpt_error *err)
{
	sqlite3_stmt *st;
	uint32_t columns;
	int rc;

	if (sqlite3_prepare_v2(l->db, "SELECT columns FROM traces WHERE id = ?", -1, &st, NULL))
		return adb_fail(l->db, err, "cannot read the trace");
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	columns = (uint32_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return 0; /* no such trace: the caller says so */
	rc = fetch_once(l, id, columns, 0, err);
	return rc == -EAGAIN ? fetch_once(l, id, columns, 1, err) : rc;
}

int adb_need_ios(sqlite3 *db, int64_t id, struct bpt_error *err)
{
	struct local *l = find(db);
	int64_t *grown;
	int rc;

	if (!l)
		return 0; /* a SQLite file has them all */
	for (size_t i = 0; i < l->nloaded; i++)
		if (l->loaded[i] == id)
			return 0;
	if ((rc = fetch(l, id, err)))
		return rc;
	if (!(grown = realloc(l->loaded, (l->nloaded + 1) * sizeof(*grown))))
		return bpt_error_set(err, -ENOMEM, "out of memory");
	l->loaded = grown;
	l->loaded[l->nloaded++] = id;
	return 0;
}

int adb_remote_ios(sqlite3 *db, int64_t id, uint64_t n, const struct adb_ios **out,
		   struct bpt_error *err)
{
	struct local *l = find(db);
	int rc;

	*out = NULL;
	if (!l)
		return 0; /* a SQLite file */
	for (size_t i = 0; i < l->nloaded; i++)
		if (l->loaded[i] == id)
			return 0; /* in the copy's tables already */
	for (int i = 0; i < 2; i++)
		if (l->rows[i].id == id && l->rows[i].n == n) {
			l->used[i] = ++l->tick;
			*out = &l->rows[i];
			return 0;
		}
	int i = l->used[0] > l->used[1]; /* the older */
	pg_rows_free(&l->rows[i]);
	if ((rc = pg_rows_fetch(l->c, id, n, &l->rows[i], err)))
		return rc;
	l->used[i] = ++l->tick;
	*out = &l->rows[i];
	return 0;
}

int adb_need_related(sqlite3 *db, int64_t id, struct bpt_error *err)
{
	sqlite3_stmt *st;
	int rc = 0, step;

	if (!find(db))
		return 0;
	/* the trace, what it replayed, and every run of either */
	if (sqlite3_prepare_v2(db, "WITH s(id) AS (SELECT ?1 UNION SELECT source_trace_id FROM runs"
			       " WHERE trace_id = ?1 AND source_trace_id IS NOT NULL)"
			       " SELECT id FROM s UNION SELECT trace_id FROM runs"
			       " WHERE source_trace_id IN (SELECT id FROM s)", -1, &st, NULL))
		return adb_fail(db, err, "cannot read the runs");
	sqlite3_bind_int64(st, 1, id);
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW)
		rc = adb_need_ios(db, sqlite3_column_int64(st, 0), err);
	if (!rc && step != SQLITE_DONE)
		rc = adb_fail(db, err, "cannot read the runs");
	sqlite3_finalize(st);
	return rc;
}

/* The write connection of a working copy. */
static int writer(struct local *l, struct bpt_error *err)
{
	return l->w ? 0 : pg_open(&l->w, l->value, ADB_READWRITE, err);
}

int adb_publish(sqlite3 *db, const char *sql, int n, const char *const *params,
		int64_t *changes, struct bpt_error *err)
{
	struct local *l = find(db);
	PGresult *r;
	int rc;

	*changes = -1;
	if (!l)
		return 0;
	if ((rc = writer(l, err)))
		return rc;
	r = PQexecParams(l->w, sql, n, NULL, params, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_COMMAND_OK)
		rc = pg_fail(l->w, r, err, "cannot write");
	else
		*changes = strtoll(PQcmdTuples(r), NULL, 10);
	PQclear(r);
	return rc;
}

static int map_comparison(void *arg, const char *col, int64_t v, int64_t *out)
{
	const int64_t *ids = arg; /* local, server */

	if ((!strcmp(col, "id") || !strcmp(col, "comparison_id")) && v == ids[0]) {
		*out = ids[1];
		return 1;
	}
	return 0;
}

int adb_publish_comparison(sqlite3 *db, int64_t *id, struct bpt_error *err)
{
	struct local *l = find(db);
	int64_t ids[2] = { *id, 0 };
	const struct xfer_map m = { map_comparison, ids };
	int rc;

	if (!l)
		return 0;
	if ((rc = writer(l, err)) || (rc = pg_exec(l->w, "BEGIN", err)))
		return rc;
	if ((rc = pg_query_int(l->w, "SELECT nextval(pg_get_serial_sequence('comparisons', 'id'))",
			       0, NULL, &ids[1], NULL, err)) ||
	    (rc = xfer_to_pg(db, l->w, "comparisons", ST_COMPARISONS, "id = ?1", ids[0], &m, "",
			     NULL, err)) ||
	    (rc = xfer_to_pg(db, l->w, "comparison_entries", ST_ENTRIES, "comparison_id = ?1",
			     ids[0], &m, "", NULL, err)) ||
	    (rc = pg_exec(l->w, "COMMIT", err))) {
		pg_exec(l->w, "ROLLBACK", NULL);
		return rc;
	}
	*id = ids[1];
	return 0;
}

int adb_publish_rows(sqlite3 *db, const char *table, const char *cols, const char *where,
		     int64_t arg, const char *suffix, int64_t *rows, struct bpt_error *err)
{
	struct local *l = find(db);
	uint64_t n = 0;
	int rc;

	*rows = -1;
	if (!l)
		return 0;
	if ((rc = writer(l, err)) ||
	    (rc = xfer_to_pg(db, l->w, table, cols, where, arg, NULL, suffix, &n, err)))
		return rc;
	*rows = (int64_t)n;
	return 0;
}

void adb_close(sqlite3 *db)
{
	struct local *l = find(db);

	if (l) {
		PQfinish(l->c);
		PQfinish(l->w);
		free(l->value);
		free(l->loaded);
		pg_rows_free(&l->rows[0]);
		pg_rows_free(&l->rows[1]);
		memset(l, 0, sizeof(*l));
	}
	sqlite3_close(db);
}
