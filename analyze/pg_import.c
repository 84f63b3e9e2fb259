/*
 * pg_import.c — one .bpt file into the PostgreSQL store (pg_import.h).
 *
 * The I/Os are stored as SQLite stores them (schemas/analyze-pg.sql,
 * version 10): each I/O one narrow row of io_rows (issue, wait, service,
 * sector, kind), what repeats one row of io_kinds, the replay and file
 * columns rows of io_replay, io_files and io_files2 where the trace has
 * them. The rows stream by COPY (binary, FREEZE) into io_rows_t<ID>, a
 * table made in the import's transaction with CHECK (trace_id = ID) and
 * no index, so that attaching it as the partition at the end needs no
 * scan and holds the parent only for the moment before COMMIT (other
 * importers attach theirs in turn; readers are never blocked). The side
 * rows wait in a temporary file until the main COPY is done (one COPY at
 * a time on a connection). Nothing is visible before COMMIT.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "db.h"
#include "io_kind.h"
#include "pg.h"
#include "pg_copyin.h"
#include "pg_import.h"
#include "store_io.h"
#include "store_tables.h"
#include "xfer.h"

/* The I/O rows go to the server in pieces of this size: small enough
 * that the server, the slower side, finds the next piece in the socket
 * before it has parsed the last (a piece of 1 MiB left it waiting while
 * blkpeak made the next); SEND_BUFFER asks the kernel for room for a few
 * (granted up to net.core.wmem_max). */
#ifndef SEND_CHUNK
#define SEND_CHUNK (64 << 10)
#endif
#define SEND_BUFFER (4 << 20)

/* The side tables, filled after io_rows from their spill files. */
enum side { S_REPLAY, S_FILES, S_FILES2, S_WIDE, S_N };
static const struct {
	const char *table, *cols;
	int partitioned;  /* 1: a partition of its own per trace */
} side_table[S_N] = {
	{ "io_replay", "trace_id, idx, sched_ns, source_index, member", 1 },
	{ "io_files", "trace_id, idx, inode, file_offset", 1 },
	{ "io_files2", "trace_id, idx, file2_dev, inode2, file2_offset, file2_bytes, cause2_pid,"
		       " cause2_comm_id, cause2_cgroup", 0 },
	{ "io_wide", "trace_id, idx, wait_ns, service_ns", 0 },
};

struct pgi {
	PGconn *c;
	int64_t id, staging_id, host_id, here_id;
	uint32_t cols;
	int in_txn, in_copy;
	uint64_t idx;
	struct pg_copyin main, side[S_N];
	struct io_kind_map kinds;
	struct pg_copyin kind_rows;
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

static int send_main(struct pgi *s, struct bpt_error *err)
{
	if (s->main.len && PQputCopyData(s->c, (const char *)s->main.buf, (int)s->main.len) != 1)
		return pg_fail(s->c, NULL, err, "cannot send I/Os");
	s->main.len = 0;
	return 0;
}

/* A new table for trace s->id's rows of `table`, to be attached as its
 * partition: no index, CHECK (trace_id = ID) so that ATTACH needs no
 * scan. */
static int make_part(struct pgi *s, const char *table, struct bpt_error *err)
{
	char sql[256];

	snprintf(sql, sizeof(sql), "CREATE TABLE %s_t%" PRId64 " (LIKE %s, CHECK (trace_id = %"
		 PRId64 "))", table, s->id, table, s->id);
	return pg_exec(s->c, sql, err);
}

/*
 * Start a trace: hosts, then BEGIN, the digest's lock; > 0 when the
 * trace is there (res->trace_id, res->records), else the COPY into its
 * new table is open.
 */
static int begin_trace(struct pgi *s, struct import_result *res, const char *host,
		       uint32_t columns, struct bpt_error *err)
{
	const char *p[1] = { res->digest };
	char here[256], table[64];
	int64_t ios = 0;
	int found, rc;
	PGresult *r;

	s->cols = columns;
	s->kinds = (struct io_kind_map)IO_KIND_MAP_INIT;
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
	if (s->id > INT32_MAX)
		return bpt_error_set(err, -EOVERFLOW, "trace id %" PRId64 " is past io_rows.trace_id's"
				     " range (2^31 - 1)", s->id);
	snprintf(table, sizeof(table), "io_rows_t%" PRId64, s->id);
	if ((rc = make_part(s, "io_rows", err)) ||
	    (rc = pg_copyin_start(s->c, table, "issue_ns, sector, idx, trace_id, wait_ns, service_ns,"
			     " kind", 1, err)))
		return rc;
	s->in_copy = 1;
#ifndef NO_SEND_BUFFER
	int sndbuf = SEND_BUFFER;
	/* best effort: the kernel's default is kept if it refuses */
	(void)setsockopt(PQsocket(s->c), SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
#endif
	if (pg_copyin_reserve(&s->main, 19))
		return bpt_error_set(err, -ENOMEM, "out of memory");
	pg_copyin_header(&s->main);
	return 0;
}

static int before(void *arg, struct import_result *res, const struct bpt_header *h,
		  struct bpt_error *err)
{
	return begin_trace(arg, res, h->host, h->columns, err);
}

/* A row of side table t: trace_id, idx, then the values v[cols[i]] of
 * io (width from st_io_width). */
static int side_row(struct pgi *s, enum side t, const struct st_io *io, const int *cols, int n,
		    struct bpt_error *err)
{
	struct pg_copyin *b = &s->side[t];
	int rc;

	if (b->len >= COPY_FLUSH && (rc = pg_copyin_spill(b, err)))
		return rc;
	if (pg_copyin_reserve(b, 2 + (size_t)(2 + n) * 12))
		return bpt_error_set(err, -ENOMEM, "out of memory");
	pg_copyin_put16(b, (int16_t)(2 + n));
	pg_copyin_f32(b, (int32_t)s->id);
	pg_copyin_f64(b, (int64_t)s->idx);
	for (int i = 0; i < n; i++)
		pg_copyin_field(b, st_io_width[cols[i]], io->null[cols[i]], io->v[cols[i]]);
	b->rows++;
	return 0;
}

/* The new kind k's row of io_kinds. */
static int kind_row(struct pgi *s, int64_t kind, const struct io_kind_key *k)
{
	static const unsigned char width[IO_KIND_N] = { 4, 8, 2, 2, 8, 4, 8, 4, 2, 2, 8, 8, 8, 4, 8 };
	struct pg_copyin *b = &s->kind_rows;
	int64_t v[IO_KIND_N];
	unsigned char null[IO_KIND_N];

	if (pg_copyin_reserve(b, 2 + (2 + IO_KIND_N) * 12))
		return -ENOMEM;
	io_kind_values(k, s->cols, v, null);
	pg_copyin_put16(b, 2 + IO_KIND_N);
	pg_copyin_f32(b, (int32_t)s->id);
	pg_copyin_f32(b, (int32_t)kind);
	for (int i = 0; i < IO_KIND_N; i++)
		pg_copyin_field(b, width[i], null[i], v[i]);
	b->rows++;
	return 0;
}

static int fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

static int io(void *arg, const struct bpt_record *rec, struct bpt_error *err)
{
	static const int replay[] = { ST_C_SCHED, ST_C_SOURCE, ST_C_MEMBER };
	static const int files[] = { ST_C_INODE, ST_C_FILE_OFFSET };
	static const int files2[] = { ST_C_FILE2_DEV, ST_C_INODE2, ST_C_FILE2_OFFSET,
				      ST_C_FILE2_BYTES, ST_C_CAUSE2_PID, ST_C_CAUSE2_COMM,
				      ST_C_CAUSE2_CGROUP };
	struct pgi *s = arg;
	struct pg_copyin *b = &s->main;
	struct io_kind_key key;
	struct st_io v;
	int64_t kind, wait, service;
	int is_new, rc = 0, wide;

	if (s->idx > INT64_MAX - 1)
		return bpt_error_set(err, -EOVERFLOW, "too many I/Os");
	io_kind_key_of(&key, rec, s->cols);
	kind = io_kind_map_find(&s->kinds, &key, &is_new);
	if (kind < 0 || (is_new && kind_row(s, kind, &key)))
		return bpt_error_set(err, -ENOMEM, "out of memory");
	if (kind > INT32_MAX)
		return bpt_error_set(err, -EOVERFLOW, "more than 2^31 kinds of I/O in one trace");
	st_io_from_record(&v, rec, s->cols);
	wait = v.v[ST_C_ISSUE] - v.v[ST_C_QUEUE];
	service = v.v[ST_C_COMPLETE] - v.v[ST_C_ISSUE];
	wide = !fits32(wait) || !fits32(service);
	if (pg_copyin_reserve(b, 2 + 7 * 12))
		return bpt_error_set(err, -ENOMEM, "out of memory");
	pg_copyin_put16(b, 7);
	pg_copyin_f64(b, v.v[ST_C_ISSUE]);
	pg_copyin_f64(b, v.v[ST_C_SECTOR]);
	pg_copyin_f64(b, (int64_t)s->idx);
	pg_copyin_f32(b, (int32_t)s->id);
	pg_copyin_field(b, 4, wide, wait);
	pg_copyin_field(b, 4, wide, service);
	pg_copyin_f32(b, (int32_t)kind);
	if (wide) {
		struct st_io w = { .v = { wait, service } };
		static const int both[] = { 0, 1 };

		/* io_wide's columns are 8 bytes: widths of QUEUE and ISSUE */
		rc = side_row(s, S_WIDE, &w, both, 2, err);
	}
	if (!rc && !v.null[ST_C_SCHED] + !v.null[ST_C_SOURCE] + !v.null[ST_C_MEMBER])
		rc = side_row(s, S_REPLAY, &v, replay, 3, err);
	if (!rc && !v.null[ST_C_INODE])
		rc = side_row(s, S_FILES, &v, files, 2, err);
	if (!rc && !v.null[ST_C_FILE2_DEV])
		rc = side_row(s, S_FILES2, &v, files2, 7, err);
	s->idx++;
	if (rc)
		return rc;
	return b->len >= SEND_CHUNK ? send_main(s, err) : 0;
}

static int end_copy(struct pgi *s, const char *abort_msg, struct bpt_error *err)
{
	int rc = 0;

	if (!s->in_copy)
		return 0;
	s->in_copy = 0;
	if (!abort_msg && (rc = send_main(s, err)))
		abort_msg = "send failed";
	int crc = pg_copyin_end(s->c, abort_msg, err);
	return rc ? rc : crc;
}

/* io_kinds and the side tables' rows, after io_rows. */
static int copy_side(struct pgi *s, struct bpt_error *err)
{
	char table[64];
	int rc;

	if ((rc = pg_copyin_stream(s->c, "io_kinds", "trace_id, kind, " IO_KIND_COLS, 0, &s->kind_rows,
			      err)))
		return rc;
	for (int t = 0; t < S_N; t++) {
		if (!s->side[t].rows)
			continue;
		snprintf(table, sizeof(table), "%s_t%" PRId64, side_table[t].table, s->id);
		if (side_table[t].partitioned && (rc = make_part(s, side_table[t].table, err)))
			return rc;
		if ((rc = pg_copyin_stream(s->c, side_table[t].partitioned ? table : side_table[t].table,
				      side_table[t].cols, side_table[t].partitioned, &s->side[t], err)))
			return rc;
	}
	return 0;
}

/* The trace's new tables attached as its partitions. */
static int attach(struct pgi *s, struct bpt_error *err)
{
	char sql[256];
	int rc;

	snprintf(sql, sizeof(sql), "ALTER TABLE io_rows ATTACH PARTITION io_rows_t%" PRId64
		 " FOR VALUES IN (%" PRId64 ")", s->id, s->id);
	if ((rc = pg_exec(s->c, sql, err)))
		return rc;
	for (int t = 0; t < S_N; t++) {
		if (!s->side[t].rows || !side_table[t].partitioned)
			continue;
		snprintf(sql, sizeof(sql), "ALTER TABLE %s ATTACH PARTITION %s_t%" PRId64
			 " FOR VALUES IN (%" PRId64 ")", side_table[t].table, side_table[t].table,
			 s->id, s->id);
		if ((rc = pg_exec(s->c, sql, err)))
			return rc;
	}
	return 0;
}

static void pgi_free(struct pgi *s)
{
	free(s->main.buf);
	free(s->kind_rows.buf);
	for (int t = 0; t < S_N; t++) {
		free(s->side[t].buf);
		if (s->side[t].spill)
			fclose(s->side[t].spill);
	}
	io_kind_map_free(&s->kinds);
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
	char ids[3][24];
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
	if ((rc = copy_side(s, err)) || (rc = attach(s, err)))
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
	pgi_free(&s);
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
	pgi_free(&s);
	return rc;
}
