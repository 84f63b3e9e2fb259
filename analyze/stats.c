/*
 * stats.c — compute a report's figures (stats.h has their definitions).
 *
 * The rows of one trace are read once, in file order, into columns in
 * memory (stats_load.c: 79 bytes per I/O with the sorts' scratch);
 * everything that needs an order (issue order
 * for seeks and queue depth, completion order for depth, latency order
 * for percentiles) is then a sort of 64-bit keys in memory (insertion
 * sort when nearly in order, else radix sort: linear), much faster than
 * asking SQLite to ORDER BY ten million rows. The latency percentiles are
 * computed in a second thread meanwhile.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "stats_int.h"

/* Totals, mix, size classes, duration and the per-second series. */
static int basics(struct st_report *rep, const struct cols *c)
{
	uint64_t lo = UINT64_MAX, hi = 0, last_issue = 0;

	rep->ios = c->n;
	for (uint64_t i = 0; i < c->n; i++) {
		unsigned op = c->op[i];

		rep->op[op].ios++;
		rep->op[op].bytes += c->bytes[i];
		rep->bytes += c->bytes[i];
		rep->size_hist[st_size_class(c->bytes[i])][op <= BPT_OP_WRITE ? op : 2]++;
		lo = c->issue[i] < lo ? c->issue[i] : lo;
		hi = c->complete[i] > hi ? c->complete[i] : hi;
		last_issue = c->issue[i] > last_issue ? c->issue[i] : last_issue;
	}
	if (!c->n)
		return 0;
	rep->first_issue_ns = lo;
	rep->last_complete_ns = hi;
	rep->duration_ns = hi > lo ? hi - lo : 0;
	if (rep->duration_ns) {
		rep->iops = (double)c->n * 1e9 / (double)rep->duration_ns;
		rep->mbps = (double)rep->bytes * 1e3 / (double)rep->duration_ns;
	}
	rep->first_second = lo / 1000000000ull;
	rep->nseconds = last_issue / 1000000000ull - rep->first_second + 1;
	if (rep->nseconds > ST_MAX_SECONDS) { /* not a trace a series helps with */
		rep->nseconds = 0;
		return 0;
	}
	rep->series = calloc(rep->nseconds, sizeof(*rep->series));
	if (!rep->series)
		return -ENOMEM;
	for (uint64_t i = 0; i < c->n; i++) {
		struct st_second *s = &rep->series[c->issue[i] / 1000000000ull - rep->first_second];

		s->ios++;
		s->bytes += c->bytes[i];
	}
	return 0;
}

/* Figures of one sorted run of latency keys (the op bits shifted off). */
static void latency_of(const uint64_t *keys, uint64_t n, struct st_latency *l)
{
	uint64_t sum = 0;

	l->n = n;
	for (uint64_t i = 0; i < n; i++)
		sum += keys[i] >> OP_BITS;
	l->mean_ns = n ? (double)sum / (double)n : 0;
	for (int p = 0; p < ST_NPCT - 1; p++)
		l->pct[p] = st_percentile(keys, n, st_pct_ppm[p]) >> OP_BITS;
	l->pct[ST_NPCT - 1] = n ? keys[n - 1] >> OP_BITS : 0;
}

/* Overall and per-op percentiles of one latency column: keys are
 * ns << OP_BITS | op, so one sort gives the overall order, and a stable
 * split by op into tmp gives each op's run, still sorted. */
static void latencies(uint64_t *keys, uint64_t *tmp, uint64_t n,
		      struct st_report *rep, int total)
{
	uint64_t count[BPT_OP__COUNT] = { 0 }, at[BPT_OP__COUNT], start = 0;

	st_sort_u64(keys, tmp, NULL, NULL, n);
	latency_of(keys, n, total ? &rep->all_total : &rep->all_service);
	for (uint64_t i = 0; i < n; i++)
		count[keys[i] & OP_MASK]++; /* the loader keeps op < BPT_OP__COUNT */
	for (unsigned op = 0; op < BPT_OP__COUNT; op++) {
		at[op] = start;
		start += count[op];
	}
	for (uint64_t i = 0; i < n; i++)
		tmp[at[keys[i] & OP_MASK]++] = keys[i];
	start = 0;
	for (unsigned op = 0; op < BPT_OP__COUNT; op++) {
		struct st_op *o = &rep->op[op];

		latency_of(tmp + start, count[op], total ? &o->total : &o->service);
		start += count[op];
	}
}

/* Whether n keys are in ascending order. */
static int in_order(const uint64_t *k, uint64_t n)
{
	for (uint64_t i = 1; i < n; i++)
		if (k[i - 1] > k[i])
			return 0;
	return 1;
}

static uint64_t end_sector(uint64_t sector, uint32_t bytes)
{
	return sector + (bytes + 511ull) / 512;
}

/* Spans per device and the seek classes, with `ord` the rows in issue
 * order (NULL: they are in issue order already). */
static void seeks(struct st_report *rep, const struct cols *c, const uint32_t *ord)
{
	uint64_t prev_end[ST_MAX_DEV];
	uint8_t seen[ST_MAX_DEV] = { 0 };

	for (uint64_t i = 0; i < c->n; i++) {
		struct st_dev *d;
		uint64_t e = end_sector(c->sector[i], c->bytes[i]);

		if (c->dev[i] >= ST_MAX_DEV || !c->bytes[i])
			continue;
		d = &rep->dev[c->dev[i]];
		if (!d->data_ios++) {
			d->span_lo = c->sector[i];
			d->span_hi = e;
		}
		d->span_lo = c->sector[i] < d->span_lo ? c->sector[i] : d->span_lo;
		d->span_hi = e > d->span_hi ? e : d->span_hi;
		rep->data_ios++;
	}
	for (uint64_t j = 0; j < c->n; j++) {
		uint64_t i = ord ? ord[j] : j, dist, span;
		unsigned dev = c->dev[i], k;

		if (dev >= ST_MAX_DEV || !c->bytes[i])
			continue;
		if (seen[dev]) {
			span = rep->dev[dev].span_hi - rep->dev[dev].span_lo;
			dist = c->sector[i] > prev_end[dev] ? c->sector[i] - prev_end[dev]
							    : prev_end[dev] - c->sector[i];
			for (k = 0; dist && k < ST_SEEK_CLASSES - 2; k++)
				if ((unsigned __int128)dist * st_seek_bound[k][1] <=
				    (unsigned __int128)span * st_seek_bound[k][0])
					break;
			rep->seek_hist[dist ? k + 1 : 0]++;
		}
		seen[dev] = 1;
		prev_end[dev] = end_sector(c->sector[i], c->bytes[i]);
	}
	rep->sequential = rep->seek_hist[0];
	uint64_t with_prev = 0;
	for (int k = 0; k < ST_SEEK_CLASSES; k++)
		with_prev += rep->seek_hist[k];
	rep->sequential_share = with_prev ? (double)rep->sequential / (double)with_prev : 0;
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

/* Queue depth over time, busy and idle, from sorted issue and completion
 * times (issues first at equal times, so no empty idle periods). */
static void depth(struct st_report *rep, const uint64_t *issue, const uint64_t *complete,
		  uint64_t n)
{
	uint64_t i = 0, j = 0, d = 0, t_prev = n ? issue[0] : 0;
	long double area = 0;

	while (i < n || j < n) {
		int up = i < n && (j >= n || issue[i] <= complete[j]);
		uint64_t t = up ? issue[i++] : complete[j++];
		uint64_t dt = t > t_prev ? t - t_prev : 0;

		rep->depth_ns[depth_class(d)] += dt;
		area += (long double)d * dt;
		if (d) {
			rep->busy_ns += dt;
		} else if (dt) {
			unsigned k = idle_class(dt);

			rep->idle_ns += dt;
			rep->idle_count[k]++;
			rep->idle_ns_hist[k] += dt;
		}
		if (up)
			d++;
		else if (d)
			d--;
		if (d > rep->max_depth)
			rep->max_depth = (uint32_t)d;
		t_prev = t > t_prev ? t : t_prev;
	}
	rep->mean_depth = rep->duration_ns ? (double)(area / rep->duration_ns) : 0;
}

static int device_names(sqlite3 *db, int64_t id, struct st_report *rep,
			const struct cols *c, struct bpt_error *err)
{
	sqlite3_stmt *st;

	for (uint64_t i = 0; i < c->n; i++)
		if (c->dev[i] < ST_MAX_DEV && c->dev[i] >= rep->ndev)
			rep->ndev = c->dev[i] + 1u;
	if (sqlite3_prepare_v2(db, "SELECT idx, name FROM devices WHERE trace_id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return adb_fail(db, err, "cannot read the devices");
	sqlite3_bind_int64(st, 1, id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t k = sqlite3_column_int64(st, 0);

		if (k >= 0 && k < ST_MAX_DEV)
			snprintf(rep->dev[k].name, sizeof(rep->dev[k].name), "%s",
				 (const char *)sqlite3_column_text(st, 1));
	}
	sqlite3_finalize(st);
	return 0;
}

/* The latency percentiles are independent of the rest and touch only
 * their own fields of the report: they run in a second thread while the
 * first sorts by issue time (about 40% less wall time on two free cores). */
struct lat_job {
	struct cols *c;
	uint64_t *tmp; /* n keys of scratch of its own */
	struct st_report *rep;
};

static void *lat_thread(void *arg)
{
	struct lat_job *j = arg;

	latencies(j->c->svc, j->tmp, j->c->n, j->rep, 0);
	latencies(j->c->tot, j->tmp, j->c->n, j->rep, 1);
	return NULL;
}

int st_report_compute(sqlite3 *db, int64_t trace_id, struct st_report *rep,
		      struct bpt_error *err)
{
	struct cols c;
	struct lat_job job;
	pthread_t thread;
	int rc, threaded;

	memset(rep, 0, sizeof(*rep));
	memset(&c, 0, sizeof(c));
	rep->trace_id = trace_id;
	if ((rc = stats_load(db, trace_id, rep, &c, err)))
		goto out;
	if (c.n > UINT32_MAX) {
		rc = adb_err(err, -E2BIG, "trace %lld: more than 2^32 I/Os", (long long)trace_id);
		goto out;
	}
	if (basics(rep, &c)) {
		rc = adb_err(err, -ENOMEM, "trace %lld: out of memory", (long long)trace_id);
		goto out;
	}
	if ((rc = stats_processes(db, trace_id, rep, &c, err)) ||
	    (rc = device_names(db, trace_id, rep, &c, err)))
		goto out;
	job = (struct lat_job){ &c, c.tmp2, rep };
	threaded = c.n >= 65536 && pthread_create(&thread, NULL, lat_thread, &job) == 0;
	if (!threaded)
		lat_thread(&job);
	if (in_order(c.issue, c.n)) { /* a generated trace: the rows are the issue order */
		seeks(rep, &c, NULL);
	} else {
		for (uint64_t i = 0; i < c.n; i++)
			c.ord[i] = (uint32_t)i;
		st_sort_u64(c.issue, c.tmp, c.ord, c.ordt, c.n); /* c.issue now in issue order */
		seeks(rep, &c, c.ord);
	}
	st_sort_u64(c.complete, c.tmp, NULL, NULL, c.n);
	depth(rep, c.issue, c.complete, c.n);
	if (threaded)
		pthread_join(thread, NULL);
out:
	cols_free(&c);
	if (rc)
		st_report_free(rep);
	return rc;
}

void st_report_free(struct st_report *rep)
{
	if (!rep)
		return;
	free(rep->series);
	rep->series = NULL;
	rep->nseconds = 0;
}
