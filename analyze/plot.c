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

#include "db.h"
#include "plot.h"
#include "run_label.h"
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
};

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

	if (!rc)
		snprintf(buf, len, "%lld %s", (long long)id, label);
	return rc;
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
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
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

/* Completions per time bin, as IOPS, up to the trace's own end; empty
 * bins are zeros. */
static int series_iops(struct plot_ctx *c, struct plot_series *s)
{
	size_t nbins = (size_t)(c->own_ns / c->bin_ns) + 1;
	double *cnt = calloc(nbins, sizeof(*cnt));
	sqlite3_stmt *st;
	int rc;

	if (!cnt)
		return -ENOMEM;
	if (prepare(c->db, "SELECT (complete_ns - ?1) / ?2, count(*) FROM ios "
			   "WHERE trace_id = ?3 GROUP BY 1", &st)) {
		free(cnt);
		return -EIO;
	}
	sqlite3_bind_int64(st, 1, c->t0);
	sqlite3_bind_int64(st, 2, c->bin_ns);
	sqlite3_bind_int64(st, 3, c->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t b = sqlite3_column_int64(st, 0);

		if (b >= 0 && (size_t)b < nbins)
			cnt[b] += sqlite3_column_double(st, 1);
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
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
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
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
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
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
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
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
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

int plot_data_build(sqlite3 *db, enum plot_kind kind, const int64_t *ids, size_t n,
		    struct plot_data *pd)
{
	struct plot_ctx c = { .db = db, .tdiv = 1e9, .ydiv = 1 << 20 };
	struct plot_series *ps;
	size_t points = 0;
	int rc = 0;

	memset(pd, 0, sizeof(*pd));
	if (kind >= PLOT_KIND_COUNT)
		return -EINVAL;
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
		rc = trace_span(db, ids[i], &c.t0, &t1, &empty);
		if (rc || empty)
			continue;
		c.own_ns = t1 - c.t0;
		switch (kind) {
		case PLOT_LATENCY_CDF: rc = series_latency_cdf(&c, &ps[i]); break;
		case PLOT_IOPS: rc = series_iops(&c, &ps[i]); break;
		case PLOT_LBA: rc = series_lba(&c, &ps[i]); break;
		case PLOT_QD: rc = series_qd(&c, &ps[i]); break;
		case PLOT_SIZES: rc = series_sizes(&c, &ps[i]); break;
		default: rc = -EINVAL;
		}
		points += ps[i].n;
	}
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
	memset(pd, 0, sizeof(*pd));
}

int plot_write(sqlite3 *db, enum plot_kind kind, const int64_t *ids, size_t n,
	       int standalone, FILE *f)
{
	struct plot_data pd;
	struct svg_series *ss;
	int rc = plot_data_build(db, kind, ids, n, &pd);

	if (rc)
		return rc;
	ss = calloc(n ? n : 1, sizeof(*ss));
	if (!ss) {
		plot_data_free(&pd);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		ss[i] = (struct svg_series){ .label = pd.series[i].label, .x = pd.series[i].x,
					     .y = pd.series[i].y, .n = pd.series[i].n };
	pd.chart.standalone = standalone;
	rc = svg_write(f, &pd.chart, ss, n);
	if (rc == -EINVAL)
		rc = -ENODATA;
	free(ss);
	plot_data_free(&pd);
	return rc;
}
