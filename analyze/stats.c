/*
 * stats.c — compute a report's figures (stats_report.h has their
 * definitions) in memory that does not grow with the number of I/Os.
 *
 * The rows of one trace are read in file order, one at a time, in two
 * or more passes inside one read transaction:
 *   pass 1  totals, mix, sizes, duration, devices' spans, processes
 *           (a table per process), the first pass of the exact latency
 *           percentiles (common/stats.h), and queue depth over time: the
 *           issues and completions put into time order by a bounded
 *           reorder window (reorder.h);
 *   pass 2  the per-second series (its first second is known now), the
 *           seek classes (they need the spans of pass 1) in issue order
 *           through a reorder window, the second pass of the percentiles;
 *   pass 3+ only when a percentile's bucket was too full to keep (rare).
 * When a window finds the rows too far out of order, that figure is
 * computed again from a sorted SQL query (SQLite sorts in temporary files,
 * in bounded memory too).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "reorder.h"
#include "files_filter.h"
#include "stats_int.h"

/* The latency streams: all I/Os, then each op; service then total;
 * then the lateness of a run's I/Os (LATE). */
#define NLAT (2 * (1 + BPT_OP__COUNT))
#define LATE NLAT
#define NSTREAMS (NLAT + 1)

struct scan {
	struct st_report *rep;
	uint64_t window;
	struct stats_exact *lat[NSTREAMS];
	int lat_more;                 /* another pass is wanted */
	struct proc_table procs;
	struct file_table files;
	struct reorder ro;
	/* depth sweep */
	uint64_t d, t_prev;
	long double area;
	int started;
	/* seeks */
	uint64_t *prev_end; /* rep->ndev entries each, from the seek pass on */
	uint8_t *seen;
	uint64_t last_issue;
};

static struct stats_exact **lat_of(struct scan *s, int total, int op)
{
	return &s->lat[(total ? 1 + BPT_OP__COUNT : 0) + (op < 0 ? 0 : 1 + op)];
}

static void lat_add(struct scan *s, const struct st_row *r)
{
	uint64_t svc = r->complete > r->issue ? r->complete - r->issue : 0;
	uint64_t tot = r->complete > r->queue ? r->complete - r->queue : 0;

	if (r->has_sched) /* as replay's summary: how late it submitted, 0 when early */
		stats_exact_add(s->lat[LATE], r->issue > r->sched ? r->issue - r->sched : 0);
	if (r->completion)
		return; /* completion not seen: complete is only a bound */
	stats_exact_add(*lat_of(s, 0, -1), svc);
	stats_exact_add(*lat_of(s, 0, r->op), svc);
	stats_exact_add(*lat_of(s, 1, -1), tot);
	stats_exact_add(*lat_of(s, 1, r->op), tot);
}

/* End a latency pass: 0 (s->lat_more says whether another is wanted),
 * -ENOMEM or -EINVAL (the rows changed between passes). */
static int lat_end_pass(struct scan *s)
{
	s->lat_more = 0;
	for (int i = 0; i < NSTREAMS; i++) {
		int rc = stats_exact_end_pass(s->lat[i]);

		if (rc < 0)
			return rc;
		s->lat_more |= rc;
	}
	return 0;
}

/* The class of a queue depth, and of an idle period's length: the first
 * class whose (inclusive) upper bound holds it, else the last. */
static unsigned depth_class(uint64_t d)
{
	unsigned k = 0;

	while (k < ST_DEPTH_CLASSES - 1 && d > st_depth_bound[k])
		k++;
	return k;
}

static unsigned idle_class(uint64_t ns)
{
	unsigned k = 0;

	while (k < ST_IDLE_CLASSES - 1 && ns > st_idle_bound[k])
		k++;
	return k;
}

/* One event of the depth sweep, in time order (issues first at equal
 * times, so no empty idle periods): k1 the time, k2 0 issue, 1 completion. */
static void depth_event(void *ctx, const struct rentry *e)
{
	struct scan *s = ctx;
	struct st_report *rep = s->rep;
	uint64_t t = e->k1, dt;

	if (!s->started) {
		s->started = 1;
		s->t_prev = t;
	}
	dt = t > s->t_prev ? t - s->t_prev : 0;
	rep->depth_ns[depth_class(s->d)] += dt;
	s->area += (long double)s->d * dt;
	if (s->d) {
		rep->busy_ns += dt;
	} else if (dt) {
		unsigned k = idle_class(dt);

		rep->idle_ns += dt;
		rep->idle_count[k]++;
		rep->idle_ns_hist[k] += dt;
	}
	if (!e->k2)
		s->d++;
	else if (s->d)
		s->d--;
	if (s->d > rep->max_depth)
		rep->max_depth = (uint32_t)s->d;
	s->t_prev = t > s->t_prev ? t : s->t_prev;
}

static void depth_reset(struct scan *s)
{
	struct st_report *rep = s->rep;

	memset(rep->depth_ns, 0, sizeof(rep->depth_ns));
	memset(rep->idle_count, 0, sizeof(rep->idle_count));
	memset(rep->idle_ns_hist, 0, sizeof(rep->idle_ns_hist));
	rep->busy_ns = rep->idle_ns = 0;
	rep->max_depth = 0;
	s->d = 0;
	s->area = 0;
	s->started = 0;
}

static uint64_t end_sector(uint64_t sector, uint32_t bytes)
{
	return sector + (bytes + 511ull) / 512;
}

/* One data I/O in issue order (ties by file order): its seek class. */
static void seek_event(void *ctx, const struct rentry *e)
{
	struct scan *s = ctx;
	struct st_report *rep = s->rep;
	unsigned dev = e->dev, k;

	if (dev >= rep->ndev || !s->seen)
		return;
	if (s->seen[dev]) {
		uint64_t span = rep->dev[dev].span_hi - rep->dev[dev].span_lo;
		uint64_t dist = e->sector > s->prev_end[dev] ? e->sector - s->prev_end[dev]
							     : s->prev_end[dev] - e->sector;

		for (k = 0; dist && k < ST_SEEK_CLASSES - 2; k++)
			if ((unsigned __int128)dist * st_seek_bound[k][1] <=
			    (unsigned __int128)span * st_seek_bound[k][0])
				break;
		rep->seek_hist[dist ? k + 1 : 0]++;
	}
	s->seen[dev] = 1;
	s->prev_end[dev] = end_sector(e->sector, e->bytes);
}

static void seek_reset(struct scan *s)
{
	memset(s->rep->seek_hist, 0, sizeof(s->rep->seek_hist));
	if (s->seen)
		memset(s->seen, 0, s->rep->ndev);
}

/* The seek pass's per-device state, for the devices pass 1 saw: 0 or
 * -ENOMEM. */
static int seek_alloc(struct scan *s)
{
	size_t n = s->rep->ndev ? s->rep->ndev : 1;

	s->prev_end = calloc(n, sizeof(*s->prev_end));
	s->seen = calloc(n, 1);
	return s->prev_end && s->seen ? 0 : -ENOMEM;
}

/* rep->dev holds at least n entries (new ones zero): 0 or -ENOMEM. The
 * array grows with the highest device index an I/O names, so a trace of
 * many devices costs only what its I/Os use. */
static int dev_reserve(struct st_report *rep, uint32_t n)
{
	uint32_t cap = rep->dev_cap ? rep->dev_cap : 8;
	struct st_dev *d;

	if (n <= rep->dev_cap)
		return 0;
	while (cap < n)
		cap *= 2;
	if (!(d = realloc(rep->dev, (size_t)cap * sizeof(*d))))
		return -ENOMEM;
	memset(d + rep->dev_cap, 0, (size_t)(cap - rep->dev_cap) * sizeof(*d));
	rep->dev = d;
	rep->dev_cap = cap;
	return 0;
}

static int is_data(const struct st_row *r)
{
	return r->bytes != 0; /* every device index (uint16_t) has its figures */
}

static int pass1_row(void *ctx, const struct st_row *r)
{
	struct scan *s = ctx;
	struct st_report *rep = s->rep;
	struct rentry ev = { 0 };

	rep->ios++;
	rep->op[r->op].ios++;
	rep->op[r->op].bytes += r->bytes;
	rep->bytes += r->bytes;
	rep->size_hist[st_size_class(r->bytes)][r->op <= BPT_OP_WRITE ? r->op : 2]++;
	if (rep->ios == 1 || r->issue < rep->first_issue_ns)
		rep->first_issue_ns = r->issue;
	if (r->complete > rep->last_complete_ns)
		rep->last_complete_ns = r->complete;
	if (r->issue > s->last_issue)
		s->last_issue = r->issue;
	if (r->error)
		rep->errors++;
	if (r->completion)
		rep->unseen_completions++;
	if (r->dev >= rep->ndev) {
		if (dev_reserve(rep, r->dev + 1u))
			return -ENOMEM;
		rep->ndev = r->dev + 1u;
	}
	if (is_data(r)) {
		struct st_dev *d = &rep->dev[r->dev];
		uint64_t e = end_sector(r->sector, r->bytes);

		if (!d->data_ios++) {
			d->span_lo = r->sector;
			d->span_hi = e;
		}
		d->span_lo = r->sector < d->span_lo ? r->sector : d->span_lo;
		d->span_hi = e > d->span_hi ? e : d->span_hi;
		rep->data_ios++;
	}
	if (procs_add(&s->procs, r->pid, r->comm, r->bytes) || stfiles_add(&s->files, r))
		return -ENOMEM;
	lat_add(s, r);
	if (r->completion)
		return 0; /* queue depth: its completion is only a bound, far too late */
	ev.k1 = r->issue;
	ev.k2 = 0;
	reorder_push(&s->ro, &ev);
	ev.k1 = r->complete > r->issue ? r->complete : r->issue;
	ev.k2 = 1;
	reorder_push(&s->ro, &ev);
	return 0;
}

static int pass2_row(void *ctx, const struct st_row *r)
{
	struct scan *s = ctx;
	struct st_report *rep = s->rep;

	if (rep->nseconds) {
		struct st_second *sec = &rep->series[r->issue / 1000000000ull - rep->first_second];

		sec->ios++;
		sec->bytes += r->bytes;
	}
	if (is_data(r)) {
		struct rentry ev = { .k1 = r->issue, .k2 = r->idx, .sector = r->sector,
				     .bytes = r->bytes, .dev = r->dev };

		reorder_push(&s->ro, &ev);
	}
	lat_add(s, r);
	return 0;
}

static int latency_row(void *ctx, const struct st_row *r)
{
	lat_add(ctx, r);
	return 0;
}

/* Queue depth from a sorted query, when the rows were too far from time order. */
static int depth_sorted(struct st_source *src, struct scan *s, struct bpt_error *err)
{
	sqlite3 *db = src->db;
	sqlite3_stmt *st;
	char *sql;
	int rc;

	/* the sorted query reads the rows in the database's tables (a
	 * PostgreSQL working copy fetches them now) */
	if ((rc = adb_need_ios(db, src->id, err)))
		return rc;
	depth_reset(s);
	s->rep->depth_resorted = 1;
	sql = sqlite3_mprintf("SELECT t, k FROM (SELECT issue_ns AS t, 0 AS k FROM %s"
			      " WHERE completion = 0 UNION ALL SELECT max(complete_ns, issue_ns), 1"
			      " FROM %s WHERE completion = 0) ORDER BY t, k", src->from, src->from);
	rc = sql ? sqlite3_prepare_v2(db, sql, -1, &st, NULL) : SQLITE_NOMEM;
	sqlite3_free(sql);
	if (rc != SQLITE_OK)
		return adb_fail(db, err, "cannot read the trace");
	src->ops->bind_from(src, st);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct rentry e = { .k1 = (uint64_t)sqlite3_column_int64(st, 0),
				    .k2 = (uint64_t)sqlite3_column_int64(st, 1) };

		depth_event(s, &e);
	}
	rc = rc == SQLITE_DONE ? 0 : adb_fail(db, err, "cannot read the trace");
	sqlite3_finalize(st);
	return rc;
}

/* Seek classes from a sorted query, when the rows were too far from issue order. */
static int seeks_sorted(struct st_source *src, struct scan *s, struct bpt_error *err)
{
	sqlite3 *db = src->db;
	sqlite3_stmt *st;
	char *sql;
	int rc;

	if ((rc = adb_need_ios(db, src->id, err)))
		return rc;
	seek_reset(s);
	s->rep->seeks_resorted = 1;
	sql = sqlite3_mprintf("SELECT dev, sector, bytes FROM %s WHERE bytes > 0 AND dev >= 0"
			      " AND dev < ?2 ORDER BY issue_ns, idx", src->from);
	rc = sql ? sqlite3_prepare_v2(db, sql, -1, &st, NULL) : SQLITE_NOMEM;
	sqlite3_free(sql);
	if (rc != SQLITE_OK)
		return adb_fail(db, err, "cannot read the trace");
	src->ops->bind_from(src, st);
	sqlite3_bind_int(st, 2, ST_MAX_DEV);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct rentry e = { .dev = (uint16_t)sqlite3_column_int(st, 0),
				    .sector = (uint64_t)sqlite3_column_int64(st, 1),
				    .bytes = (uint32_t)sqlite3_column_int64(st, 2) };

		seek_event(s, &e);
	}
	rc = rc == SQLITE_DONE ? 0 : adb_fail(db, err, "cannot read the trace");
	sqlite3_finalize(st);
	return rc;
}

/* Duration, rates, the series' extent (allocated here), mean depth. */
static int after_pass1(struct st_report *rep, struct scan *s)
{
	uint64_t lo = rep->first_issue_ns, hi = rep->last_complete_ns;

	rep->duration_ns = hi > lo ? hi - lo : 0;
	if (rep->duration_ns) {
		rep->iops = (double)rep->ios * 1e9 / (double)rep->duration_ns;
		rep->mbps = (double)rep->bytes * 1e3 / (double)rep->duration_ns;
	}
	rep->mean_depth = rep->duration_ns ? (double)(s->area / rep->duration_ns) : 0;
	if (!rep->ios)
		return 0;
	rep->first_second = lo / 1000000000ull;
	rep->nseconds = s->last_issue / 1000000000ull - rep->first_second + 1;
	if (rep->nseconds > ST_MAX_SECONDS) { /* not a trace a series helps with */
		rep->nseconds = 0;
		return 0;
	}
	rep->series = calloc(rep->nseconds, sizeof(*rep->series));
	return rep->series ? 0 : -ENOMEM;
}

static void sequential_share(struct st_report *rep)
{
	uint64_t with_prev = 0;

	rep->sequential = rep->seek_hist[0];
	for (int k = 0; k < ST_SEEK_CLASSES; k++)
		with_prev += rep->seek_hist[k];
	rep->sequential_share = with_prev ? (double)rep->sequential / (double)with_prev : 0;
}

static int oom(struct bpt_error *err, const struct st_source *src)
{
	return bpt_error_set(err, -ENOMEM, "%s: out of memory", src->name);
}

static int changed(struct bpt_error *err, const struct st_source *src, int rc)
{
	return rc == -ENOMEM ? oom(err, src)
			     : bpt_error_set(err, -EIO, "%s: the rows changed while read", src->name);
}

/* The passes (inside the caller's read transaction for a database). */
static int compute(struct st_source *src, struct scan *s, struct bpt_error *err)
{
	struct st_report *rep = s->rep;
	uint64_t n;
	int rc;

	if ((rc = src->ops->trace_row(src, rep, &n, err)))
		return rc;
	if (src->files) {
		rep->files = src->files;
		rep->files_ios_of = n;
		if ((rc = src->files->recording ? stats_recording_build(src, rep, n, err)
						: stats_keep_build(src, rep, n, err)))
			return rc;
	}
	for (int i = 0; i < NSTREAMS; i++)
		if (!(s->lat[i] = stats_exact_new(stats_pct_ppm, STATS_NPCT)))
			return oom(err, src);
	if (reorder_init(&s->ro, s->window, depth_event, s))
		return oom(err, src);
	if ((rc = stats_scan(src, n, 1, pass1_row, s, err)))
		return rc;
	reorder_flush(&s->ro);
	if (reorder_broken(&s->ro) && (rc = depth_sorted(src, s, err)))
		return rc;
	reorder_free(&s->ro);
	if ((rc = lat_end_pass(s)))
		return changed(err, src, rc);
	if (after_pass1(rep, s))
		return oom(err, src);
	if ((rc = procs_finish(src, rep, &s->procs, err)) ||
	    (rc = stfiles_finish(src, rep, &s->files, err)) ||
	    (rc = src->ops->device_names(src, rep, err)))
		return rc;
	if (!n)
		return 0;
	if (seek_alloc(s) || reorder_init(&s->ro, s->window, seek_event, s))
		return oom(err, src);
	if ((rc = stats_scan(src, n, 2, pass2_row, s, err)))
		return rc;
	reorder_flush(&s->ro);
	if (reorder_broken(&s->ro) && (rc = seeks_sorted(src, s, err)))
		return rc;
	reorder_free(&s->ro);
	sequential_share(rep);
	for (int pass = 3;; pass++) {
		if ((rc = lat_end_pass(s)))
			return changed(err, src, rc);
		if (!s->lat_more)
			break;
		if ((rc = stats_scan(src, n, pass, latency_row, s, err)))
			return rc;
	}
	stats_latency_from(&rep->all_service, *lat_of(s, 0, -1));
	stats_latency_from(&rep->all_total, *lat_of(s, 1, -1));
	stats_latency_from(&rep->lateness, s->lat[LATE]);
	for (int op = 0; op < BPT_OP__COUNT; op++) {
		stats_latency_from(&rep->op[op].service, *lat_of(s, 0, op));
		stats_latency_from(&rep->op[op].total, *lat_of(s, 1, op));
	}
	return 0;
}

static int compute_source(struct st_source *src, struct st_report *rep, uint64_t window,
			  struct bpt_error *err)
{
	struct scan *s = calloc(1, sizeof(*s));
	int rc, own_txn = !src->r && sqlite3_get_autocommit(src->db);

	memset(rep, 0, sizeof(*rep));
	rep->trace_id = src->id;
	if (!s)
		return oom(err, src);
	s->rep = rep;
	s->window = window;
	/* One read transaction: every pass sees the same rows. */
	if (own_txn && (rc = adb_exec(src->db, "BEGIN", err))) {
		free(s);
		return rc;
	}
	rc = compute(src, s, err);
	if (own_txn)
		adb_exec(src->db, "COMMIT", NULL);
	reorder_free(&s->ro);
	stats_keep_free(src);
	procs_free(&s->procs);
	stfiles_free(&s->files);
	for (int i = 0; i < NSTREAMS; i++)
		stats_exact_free(s->lat[i]);
	free(s->prev_end);
	free(s->seen);
	free(s);
	if (rc)
		st_report_free(rep);
	return rc;
}

int st_report_compute_files_window(sqlite3 *db, int64_t trace_id,
				   const struct files_filter *files, struct st_report *rep,
				   uint64_t window, struct bpt_error *err)
{
	struct st_source src;

	st_source_db(&src, db, trace_id);
	src.files = files;
	return compute_source(&src, rep, window, err);
}

static int compute_file(const char *path, const struct files_filter *files,
			struct st_report *rep, uint64_t window, int progress, struct bpt_error *err);

int st_report_compute_window(sqlite3 *db, int64_t trace_id, struct st_report *rep,
			     uint64_t window, struct bpt_error *err)
{
	return st_report_compute_files_window(db, trace_id, NULL, rep, window, err);
}

int st_report_compute_files(sqlite3 *db, int64_t trace_id, const struct files_filter *files,
			    struct st_report *rep, struct bpt_error *err)
{
	return st_report_compute_files_window(db, trace_id, files, rep, ST_REORDER_WINDOW, err);
}

int st_report_compute(sqlite3 *db, int64_t trace_id, struct st_report *rep,
		      struct bpt_error *err)
{
	return st_report_compute_window(db, trace_id, rep, ST_REORDER_WINDOW, err);
}

int st_report_compute_file(const char *path, struct st_report *rep, uint64_t window,
			   int progress, struct bpt_error *err)
{
	return compute_file(path, NULL, rep, window, progress, err);
}

int st_report_compute_file_files(const char *path, const struct files_filter *files,
				 struct st_report *rep, int progress, struct bpt_error *err)
{
	return compute_file(path, files, rep, 0, progress, err);
}

static int compute_file(const char *path, const struct files_filter *files,
			struct st_report *rep, uint64_t window, int progress, struct bpt_error *err)
{
	struct st_source src;
	struct progress prog;
	char what[128];
	int rc;

	if ((rc = st_source_file(&src, path, err))) {
		st_source_file_close(&src);
		memset(rep, 0, sizeof(*rep));
		return rc;
	}
	src.files = files;
	snprintf(what, sizeof(what), "report %s", path);
	progress_init(&prog, what, "I/Os", progress);
	src.progress = &prog;
	rc = compute_source(&src, rep, window ? window : ST_REORDER_WINDOW, err);
	progress_end(&prog);
	st_source_file_close(&src);
	return rc;
}

void st_report_free(struct st_report *rep)
{
	if (!rep)
		return;
	free(rep->series);
	rep->series = NULL;
	rep->nseconds = 0;
	free(rep->dev);
	rep->dev = NULL;
	rep->dev_cap = rep->ndev = 0;
}
