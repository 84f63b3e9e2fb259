/*
 * pg_import.c — one .bpt file into the PostgreSQL store (pg_import.h).
 *
 * The I/Os stream by COPY (binary) into ios_t<ID>, a table made in the
 * import's transaction with CHECK (trace_id = ID), so that attaching it
 * as the partition of `ios` at the end needs no scan and holds the parent
 * only for the moment before COMMIT (other importers attach theirs in
 * turn; readers are never blocked). Nothing is visible before COMMIT.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "pg.h"
#include "pg_import.h"
#include "store_io.h"
#include "store_tables.h"
#include "xfer.h"

#define COPY_FLUSH (1 << 20)
#define IOS_FIELDS (2 + ST_IO_N)

struct pgi {
	PGconn *c;
	int64_t id, staging_id, host_id, here_id;
	uint32_t cols;
	int in_txn, in_copy;
	uint64_t idx;
	unsigned char *buf;
	size_t len, cap;
};

int pg_host_id(PGconn *c, const char *name, int64_t *id, struct bpt_error *err)
{
	const char *p[1] = { name };
	PGresult *r;
	int found, rc;

	*id = 0;
	if (!name || !*name)
		return 0;
	r = PQexecParams(c, "INSERT INTO hosts (name) VALUES ($1) ON CONFLICT (name) DO NOTHING",
			 1, NULL, p, NULL, NULL, 0);
	rc = PQresultStatus(r) == PGRES_COMMAND_OK ? 0 : pg_fail(c, r, err, "cannot add the host");
	PQclear(r);
	return rc ? rc : pg_query_int(c, "SELECT id FROM hosts WHERE name = $1", 1, p, id, &found, err);
}

static int flush(struct pgi *s, struct bpt_error *err)
{
	if (s->len && PQputCopyData(s->c, (const char *)s->buf, (int)s->len) != 1)
		return pg_fail(s->c, NULL, err, "cannot send I/Os");
	s->len = 0;
	return 0;
}

static int reserve(struct pgi *s, size_t more)
{
	if (s->len + more <= s->cap)
		return 0;
	size_t cap = s->cap ? 2 * s->cap : COPY_FLUSH + 4096;
	while (cap < s->len + more)
		cap *= 2;
	unsigned char *b = realloc(s->buf, cap);
	if (!b)
		return -ENOMEM;
	s->buf = b;
	s->cap = cap;
	return 0;
}

static void put16(struct pgi *s, int16_t v)
{
	uint16_t n = htons((uint16_t)v);

	memcpy(s->buf + s->len, &n, 2);
	s->len += 2;
}

static void put32(struct pgi *s, int32_t v)
{
	uint32_t n = htonl((uint32_t)v);

	memcpy(s->buf + s->len, &n, 4);
	s->len += 4;
}

static void put64(struct pgi *s, int64_t v)
{
	put32(s, (int32_t)((uint64_t)v >> 32));
	put32(s, (int32_t)(uint32_t)v);
}

/* One field: its length, then the value (big-endian). */
static void f64(struct pgi *s, int64_t v) { put32(s, 8); put64(s, v); }
static void f32(struct pgi *s, int32_t v) { put32(s, 4); put32(s, v); }
static void f16(struct pgi *s, int16_t v) { put32(s, 2); put16(s, v); }
static void fnull(struct pgi *s) { put32(s, -1); }

/*
 * Start a trace: hosts, then BEGIN, the digest's lock; > 0 when the
 * trace is there (res->trace_id, res->records), else the COPY into its
 * new table is open.
 */
static int begin_trace(struct pgi *s, struct import_result *res, const char *host,
		       uint32_t columns, struct bpt_error *err)
{
	const char *p[1] = { res->digest };
	char sql[1024], here[256];
	int64_t ios = 0;
	int found, rc;
	PGresult *r;

	s->cols = columns;
	/* hosts first, in transactions of their own: two importers adding the
	 * same new host inside their long transactions could deadlock */
	if ((rc = pg_host_id(s->c, host, &s->host_id, err)) ||
	    (rc = pg_host_id(s->c, pg_this_host(here, sizeof(here)), &s->here_id, err)))
		return rc;
	if ((rc = pg_exec(s->c, "BEGIN", err)))
		return rc;
	s->in_txn = 1;
	r = PQexecParams(s->c, "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", 1, NULL,
			 p, NULL, NULL, 0);
	rc = PQresultStatus(r) == PGRES_TUPLES_OK ? 0 : pg_fail(s->c, r, err, "cannot lock the digest");
	PQclear(r);
	if (rc || (rc = pg_query_int(s->c, "SELECT id FROM traces WHERE digest = $1", 1, p,
				     &res->trace_id, &found, err)))
		return rc;
	if (found) {
		if ((rc = pg_query_int(s->c, "SELECT ios FROM traces WHERE digest = $1", 1, p, &ios,
				       NULL, err)))
			return rc;
		res->records = (uint64_t)ios;
		return 1; /* the caller ends the transaction */
	}
	if ((rc = pg_query_int(s->c, "SELECT nextval(pg_get_serial_sequence('traces', 'id'))", 0,
			       NULL, &s->id, NULL, err)))
		return rc;
	snprintf(sql, sizeof(sql), "CREATE TABLE ios_t%" PRId64 " (LIKE ios, CHECK (trace_id = %" PRId64 "))",
		 s->id, s->id);
	if ((rc = pg_exec(s->c, sql, err)))
		return rc;
	snprintf(sql, sizeof(sql), "COPY ios_t%" PRId64 " (trace_id, idx, " ST_IO_COLS ") FROM STDIN (FORMAT binary)",
		 s->id);
	r = PQexec(s->c, sql);
	if (PQresultStatus(r) != PGRES_COPY_IN) {
		rc = pg_fail(s->c, r, err, "cannot start the copy of the I/Os");
		PQclear(r);
		return rc;
	}
	PQclear(r);
	s->in_copy = 1;
	if (reserve(s, 19))
		return bpt_error_set(err, -ENOMEM, "out of memory");
	memcpy(s->buf, "PGCOPY\n\377\r\n\0", 11);
	s->len = 11;
	put32(s, 0); /* flags */
	put32(s, 0); /* header extension */
	return 0;
}

static int before(void *arg, struct import_result *res, const struct bpt_header *h,
		  struct bpt_error *err)
{
	return begin_trace(arg, res, h->host, h->columns, err);
}

static int io(void *arg, const struct bpt_record *rec, struct bpt_error *err)
{
	struct pgi *s = arg;
	struct st_io v;

	if (reserve(s, 2 + IOS_FIELDS * (4 + 8)))
		return bpt_error_set(err, -ENOMEM, "out of memory");
	st_io_from_record(&v, rec, s->cols);
	put16(s, IOS_FIELDS);
	f64(s, s->id);
	f64(s, (int64_t)s->idx++);
	for (int i = 0; i < ST_IO_N; i++) {
		if (v.null[i])
			fnull(s);
		else if (st_io_width[i] == 8)
			f64(s, v.v[i]);
		else if (st_io_width[i] == 4)
			f32(s, (int32_t)v.v[i]);
		else
			f16(s, (int16_t)v.v[i]);
	}
	return s->len >= COPY_FLUSH ? flush(s, err) : 0;
}

static int end_copy(struct pgi *s, const char *abort_msg, struct bpt_error *err)
{
	PGresult *r;
	int rc = 0;

	if (!s->in_copy)
		return 0;
	s->in_copy = 0;
	if (!abort_msg) {
		if (reserve(s, 2))
			return bpt_error_set(err, -ENOMEM, "out of memory");
		put16(s, -1);
		if ((rc = flush(s, err)))
			abort_msg = "send failed";
	}
	if (PQputCopyEnd(s->c, abort_msg) != 1 && !rc)
		rc = pg_fail(s->c, NULL, err, "cannot end the copy of the I/Os");
	while ((r = PQgetResult(s->c))) {
		if (!rc && !abort_msg && PQresultStatus(r) != PGRES_COMMAND_OK)
			rc = pg_fail(s->c, r, err, "cannot copy the I/Os");
		PQclear(r);
	}
	return rc;
}

static int map_trace(void *arg, const char *col, int64_t v, int64_t *out)
{
	struct pgi *s = arg;

	if ((!strcmp(col, "id") || !strcmp(col, "trace_id")) && v == s->staging_id) {
		*out = s->id;
		return XFER_VALUE;
	}
	/* the source's id in the other database: linked by digest below */
	return !strcmp(col, "source_trace_id") ? XFER_NULL : XFER_KEEP;
}

/* The trace's other rows from staging, the partition attached. */
static int finish(struct pgi *s, sqlite3 *staging, const char *hex, struct bpt_error *err)
{
	static const struct { const char *table, *cols, *where; } rows[] = {
		{ "traces", ST_TRACES, "id = ?1" },
		{ "devices", ST_DEVICES, "trace_id = ?1" },
		{ "processes", ST_PROCESSES, "trace_id = ?1" },
		{ "losses", ST_LOSSES, "trace_id = ?1" },
		{ "paths", ST_PATHS, "trace_id = ?1" },
		{ "runs", ST_RUNS, "trace_id = ?1" },
	};
	const struct xfer_map m = { map_trace, s };
	char ids[3][24], sql[160];
	const char *p[3] = { ids[0], ids[1], ids[2] };
	PGresult *r;
	int rc;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if ((rc = xfer_to_pg(staging, s->c, rows[i].table, rows[i].cols, rows[i].where,
				     s->staging_id, &m, "", NULL, err)))
			return rc;
	snprintf(ids[0], sizeof(ids[0]), "%" PRId64, s->id);
	snprintf(ids[1], sizeof(ids[1]), "%" PRId64, s->host_id);
	snprintf(ids[2], sizeof(ids[2]), "%" PRId64, s->here_id);
	r = PQexecParams(s->c, "UPDATE traces SET host_id = nullif($2::bigint, 0),"
			 " imported_on = nullif($3::bigint, 0) WHERE id = $1", 3, NULL, p, NULL, NULL, 0);
	rc = PQresultStatus(r) == PGRES_COMMAND_OK ? 0 : pg_fail(s->c, r, err, "cannot record the hosts");
	PQclear(r);
	if (rc)
		return rc;
	snprintf(sql, sizeof(sql), "ALTER TABLE ios ATTACH PARTITION ios_t%" PRId64
		 " FOR VALUES IN (%" PRId64 ")", s->id, s->id);
	if ((rc = pg_exec(s->c, sql, err)))
		return rc;
	snprintf(ids[1], sizeof(ids[1]), "%s", hex);
	r = PQexecParams(s->c, "UPDATE runs SET source_trace_id = $1 WHERE source_digest = $2",
			 2, NULL, p, NULL, NULL, 0);
	rc = PQresultStatus(r) == PGRES_COMMAND_OK ? 0 : pg_fail(s->c, r, err, "cannot link the runs");
	PQclear(r);
	if (rc)
		return rc;
	r = PQexecParams(s->c, "UPDATE runs SET source_trace_id = (SELECT t.id FROM traces t"
			 " WHERE t.digest = runs.source_digest) WHERE trace_id = $1", 1, NULL, p,
			 NULL, NULL, 0);
	rc = PQresultStatus(r) == PGRES_COMMAND_OK ? 0 : pg_fail(s->c, r, err, "cannot link the run");
	PQclear(r);
	return rc;
}

int pg_import_file(PGconn *c, const char *path, const struct import_opts *opts,
		   struct import_result *res, struct bpt_error *err)
{
	struct pgi s = { .c = c };
	struct import_hooks hooks = { before, io, &s };
	struct import_opts o = opts ? *opts : (struct import_opts){ 0, NULL, NULL, NULL };
	sqlite3 *staging = NULL;
	int rc;

	memset(res, 0, sizeof(*res));
	o.hooks = &hooks;
	if ((rc = adb_open_memory(&staging, err)))
		return rc;
	rc = import_file(staging, path, &o, res, err);
	if (!rc && !res->already) {
		s.staging_id = res->trace_id;
		if (!(rc = end_copy(&s, NULL, err)) && !(rc = finish(&s, staging, res->digest, err)))
			res->trace_id = s.id;
	}
	end_copy(&s, "import failed", NULL);
	if (s.in_txn) {
		int crc = pg_exec(c, rc ? "ROLLBACK" : "COMMIT", rc ? NULL : err);

		if (!rc && crc)
			rc = crc;
	}
	sqlite3_close(staging);
	free(s.buf);
	return rc;
}

int pg_copy_trace(PGconn *c, sqlite3 *src, int64_t src_id, const char *digest, const char *host,
		  uint32_t columns,
		  int (*next)(void *arg, struct bpt_record *rec, struct bpt_error *err), void *arg,
		  int64_t *dst_id, int *already, struct bpt_error *err)
{
	struct pgi s = { .c = c };
	struct import_result res;
	struct bpt_record rec;
	int rc;

	memset(&res, 0, sizeof(res));
	snprintf(res.digest, sizeof(res.digest), "%s", digest);
	*already = 0;
	rc = begin_trace(&s, &res, host, columns, err);
	if (rc > 0) {
		*already = 1;
		*dst_id = res.trace_id;
		rc = 0;
	} else if (!rc) {
		while ((rc = next(arg, &rec, err)) == 1)
			if (!rec.internal && (rc = io(&s, &rec, err)))
				break;
		s.staging_id = src_id;
		if (!rc && !(rc = end_copy(&s, NULL, err)) && !(rc = finish(&s, src, digest, err)))
			*dst_id = s.id;
	}
	end_copy(&s, "copy failed", NULL);
	if (s.in_txn) {
		int crc = pg_exec(c, rc ? "ROLLBACK" : "COMMIT", rc ? NULL : err);

		if (!rc && crc)
			rc = crc;
	}
	free(s.buf);
	return rc;
}
