/*
 * stats_load.c — reading one trace from the database for the report
 * (stats_int.h): its row in `traces`, and its I/O rows in file order,
 * batch by batch (nothing per I/O is kept).
 */
#include <errno.h>
#include <pthread.h>
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
	sqlite3_finalize(st);
	return 0;
}

/*
 * The scan runs as two threads when the trace is large: a reader decodes
 * the rows from SQLite (about half of a report's CPU time) into one of
 * two batches while the caller's fn works on the other. Memory: two
 * batches of SCAN_BATCH rows, whatever the trace's size.
 */
#define SCAN_BATCH 8192
#define SCAN_THREADED_FROM 65536

struct scan_pipe {
	sqlite3_stmt *st;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct st_row *batch[2];
	size_t len[2];
	int full[2];
	int done;    /* the reader has finished; rc holds how */
	int stop;    /* the consumer gave up */
	int rc;      /* SQLITE_DONE when every row was read */
	uint64_t got;
};

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
	};
}

static void *reader(void *arg)
{
	struct scan_pipe *p = arg;
	int rc = SQLITE_ROW;

	for (unsigned b = 0; rc == SQLITE_ROW; b ^= 1) {
		size_t n = 0;

		pthread_mutex_lock(&p->lock);
		while (p->full[b] && !p->stop)
			pthread_cond_wait(&p->changed, &p->lock);
		pthread_mutex_unlock(&p->lock);
		if (p->stop)
			break;
		while (n < SCAN_BATCH && (rc = sqlite3_step(p->st)) == SQLITE_ROW)
			read_row(p->st, &p->batch[b][n++]);
		pthread_mutex_lock(&p->lock);
		p->len[b] = n;
		p->full[b] = 1;
		p->got += n;
		if (rc != SQLITE_ROW) {
			p->done = 1;
			p->rc = rc;
		}
		pthread_cond_broadcast(&p->changed);
		pthread_mutex_unlock(&p->lock);
	}
	return NULL;
}

/* Run fn over the rows through the reader thread; fn's first non-zero
 * return, or 0. p->rc and p->got tell how reading ended. */
static int scan_threaded(struct scan_pipe *p, int (*fn)(void *ctx, const struct st_row *r), void *ctx)
{
	pthread_t thread;
	int frc = 0;

	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->changed, NULL);
	if (pthread_create(&thread, NULL, reader, p)) {
		pthread_mutex_destroy(&p->lock);
		pthread_cond_destroy(&p->changed);
		return -EAGAIN;
	}
	for (unsigned b = 0;; b ^= 1) {
		pthread_mutex_lock(&p->lock);
		while (!p->full[b] && !p->done)
			pthread_cond_wait(&p->changed, &p->lock);
		if (!p->full[b]) { /* done, and this batch was never filled */
			pthread_mutex_unlock(&p->lock);
			break;
		}
		pthread_mutex_unlock(&p->lock);
		for (size_t i = 0; i < p->len[b] && !frc; i++)
			frc = fn(ctx, &p->batch[b][i]);
		pthread_mutex_lock(&p->lock);
		p->full[b] = 0;
		if (frc)
			p->stop = 1;
		pthread_cond_broadcast(&p->changed);
		pthread_mutex_unlock(&p->lock);
		if (frc)
			break;
	}
	pthread_join(thread, NULL);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->changed);
	return frc;
}

int stats_scan(sqlite3 *db, int64_t id, uint64_t n, int (*fn)(void *ctx, const struct st_row *r),
	       void *ctx, struct bpt_error *err)
{
	static const char sql[] =
		"SELECT idx, queue_ns, issue_ns, complete_ns, dev, sector, bytes, op, pid,"
		" comm_id, error, completion FROM ios WHERE trace_id = ? ORDER BY idx";
	struct scan_pipe p = { 0 };
	struct st_row *mem = NULL;
	int frc = -EAGAIN;

	if (sqlite3_prepare_v2(db, sql, -1, &p.st, NULL) != SQLITE_OK)
		return adb_fail(db, err, "cannot read the trace");
	sqlite3_bind_int64(p.st, 1, id);
	if (n >= SCAN_THREADED_FROM && (mem = malloc(2 * SCAN_BATCH * sizeof(*mem)))) {
		p.batch[0] = mem;
		p.batch[1] = mem + SCAN_BATCH;
		frc = scan_threaded(&p, fn, ctx);
	}
	if (frc == -EAGAIN) { /* small, or no thread: one row at a time here */
		struct st_row r;

		frc = 0;
		while (!frc && (p.rc = sqlite3_step(p.st)) == SQLITE_ROW) {
			read_row(p.st, &r);
			p.got++;
			frc = fn(ctx, &r);
		}
	}
	free(mem);
	if (frc) {
		sqlite3_finalize(p.st);
		return bpt_error_set(err, frc, "trace %lld: %s", (long long)id,
			       frc == -ENOMEM ? "out of memory" : "the rows changed while read");
	}
	if (p.rc != SQLITE_DONE) {
		int rc = adb_fail(db, err, "cannot read the trace");

		sqlite3_finalize(p.st);
		return rc;
	}
	sqlite3_finalize(p.st);
	if (p.got != n)
		return bpt_error_set(err, -EIO, "trace %lld: traces.ios says %llu I/Os, ios has %llu",
			       (long long)id, (unsigned long long)n, (unsigned long long)p.got);
	return 0;
}
