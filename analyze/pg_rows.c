/*
 * pg_rows.c — a trace's I/Os from the PostgreSQL store into memory for a
 * report (db.h, struct adb_ios).
 *
 * The report reads a trace's rows three or more times (its passes); a
 * COPY per pass would read the partition each time, and copying the rows
 * into the working copy's SQLite tables (what export, plot and html do,
 * adb_need_ios) costs an import. So the stored columns come once, each
 * table by its own COPY (binary) with no join and no sort: the rows land
 * at their idx, checked to be every idx of the trace exactly once.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg.h"
#include "pg_copyout.h"
#include "pg_rows.h"

/* COPY (sql) TO STDOUT (FORMAT binary): each row's n fields to fn. */
static int copy_each(PGconn *c, const char *sql, const char *what, int n,
		     const unsigned char *width,
		     int (*fn)(void *arg, const int64_t *v, const unsigned char *null,
			       struct bpt_error *err),
		     void *arg, struct bpt_error *err)
{
	char q[768];
	struct pg_copyout r;
	int64_t v[8];
	unsigned char null[8];
	PGresult *res;
	int rc;

	snprintf(q, sizeof(q), "COPY (%s) TO STDOUT (FORMAT binary)", sql);
	res = PQexec(c, q);
	if (PQresultStatus(res) != PGRES_COPY_OUT) {
		rc = pg_fail(c, res, err, "cannot read the I/Os");
		PQclear(res);
		return rc;
	}
	PQclear(res);
	pg_copyout_init(&r, c, what);
	while ((rc = pg_copyout_row(&r, n, width, v, null, err)) == 1)
		if ((rc = fn(arg, v, null, err)))
			break;
	return pg_copyout_end(&r, rc, err);
}

struct fill {
	struct adb_ios *ios;
	const char *what;
	uint64_t seen;
};

static int bad_idx(struct fill *f, int64_t idx, const char *table, struct bpt_error *err)
{
	return bpt_error_set(err, -EIO, "%s: %s has idx %" PRId64 ", not an I/O of the trace"
			     " (0..%" PRIu64 ") or twice", f->what, table, idx, f->ios->n);
}

static int64_t clamp32(int64_t v)
{
	return v < INT32_MIN || v > INT32_MAX ? 0 : v;
}

/* idx, issue_ns, sector, wait_ns, service_ns, kind */
static int on_row(void *arg, const int64_t *v, const unsigned char *null, struct bpt_error *err)
{
	struct fill *f = arg;
	int64_t idx = v[0];
	struct adb_io *io;

	if (null[0] || idx < 0 || (uint64_t)idx >= f->ios->n || f->ios->rows[idx].flags & 0x80)
		return bad_idx(f, idx, "io_rows", err);
	io = &f->ios->rows[idx];
	io->issue = v[1];
	io->sector = v[2];
	io->wait = (int32_t)clamp32(v[3]);
	io->service = (int32_t)clamp32(v[4]);
	io->kind = (uint32_t)v[5];
	io->flags = (uint8_t)(0x80 | (null[3] || null[4] ? ADB_IO_WIDE : 0));
	f->seen++;
	return 0;
}

/* idx, sched_ns, source_index */
static int on_replay(void *arg, const int64_t *v, const unsigned char *null,
		     struct bpt_error *err)
{
	struct fill *f = arg;
	int64_t idx = v[0];

	if (null[0] || idx < 0 || (uint64_t)idx >= f->ios->n)
		return bad_idx(f, idx, "io_replay", err);
	f->ios->sched[idx] = v[1];
	f->ios->source[idx] = v[2];
	if (!null[1])
		f->ios->rows[idx].flags |= ADB_IO_SCHED;
	return 0;
}

/* idx, inode */
static int on_file(void *arg, const int64_t *v, const unsigned char *null, struct bpt_error *err)
{
	struct fill *f = arg;

	if (null[0] || v[0] < 0 || (uint64_t)v[0] >= f->ios->n)
		return bad_idx(f, v[0], "io_files", err);
	f->ios->inode[v[0]] = v[1];
	return 0;
}

/* A small table's rows (text), in idx order. */
static PGresult *small(PGconn *c, const char *sql, int64_t id, struct bpt_error *err)
{
	char ids[24];
	const char *p[1] = { ids };
	PGresult *r;

	snprintf(ids, sizeof(ids), "%" PRId64, id);
	r = PQexecParams(c, sql, 1, NULL, p, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		pg_fail(c, r, err, "cannot read the I/Os");
		PQclear(r);
		return NULL;
	}
	return r;
}

static int64_t cell(const PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? 0 : strtoll(PQgetvalue(r, row, col), NULL, 10);
}

/* The rows of a small query (text) as `cols` int64 each, into a new
 * array *out of *n rows (NULL for none): 0, -EIO or -ENOMEM. The
 * structs of db.h it fills are int64 fields only (checked below). */
static int table_of(PGconn *c, const char *sql, int64_t id, int cols, void **out, size_t *n,
		    struct bpt_error *err)
{
	PGresult *r = small(c, sql, id, err);
	int64_t *v = NULL;
	int rows;

	*out = NULL;
	*n = 0;
	if (!r)
		return -EIO;
	if (PQnfields(r) != cols) {
		PQclear(r);
		return bpt_error_set(err, -EIO, "trace %" PRId64 ": %d columns, expected %d", id,
				     PQnfields(r), cols);
	}
	rows = PQntuples(r);
	if (rows && !(v = calloc((size_t)rows * (size_t)cols, sizeof(*v)))) {
		PQclear(r);
		return -ENOMEM;
	}
	for (int i = 0; i < rows; i++)
		for (int j = 0; j < cols; j++)
			v[(size_t)i * (size_t)cols + (size_t)j] = cell(r, i, j);
	PQclear(r);
	*out = v;
	*n = (size_t)rows;
	return 0;
}

_Static_assert(sizeof(struct adb_io_wide) == 3 * sizeof(int64_t), "int64 fields only");
_Static_assert(sizeof(struct adb_io_file2) == 4 * sizeof(int64_t), "int64 fields only");

/* io_kinds, io_wide, io_files2 of the trace; whether it has replay or
 * file rows. */
static int load_small(PGconn *c, struct adb_ios *ios, int *replay, int *files,
		      struct bpt_error *err)
{
	void *kinds, *wide, *file2;
	int64_t *facts;
	size_t one;
	int rc;

	if ((rc = table_of(c, ADB_KIND_SQL, ios->id, ADB_KIND_VALS, &kinds, &ios->nkinds, err)))
		return rc;
	ios->kinds = kinds;
	if ((rc = table_of(c, "SELECT idx, wait_ns, service_ns FROM io_wide WHERE trace_id = $1"
			   " ORDER BY idx", ios->id, 3, &wide, &ios->nwide, err)))
		return rc;
	ios->wide = wide;
	if ((rc = table_of(c, "SELECT idx, file2_dev, inode2, file2_bytes FROM io_files2"
			   " WHERE trace_id = $1 ORDER BY idx", ios->id, 4, &file2, &ios->nfile2,
			   err)))
		return rc;
	ios->file2 = file2;
	if ((rc = table_of(c, "SELECT count(*) FILTER (WHERE file_class IS NULL AND cause_pid IS NULL),"
			   " (SELECT count(*) > 0 FROM io_replay WHERE trace_id = $1)::int,"
			   " (SELECT count(*) > 0 FROM io_files WHERE trace_id = $1)::int"
			   " FROM io_kinds WHERE trace_id = $1", ios->id, 3, (void **)&facts, &one,
			   err)))
		return rc;
	ios->files_lost = facts[0] > 0;
	*replay = (int)facts[1];
	*files = (int)facts[2];
	free(facts);
	return 0;
}

int pg_rows_fetch(PGconn *c, int64_t id, uint64_t n, struct adb_ios *ios, struct bpt_error *err)
{
	static const unsigned char w_rows[] = { 8, 8, 8, 4, 4, 4 }, w_replay[] = { 8, 8, 8 },
				   w_file[] = { 8, 8 };
	char what[48], sql[256];
	struct fill f = { ios, what, 0 };
	int replay = 0, files = 0, rc;

	memset(ios, 0, sizeof(*ios));
	ios->id = id;
	ios->n = n;
	snprintf(what, sizeof(what), "trace %" PRId64, id);
	if (n > SIZE_MAX / sizeof(*ios->rows))
		return bpt_error_set(err, -ENOMEM, "%s: out of memory", what);
	if ((rc = load_small(c, ios, &replay, &files, err)))
		goto fail;
	rc = -ENOMEM;
	if ((n && !(ios->rows = calloc(n, sizeof(*ios->rows)))) ||
	    (replay && n && (!(ios->sched = calloc(n, sizeof(int64_t))) ||
			     !(ios->source = calloc(n, sizeof(int64_t))))) ||
	    (files && n && !(ios->inode = calloc(n, sizeof(int64_t)))))
		goto fail;
	snprintf(sql, sizeof(sql), "SELECT idx, issue_ns, sector, wait_ns, service_ns, kind"
		 " FROM io_rows WHERE trace_id = %" PRId64, id);
	if ((rc = copy_each(c, sql, what, 6, w_rows, on_row, &f, err)))
		goto fail;
	if (f.seen != n) {
		rc = bpt_error_set(err, -EIO, "%s: %" PRIu64 " rows in io_rows, the trace has %"
				   PRIu64 " I/Os", what, f.seen, n);
		goto fail;
	}
	snprintf(sql, sizeof(sql), "SELECT idx, sched_ns, source_index FROM io_replay"
		 " WHERE trace_id = %" PRId64, id);
	if (replay && (rc = copy_each(c, sql, what, 3, w_replay, on_replay, &f, err)))
		goto fail;
	snprintf(sql, sizeof(sql), "SELECT idx, inode FROM io_files WHERE trace_id = %" PRId64, id);
	if (files && (rc = copy_each(c, sql, what, 2, w_file, on_file, &f, err)))
		goto fail;
	for (uint64_t i = 0; i < n; i++)
		ios->rows[i].flags &= 0x7f;
	return 0;
fail:
	pg_rows_free(ios);
	return rc == -ENOMEM ? bpt_error_set(err, -ENOMEM, "%s: out of memory", what) : rc;
}

void pg_rows_free(struct adb_ios *ios)
{
	free(ios->rows);
	free(ios->sched);
	free(ios->source);
	free(ios->inode);
	free(ios->wide);
	free(ios->file2);
	free(ios->kinds);
	memset(ios, 0, sizeof(*ios));
}
