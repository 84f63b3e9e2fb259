/* runstats.c — per-trace figures for the HTML report (runstats.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"
#include "runstats.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile p (0..1) of sorted v[0..n-1]. */
static int64_t rank(const int64_t *v, size_t n, double p)
{
	size_t i = (size_t)ceil(p * (double)n);

	return v[i == 0 ? 0 : i - 1 < n ? i - 1 : n - 1];
}

static int load_percentiles(sqlite3 *db, struct runstats *rs)
{
	sqlite3_stmt *st;
	int64_t *v = NULL;
	size_t n = 0, cap = 0;
	int rc;

	rs->p50_ns = rs->p99_ns = rs->p999_ns = -1;
	if (sqlite3_prepare_v2(db, "SELECT complete_ns - issue_ns FROM ios "
				   "WHERE trace_id = ? AND bytes > 0", -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, rs->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			int64_t *nv = realloc(v, (cap = cap ? cap * 2 : 4096) * sizeof(*v));

			if (!nv) {
				sqlite3_finalize(st);
				free(v);
				return -ENOMEM;
			}
			v = nv;
		}
		v[n++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(v);
		return -EIO;
	}
	if (n) {
		qsort(v, n, sizeof(*v), cmp_i64);
		rs->p50_ns = rank(v, n, 0.50);
		rs->p99_ns = rank(v, n, 0.99);
		rs->p999_ns = rank(v, n, 0.999);
	}
	free(v);
	return 0;
}

int runstats_load(sqlite3 *db, int64_t id, struct runstats *rs)
{
	sqlite3_stmt *st;
	int rc;

	memset(rs, 0, sizeof(*rs));
	rs->id = id;
	rc = plot_trace_label(db, id, rs->label, sizeof(rs->label));
	if (rc)
		return rc;
	if (sqlite3_prepare_v2(db, "SELECT t.kind, coalesce(r.timing, ''), t.ios, t.bytes, "
				   "coalesce(t.last_complete_ns - t.first_issue_ns, 0), "
				   "(SELECT count(*) FROM ios WHERE trace_id = t.id AND error != 0) "
				   "FROM traces t LEFT JOIN runs r ON r.trace_id = t.id WHERE t.id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return rc == SQLITE_DONE ? -ENOENT : -EIO;
	}
	snprintf(rs->kind, sizeof(rs->kind), "%s", (const char *)sqlite3_column_text(st, 0));
	snprintf(rs->timing, sizeof(rs->timing), "%s", (const char *)sqlite3_column_text(st, 1));
	rs->ios = sqlite3_column_int64(st, 2);
	rs->bytes = sqlite3_column_int64(st, 3);
	rs->duration_ns = sqlite3_column_int64(st, 4);
	rs->errors = sqlite3_column_int64(st, 5);
	sqlite3_finalize(st);
	if (rs->duration_ns > 0) {
		rs->iops = rs->ios / (rs->duration_ns / 1e9);
		rs->mbps = rs->bytes / 1e6 / (rs->duration_ns / 1e9);
	}
	return load_percentiles(db, rs);
}

double runstats_time_saved_pct(const struct runstats *base, const struct runstats *run)
{
	if (base->duration_ns <= 0)
		return NAN;
	return (double)(base->duration_ns - run->duration_ns) / (double)base->duration_ns * 100;
}

double runstats_speedup_pct(const struct runstats *base, const struct runstats *run)
{
	if (base->duration_ns <= 0 || run->duration_ns <= 0)
		return NAN;
	return ((double)base->duration_ns / (double)run->duration_ns - 1) * 100;
}
