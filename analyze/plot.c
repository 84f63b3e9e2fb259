/*
 * plot.c — from the analysis database to charts (plot.h): one function
 * per chart kind turns one trace's rows of `ios` into an (x, y) series;
 * plot_write() gathers a series per trace, picks the axes and units
 * shared by all of them and hands everything to svg_write().
 *
 * Times are measured from each trace's first issue (traces.first_issue_ns),
 * so a capture and its replays start together on the time axis. Heavy
 * lifting (grouping into time bins or grid cells) is done by SQLite;
 * only the latency CDF and the queue-depth sweep read every I/O.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chart_label.h"
#include "db.h"
#include "plot.h"
#include "run_label.h"
#include "progress.h"
#include "reorder.h"
#include "stats.h"
#include "svg.h"

/* What every trace of one chart shares. */
struct plot_ctx {
	sqlite3 *db;
	int64_t id;          /* the trace being read */
	int64_t t0;          /* its first issue, ns */
	int64_t own_ns;      /* its first issue to last completion */
	int64_t span_ns;     /* longest first-issue-to-last-completion of all */
	int64_t bin_ns;      /* time bin of the over-time charts */
	int64_t max_sector;  /* highest sector + 1 of all (access map) */
	double tdiv;         /* ns per unit of the time axis */
	double ydiv;         /* bytes per unit of the offset axis */
	/* the progress line (NULL: none): trace i of n, rows read of its ios */
	struct progress *prog;
	int kind;
	size_t i, n;
	uint64_t rows, ios;
};

static void trace_progress(struct progress *prog, enum plot_kind kind, size_t i, size_t n,
			   double within);

/* The share of the current trace done, from the rows read, for the
 * charts that read every I/O (the CDF twice: two passes as a rule);
 * -1 for those SQLite groups first (nothing to count until the end). */
static double within(const struct plot_ctx *c)
{
	double per = c->kind == PLOT_LATENCY_CDF ? 2 : 1;

	if (!c->ios || (c->kind != PLOT_LATENCY_CDF && c->kind != PLOT_LATENCY_TIME &&
			c->kind != PLOT_SEEKS && c->kind != PLOT_QD))
		return -1;
	return fmin(0.95, (double)c->rows / ((double)c->ios * per));
}

/* A row read: count it (the progress line's share of the trace). */
static int tick(struct plot_ctx *c)
{
	c->rows++;
	return 0;
}

/* SQLite's progress handler, every 2^20 instructions while a chart's
 * query runs: redraws the line (progress_text keeps to its period). */
static int sql_tick(void *arg)
{
	struct plot_ctx *c = arg;

	trace_progress(c->prog, (enum plot_kind)c->kind, c->i, c->n, within(c));
	return 0;
}

/* What each kind of chart is: its name on the command line, a caption
 * for reports, and its title, form and axes (x_label NULL: time). */
struct kind_info {
	const char *name, *caption, *title;
	enum svg_kind svg;
	const char *x_label, *y_label;
};

static const struct kind_info kinds[PLOT_KIND_COUNT] = {
	[PLOT_LATENCY_CDF] = {
		"latency-cdf",
		"Share of I/Os that completed within a given service time (issue to completion); "
		"further left is faster.",
		"Service latency CDF", SVG_LINES,
		"service latency, issue to completion (µs)", "I/Os completed within (%)" },
	[PLOT_IOPS] = {
		"iops", "I/Os completed per second over time, from each run's first issue.",
		"IOPS over time", SVG_LINES, NULL, "I/Os per second" },
	[PLOT_LBA] = {
		"lba",
		"Where on the device each I/O went over time (the access map; one dot per "
		"occupied grid cell).",
		"Access map: offset over time", SVG_POINTS, NULL, NULL /* MiB or GiB */ },
	[PLOT_QD] = {
		"qd", "I/Os in flight at the device over time (time-weighted average per bin).",
		"Queue depth over time", SVG_LINES, NULL, "I/Os in flight" },
	[PLOT_SIZES] = {
		"sizes", "Request sizes: share of the I/Os that carry data, per size class.",
		"Request sizes", SVG_BARS, "request size (bytes)", "share of I/Os (%)" },
	[PLOT_MBPS] = {
		"mbps", "Megabytes (10^6 bytes) completed per second over time, from each run's "
		"first issue.",
		"MB/s over time", SVG_LINES, NULL, "MB per second" },
	[PLOT_LATENCY_TIME] = {
		"latency-time",
		"Service time of the I/Os over time (one dot per occupied grid cell, log scale): "
		"where the slow I/Os happened.",
		"Latency over time", SVG_POINTS, NULL, "service latency, issue to completion (µs)" },
	[PLOT_SEEKS] = {
		"seeks-time",
		"Seeks per second over time: I/Os, in issue order per device, that did not start "
		"where the one before ended.",
		"Seeks per second over time", SVG_LINES, NULL, "seeks per second" },
	[PLOT_MEMBERS] = {
		"members",
		"I/Os per member of a virtual array (each part a member served counts once for it; "
		"runs of replay onto an array only).",
		"I/Os per array member", SVG_BARS, "array member", "I/Os" },
	[PLOT_BTT] = {
		"btt",
		"btt's breakdown per trace and run: mean queue wait (Q→D, created to issued to the "
		"device) and service (D→C, issued to completed) of the I/Os whose completion was seen.",
		"Queue wait and service per trace", SVG_BARS, "trace or run", NULL },
	[PLOT_BTT_PROCS] = {
		"btt-procs",
		"btt's breakdown per process: mean queue wait (Q→D) and service (D→C) of the eight "
		"busiest (trace, program) pairs by I/Os.",
		"Queue wait and service per process", SVG_BARS, "trace and program", NULL },
};

/* Request-size classes of the histogram: up to 4k, 8k, ..., 1M and more. */
static const char *const size_classes[] = {
	"≤4k", "8k", "16k", "32k", "64k", "128k", "256k", "512k", "≥1M",
};
#define NSIZE_CLASSES (sizeof(size_classes) / sizeof(size_classes[0]))

int plot_kind_parse(const char *name, enum plot_kind *out)
{
	for (int k = 0; k < PLOT_KIND_COUNT; k++) {
		if (!strcmp(name, kinds[k].name)) {
			*out = (enum plot_kind)k;
			return 0;
		}
	}
	return -EINVAL;
}

const char *plot_kind_name(enum plot_kind kind)
{
	return kind < PLOT_KIND_COUNT ? kinds[kind].name : "?";
}

const char *plot_kind_caption(enum plot_kind kind)
{
	return kind < PLOT_KIND_COUNT ? kinds[kind].caption : "";
}

static int push(struct plot_series *s, double x, double y)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		double *nx = realloc(s->x, cap * sizeof(*nx));

		if (!nx)
			return -ENOMEM;
		s->x = nx;
		double *ny = realloc(s->y, cap * sizeof(*ny));
		if (!ny)
			return -ENOMEM;
		s->y = ny;
		s->cap = cap;
	}
	s->x[s->n] = x;
	s->y[s->n] = y;
	s->n++;
	return 0;
}

static int prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st)
{
	return sqlite3_prepare_v2(db, sql, -1, st, NULL) == SQLITE_OK ? 0 : -EIO;
}

/* Run a finished statement to its end; -EIO on a sqlite error. */
static int finish(sqlite3_stmt *st, int rc)
{
	if (rc == SQLITE_DONE || rc == SQLITE_ROW)
		rc = 0;
	else if (rc > 0)
		rc = -EIO;     /* a sqlite error; negative ones are our own */
	sqlite3_finalize(st);
	return rc;
}

int plot_trace_label(sqlite3 *db, int64_t id, char *buf, size_t len)
{
	char label[RUN_LABEL_MAX];
	int rc = run_label_db(db, id, label, sizeof(label));

	if (!rc) {
		int n = snprintf(buf, len, "%lld ", (long long)id);

		if (n >= 0 && (size_t)n < len)
			memcpy(buf + n, label, strlen(label) + 1 < len - (size_t)n ?
			       strlen(label) + 1 : len - (size_t)n);
		buf[len - 1] = 0;
	}
	return rc;
}

/* traces.ios of a trace (0 when unknown): the progress line's total. */
static uint64_t trace_ios(sqlite3 *db, int64_t id)
{
	sqlite3_stmt *st;
	uint64_t n = 0;

	if (prepare(db, "SELECT ios FROM traces WHERE id = ?", &st))
		return 0;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = (uint64_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* First issue and last completion of a trace; *empty = 1 when it has no I/O. */
static int trace_span(sqlite3 *db, int64_t id, int64_t *t0, int64_t *t1, int *empty)
{
	sqlite3_stmt *st;
	int rc;

	if (prepare(db, "SELECT first_issue_ns, last_complete_ns FROM traces WHERE id = ?", &st))
		return -EIO;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*empty = sqlite3_column_type(st, 0) == SQLITE_NULL;
		*t0 = sqlite3_column_int64(st, 0);
		*t1 = sqlite3_column_int64(st, 1);
		rc = 0;
	} else {
		rc = rc == SQLITE_DONE ? -ENOENT : -EIO;
	}
	sqlite3_finalize(st);
	return rc;
}

static int64_t nice_ns(int64_t raw)
{
	int64_t m = 1000; /* at least 1 µs */

	while (m < raw) {
		if (2 * m >= raw)
			return 2 * m;
		if (5 * m >= raw)
			return 5 * m;
		m *= 10;
	}
	return m;
}

/* Service-latency CDF: x in µs (log axis), y in % of I/Os, at most
 * ~450 points taken at fixed fractions, finer in the tail; each point the
 * exact nearest-rank percentile (common/stats.h), computed in passes over
 * the rows in bounded memory. */
static int series_latency_cdf(struct plot_ctx *c, struct plot_series *s)
{
	uint32_t ppm[512];
	unsigned np = 0;
	struct stats_exact *e;
	sqlite3_stmt *st;
	int rc, more;

	for (double f = 0.0025; f < 1 + 1e-12 && np < 511;) {
		ppm[np++] = (uint32_t)lround(f * STATS_PPM);
		f += f < 0.99 ? 0.0025 : f < 0.999 ? 0.0005 : 0.0001;
	}
	ppm[np++] = STATS_PPM;
	if (!(e = stats_exact_new(ppm, np)))
		return -ENOMEM;
	if (prepare(c->db, "SELECT complete_ns - issue_ns FROM ios WHERE trace_id = ? AND bytes > 0", &st)) {
		stats_exact_free(e);
		return -EIO;
	}
	sqlite3_bind_int64(st, 1, c->id);
	do {
		while ((rc = sqlite3_step(st)) == SQLITE_ROW && !tick(c)) {
			int64_t v = sqlite3_column_int64(st, 0);

			stats_exact_add(e, v > 0 ? (uint64_t)v : 0);
		}
		if (rc != SQLITE_DONE)
			break;
		more = stats_exact_end_pass(e);
		rc = more < 0 ? more : 0;
		sqlite3_reset(st);
	} while (!rc && more == 1);
	rc = rc > 0 ? -EIO : rc;
	sqlite3_finalize(st);
	for (unsigned i = 0; !rc && stats_exact_count(e) && i < np; i++)
		rc = push(s, (double)stats_exact_value(e, i) / 1e3, ppm[i] / 1e4);
	stats_exact_free(e);
	return rc;
}

/* Completions per time bin, as IOPS (or MB/s when mb), up to the trace's
 * own end; empty bins are zeros. */
static int series_rate(struct plot_ctx *c, struct plot_series *s, int mb)
{
	size_t nbins = (size_t)(c->own_ns / c->bin_ns) + 1;
	double *cnt = calloc(nbins, sizeof(*cnt));
	sqlite3_stmt *st;
	int rc;

	if (!cnt)
		return -ENOMEM;
	if (prepare(c->db, "SELECT (complete_ns - ?1) / ?2, count(*), total(bytes) FROM ios "
			   "WHERE trace_id = ?3 GROUP BY 1", &st)) {
		free(cnt);
		return -EIO;
	}
	sqlite3_bind_int64(st, 1, c->t0);
	sqlite3_bind_int64(st, 2, c->bin_ns);
	sqlite3_bind_int64(st, 3, c->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && !tick(c)) {
		int64_t b = sqlite3_column_int64(st, 0);

		if (b >= 0 && (size_t)b < nbins)
			cnt[b] += mb ? sqlite3_column_double(st, 2) / 1e6 : sqlite3_column_double(st, 1);
	}
	rc = finish(st, rc);
	for (size_t b = 0; b < nbins && !rc; b++)
		rc = push(s, (b + 0.5) * c->bin_ns / c->tdiv, cnt[b] / (c->bin_ns / 1e9));
	free(cnt);
	return rc;
}

/* Add depth * (b - a) to the bins that [a, b) covers (times from t0). */
static void add_area(double *acc, size_t nbins, int64_t bin, int64_t a, int64_t b, double depth)
{
	while (a < b) {
		int64_t k = a / bin, end = (k + 1) * bin;

		if (k < 0 || (size_t)k >= nbins)
			return;
		if (end > b)
			end = b;
		acc[k] += depth * (double)(end - a);
		a = end;
	}
}

/* The sweep of the queue-depth chart: events in time order, completions
 * first on a tie (k1 the time, k2 0 completion, 1 issue). */
struct qd_sweep {
	struct plot_ctx *c;
	double *acc;
	size_t nbins;
	int64_t t;
	long depth;
};

static void qd_event(void *ctx, const struct rentry *e)
{
	struct qd_sweep *q = ctx;
	int64_t next = (int64_t)e->k1 - q->c->t0;

	add_area(q->acc, q->nbins, q->c->bin_ns, q->t, next, (double)q->depth);
	q->t = next;
	q->depth += e->k2 ? 1 : -1;
}

/* The same events from SQL, sorted there: for rows further out of time
 * order than the reorder window. */
static int qd_sorted(struct qd_sweep *q)
{
	sqlite3_stmt *st;
	int rc;

	if (prepare(q->c->db, "SELECT t, k FROM (SELECT issue_ns AS t, 1 AS k FROM ios WHERE trace_id = ?1"
			      " UNION ALL SELECT complete_ns, 0 FROM ios WHERE trace_id = ?1) ORDER BY t, k", &st))
		return -EIO;
	sqlite3_bind_int64(st, 1, q->c->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && !tick(q->c)) {
		struct rentry e = { .k1 = (uint64_t)sqlite3_column_int64(st, 0),
				    .k2 = (uint64_t)sqlite3_column_int64(st, 1) };

		qd_event(q, &e);
	}
	return finish(st, rc);
}

/* I/Os in flight from issue to completion, averaged over each time bin:
 * the rows in file order through a bounded reorder window (reorder.h),
 * so memory does not grow with the I/Os. */
static int series_qd(struct plot_ctx *c, struct plot_series *s)
{
	struct qd_sweep q = { .c = c, .nbins = (size_t)(c->own_ns / c->bin_ns) + 1 };
	struct reorder ro;
	sqlite3_stmt *st;
	int rc;

	q.acc = calloc(q.nbins, sizeof(*q.acc));
	if (!q.acc || reorder_init(&ro, 1u << 16, qd_event, &q)) {
		free(q.acc);
		return -ENOMEM;
	}
	if (prepare(c->db, "SELECT " ADB_IOS_ROW_COLUMNS("issue_ns, complete_ns"), &st)) {
		rc = -EIO;
		goto out;
	}
	sqlite3_bind_int64(st, 1, c->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && !tick(c)) {
		struct rentry e = { .k1 = (uint64_t)sqlite3_column_int64(st, 0), .k2 = 1 };

		reorder_push(&ro, &e);
		e.k1 = (uint64_t)sqlite3_column_int64(st, 1);
		e.k2 = 0;
		reorder_push(&ro, &e);
	}
	rc = finish(st, rc);
	reorder_flush(&ro);
	if (!rc && reorder_broken(&ro)) {
		memset(q.acc, 0, q.nbins * sizeof(*q.acc));
		q.t = 0;
		q.depth = 0;
		rc = qd_sorted(&q);
	}
	for (size_t b = 0; b < q.nbins && !rc; b++)
		rc = push(s, (b + 0.5) * c->bin_ns / c->tdiv, q.acc[b] / (double)c->bin_ns);
out:
	reorder_free(&ro);
	free(q.acc);
	return rc;
}

/* The access map: one dot per occupied cell of a 400 x 200 grid, then
 * every k-th of them if still more than PLOT_MAX_POINTS. */
static int series_lba(struct plot_ctx *c, struct plot_series *s)
{
	struct plot_series all = { 0 };
	sqlite3_stmt *st;
	int rc;

	if (prepare(c->db, "SELECT min(issue_ns - ?1), min(sector) FROM ios "
			   "WHERE trace_id = ?2 AND bytes > 0 "
			   "GROUP BY (issue_ns - ?1) * 400 / ?3, sector * 200 / ?4", &st))
		return -EIO;
	sqlite3_bind_int64(st, 1, c->t0);
	sqlite3_bind_int64(st, 2, c->id);
	sqlite3_bind_int64(st, 3, c->span_ns > 0 ? c->span_ns + 1 : 1);
	sqlite3_bind_int64(st, 4, c->max_sector > 0 ? c->max_sector : 1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && !tick(c)) {
		rc = push(&all, sqlite3_column_int64(st, 0) / c->tdiv,
			  sqlite3_column_int64(st, 1) * 512.0 / c->ydiv);
		if (rc)
			break;
	}
	rc = finish(st, rc);
	if (!rc) {
		size_t step = all.n / PLOT_MAX_POINTS + 1;

		for (size_t i = 0; i < all.n && !rc; i += step)
			rc = push(s, all.x[i], all.y[i]);
	}
	free(all.x);
	free(all.y);
	return rc;
}

/* Share of data-carrying I/Os per size class, in %. */
static int series_sizes(struct plot_ctx *c, struct plot_series *s)
{
	double cnt[NSIZE_CLASSES] = { 0 }, total = 0;
	sqlite3_stmt *st;
	int rc;

	if (prepare(c->db, "SELECT bytes, count(*) FROM ios WHERE trace_id = ? AND bytes > 0 "
			   "GROUP BY bytes", &st))
		return -EIO;
	sqlite3_bind_int64(st, 1, c->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && !tick(c)) {
		int64_t bytes = sqlite3_column_int64(st, 0);
		size_t k = 0;

		while (k + 1 < NSIZE_CLASSES && bytes > (int64_t)4096 << k)
			k++;
		cnt[k] += sqlite3_column_double(st, 1);
		total += sqlite3_column_double(st, 1);
	}
	rc = finish(st, rc);
	for (size_t k = 0; k < NSIZE_CLASSES && !rc; k++)
		rc = push(s, (double)k, total > 0 ? cnt[k] * 100 / total : 0);
	return rc;
}

/* Keep every k-th point of all so that at most PLOT_MAX_POINTS remain. */
static int decimate(struct plot_series *all, struct plot_series *s)
{
	size_t step = all->n / PLOT_MAX_POINTS + 1;
	int rc = 0;

	for (size_t i = 0; i < all->n && !rc; i += step)
		rc = push(s, all->x[i], all->y[i]);
	free(all->x);
	free(all->y);
	return rc;
}

/* Latency over time: one dot per occupied cell of a 400 (time) x 200
 * (log10 of the service time, 0.1 µs to 1000 s) grid, the first I/O of
 * the cell by issue; completions not seen (a bound only) are left out. */
static int series_latency_time(struct plot_ctx *c, struct plot_series *s)
{
	enum { GX = 400, GY = 200 };
	unsigned char *seen = calloc(GX * GY, 1);
	struct plot_series all = { 0 };
	sqlite3_stmt *st;
	int rc;

	if (!seen)
		return -ENOMEM;
	if (prepare(c->db, "SELECT issue_ns - ?1, complete_ns - issue_ns FROM ios "
			   "WHERE trace_id = ?2 AND bytes > 0 AND completion = 0 AND complete_ns > issue_ns",
		    &st)) {
		free(seen);
		return -EIO;
	}
	sqlite3_bind_int64(st, 1, c->t0);
	sqlite3_bind_int64(st, 2, c->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && !tick(c)) {
		double t = (double)sqlite3_column_int64(st, 0), us = sqlite3_column_int64(st, 1) / 1e3;
		long gx = (long)(t * GX / (double)(c->span_ns + 1)), gy = lround((log10(us) + 1) * GY / 10);

		gx = gx < 0 ? 0 : gx >= GX ? GX - 1 : gx;
		gy = gy < 0 ? 0 : gy >= GY ? GY - 1 : gy;
		if (seen[gx * GY + gy])
			continue;
		seen[gx * GY + gy] = 1;
		if ((rc = push(&all, t / c->tdiv, us)))
			break;
	}
	rc = finish(st, rc);
	free(seen);
	if (rc) {
		free(all.x);
		free(all.y);
		return rc;
	}
	return decimate(&all, s);
}

/* Seeks per time bin (by issue), as a rate: in issue order per device,
 * an I/O that carries data and does not start at the sector where the
 * device's previous one ended (a device's first I/O is not counted). */
static int series_seeks(struct plot_ctx *c, struct plot_series *s)
{
	enum { MAX_DEVS = 64 };
	struct { int64_t dev, end; } last[MAX_DEVS];
	size_t nbins = (size_t)(c->own_ns / c->bin_ns) + 1, ndev = 0;
	double *cnt = calloc(nbins, sizeof(*cnt));
	sqlite3_stmt *st;
	int rc;

	if (!cnt)
		return -ENOMEM;
	if (prepare(c->db, "SELECT issue_ns - ?1, dev, sector, (bytes + 511) / 512 FROM ios "
			   "WHERE trace_id = ?2 AND bytes > 0 ORDER BY issue_ns, idx", &st)) {
		free(cnt);
		return -EIO;
	}
	sqlite3_bind_int64(st, 1, c->t0);
	sqlite3_bind_int64(st, 2, c->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && !tick(c)) {
		int64_t t = sqlite3_column_int64(st, 0), dev = sqlite3_column_int64(st, 1);
		int64_t sector = sqlite3_column_int64(st, 2), len = sqlite3_column_int64(st, 3);
		size_t d = 0;

		while (d < ndev && last[d].dev != dev)
			d++;
		if (d == ndev) {
			if (ndev == MAX_DEVS)
				continue; /* more devices than a chart tells apart */
			last[ndev].dev = dev;
			last[ndev++].end = sector;
		}
		if (sector != last[d].end && t >= 0 && (size_t)(t / c->bin_ns) < nbins)
			cnt[t / c->bin_ns] += 1;
		last[d].end = sector + len;
	}
	rc = finish(st, rc);
	for (size_t b = 0; b < nbins && !rc; b++)
		rc = push(s, (b + 0.5) * c->bin_ns / c->tdiv, cnt[b] / (c->bin_ns / 1e9));
	free(cnt);
	return rc;
}

/* I/Os per array member: `member` is a bit mask of the members that
 * served a part of the I/O (schemas/array-layouts.md); x = member index
 * 0..31, y = the I/Os whose mask has its bit. *top = highest member + 1. */
static int series_members(struct plot_ctx *c, struct plot_series *s, size_t *top)
{
	double cnt[32] = { 0 };
	sqlite3_stmt *st;
	int rc, any = 0;

	if (prepare(c->db, "SELECT member, count(*) FROM ios WHERE trace_id = ? AND member IS NOT NULL "
			   "GROUP BY member", &st))
		return -EIO;
	sqlite3_bind_int64(st, 1, c->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && !tick(c)) {
		uint32_t m = (uint32_t)sqlite3_column_int64(st, 0);

		for (unsigned b = 0; b < 32; b++)
			if (m >> b & 1) {
				cnt[b] += sqlite3_column_double(st, 1);
				if (b + 1 > *top)
					*top = b + 1;
				any = 1;
			}
	}
	rc = finish(st, rc);
	for (unsigned b = 0; b < 32 && !rc && any; b++)
		rc = push(s, b, cnt[b]);
	return rc;
}

/* btt's breakdown into pd: two series (queue wait Q->D, service D->C),
 * a category per trace (per_proc 0) or per (trace, program) of the eight
 * busiest by I/Os (1); means over the data-carrying I/Os whose completion
 * was seen, in µs or ms (whichever keeps the largest under 10^4). */
static int build_btt(sqlite3 *db, const int64_t *ids, size_t n, int per_proc, struct plot_data *pd)
{
	enum { MAX_PROCS = 8 };
	size_t cap = per_proc ? MAX_PROCS : n, nc = 0;
	double *q = calloc(cap ? cap : 1, sizeof(*q)), *d = calloc(cap ? cap : 1, sizeof(*d)), top = 0;
	sqlite3_stmt *st = NULL;
	int rc = 0;

	pd->cat_names = calloc(cap ? cap : 1, sizeof(*pd->cat_names));
	pd->cat_ptrs = calloc(cap ? cap : 1, sizeof(*pd->cat_ptrs));
	pd->series = calloc(2, sizeof(*pd->series));
	if (!q || !d || !pd->cat_names || !pd->cat_ptrs || !pd->series) {
		rc = -ENOMEM;
		goto out;
	}
	pd->n = 2;
	snprintf(pd->series[0].label, sizeof(pd->series[0].label), "queue wait Q→D");
	snprintf(pd->series[1].label, sizeof(pd->series[1].label), "service D→C");
	if (per_proc) {
		/* the busiest (trace, comm) pairs over all the ids */
		char sql[512];

		snprintf(sql, sizeof(sql),
			 "SELECT g.trace_id, coalesce(nullif(p.comm, ''), '?'), g.q, g.d FROM ("
			 "SELECT trace_id, comm_id, avg(issue_ns - queue_ns) AS q, "
			 "avg(complete_ns - issue_ns) AS d, count(*) AS k FROM ios "
			 "WHERE trace_id IN (SELECT value FROM json_each(?1)) AND bytes > 0 "
			 "AND completion = 0 GROUP BY 1, 2) g LEFT JOIN processes p "
			 "ON p.trace_id = g.trace_id AND p.comm_id = g.comm_id "
			 "ORDER BY g.k DESC, 1, 2 LIMIT %d", MAX_PROCS);
		char list[4096] = "[";

		for (size_t i = 0; i < n && strlen(list) + 24 < sizeof(list); i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%lld", i ? "," : "",
				 (long long)ids[i]);
		strcat(list, "]");
		if (prepare(db, sql, &st)) {
			rc = -EIO;
			goto out;
		}
		sqlite3_bind_text(st, 1, list, -1, SQLITE_TRANSIENT);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW && nc < cap) {
			snprintf(pd->cat_names[nc], sizeof(pd->cat_names[nc]), "%lld %s",
				 (long long)sqlite3_column_int64(st, 0), (const char *)sqlite3_column_text(st, 1));
			q[nc] = sqlite3_column_double(st, 2) / 1e3;
			d[nc++] = sqlite3_column_double(st, 3) / 1e3;
		}
		rc = finish(st, rc);
	} else {
		for (size_t i = 0; i < n && !rc; i++) {
			char label[sizeof(pd->cat_names[0])];

			if ((rc = plot_trace_label(db, ids[i], label, sizeof(label))))
				break;
			if (prepare(db, "SELECT avg(issue_ns - queue_ns), avg(complete_ns - issue_ns) FROM ios "
					"WHERE trace_id = ? AND bytes > 0 AND completion = 0", &st)) {
				rc = -EIO;
				break;
			}
			sqlite3_bind_int64(st, 1, ids[i]);
			rc = sqlite3_step(st);
			if (rc == SQLITE_ROW && sqlite3_column_type(st, 1) != SQLITE_NULL) {
				snprintf(pd->cat_names[nc], sizeof(pd->cat_names[nc]), "%s", label);
				q[nc] = sqlite3_column_double(st, 0) / 1e3;
				d[nc++] = sqlite3_column_double(st, 1) / 1e3;
			}
			rc = finish(st, rc);
		}
	}
	if (rc)
		goto out;
	if (!nc) {
		rc = -ENODATA;
		goto out;
	}
	for (size_t i = 0; i < nc; i++)
		top = fmax(top, fmax(q[i], d[i]));
	for (size_t i = 0; i < nc && !rc; i++) {
		double div = top >= 1e4 ? 1e3 : 1;

		pd->cat_ptrs[i] = pd->cat_names[i];
		rc = push(&pd->series[0], (double)i, fmax(q[i], 0) / div);
		if (!rc)
			rc = push(&pd->series[1], (double)i, fmax(d[i], 0) / div);
	}
	pd->chart.categories = pd->cat_ptrs;
	pd->chart.ncategories = nc;
	pd->chart.y.label = top >= 1e4 ? "mean time (ms)" : "mean time (µs)";
out:
	free(q);
	free(d);
	return rc;
}

static int max_sector(sqlite3 *db, int64_t id, int64_t *out)
{
	sqlite3_stmt *st;
	int rc;

	if (prepare(db, "SELECT max(sector + (bytes + 511) / 512) FROM ios WHERE trace_id = ?", &st))
		return -EIO;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_int64(st, 0) > *out)
		*out = sqlite3_column_int64(st, 0);
	return finish(st, rc);
}

/* The progress line of a chart over several traces: which trace, the
 * time left at the finished traces' pace. */
static void trace_progress(struct progress *prog, enum plot_kind kind, size_t i, size_t n,
			   double within)
{
	char line[256], eta[40];
	double ran;

	if (!prog)
		return;
	ran = progress_elapsed(prog);
	if (within < 0)
		within = 0;
	if (i + within > 0)
		progress_eta(ran / ((double)i + within) * ((double)n - (double)i - within), eta, sizeof(eta));
	else
		snprintf(eta, sizeof(eta), n > 1 ? "ETA after the first" : "ETA ?");
	snprintf(line, sizeof(line), "%s: %s chart, trace %zu of %zu, %.0f s so far, %s", prog->what,
		 kinds[kind].name, i + 1, n, ran, eta);
	progress_text(prog, line);
}

int plot_data_build(sqlite3 *db, enum plot_kind kind, const int64_t *ids, size_t n,
		    struct plot_data *pd)
{
	return plot_data_build_progress(db, kind, ids, n, pd, NULL);
}

int plot_data_build_progress(sqlite3 *db, enum plot_kind kind, const int64_t *ids, size_t n,
			     struct plot_data *pd, struct progress *prog)
{
	struct plot_ctx c = { .db = db, .tdiv = 1e9, .ydiv = 1 << 20 };
	struct plot_series *ps;
	size_t points = 0, members = 0;
	int rc = 0;

	memset(pd, 0, sizeof(*pd));
	if (kind >= PLOT_KIND_COUNT)
		return -EINVAL;
	if (kind == PLOT_BTT || kind == PLOT_BTT_PROCS) {
		for (size_t i = 0; i < n && !rc; i++) {
			char label[16];

			rc = plot_trace_label(db, ids[i], label, sizeof(label)); /* -ENOENT first */
		}
		if (!rc)
			rc = build_btt(db, ids, n, kind == PLOT_BTT_PROCS, pd);
		if (rc) {
			plot_data_free(pd);
			return rc;
		}
		pd->chart.title = kinds[kind].title;
		pd->chart.kind = SVG_BARS;
		pd->chart.x.label = kinds[kind].x_label;
		return 0;
	}
	ps = pd->series = calloc(n ? n : 1, sizeof(*ps));
	if (!ps)
		return -ENOMEM;
	pd->n = n;
	/* Shared axes: the longest span, the highest sector. */
	for (size_t i = 0; i < n && !rc; i++) {
		int64_t t0, t1;
		int empty;

		rc = plot_trace_label(db, ids[i], ps[i].label, sizeof(ps[i].label));
		if (!rc)
			rc = trace_span(db, ids[i], &t0, &t1, &empty);
		if (!rc && !empty && t1 - t0 > c.span_ns)
			c.span_ns = t1 - t0;
		if (!rc && kind == PLOT_LBA)
			rc = max_sector(db, ids[i], &c.max_sector);
	}
	if (rc)
		goto fail;
	c.bin_ns = nice_ns(c.span_ns / PLOT_TIME_BINS);
	pd->bin_ns = c.bin_ns;
	if (c.span_ns < 2000000000)
		c.tdiv = 1e6;
	if ((double)c.max_sector * 512 >= 2.0 * (1 << 30))
		c.ydiv = 1 << 30;

	for (size_t i = 0; i < n && !rc; i++) {
		int64_t t1;
		int empty;

		c.id = ids[i];
		c.prog = prog;
		c.kind = (int)kind;
		c.i = i;
		c.n = n;
		c.rows = 0;
		c.ios = trace_ios(db, ids[i]);
		if (prog) {
			trace_progress(prog, kind, i, n, 0);
			sqlite3_progress_handler(db, 1 << 20, sql_tick, &c);
		}
		rc = trace_span(db, ids[i], &c.t0, &t1, &empty);
		if (rc || empty)
			continue;
		c.own_ns = t1 - c.t0;
		switch (kind) {
		case PLOT_LATENCY_CDF: rc = series_latency_cdf(&c, &ps[i]); break;
		case PLOT_IOPS: rc = series_rate(&c, &ps[i], 0); break;
		case PLOT_MBPS: rc = series_rate(&c, &ps[i], 1); break;
		case PLOT_LATENCY_TIME: rc = series_latency_time(&c, &ps[i]); break;
		case PLOT_SEEKS: rc = series_seeks(&c, &ps[i]); break;
		case PLOT_MEMBERS: rc = series_members(&c, &ps[i], &members); break;
		case PLOT_LBA: rc = series_lba(&c, &ps[i]); break;
		case PLOT_QD: rc = series_qd(&c, &ps[i]); break;
		case PLOT_SIZES: rc = series_sizes(&c, &ps[i]); break;
		default: rc = -EINVAL;
		}
		points += ps[i].n;
	}
	if (prog)
		sqlite3_progress_handler(db, 0, NULL, NULL);
	if (!rc && points == 0)
		rc = -ENODATA;
	if (rc)
		goto fail;

	struct svg_chart *ch = &pd->chart;

	ch->title = kinds[kind].title;
	ch->kind = kinds[kind].svg;
	ch->x.label = kinds[kind].x_label ? kinds[kind].x_label
					  : c.tdiv == 1e6 ? "time (ms)" : "time (s)";
	ch->y.label = kinds[kind].y_label ? kinds[kind].y_label
					  : c.ydiv == (1 << 30) ? "offset (GiB)" : "offset (MiB)";
	if (kind == PLOT_LATENCY_CDF) {
		ch->x.scale = SVG_LOG10;
		ch->y.min = 0;
		ch->y.max = 100;
	} else if (kind == PLOT_SIZES) {
		ch->categories = size_classes;
		ch->ncategories = NSIZE_CLASSES;
	} else if (kind == PLOT_LATENCY_TIME) {
		ch->y.scale = SVG_LOG10;
	} else if (kind == PLOT_MEMBERS) {
		/* members 0 .. the highest any trace used */
		pd->cat_names = calloc(members, sizeof(*pd->cat_names));
		pd->cat_ptrs = calloc(members, sizeof(*pd->cat_ptrs));
		if (!pd->cat_names || !pd->cat_ptrs) {
			rc = -ENOMEM;
			goto fail;
		}
		for (size_t m = 0; m < members; m++) {
			snprintf(pd->cat_names[m], sizeof(pd->cat_names[m]), "%zu", m);
			pd->cat_ptrs[m] = pd->cat_names[m];
		}
		for (size_t i = 0; i < n; i++)
			ps[i].n = ps[i].n < members ? ps[i].n : members;
		ch->categories = pd->cat_ptrs;
		ch->ncategories = members;
	}
	return 0;
fail:
	plot_data_free(pd);
	return rc;
}

void plot_data_free(struct plot_data *pd)
{
	for (size_t i = 0; pd->series && i < pd->n; i++) {
		free(pd->series[i].x);
		free(pd->series[i].y);
	}
	free(pd->series);
	free(pd->cat_names);
	free(pd->cat_ptrs);
	memset(pd, 0, sizeof(*pd));
}

int plot_write(sqlite3 *db, enum plot_kind kind, const int64_t *ids, size_t n,
	       int standalone, FILE *f)
{
	return plot_write_progress(db, kind, ids, n, standalone, f, NULL);
}

int plot_write_progress(sqlite3 *db, enum plot_kind kind, const int64_t *ids, size_t n,
			int standalone, FILE *f, struct progress *prog)
{
	struct plot_data pd;
	struct svg_series *ss;
	int rc = plot_data_build_progress(db, kind, ids, n, &pd, prog);

	if (rc)
		return rc;
	ss = calloc(pd.n ? pd.n : 1, sizeof(*ss));
	if (!ss) {
		plot_data_free(&pd);
		return -ENOMEM;
	}
	for (size_t i = 0; i < pd.n; i++)
		ss[i] = (struct svg_series){ .label = pd.series[i].label, .x = pd.series[i].x,
					     .y = pd.series[i].y, .n = pd.series[i].n };
	pd.chart.standalone = standalone;
	rc = svg_write(f, &pd.chart, ss, pd.n);
	if (rc == -EINVAL)
		rc = -ENODATA;
	free(ss);
	plot_data_free(&pd);
	return rc;
}
