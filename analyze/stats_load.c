/*
 * stats_load.c — reading one trace's rows from the database into columns
 * in memory for the report (stats_int.h). The arrays, and the scratch the
 * sorts need, come from one anonymous mapping; a large trace is read in
 * two halves at once by two connections.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "db.h"
#include "stats_int.h"

void cols_free(struct cols *c)
{
	if (c->arena)
		munmap(c->arena, c->arena_len);
	c->arena = NULL;
}

static int cols_alloc(struct cols *c, uint64_t n)
{
	const size_t page = 4096;
	uint8_t *p;

	n = n ? n : 1;
	/* 8-byte arrays first, then 4, 2 and 1: every array stays aligned */
	c->arena_len = (size_t)n * (7 * 8 + 5 * 4 + 2 + 1);
	c->arena_len = (c->arena_len + page - 1) / page * page;
	c->arena = mmap(NULL, c->arena_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c->arena == MAP_FAILED) {
		c->arena = NULL;
		return -ENOMEM;
	}
	p = c->arena;
	c->issue = (uint64_t *)p; p += n * 8;
	c->complete = (uint64_t *)p; p += n * 8;
	c->sector = (uint64_t *)p; p += n * 8;
	c->svc = (uint64_t *)p; p += n * 8;
	c->tot = (uint64_t *)p; p += n * 8;
	c->tmp = (uint64_t *)p; p += n * 8;
	c->tmp2 = (uint64_t *)p; p += n * 8;
	c->bytes = (uint32_t *)p; p += n * 4;
	c->pid = (uint32_t *)p; p += n * 4;
	c->comm = (uint32_t *)p; p += n * 4;
	c->ord = (uint32_t *)p; p += n * 4;
	c->ordt = (uint32_t *)p; p += n * 4;
	c->dev = (uint16_t *)p; p += n * 2;
	c->op = p;
	return 0;
}

static uint64_t lat_key(unsigned op, uint64_t from, uint64_t to)
{
	uint64_t lat = to > from ? to - from : 0;

	return (lat < LAT_MAX ? lat : LAT_MAX) << OP_BITS | op;
}

/* Rows [lo, hi) of one trace (idx is dense from 0), read into c through
 * one connection; run by a thread, so the result stays in the struct. */
struct load_part {
	sqlite3 *db;
	int64_t id;
	uint64_t lo, hi, got, errors;
	struct cols *c;
	int rc; /* SQLITE_DONE when every row was read */
};

static void *load_range(void *arg)
{
	static const char sql[] =
		"SELECT queue_ns, issue_ns, complete_ns, dev, sector, bytes, op, pid,"
		" comm_id, error FROM ios WHERE trace_id = ? AND idx >= ? AND idx < ? ORDER BY idx";
	struct load_part *p = arg;
	struct cols *c = p->c;
	sqlite3_stmt *st;
	uint64_t i = p->lo;

	p->rc = sqlite3_prepare_v2(p->db, sql, -1, &st, NULL);
	if (p->rc != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, p->id);
	sqlite3_bind_int64(st, 2, (int64_t)p->lo);
	sqlite3_bind_int64(st, 3, (int64_t)p->hi);
	while ((p->rc = sqlite3_step(st)) == SQLITE_ROW && i < p->hi) {
		uint64_t q = (uint64_t)sqlite3_column_int64(st, 0);
		unsigned op = (unsigned)sqlite3_column_int(st, 6);

		c->issue[i] = (uint64_t)sqlite3_column_int64(st, 1);
		c->complete[i] = (uint64_t)sqlite3_column_int64(st, 2);
		c->dev[i] = (uint16_t)sqlite3_column_int(st, 3);
		c->sector[i] = (uint64_t)sqlite3_column_int64(st, 4);
		c->bytes[i] = (uint32_t)sqlite3_column_int64(st, 5);
		c->op[i] = op < BPT_OP__COUNT ? op : BPT_OP__COUNT - 1;
		c->pid[i] = (uint32_t)sqlite3_column_int64(st, 7);
		c->comm[i] = (uint32_t)sqlite3_column_int64(st, 8);
		if (sqlite3_column_int(st, 9))
			p->errors++;
		c->svc[i] = lat_key(c->op[i], c->issue[i], c->complete[i]);
		c->tot[i] = lat_key(c->op[i], q, c->complete[i]);
		i++;
	}
	p->got = i - p->lo;
	sqlite3_finalize(st);
	return NULL;
}

/* Column i as text, "" for NULL. */
static const char *text_or(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? (const char *)t : "";
}

/*
 * Read the trace row and all its I/O rows. A large trace is read in two
 * halves at once, the second by a thread with a connection of its own
 * (SQLite's decoding is most of a report's time; readers do not block
 * each other).
 */
int stats_load(sqlite3 *db, int64_t id, struct st_report *rep, struct cols *c,
	       struct bpt_error *err)
{
	struct load_part part[2];
	const char *file = sqlite3_db_filename(db, "main");
	sqlite3 *db2 = NULL;
	pthread_t thread;
	sqlite3_stmt *st;
	uint64_t n = 0;
	int rc, threaded = 0;

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
	snprintf(rep->path, sizeof(rep->path), "%s", (const char *)sqlite3_column_text(st, 0));
	snprintf(rep->kind, sizeof(rep->kind), "%s", (const char *)sqlite3_column_text(st, 1));
	snprintf(rep->digest, sizeof(rep->digest), "%s", (const char *)sqlite3_column_text(st, 2));
	n = (uint64_t)sqlite3_column_int64(st, 3);
	rep->is_run = sqlite3_column_int(st, 4);
	rep->source_id = sqlite3_column_int64(st, 5);
	snprintf(rep->source_digest, sizeof(rep->source_digest), "%s", text_or(st, 6));
	snprintf(rep->target, sizeof(rep->target), "%s", text_or(st, 7));
	snprintf(rep->timing, sizeof(rep->timing), "%s", text_or(st, 8));
	rep->lost_events = (uint64_t)sqlite3_column_int64(st, 9);
	rep->loss_windows = (uint64_t)sqlite3_column_int64(st, 10);
	rep->truncated = sqlite3_column_int(st, 11);
	sqlite3_finalize(st);
	if (cols_alloc(c, n))
		return adb_err(err, -ENOMEM, "trace %lld: out of memory for %llu I/Os",
				 (long long)id, (unsigned long long)n);
	c->n = n;

	part[0] = (struct load_part){ db, id, 0, n, 0, 0, c, 0 };
	if (n >= (1u << 16) && file && *file &&
	    sqlite3_open_v2(file, &db2, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) == SQLITE_OK &&
	    sqlite3_busy_timeout(db2, ADB_BUSY_TIMEOUT_MS) == SQLITE_OK) {
		part[0].hi = n / 2;
		part[1] = (struct load_part){ db2, id, n / 2, n, 0, 0, c, 0 };
		threaded = pthread_create(&thread, NULL, load_range, &part[1]) == 0;
		if (!threaded)
			part[0].hi = n;
	}
	load_range(&part[0]);
	if (threaded)
		pthread_join(thread, NULL);
	for (int k = 0; k <= threaded; k++) {
		if (part[k].rc != SQLITE_DONE && part[k].rc != SQLITE_ROW)
			rc = adb_fail(part[k].db, err, "cannot read the trace");
		else if (part[k].got != part[k].hi - part[k].lo || part[k].rc == SQLITE_ROW)
			rc = adb_err(err, -EIO, "trace %lld: traces.ios says %llu I/Os, ios has %s",
				     (long long)id, (unsigned long long)n,
				     part[k].rc == SQLITE_ROW ? "more" : "fewer");
		else
			rc = 0;
		if (rc)
			break;
		rep->errors += part[k].errors;
	}
	sqlite3_close(db2);
	return rc;
}
