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

static int db_trace_row(struct st_source *src, struct st_report *rep, uint64_t *n,
			struct bpt_error *err)
{
	sqlite3 *db = src->db;
	int64_t id = src->id;
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT t.path, t.kind, t.digest, t.ios, r.trace_id IS NOT NULL,"
			       " r.source_trace_id, r.source_digest, r.target, r.timing, t.lost_events,"
			        " t.loss_windows, t.truncated, t.columns FROM traces t"
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
	src->has_sched = !!(sqlite3_column_int64(st, 12) & BPT_COL_SCHED);
	sqlite3_finalize(st);
	if ((rc = run_verify_load(db, id, &rep->verify, err)))
		return rc;
	return run_partial_load(db, id, &rep->partial, err);
}

static void read_row(sqlite3_stmt *st, struct st_row *r)
{
	unsigned op = (unsigned)sqlite3_column_int(st, 7);

	*r = (struct st_row){
		.idx = (uint64_t)sqlite3_column_int64(st, 0),
		.queue = (uint64_t)sqlite3_column_int64(st, 1),
		.issue = (uint64_t)sqlite3_column_int64(st, 2),
		.complete = (uint64_t)sqlite3_column_int64(st, 3),
		.dev = (uint16_t)sqlite3_column_int(st, 4),
		.sector = (uint64_t)sqlite3_column_int64(st, 5),
		.bytes = (uint32_t)sqlite3_column_int64(st, 6),
		.op = (uint8_t)(op < BPT_OP__COUNT ? op : BPT_OP__COUNT - 1),
		.pid = (uint32_t)sqlite3_column_int64(st, 8),
		.comm = (uint32_t)sqlite3_column_int64(st, 9),
		.error = sqlite3_column_int(st, 10),
		.completion = (uint8_t)sqlite3_column_int(st, 11),
		.sched = (uint64_t)sqlite3_column_int64(st, 12),
		.has_sched = sqlite3_column_type(st, 12) == SQLITE_INTEGER,
	};
}


static int db_scan_begin(struct st_source *src, struct bpt_error *err)
{
#define ROW_COLUMNS "idx, queue_ns, issue_ns, complete_ns, dev, sector, bytes, op, pid," \
	" comm_id, error, completion"
	/* sched_ns only for traces that have it: without it SQLite leaves
	 * out the join with io_replay (a lookup per row) */
	static const char with_sched[] = "SELECT " ADB_IOS_ROW_COLUMNS (ROW_COLUMNS ", sched_ns");
	static const char without[] = "SELECT " ADB_IOS_ROW_COLUMNS (ROW_COLUMNS ", NULL");
#undef ROW_COLUMNS
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(src->db, src->has_sched ? with_sched : without, -1, &st,
			       NULL) != SQLITE_OK)
		return adb_fail(src->db, err, "cannot read the trace");
	sqlite3_bind_int64(st, 1, src->id);
	src->scan = st;
	return 0;
}

static long db_scan_fill(struct st_source *src, struct st_row *rows, size_t max,
			 struct bpt_error *err)
{
	sqlite3_stmt *st = src->scan;
	size_t n = 0;
	int rc = SQLITE_ROW;

	while (n < max && (rc = sqlite3_step(st)) == SQLITE_ROW)
		read_row(st, &rows[n++]);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return adb_fail(src->db, err, "cannot read the trace");
	return (long)n;
}

static void db_scan_end(struct st_source *src)
{
	sqlite3_finalize(src->scan);
	src->scan = NULL;
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

		if (k >= 0 && k < ST_MAX_DEV)
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
