/*
 * stats_load.c — reading one trace from the database for the report
 * (stats_int.h): its row in `traces`, and its I/O rows in file order,
 * one at a time (nothing per I/O is kept).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "db.h"
#include "stats_int.h"

/* Column i as text, "" for NULL. */
static const char *text_or(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? (const char *)t : "";
}

int stats_trace_row(sqlite3 *db, int64_t id, struct st_report *rep, uint64_t *n,
		    struct bpt_error *err)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT t.path, t.kind, t.digest, t.ios, r.trace_id IS NOT NULL,"
			       " r.source_trace_id, r.source_digest, r.target, r.timing, t.lost_events,"
			       " t.loss_windows, t.truncated FROM traces t"
			       " LEFT JOIN runs r ON r.trace_id = t.id WHERE t.id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return adb_fail(db, err, "cannot read the trace");
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return adb_fail(db, err, "cannot read the trace");
		return adb_err(err, -ENOENT, "no trace with id %lld in the database", (long long)id);
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
	sqlite3_finalize(st);
	return 0;
}

int stats_scan(sqlite3 *db, int64_t id, uint64_t n, int (*fn)(void *ctx, const struct st_row *r),
	       void *ctx, struct bpt_error *err)
{
	static const char sql[] =
		"SELECT idx, queue_ns, issue_ns, complete_ns, dev, sector, bytes, op, pid,"
		" comm_id, error FROM ios WHERE trace_id = ? ORDER BY idx";
	sqlite3_stmt *st;
	uint64_t got = 0;
	int rc, frc = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return adb_fail(db, err, "cannot read the trace");
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		unsigned op = (unsigned)sqlite3_column_int(st, 7);
		struct st_row r = {
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
		};

		got++;
		if ((frc = fn(ctx, &r)))
			break;
	}
	if (frc) {
		sqlite3_finalize(st);
		return adb_err(err, frc, "trace %lld: %s", (long long)id,
			       frc == -ENOMEM ? "out of memory" : "the rows changed while read");
	}
	if (rc != SQLITE_DONE) {
		rc = adb_fail(db, err, "cannot read the trace");
		sqlite3_finalize(st);
		return rc;
	}
	sqlite3_finalize(st);
	if (got != n)
		return adb_err(err, -EIO, "trace %lld: traces.ios says %llu I/Os, ios has %llu",
			       (long long)id, (unsigned long long)n, (unsigned long long)got);
	return 0;
}
