/*
 * stats_load.c — a report's rows from the database (stats_int.h): the
 * trace's row in `traces`, its I/O rows in file order (idx), its process
 * and device names.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "stats_int.h"

/* Column i as text, "" for NULL. */
static const char *text_or(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? (const char *)t : "";
}

/* A trace with file or cause columns whose kinds have none: imported
 * before schema 8 (the migration keeps those I/Os, without them). */
static int files_lost(struct st_source *src, struct st_report *rep, struct bpt_error *err)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(src->db, "SELECT count(*) FROM io_kinds WHERE trace_id = ?"
			       " AND file_class IS NULL AND cause_pid IS NULL", -1, &st,
			       NULL) != SQLITE_OK)
		return adb_fail(src->db, err, "cannot read the kinds of I/O");
	sqlite3_bind_int64(st, 1, src->id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		rep->files_lost = (src->columns & BPT_COL_FILE) ? sqlite3_column_int64(st, 0) > 0
								: 0;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : adb_fail(src->db, err, "cannot read the kinds of I/O");
}

static int db_trace_row(struct st_source *src, struct st_report *rep, uint64_t *n,
			struct bpt_error *err)
{
	sqlite3 *db = src->db;
	int64_t id = src->id;
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT t.path, t.kind, t.digest, t.ios, r.trace_id IS NOT NULL,"
			       " r.source_trace_id, r.source_digest, r.target, r.timing, t.lost_events,"
			        " t.loss_windows, t.truncated, t.columns, t.label,"
			       " CASE WHEN json_valid(t.meta) THEN json_extract(t.meta, '$.transform')"
			       " END FROM traces t"
			       " LEFT JOIN runs r ON r.trace_id = t.id WHERE t.id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return adb_fail(db, err, "cannot read the trace");
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return adb_fail(db, err, "cannot read the trace");
		return bpt_error_set(err, -ENOENT, "no trace with id %lld in the database", (long long)id);
	}
	snprintf(rep->path, sizeof(rep->path), "%s", text_or(st, 0));
	snprintf(rep->kind, sizeof(rep->kind), "%s", text_or(st, 1));
	snprintf(rep->digest, sizeof(rep->digest), "%s", text_or(st, 2));
	*n = (uint64_t)sqlite3_column_int64(st, 3);
	rep->is_run = sqlite3_column_int(st, 4);
	rep->source_id = sqlite3_column_int64(st, 5);
	snprintf(rep->source_digest, sizeof(rep->source_digest), "%s", text_or(st, 6));
	snprintf(rep->target, sizeof(rep->target), "%s", text_or(st, 7));
	snprintf(rep->timing, sizeof(rep->timing), "%s", text_or(st, 8));
	rep->lost_events = (uint64_t)sqlite3_column_int64(st, 9);
	rep->loss_windows = (uint64_t)sqlite3_column_int64(st, 10);
	rep->truncated = sqlite3_column_int(st, 11);
	src->columns = (uint32_t)sqlite3_column_int64(st, 12);
	src->has_sched = !!(src->columns & BPT_COL_SCHED);
	snprintf(rep->label, sizeof(rep->label), "%s", text_or(st, 13));
	snprintf(rep->transform, sizeof(rep->transform), "%s", text_or(st, 14));
	sqlite3_finalize(st);
	/* a PostgreSQL store's rows in memory, else in the tables */
	if ((rc = adb_remote_ios(db, id, *n, &src->remote, err)) ||
	    (!src->remote && (rc = adb_need_ios(db, id, err))))
		return rc;
	if (src->remote)
		rep->files_lost = (src->columns & BPT_COL_FILE) && src->remote->files_lost;
	else if ((src->columns & (BPT_COL_FILE | BPT_COL_CAUSE)) && (rc = files_lost(src, rep, err)))
		return rc;
	if ((rc = run_verify_load(db, id, &rep->verify, err)))
		return rc;
	return run_partial_load(db, id, &rep->partial, err);
}

/*
 * A pass reads the trace's tables, not the view `ios`: io_rows in rowid
 * order, the marks of its blocks in step (the next mark when a row's
 * block passes the current one), its kinds from an array loaded once.
 * The view does the same per row with two B-tree lookups and an index
 * search more; reading it took more than twice the CPU (bench/RESULTS.md,
 * "Analyze import, schema 6"). Every field is what the view gives.
 */
struct kind_row {
	uint32_t bytes, pid, comm, file_dev, file_bytes;
	uint16_t dev;
	uint8_t op, completion, known, file_class;
	int error;
};

struct db_scan {
	const struct adb_ios *rem; /* the rows in memory (src->remote) */
	uint64_t pos;              /* rem: the next row */
	size_t wide, file2;        /* rem: the next of each */
	sqlite3_stmt *rows, *marks;
	struct kind_row *kinds;
	size_t nkinds;
	int64_t base, blk, mark; /* blk: of the current mark, -1 before the first */
};

static void db_scan_end(struct st_source *src)
{
	struct db_scan *sc = src->scan;

	if (!sc)
		return;
	sqlite3_finalize(sc->rows);
	sqlite3_finalize(sc->marks);
	free(sc->kinds);
	free(sc);
	src->scan = NULL;
}

/* Kind v[0] (the columns of ADB_KIND_SQL); the first one seen is the
 * largest (the kinds come in descending order). */
static int set_kind(struct st_source *src, struct db_scan *sc, const int64_t *v,
		    struct bpt_error *err)
{
	int64_t k = v[0];
	unsigned op = (unsigned)v[3];

	if (k < 0 || k >= (1 << 24) || (sc->kinds && (size_t)k >= sc->nkinds))
		return bpt_error_set(err, -EIO, "%s: kind %lld out of range", src->name, (long long)k);
	if (!sc->kinds) {
		sc->nkinds = (size_t)k + 1;
		if (!(sc->kinds = calloc(sc->nkinds, sizeof(*sc->kinds))))
			return bpt_error_set(err, -ENOMEM, "%s: out of memory", src->name);
	}
	sc->kinds[k] = (struct kind_row){
		.dev = (uint16_t)v[1],
		.bytes = (uint32_t)v[2],
		.op = (uint8_t)(op < BPT_OP__COUNT ? op : BPT_OP__COUNT - 1),
		.pid = (uint32_t)v[4],
		.comm = (uint32_t)v[5],
		.error = (int)v[6],
		.completion = (uint8_t)v[7],
		.file_class = (uint8_t)v[8],
		.file_dev = (uint32_t)v[9],
		.file_bytes = (uint32_t)v[10],
		.known = 1,
	};
	return 0;
}

static int load_kinds(struct st_source *src, struct db_scan *sc, struct bpt_error *err)
{
	int64_t v[ADB_KIND_VALS];
	sqlite3_stmt *st;
	int rc = 0, step;

	if (sc->rem) {
		for (size_t i = 0; i < sc->rem->nkinds && !rc; i++)
			rc = set_kind(src, sc, sc->rem->kinds[i], err);
		return rc;
	}
	/* "By program" credits the task that caused the I/O where the trace
	 * knows it (cause_pid, version 8), as a report of the file does;
	 * ADB_KIND_SQL's $1 is SQLite's ?1 */
	if (sqlite3_prepare_v2(src->db, ADB_KIND_SQL, -1, &st, NULL) != SQLITE_OK)
		return adb_fail(src->db, err, "cannot read the kinds of I/O");
	sqlite3_bind_int64(st, 1, src->id);
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		for (int i = 0; i < ADB_KIND_VALS; i++)
			v[i] = sqlite3_column_int64(st, i);
		rc = set_kind(src, sc, v, err);
	}
	sqlite3_finalize(st);
	if (rc)
		return rc;
	return step == SQLITE_DONE ? 0 : adb_fail(src->db, err, "cannot read the kinds of I/O");
}

/* The pass's state into src->scan (freed by db_scan_end, also after a
 * failure here). */
static int db_scan_open(struct st_source *src, struct bpt_error *err)
{
	/* sched_ns and the files only for traces that have them (a lookup
	 * per row each) */
	int files = !!(src->columns & BPT_COL_FILE);
	int replay = src->has_sched || (src->columns & BPT_COL_SOURCE);
	char sql[600];
	struct db_scan *sc = calloc(1, sizeof(*sc));
	sqlite3_stmt *st = NULL;
	int64_t ios = 0;
	int rc;

	if (!sc)
		return bpt_error_set(err, -ENOMEM, "%s: out of memory", src->name);
	src->scan = sc;
	sc->blk = -1;
	if ((sc->rem = src->remote))
		return load_kinds(src, sc, err);
	if (sqlite3_prepare_v2(src->db, "SELECT io_base, ios FROM traces WHERE id = ?", -1, &st,
			       NULL) != SQLITE_OK)
		return adb_fail(src->db, err, "cannot read the trace");
	sqlite3_bind_int64(st, 1, src->id);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		sc->base = sqlite3_column_int64(st, 0);
		ios = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return adb_fail(src->db, err, "cannot read the trace");
	if ((rc = load_kinds(src, sc, err)))
		return rc;
	snprintf(sql, sizeof(sql), "SELECT r.rowid, r.issue_delta, r.wait_ns, r.service_ns,"
		 " r.sector, r.kind, %s, %s FROM io_rows r%s%s"
		 " WHERE r.rowid >= ?1 AND r.rowid < ?2 ORDER BY r.rowid",
		 replay ? "x.sched_ns, x.source_index" : "NULL, NULL",
		 files ? "f.inode, g.file2_dev, g.inode2, g.file2_bytes" : "NULL, NULL, NULL, NULL",
		 replay ? " LEFT JOIN io_replay x ON x.io = r.rowid" : "",
		 files ? " LEFT JOIN io_files f ON f.io = r.rowid"
			 " LEFT JOIN io_files2 g ON g.io = r.rowid" : "");
	if (sqlite3_prepare_v2(src->db, sql, -1, &sc->rows, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(src->db, "SELECT blk, issue_ns FROM io_marks WHERE blk >= ?1"
			       " ORDER BY blk", -1, &sc->marks, NULL) != SQLITE_OK)
		return adb_fail(src->db, err, "cannot read the trace");
	sqlite3_bind_int64(sc->rows, 1, sc->base);
	sqlite3_bind_int64(sc->rows, 2, sc->base + ios);
	sqlite3_bind_int64(sc->marks, 1, sc->base >> 6);
	return 0;
}

static int db_scan_begin(struct st_source *src, struct bpt_error *err)
{
	int rc = db_scan_open(src, err);

	if (rc)
		db_scan_end(src);
	return rc;
}

/* The mark of block blk: the marks statement stepped up to it. */
static int mark_of(struct st_source *src, struct db_scan *sc, int64_t blk, struct bpt_error *err)
{
	int rc;

	while (sc->blk < blk) {
		if ((rc = sqlite3_step(sc->marks)) != SQLITE_ROW) {
			if (rc == SQLITE_DONE)
				break;
			return adb_fail(src->db, err, "cannot read the trace");
		}
		sc->blk = sqlite3_column_int64(sc->marks, 0);
		sc->mark = sqlite3_column_int64(sc->marks, 1);
	}
	if (sc->blk != blk)
		return bpt_error_set(err, -EIO, "%s: the block of I/O rowid %lld has no mark"
			       " (io_marks)", src->name, (long long)blk << 6);
	return 0;
}

/* The fields of row r that its kind k holds. */
static void kind_into(struct st_row *r, const struct kind_row *k)
{
	r->dev = k->dev;
	r->bytes = k->bytes;
	r->op = k->op;
	r->pid = k->pid;
	r->comm = k->comm;
	r->error = k->error;
	r->completion = k->completion;
	r->file_class = k->file_class;
	r->file_dev = k->file_dev;
	r->file_bytes = k->file_bytes;
}

/* db_scan_fill from the rows in memory (struct adb_ios). */
static long mem_fill(struct st_source *src, struct db_scan *sc, struct st_row *rows, size_t max,
		     struct bpt_error *err)
{
	const struct adb_ios *m = sc->rem;
	size_t n = 0;

	for (; n < max && sc->pos < m->n; sc->pos++) {
		const struct adb_io *io = &m->rows[sc->pos];
		uint64_t i = sc->pos;
		int64_t wait = io->wait, service = io->service;
		const struct kind_row *k;

		if (io->kind >= sc->nkinds || !sc->kinds[io->kind].known)
			return bpt_error_set(err, -EIO, "%s: I/O %llu: kind %u is not in io_kinds",
					     src->name, (unsigned long long)i, io->kind);
		if (io->flags & ADB_IO_WIDE) {
			while (sc->wide < m->nwide && m->wide[sc->wide].idx < (int64_t)i)
				sc->wide++;
			if (sc->wide == m->nwide || m->wide[sc->wide].idx != (int64_t)i)
				return bpt_error_set(err, -EIO, "%s: I/O %llu has no times (io_wide)",
						     src->name, (unsigned long long)i);
			wait = m->wide[sc->wide].wait;
			service = m->wide[sc->wide].service;
		}
		while (sc->file2 < m->nfile2 && m->file2[sc->file2].idx < (int64_t)i)
			sc->file2++;
		const struct adb_io_file2 *f2 = sc->file2 < m->nfile2 &&
			m->file2[sc->file2].idx == (int64_t)i ? &m->file2[sc->file2] : NULL;
		k = &sc->kinds[io->kind];
		rows[n++] = (struct st_row){
			.idx = i,
			.queue = (uint64_t)(io->issue - wait),
			.issue = (uint64_t)io->issue,
			.complete = (uint64_t)(io->issue + service),
			.sector = (uint64_t)io->sector,
			.sched = m->sched ? (uint64_t)m->sched[i] : 0,
			.has_sched = !!(io->flags & ADB_IO_SCHED),
			.source_index = m->source ? (uint64_t)m->source[i] : 0,
			.inode = m->inode ? (uint64_t)m->inode[i] : 0,
			.file2_dev = f2 ? (uint32_t)f2->dev : 0,
			.inode2 = f2 ? (uint64_t)f2->inode : 0,
			.file2_bytes = f2 ? (uint32_t)f2->bytes : 0,
		};
		kind_into(&rows[n - 1], k);
	}
	return (long)n;
}

static long db_scan_fill(struct st_source *src, struct st_row *rows, size_t max,
			 struct bpt_error *err)
{
	struct db_scan *sc = src->scan;
	sqlite3_stmt *st = sc->rows;
	size_t n = 0;
	int rc = SQLITE_ROW;

	if (sc->rem)
		return mem_fill(src, sc, rows, max, err);
	while (n < max && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t rowid = sqlite3_column_int64(st, 0);
		int64_t kind = sqlite3_column_int64(st, 5);
		int64_t issue;
		const struct kind_row *k;
		int mrc;

		if ((rowid >> 6) != sc->blk && (mrc = mark_of(src, sc, rowid >> 6, err)))
			return mrc;
		if (kind < 0 || (uint64_t)kind >= sc->nkinds || !sc->kinds[kind].known)
			return bpt_error_set(err, -EIO, "%s: I/O rowid %lld: kind %lld is not in"
				       " io_kinds", src->name, (long long)rowid, (long long)kind);
		k = &sc->kinds[kind];
		issue = sc->mark + sqlite3_column_int64(st, 1);
		rows[n++] = (struct st_row){
			.idx = (uint64_t)(rowid - sc->base),
			.queue = (uint64_t)(issue - sqlite3_column_int64(st, 2)),
			.issue = (uint64_t)issue,
			.complete = (uint64_t)(issue + sqlite3_column_int64(st, 3)),
			.sector = (uint64_t)sqlite3_column_int64(st, 4),
			.sched = (uint64_t)sqlite3_column_int64(st, 6),
			.has_sched = sqlite3_column_type(st, 6) == SQLITE_INTEGER,
			.source_index = (uint64_t)sqlite3_column_int64(st, 7),
			.inode = (uint64_t)sqlite3_column_int64(st, 8),
			.file2_dev = (uint32_t)sqlite3_column_int64(st, 9),
			.inode2 = (uint64_t)sqlite3_column_int64(st, 10),
			.file2_bytes = (uint32_t)sqlite3_column_int64(st, 11),
		};
		kind_into(&rows[n - 1], k);
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return adb_fail(src->db, err, "cannot read the trace");
	return (long)n;
}

static int db_path_name(struct st_source *src, uint32_t dev, uint64_t inode, char *buf,
			size_t len)
{
	sqlite3_stmt *st;
	int found = 0;

	if (sqlite3_prepare_v2(src->db, "SELECT path FROM paths WHERE trace_id = ? AND file_dev = ?"
			       " AND inode = ? ORDER BY seq LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, src->id);
	sqlite3_bind_int64(st, 2, dev);
	sqlite3_bind_int64(st, 3, (int64_t)inode);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
		snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 0));
		found = 1;
	}
	sqlite3_finalize(st);
	return found;
}

static int db_paths_each(struct st_source *src,
			 int (*fn)(void *ctx, uint32_t dev, uint64_t inode, const char *path),
			 void *ctx, struct bpt_error *err)
{
	sqlite3_stmt *st;
	int rc = 0, src_rc;

	if (sqlite3_prepare_v2(src->db, "SELECT file_dev, inode, path FROM paths WHERE trace_id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return adb_fail(src->db, err, "cannot read the paths");
	sqlite3_bind_int64(st, 1, src->id);
	while (!rc && (src_rc = sqlite3_step(st)) == SQLITE_ROW)
		rc = fn(ctx, (uint32_t)sqlite3_column_int64(st, 0),
			(uint64_t)sqlite3_column_int64(st, 1), (const char *)sqlite3_column_text(st, 2));
	if (!rc && src_rc != SQLITE_DONE)
		rc = adb_fail(src->db, err, "cannot read the paths");
	sqlite3_finalize(st);
	return rc;
}

static void db_comm_name(struct st_source *src, uint32_t comm, char *buf, size_t len)
{
	const unsigned char *s = NULL;
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(src->db, "SELECT comm FROM processes WHERE trace_id = ? AND comm_id = ?",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, src->id);
		sqlite3_bind_int64(st, 2, comm);
		s = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_text(st, 0) : NULL;
	}
	snprintf(buf, len, "%s", s ? (const char *)s : "?");
	sqlite3_finalize(st);
}

static int db_device_names(struct st_source *src, struct st_report *rep, struct bpt_error *err)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(src->db, "SELECT idx, name FROM devices WHERE trace_id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return adb_fail(src->db, err, "cannot read the devices");
	sqlite3_bind_int64(st, 1, src->id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t k = sqlite3_column_int64(st, 0);

		if (k >= 0 && k < rep->ndev) /* those with I/O */
			snprintf(rep->dev[k].name, sizeof(rep->dev[k].name), "%s",
				 (const char *)sqlite3_column_text(st, 1));
	}
	sqlite3_finalize(st);
	return 0;
}

static void db_bind_from(struct st_source *src, sqlite3_stmt *st)
{
	sqlite3_bind_int64(st, 1, src->id);
}

static const struct st_source_ops db_ops = {
	.trace_row = db_trace_row,
	.scan_begin = db_scan_begin,
	.scan_fill = db_scan_fill,
	.scan_end = db_scan_end,
	.comm_name = db_comm_name,
	.path_name = db_path_name,
	.paths_each = db_paths_each,
	.device_names = db_device_names,
	.bind_from = db_bind_from,
};

void st_source_db(struct st_source *s, sqlite3 *db, int64_t id)
{
	memset(s, 0, sizeof(*s));
	s->ops = &db_ops;
	s->db = db;
	s->id = id;
	s->from = "(SELECT * FROM ios WHERE trace_id = ?1)";
	snprintf(s->name, sizeof(s->name), "trace %lld", (long long)id);
}
