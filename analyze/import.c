/*
 * import.c — one .bpt file into the analysis database, in one transaction.
 *
 * Speed is the point (the target and what it reaches: bench/RESULTS.md,
 * "Analyze import, schema 5"): the I/O rows go 128 at a time through one
 * prepared multi-row INSERT into io_rows (schemas/analyze-db.md, "How the
 * I/Os are stored"), whose rowids SQLite assigns by appending at the
 * right edge of the B-tree; what repeats goes to io_kinds once, and
 * each block of 64 rowids gets its mark in io_marks (the issue times are
 * stored as deltas from it). Every INSERT names its columns. Everything that can be
 * checked before writing (the file opens, its header, a missing footer,
 * the digest already present) is checked before BEGIN; a corrupt block
 * found while reading rolls back.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "import.h"
#include "io_kind.h"
#include "jsonout.h"
#include "run_partial.h"

#define PROGRESS_EVERY 65536

char *import_digest_hex(uint64_t digest, char buf[17])
{
	snprintf(buf, 17, "%016" PRIx64, digest);
	return buf;
}

/* Header meta as a JSON object, malloc'ed; NULL when out of memory. */
static char *meta_json(const struct bpt_header *h)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct jw w;

	if (!f)
		return NULL;
	jw_init(&w, f, 0);
	jw_obj(&w);
	for (uint32_t i = 0; i < h->nmeta && i < BPT_MAX_META; i++)
		jw_kstr(&w, h->meta[i].key, h->meta[i].value);
	jw_obj_end(&w);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

void import_normalise_digest(const char *in, char out[17])
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(in, &end, 16);
	if (*in && !*end && !errno) {
		import_digest_hex(v, out);
		return;
	}
	snprintf(out, 17, "%s", in);
}

/* Bind helpers: text that is "" becomes NULL. */
static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s && *s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static int step_done(sqlite3 *db, sqlite3_stmt *st, struct bpt_error *err,
		     const char *what)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return adb_fail(db, err, what);
	return 0;
}

/* The existing trace with this digest: 1 and *id / *ios, 0 if none. */
static int find_digest(sqlite3 *db, const char *hex, int64_t *id, uint64_t *ios,
		       struct bpt_error *err)
{
	sqlite3_stmt *st;
	int rc, found = 0;

	if (sqlite3_prepare_v2(db, "SELECT id, ios FROM traces WHERE digest = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return adb_fail(db, err, "cannot look up the digest");
	sqlite3_bind_text(st, 1, hex, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		*ios = (uint64_t)sqlite3_column_int64(st, 1);
		found = 1;
	} else if (rc != SQLITE_DONE) {
		found = adb_fail(db, err, "cannot look up the digest");
	}
	sqlite3_finalize(st);
	return found;
}

static int insert_trace(sqlite3 *db, const char *path, const char *hex,
			const struct bpt_header *h, const struct bpt_stats *stats,
			int64_t *id, struct bpt_error *err)
{
	static const char sql[] =
		"INSERT INTO traces (digest, path, kind, format_version, tool_version,"
		" host, kernel, start_wall_ns, columns, ios, bytes, file_bytes, meta,"
		" imported_at, label) VALUES (?,?,?,?,?,?,?,?,?,0,0,?,?,?,?)";
	char ver[16], now[32], *real = realpath(path, NULL), *meta = meta_json(h);
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		free(real);
		free(meta);
		return adb_fail(db, err, "cannot prepare the trace insert");
	}
	snprintf(ver, sizeof(ver), "%u.%u", h->version_major, h->version_minor);
	sqlite3_bind_text(st, 1, hex, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, real ? real : path, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, h->kind[0] ? h->kind : "unknown", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, ver, -1, SQLITE_STATIC);
	bind_text(st, 5, h->tool_version);
	bind_text(st, 6, h->host);
	bind_text(st, 7, h->kernel);
	sqlite3_bind_int64(st, 8, h->start_wall_ns);
	sqlite3_bind_int64(st, 9, h->columns);
	sqlite3_bind_int64(st, 10, (int64_t)stats->file_bytes);
	bind_text(st, 11, meta);
	sqlite3_bind_text(st, 12, adb_utc_now(now, sizeof(now)), -1, SQLITE_STATIC);
	bind_text(st, 13, bpt_header_get_meta(h, BPT_META_LABEL));
	rc = step_done(db, st, err, "cannot insert the trace");
	sqlite3_finalize(st);
	free(real);
	free(meta);
	*id = sqlite3_last_insert_rowid(db);
	return rc;
}

static int insert_devices(sqlite3 *db, int64_t id, const struct bpt_header *h,
			  struct bpt_error *err)
{
	sqlite3_stmt *st;
	int rc = 0;

	static const char sql[] =
		"INSERT INTO devices (trace_id, idx, name, major, minor, size_bytes,"
		" logical_block_size, physical_block_size, rotational, model)"
		" VALUES (?,?,?,?,?,?,?,?,?,?)";

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return adb_fail(db, err, "cannot prepare the device insert");
	for (uint32_t i = 0; i < h->ndevices && i < BPT_MAX_DEVICES && !rc; i++) {
		const struct bpt_device *d = &h->devices[i];
		char name[sizeof(d->name) + 1], model[sizeof(d->model) + 1];

		/* The fixed arrays need not be terminated when full. */
		snprintf(name, sizeof(name), "%.*s", (int)sizeof(d->name), d->name);
		snprintf(model, sizeof(model), "%.*s", (int)sizeof(d->model), d->model);
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, i);
		sqlite3_bind_text(st, 3, name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 4, d->major);
		sqlite3_bind_int64(st, 5, d->minor);
		sqlite3_bind_int64(st, 6, (int64_t)d->size_bytes);
		sqlite3_bind_int64(st, 7, d->logical_block_size);
		sqlite3_bind_int64(st, 8, d->physical_block_size);
		sqlite3_bind_int64(st, 9, d->rotational);
		bind_text(st, 10, model);
		rc = step_done(db, st, err, "cannot insert a device");
	}
	sqlite3_finalize(st);
	return rc;
}

/* A replay run: its row in `runs`, linked to its source when present. */
static int insert_run(sqlite3 *db, int64_t id, const struct bpt_header *h,
		      struct bpt_error *err)
{
	static const char sql[] =
		"INSERT INTO runs (trace_id, source_digest, source_trace_id, source_path,"
		" target, timing, speed, queue_depth, engine, host, kernel, ios_total, partial,"
		" stop_reason)"
		" VALUES (?1, ?2, (SELECT id FROM traces WHERE digest = ?2), ?3, ?4, ?5,"
		" ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)";
	const char *src = bpt_header_get_meta(h, BPT_META_SOURCE_DIGEST);
	const char *total = bpt_header_get_meta(h, BPT_META_RUN_IOS);
	const char *v, *why;
	char hex[17] = "";
	sqlite3_stmt *st;
	int rc;

	if (!run_header_is_run(h))
		return 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return adb_fail(db, err, "cannot prepare the run insert");
	if (src)
		import_normalise_digest(src, hex);
	sqlite3_bind_int64(st, 1, id);
	bind_text(st, 2, hex);
	bind_text(st, 3, bpt_header_get_meta(h, BPT_META_SOURCE));
	bind_text(st, 4, bpt_header_get_meta(h, BPT_META_TARGET));
	bind_text(st, 5, bpt_header_get_meta(h, BPT_META_TIMING));
	if ((v = bpt_header_get_meta(h, BPT_META_SPEED)) && *v)
		sqlite3_bind_double(st, 6, strtod(v, NULL));
	if ((v = bpt_header_get_meta(h, BPT_META_QUEUE_DEPTH)) && *v)
		sqlite3_bind_int64(st, 7, strtoll(v, NULL, 10));
	bind_text(st, 8, bpt_header_get_meta(h, BPT_META_ENGINE));
	bind_text(st, 9, h->host);
	bind_text(st, 10, h->kernel);
	if (total && *total)
		sqlite3_bind_int64(st, 11, strtoll(total, NULL, 10));
	if (run_header_partial(h, &why)) {
		sqlite3_bind_int(st, 12, 1);
		bind_text(st, 13, why);
	} else {
		sqlite3_bind_int(st, 12, 0);
	}
	rc = step_done(db, st, err, "cannot insert the run");
	sqlite3_finalize(st);
	return rc;
}

/* Totals gathered while the rows stream in. */
struct import_totals {
	uint64_t n, bytes, first_issue, last_complete;
};

/*
 * Rows go in BATCH at a time through one multi-row INSERT: SQLite's cost
 * per statement execution is then shared by BATCH rows (how much that
 * saves: bench/RESULTS.md, "Figures moved from code comments"); the last
 * partial batch uses a one-row statement.
 */
#define BATCH 128

/* The columns of io_rows the INSERT names, in its order. The rowid is
 * not among them: SQLite gives each row the one after the largest, which
 * is io_base + idx as the rows go in idx order within the write
 * transaction (checked at the end), and appends without a seek. */
enum io_col { IO_ISSUE_DELTA, IO_WAIT_NS, IO_SERVICE_NS, IO_SECTOR, IO_KIND, IO_COLS };
static const char io_insert_head[] =
	"INSERT INTO io_rows (issue_delta, wait_ns, service_ns, sector, kind) VALUES ";

static int prepare_insert(sqlite3 *db, int rows, sqlite3_stmt **st)
{
	static const char one[] = ",(?,?,?,?,?)";
	char sql[sizeof(io_insert_head) + BATCH * sizeof(one)];
	size_t len = 0;

	_Static_assert(sizeof(one) == 2 + 2 * IO_COLS + 1, "one placeholder per column");
	len += (size_t)snprintf(sql, sizeof(sql), "%s", io_insert_head);
	for (int i = 0; i < rows; i++)
		len += (size_t)snprintf(sql + len, sizeof(sql) - len, "%s", one + !i);
	return sqlite3_prepare_v2(db, sql, (int)len, st, NULL);
}

/* The kinds of one trace (io_kind.h), each new kind written to
 * io_kinds at once through `st`. */
struct kinds {
	struct io_kind_map map;
	uint32_t cols; /* the trace's optional columns */
	sqlite3_stmt *st;
};

/* Parameter i of st: v, or NULL when `known` is 0. */
static void bind_or_null(sqlite3_stmt *st, int i, int known, int64_t v)
{
	if (known)
		sqlite3_bind_int64(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

/* The new kind k as row `kind` of trace id: NULL for the file and cause
 * fields the trace does not carry (as trace_ios() shows them). */
static void bind_kind(struct kinds *ks, int64_t id, uint32_t kind, const struct io_kind_key *k)
{
	int64_t v[IO_KIND_N];
	unsigned char null[IO_KIND_N];

	io_kind_values(k, ks->cols, v, null);
	sqlite3_bind_int64(ks->st, 1, id);
	sqlite3_bind_int64(ks->st, 2, kind);
	for (int i = 0; i < IO_KIND_N; i++)
		bind_or_null(ks->st, 3 + i, !null[i], v[i]);
}

/* The kind number of rec, a new one (and its io_kinds row) if unseen. */
static int64_t kind_of(sqlite3 *db, struct kinds *ks, int64_t id, const struct bpt_record *rec,
		       struct bpt_error *err)
{
	struct io_kind_key k;
	int64_t kind;
	int is_new, rc;

	io_kind_key_of(&k, rec, ks->cols);
	kind = io_kind_map_find(&ks->map, &k, &is_new);
	if (kind < 0)
		return bpt_error_set(err, -ENOMEM, "out of memory");
	if (is_new) {
		bind_kind(ks, id, (uint32_t)kind, &k);
		if ((rc = step_done(db, ks->st, err, "cannot insert a kind of I/O")))
			return rc;
	}
	return kind;
}

/* io_marks: rowids per block (as the view's `rowid >> 6`). */
#define MARK_SHIFT 6
#define MARK_ROWS (1 << MARK_SHIFT)

/* The mark of the block being written. */
struct marks {
	sqlite3_stmt *get, *put;
	int64_t blk, issue_ns; /* blk -1: none yet */
};

/*
 * The mark of rowid `row`, whose record is buf[0] (buf[0..n) the
 * records that follow it). A block this import starts gets the middle
 * of the issue times of its rows in buf, so that their deltas are small
 * on both sides of 0; a block begun before (by the previous trace) keeps
 * the mark it has.
 */
static int mark_of(sqlite3 *db, struct marks *m, const struct bpt_record *buf, int n,
		   int64_t row, struct bpt_error *err)
{
	int64_t blk = row >> MARK_SHIFT;
	uint64_t lo = UINT64_MAX, hi = 0;
	int rc;

	if (blk == m->blk)
		return 0;
	m->blk = blk;
	if (row & (MARK_ROWS - 1)) {
		sqlite3_bind_int64(m->get, 1, blk);
		rc = sqlite3_step(m->get);
		if (rc == SQLITE_ROW)
			m->issue_ns = sqlite3_column_int64(m->get, 0);
		sqlite3_reset(m->get);
		if (rc == SQLITE_ROW)
			return 0;
		if (rc != SQLITE_DONE)
			return adb_fail(db, err, "cannot read the mark of a block of I/Os");
	}
	for (int i = 0; i < n && i < MARK_ROWS - (int)(row & (MARK_ROWS - 1)); i++) {
		if (buf[i].issue_ns < lo)
			lo = buf[i].issue_ns;
		if (buf[i].issue_ns > hi)
			hi = buf[i].issue_ns;
	}
	m->issue_ns = (int64_t)(lo + (hi - lo) / 2);
	sqlite3_bind_int64(m->put, 1, blk);
	sqlite3_bind_int64(m->put, 2, m->issue_ns);
	return step_done(db, m->put, err, "cannot insert the mark of a block of I/Os");
}

/* Bind one record as the row whose first parameter is `k` + 1. */
static void bind_record(sqlite3_stmt *st, int k, int64_t kind, int64_t mark,
			const struct bpt_record *rec)
{
	int64_t queue = (int64_t)(rec->queue_ns ? rec->queue_ns : rec->issue_ns);
#define BIND(col, v) sqlite3_bind_int64(st, k + 1 + (col), (int64_t)(v))
	BIND(IO_ISSUE_DELTA, (int64_t)rec->issue_ns - mark);
	BIND(IO_WAIT_NS, (int64_t)rec->issue_ns - queue);
	BIND(IO_SERVICE_NS, (int64_t)rec->complete_ns - (int64_t)rec->issue_ns);
	BIND(IO_SECTOR, rec->sector);
	BIND(IO_KIND, kind);
#undef BIND
}

/* The replay columns of one record, for a trace that has any. */
static int insert_replay(sqlite3 *db, sqlite3_stmt *st, int64_t rowid, uint32_t cols,
			 const struct bpt_record *rec, struct bpt_error *err)
{
	sqlite3_bind_int64(st, 1, rowid);
	if (cols & BPT_COL_SCHED)
		sqlite3_bind_int64(st, 2, (int64_t)rec->sched_ns);
	if (cols & BPT_COL_SOURCE)
		sqlite3_bind_int64(st, 3, (int64_t)rec->source_index);
	if (cols & BPT_COL_MEMBER)
		sqlite3_bind_int64(st, 4, (int64_t)rec->member);
	return step_done(db, st, err, "cannot insert the replay columns of an I/O");
}

/* io_files rows go FILES_BATCH at a time through one multi-row INSERT
 * (as io_rows do), the rest one by one at the end. */
#define FILES_BATCH 64

/* The statements of the side tables, NULL for those the trace never
 * fills (io_replay: runs; io_files, io_files2: traces with files), and
 * the io_files rows not written yet. */
struct side {
	sqlite3_stmt *replay, *files, *files_batch, *files2;
	int npend;
	struct pending_file {
		int64_t io, inode, offset;
		int known; /* offset known */
	} pend[FILES_BATCH];
};

static int prepare_files_batch(sqlite3 *db, sqlite3_stmt **st)
{
	static const char head[] = "INSERT INTO io_files (io, inode, file_offset) VALUES ";
	char sql[sizeof(head) + FILES_BATCH * 8];
	size_t len = (size_t)snprintf(sql, sizeof(sql), "%s", head);

	for (int i = 0; i < FILES_BATCH; i++)
		len += (size_t)snprintf(sql + len, sizeof(sql) - len, "%s(?,?,?)", i ? "," : "");
	return sqlite3_prepare_v2(db, sql, (int)len, st, NULL);
}

/* Write the pending io_files rows: all at once through files_batch when
 * there are FILES_BATCH of them, else one by one. */
static int flush_files(sqlite3 *db, struct side *sd, struct bpt_error *err)
{
	int batch = sd->npend == FILES_BATCH, rc = 0;

	for (int i = 0; i < sd->npend && !rc; i++) {
		sqlite3_stmt *st = batch ? sd->files_batch : sd->files;
		int k = batch ? 3 * i : 0;

		sqlite3_bind_int64(st, k + 1, sd->pend[i].io);
		sqlite3_bind_int64(st, k + 2, sd->pend[i].inode);
		bind_or_null(st, k + 3, sd->pend[i].known, sd->pend[i].offset);
		if (!batch)
			rc = step_done(db, st, err, "cannot insert the file of an I/O");
	}
	if (batch && !rc)
		rc = step_done(db, sd->files_batch, err, "cannot insert the files of I/Os");
	sd->npend = 0;
	return rc;
}

/* The file(s) of one data I/O: io_files (pending, see flush_files), and
 * io_files2 when the request holds a second file. */
static int insert_files(sqlite3 *db, struct side *sd, int64_t rowid, uint32_t cols,
			const struct bpt_record *rec, struct bpt_error *err)
{
	sqlite3_stmt *st;
	int rc = 0;

	sd->pend[sd->npend++] = (struct pending_file){
		.io = rowid, .inode = (int64_t)rec->inode, .offset = (int64_t)rec->file_offset,
		.known = rec->file_offset != BPT_FILE_OFFSET_UNKNOWN,
	};
	if (sd->npend == FILES_BATCH)
		rc = flush_files(db, sd, err);
	if (rc || !rec->file2_bytes)
		return rc;
	st = sd->files2;
	sqlite3_bind_int64(st, 1, rowid);
	sqlite3_bind_int64(st, 2, rec->file2_dev);
	sqlite3_bind_int64(st, 3, (int64_t)rec->inode2);
	bind_or_null(st, 4, rec->file2_offset != BPT_FILE_OFFSET_UNKNOWN,
		     (int64_t)rec->file2_offset);
	sqlite3_bind_int64(st, 5, rec->file2_bytes);
	bind_or_null(st, 6, (cols & BPT_COL_CAUSE) && rec->cause2_pid, rec->cause2_pid);
	bind_or_null(st, 7, (cols & BPT_COL_CAUSE) && rec->cause2_pid, rec->cause2_comm_id);
	bind_or_null(st, 8, (cols & BPT_COL_CAUSE) && rec->cause2_pid,
		     (int64_t)rec->cause2_cgroup);
	return step_done(db, st, err, "cannot insert the second file of an I/O");
}

/* Rows [0, n) of buf, the first being rowid `first`, through st; the
 * records after them in buf up to `avail` are seen by mark_of. */
static int insert_rows(sqlite3 *db, sqlite3_stmt *st, struct kinds *ks, struct marks *ms,
		       struct side *sd, const struct bpt_record *buf, int n, int avail,
		       int64_t id, int64_t first, uint32_t cols, struct bpt_error *err)
{
	int rc;

	for (int i = 0; i < n; i++) {
		int64_t kind = kind_of(db, ks, id, &buf[i], err);

		if (kind < 0)
			return (int)kind;
		if ((rc = mark_of(db, ms, &buf[i], avail - i, first + i, err)))
			return rc;
		bind_record(st, i * IO_COLS, kind, ms->issue_ns, &buf[i]);
		if (sd->replay && (rc = insert_replay(db, sd->replay, first + i, cols, &buf[i], err)))
			return rc;
		if (sd->files && buf[i].file_class == BPT_FILE_DATA &&
		    (rc = insert_files(db, sd, first + i, cols, &buf[i], err)))
			return rc;
	}
	if (sqlite3_step(st) != SQLITE_DONE) {
		sqlite3_reset(st);
		return adb_fail(db, err, "cannot insert I/Os");
	}
	sqlite3_reset(st);
	return 0;
}

/* The rowid after the last I/O in the database: the new trace's io_base. */
static int next_io_base(sqlite3 *db, int64_t *base, struct bpt_error *err)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT coalesce(max(rowid), 0) + 1 FROM io_rows", -1, &st,
			       NULL) != SQLITE_OK)
		return adb_fail(db, err, "cannot find where the I/Os end");
	rc = sqlite3_step(st);
	*base = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : adb_fail(db, err, "cannot find where the I/Os end");
}

/* Where insert_ios reads records: next() gives 1 and a record, 0 at
 * the end or a negative errno. */
struct io_source {
	int (*next)(void *arg, struct bpt_record *rec, struct bpt_error *err);
	void *arg;
};

static int reader_next(void *arg, struct bpt_record *rec, struct bpt_error *err)
{
	return bpt_reader_next(arg, rec, err);
}

/* Every record of src into io_rows (and io_kinds, io_marks, io_replay),
 * the first at rowid `base`. The first rows up to a block boundary go
 * one by one, so that each batch after them holds whole blocks and
 * mark_of sees all of a block's issue times. */
static int insert_ios(sqlite3 *db, const struct io_source *src, uint32_t cols, int64_t id,
		      int64_t base, const struct import_opts *opts, uint64_t total,
		      struct import_totals *t, struct bpt_error *err)
{
	struct bpt_record buf[BATCH], *rec;
	sqlite3_stmt *batch = NULL, *single = NULL;
	struct side sd = { 0 };
	struct kinds ks = { .map = IO_KIND_MAP_INIT, .cols = cols };
	struct marks ms = { .blk = -1 };
	int rc, inbuf = 0;
	int want = (int)((MARK_ROWS - base % MARK_ROWS) % MARK_ROWS); /* rows before a block starts */

	_Static_assert(BATCH % MARK_ROWS == 0, "a batch holds whole blocks");
	if (!want)
		want = BATCH;
	if (prepare_insert(db, BATCH, &batch) != SQLITE_OK ||
	    prepare_insert(db, 1, &single) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO io_kinds (trace_id, kind, " IO_KIND_COLS ")"
			       " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &ks.st, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT issue_ns FROM io_marks WHERE blk = ?", -1, &ms.get,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO io_marks (blk, issue_ns) VALUES (?,?)",
			       -1, &ms.put, NULL) != SQLITE_OK ||
	    ((cols & (BPT_COL_SCHED | BPT_COL_SOURCE | BPT_COL_MEMBER)) &&
	     sqlite3_prepare_v2(db, "INSERT INTO io_replay (io, sched_ns, source_index, member)"
				" VALUES (?,?,?,?)", -1, &sd.replay, NULL) != SQLITE_OK) ||
	    ((cols & BPT_COL_FILE) &&
	     (sqlite3_prepare_v2(db, "INSERT INTO io_files (io, inode, file_offset)"
				 " VALUES (?,?,?)", -1, &sd.files, NULL) != SQLITE_OK ||
	      prepare_files_batch(db, &sd.files_batch) != SQLITE_OK ||
	      sqlite3_prepare_v2(db, "INSERT INTO io_files2 (io, file2_dev, inode2, file2_offset,"
				 " file2_bytes, cause2_pid, cause2_comm_id, cause2_cgroup)"
				 " VALUES (?,?,?,?,?,?,?,?)", -1, &sd.files2, NULL) != SQLITE_OK))) {
		rc = adb_fail(db, err, "cannot prepare the I/O insert");
		goto out;
	}
	t->first_issue = UINT64_MAX;
	while ((rc = src->next(src->arg, rec = &buf[inbuf], err)) == 1) {
		if (rec->internal)
			continue; /* a raid5/raid6 array's own I/O, not a request */
		t->n++;
		t->bytes += rec->bytes;
		if (rec->issue_ns < t->first_issue)
			t->first_issue = rec->issue_ns;
		if (rec->complete_ns > t->last_complete)
			t->last_complete = rec->complete_ns;
		if (opts->hooks) { /* another store takes the I/Os */
			if ((rc = opts->hooks->io(opts->hooks->arg, rec, err)))
				goto out;
		} else if (++inbuf == want) {
			int64_t first = base + (int64_t)t->n - inbuf;

			rc = 0;
			if (want == BATCH)
				rc = insert_rows(db, batch, &ks, &ms, &sd, buf, BATCH, BATCH, id,
						 first, cols, err);
			for (int i = 0; i < inbuf && want != BATCH && !rc; i++)
				rc = insert_rows(db, single, &ks, &ms, &sd, &buf[i], 1, inbuf - i,
						 id, first + i, cols, err);
			if (rc)
				goto out;
			inbuf = 0;
			want = BATCH;
		}
		if (opts->progress && t->n % PROGRESS_EVERY == 0)
			opts->progress(opts->progress_arg, t->n, total);
	}
	if (rc < 0)
		goto out;
	rc = 0;
	for (int i = 0; i < inbuf && !rc; i++) /* the last, partial batch */
		rc = insert_rows(db, single, &ks, &ms, &sd, &buf[i], 1, inbuf - i, id,
				 base + (int64_t)t->n - inbuf + i, cols, err);
	if (!rc && sd.npend)
		rc = flush_files(db, &sd, err);
out:
	sqlite3_finalize(batch);
	sqlite3_finalize(single);
	sqlite3_finalize(sd.replay);
	sqlite3_finalize(sd.files);
	sqlite3_finalize(sd.files_batch);
	sqlite3_finalize(sd.files2);
	sqlite3_finalize(ks.st);
	sqlite3_finalize(ms.get);
	sqlite3_finalize(ms.put);
	io_kind_map_free(&ks.map);
	return rc;
}

/* The string table (comm names): ids are dense from 0. */
static int insert_strings(sqlite3 *db, struct bpt_reader *r, int64_t id,
			  struct bpt_error *err)
{
	sqlite3_stmt *st;
	const char *s;
	int rc = 0;

	if (sqlite3_prepare_v2(db, "INSERT INTO processes (trace_id, comm_id, comm) VALUES (?,?,?)",
			       -1, &st, NULL) != SQLITE_OK)
		return adb_fail(db, err, "cannot prepare the string insert");
	for (uint32_t i = 0; !rc && (s = bpt_reader_string(r, i)); i++) {
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, i);
		sqlite3_bind_text(st, 3, s, -1, SQLITE_STATIC);
		rc = step_done(db, st, err, "cannot insert a string");
	}
	sqlite3_finalize(st);
	return rc;
}

/* The path table (format 1.3): each inode's paths numbered in the
 * reader's order, seq 0 the first (the one bpt_reader_path names). */
static int insert_paths(sqlite3 *db, struct bpt_reader *r, int64_t id, struct bpt_error *err)
{
	const struct bpt_path *p;
	size_t n = bpt_reader_paths(r, &p);
	sqlite3_stmt *st;
	int64_t seq = 0;
	int rc = 0;

	if (!n)
		return 0;
	if (sqlite3_prepare_v2(db, "INSERT INTO paths (trace_id, file_dev, inode, seq, path)"
			       " VALUES (?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK)
		return adb_fail(db, err, "cannot prepare the path insert");
	for (size_t i = 0; i < n && !rc; i++) {
		const char *s = bpt_reader_string(r, p[i].path_id);

		seq = i && p[i].file_dev == p[i - 1].file_dev && p[i].inode == p[i - 1].inode
		      ? seq + 1 : 0;
		if (!s)
			continue; /* the reader checked the ids; nothing to name */
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, p[i].file_dev);
		sqlite3_bind_int64(st, 3, (int64_t)p[i].inode);
		sqlite3_bind_int64(st, 4, seq);
		sqlite3_bind_text(st, 5, s, -1, SQLITE_STATIC);
		rc = step_done(db, st, err, "cannot insert a path");
	}
	sqlite3_finalize(st);
	return rc;
}

static int insert_losses(sqlite3 *db, struct bpt_reader *r, int64_t id,
			 struct bpt_error *err)
{
	const struct bpt_loss *l;
	size_t n = bpt_reader_losses(r, &l);
	sqlite3_stmt *st;
	int rc = 0;

	if (!n)
		return 0;
	if (sqlite3_prepare_v2(db, "INSERT INTO losses (trace_id, t0_ns, t1_ns, count) VALUES (?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK)
		return adb_fail(db, err, "cannot prepare the loss insert");
	for (size_t i = 0; i < n && !rc; i++) {
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, (int64_t)l[i].t0_ns);
		sqlite3_bind_int64(st, 3, (int64_t)l[i].t1_ns);
		sqlite3_bind_int64(st, 4, (int64_t)l[i].count);
		rc = step_done(db, st, err, "cannot insert a loss");
	}
	sqlite3_finalize(st);
	return rc;
}

/* The trace's totals, and the runs that replayed it linked to it. */
static int finish_trace(sqlite3 *db, int64_t id, const char *hex,
			int64_t base, const struct import_totals *t, const struct bpt_stats *s,
			struct bpt_error *err)
{
	static const char sql[] =
		"UPDATE traces SET ios = ?2, bytes = ?3, first_issue_ns = ?4,"
		" last_complete_ns = ?5, lost_events = ?6, loss_windows = ?7,"
		" truncated = ?8, io_base = ?9 WHERE id = ?1";
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return adb_fail(db, err, "cannot prepare the trace update");
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, (int64_t)t->n);
	sqlite3_bind_int64(st, 3, (int64_t)t->bytes);
	if (t->n) {
		sqlite3_bind_int64(st, 4, (int64_t)t->first_issue);
		sqlite3_bind_int64(st, 5, (int64_t)t->last_complete);
	}
	sqlite3_bind_int64(st, 6, (int64_t)s->lost_events);
	sqlite3_bind_int64(st, 7, (int64_t)s->loss_windows);
	sqlite3_bind_int64(st, 8, !s->complete || s->truncated);
	sqlite3_bind_int64(st, 9, base);
	rc = step_done(db, st, err, "cannot update the trace");
	sqlite3_finalize(st);
	if (rc)
		return rc;
	if (sqlite3_prepare_v2(db, "UPDATE runs SET source_trace_id = ?1 WHERE source_digest = ?2",
			       -1, &st, NULL) != SQLITE_OK)
		return adb_fail(db, err, "cannot prepare the run link");
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, hex, -1, SQLITE_STATIC);
	rc = step_done(db, st, err, "cannot link the runs of this trace");
	sqlite3_finalize(st);
	return rc;
}

/* Everything inside the transaction. */
static int import_rows(sqlite3 *db, struct bpt_reader *r, const char *path,
		       const char *hex, const struct import_opts *opts,
		       struct import_result *res, struct bpt_error *err)
{
	const struct bpt_header *h = bpt_reader_header(r);
	struct import_totals t = { 0, 0, 0, 0 };
	struct bpt_stats stats;
	int64_t id = 0, base = 0, end = 0;
	int rc;

	const struct io_source src = { reader_next, r };

	bpt_reader_stats(r, &stats);
	if ((rc = next_io_base(db, &base, err)) ||
	    (rc = insert_trace(db, path, hex, h, &stats, &id, err)) ||
	    (rc = insert_devices(db, id, h, err)) ||
	    (rc = insert_run(db, id, h, err)) ||
	    (rc = insert_ios(db, &src, h->columns, id, base, opts,
			     stats.complete ? stats.records : 0, &t, err)))
		return rc;
	if ((rc = next_io_base(db, &end, err)))
		return rc;
	if (opts->hooks) /* the I/Os went elsewhere */
		end = base + (int64_t)t.n;
	if (t.n && end != base + (int64_t)t.n)
		return bpt_error_set(err, -EIO, "%s: the I/Os went to rowids %lld.. instead of %lld..,"
			       " not imported", path, (long long)(end - (int64_t)t.n), (long long)base);
	bpt_reader_stats(r, &stats);
	if (stats.truncated && !opts->partial)
		return bpt_error_set(err, -EBADMSG,
			       "%s: truncated at offset %" PRIu64 " of %" PRIu64
			       ", not imported (--partial imports its %" PRIu64 " complete records)",
			       path, stats.valid_bytes, stats.file_bytes, t.n);
	if ((rc = insert_strings(db, r, id, err)) ||
	    (rc = insert_paths(db, r, id, err)) ||
	    (rc = insert_losses(db, r, id, err)) ||
	    (rc = finish_trace(db, id, hex, base, &t, &stats, err)))
		return rc;
	res->trace_id = id;
	res->records = t.n;
	res->truncated = !stats.complete || stats.truncated;
	return 0;
}

int import_file(sqlite3 *db, const char *path, const struct import_opts *opts,
		struct import_result *res, struct bpt_error *err)
{
	static const struct import_opts defaults = { 0, NULL, NULL, NULL };
	struct bpt_reader *r = NULL;
	struct bpt_stats stats;
	uint64_t digest;
	int rc;

	memset(res, 0, sizeof(*res));
	if (!opts)
		opts = &defaults;
	if ((rc = bpt_reader_open(&r, path, err)))
		return rc;
	bpt_reader_stats(r, &stats);
	if (!stats.complete && !opts->partial) {
		rc = bpt_error_set(err, -EBADMSG,
			     "%s: truncated or unfinished trace (no valid footer), not imported;"
			     " --partial imports its complete blocks", path);
		goto out;
	}
	if ((rc = bpt_reader_digest(r, &digest, err)))
		goto out;
	import_digest_hex(digest, res->digest);
	rc = find_digest(db, res->digest, &res->trace_id, &res->records, err);
	if (!rc && opts->hooks)
		rc = opts->hooks->before(opts->hooks->arg, res, bpt_reader_header(r), err);
	if (rc) {
		res->already = rc > 0;
		rc = rc > 0 ? 0 : rc;
		goto out;
	}
	/* Bulk-load settings: a 64 MiB page cache (512 MiB was no faster:
	 * bench/RESULTS.md, "Analyze: import and report speed"); a rollback
	 * journal (the default) keeps "all or nothing". */
	if ((rc = adb_exec(db, "PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY;"
			       " PRAGMA synchronous = NORMAL", err)) ||
	    (rc = adb_exec(db, "BEGIN IMMEDIATE", err)))
		goto out;
	rc = import_rows(db, r, path, res->digest, opts, res, err);
	if (rc)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	else if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		rc = adb_fail(db, err, "cannot commit");
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	}
out:
	bpt_reader_close(r);
	return rc;
}

int import_ios(sqlite3 *db, int64_t id, uint32_t columns,
	       int (*next)(void *arg, struct bpt_record *rec, struct bpt_error *err),
	       void *arg, struct bpt_error *err)
{
	static const struct import_opts none = { 0, NULL, NULL, NULL };
	const struct io_source src = { next, arg };
	struct import_totals t = { 0, 0, 0, 0 };
	sqlite3_stmt *st;
	int64_t base = 0;
	int rc;

	if ((rc = next_io_base(db, &base, err)) ||
	    (rc = insert_ios(db, &src, columns, id, base, &none, 0, &t, err)))
		return rc;
	if (sqlite3_prepare_v2(db, "UPDATE traces SET io_base = ? WHERE id = ?", -1, &st,
			       NULL) != SQLITE_OK)
		return adb_fail(db, err, "cannot prepare the trace update");
	sqlite3_bind_int64(st, 1, base);
	sqlite3_bind_int64(st, 2, id);
	rc = step_done(db, st, err, "cannot update the trace");
	sqlite3_finalize(st);
	return rc;
}
