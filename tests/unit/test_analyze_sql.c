/*
 * Every report figure (analyze/stats.c) on a larger random trace, checked
 * against the same figure computed by plain SQL over the ios table: the
 * C code sorts and sweeps in memory, the SQL uses GROUP BY, window
 * functions and ORDER BY ... OFFSET, so a bug in one is not repeated in
 * the other.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_testutil.h"
#include "bpt_testutil.h"
#include "stats_report.h"

static void teardown(void) { at_cleanup(); }

TestSuite(analyze_sql, .fini = teardown);

static const char *const comms[] = { "", "fio", "dd", "postgres", "kworker/1:2" };

static int by_completion(const void *a, const void *b)
{
	const struct bpt_record *x = a, *y = b;

	if (x->complete_ns != y->complete_ns)
		return x->complete_ns < y->complete_ns ? -1 : 1;
	return x->issue_ns < y->issue_ns ? -1 : x->issue_ns > y->issue_ns;
}

/*
 * N I/Os on 3 devices, written in completion order: bursts (several I/Os at the same issue time) and
 * idle gaps from 0 to 3 s, so that depth, idle periods and seconds all
 * vary; I/Os issued exactly when another completes, and some with zero
 * service time (ties between events); sequential runs and random jumps;
 * all five ops; sizes 0 to 1 MiB; queue time unknown (0) now and then; a
 * few errors.
 */
static void write_random(const char *path, size_t n, uint64_t seed)
{
	struct bpt_record *r = calloc(n, sizeof(*r));
	uint64_t t = 1000, next[3] = { 0, 0, 0 };

	for (size_t i = 0; i < n; i++) {
		struct bpt_record *x = &r[i];
		unsigned dev = (unsigned)tu_below(&seed, 3);
		uint64_t g = tu_below(&seed, 100);

		if (i && g >= 30 && g < 35) /* issued the moment the last one completed */
			t = r[i - 1].complete_ns > t ? r[i - 1].complete_ns : t;
		else
			t += g < 30 ? 0 : g < 95 ? tu_below(&seed, 50000)
				: g < 99 ? tu_below(&seed, 20000000) : tu_below(&seed, 3000000000ull);
		x->op = (uint8_t)(tu_below(&seed, 10) < 6 ? BPT_OP_READ
				  : tu_below(&seed, 4) ? BPT_OP_WRITE : tu_below(&seed, BPT_OP__COUNT));
		x->bytes = (uint32_t)(x->op == BPT_OP_FLUSH ? 0 : (1u << tu_below(&seed, 21)));
		x->dev = (uint16_t)dev;
		x->sector = tu_below(&seed, 3) ? next[dev] : (1 + dev) * 1000000 + tu_below(&seed, 1u << 24);
		next[dev] = x->sector + (x->bytes + 511) / 512;
		x->issue_ns = t;
		x->queue_ns = tu_below(&seed, 8) ? t - tu_below(&seed, t < 30000 ? t : 30000) : 0;
		x->complete_ns = t + (tu_below(&seed, 50) ? tu_below(&seed, tu_below(&seed, 20) ? 200000 : 50000000)
					 : 0); /* zero service time now and then */
		x->pid = (uint32_t)(100 + tu_below(&seed, 12));
		x->comm_id = (uint32_t)tu_below(&seed, 5);
		x->error = tu_below(&seed, 500) ? 0 : -5;
		x->flags = (uint8_t)tu_below(&seed, BPT_F__ALL + 1);
	}
	qsort(r, n, sizeof(*r), by_completion); /* as a capture writes them */
	at_write(path, "capture", 3, comms, 5, r, n, 0, NULL, 8192);
	free(r);
}

#define N 100000

static sqlite3 *db;
static int64_t id;
static struct st_report rep;

static void setup(void)
{
	const char *trace = at_tmp("rand.bpt"), *dbp = at_tmp("rand.db");
	struct bpt_error e = { 0 };

	write_random(trace, N, 42);
	db = at_open(dbp);
	id = at_import(db, trace);
	cr_assert_eq(st_report_compute(db, id, &rep, &e), 0, "%s", e.msg);
}

static void done(void)
{
	st_report_free(&rep);
	sqlite3_close(db);
	at_cleanup();
}

#define Q(...) at_int(db, __VA_ARGS__)
#define T "trace_id = %lld"
#define TID (long long)id

Test(analyze_sql, totals_mix_sizes, .init = setup, .fini = done)
{
	cr_assert_eq(rep.ios, N);
	cr_assert_eq(rep.ios, Q("SELECT count(*) FROM ios WHERE " T, TID));
	cr_assert_eq(rep.bytes, Q("SELECT sum(bytes) FROM ios WHERE " T, TID));
	cr_assert_eq(rep.errors, Q("SELECT count(*) FROM ios WHERE error != 0 AND " T, TID));
	cr_assert_eq(rep.first_issue_ns, Q("SELECT min(issue_ns) FROM ios WHERE " T, TID));
	cr_assert_eq(rep.last_complete_ns, Q("SELECT max(complete_ns) FROM ios WHERE " T, TID));
	cr_assert_eq(rep.duration_ns, Q("SELECT max(complete_ns) - min(issue_ns) FROM ios WHERE " T, TID));
	cr_assert_float_eq(rep.iops, at_dbl(db, "SELECT count(*) * 1e9 / (max(complete_ns) - min(issue_ns))"
					    " FROM ios WHERE " T, TID), 1e-6);
	cr_assert_float_eq(rep.mbps, at_dbl(db, "SELECT sum(bytes) * 1e3 / (max(complete_ns) - min(issue_ns))"
					    " FROM ios WHERE " T, TID), 1e-6);
	for (unsigned op = 0; op < BPT_OP__COUNT; op++) {
		cr_assert_eq(rep.op[op].ios, Q("SELECT count(*) FROM ios WHERE op = %u AND " T, op, TID));
		cr_assert_eq(rep.op[op].bytes, Q("SELECT total(bytes) FROM ios WHERE op = %u AND " T, op, TID));
	}
	/* size classes: 0 bytes, then (hi/2, hi] for hi = 1, 2, 4, ... */
	for (unsigned k = 0; k < ST_SIZE_CLASSES; k++) {
		const char *cond = k == 0 ? "bytes = 0"
			: k == ST_SIZE_CLASSES - 1 ? "bytes > (1 << 24)"
			: "bytes * 2 > (1 << (%u - 1)) AND bytes <= (1 << (%u - 1))";
		char sql[256];

		snprintf(sql, sizeof(sql), "SELECT count(*) FROM ios WHERE %s AND op = %%u AND"
			 " trace_id = %%lld", cond);
		for (unsigned col = 0; col < 3; col++) {
			int64_t want = 0;

			for (unsigned op = 0; op < BPT_OP__COUNT; op++)
				if ((op <= BPT_OP_WRITE ? op : 2) == col)
					want += k && k < ST_SIZE_CLASSES - 1 ? Q(sql, k, k, op, TID)
									     : Q(sql, op, TID);
			cr_assert_eq(rep.size_hist[k][col], want, "class %u col %u", k, col);
		}
	}
}

Test(analyze_sql, seeks, .init = setup, .fini = done)
{
	static const char cls[] =
		"WITH d AS (SELECT dev, sector, LAG(sector + (bytes + 511) / 512) OVER"
		"   (PARTITION BY dev ORDER BY issue_ns, idx) AS prev_end"
		"   FROM ios WHERE bytes > 0 AND " T "),"
		" s AS (SELECT dev, max(sector + (bytes + 511) / 512) - min(sector) AS span"
		"   FROM ios WHERE bytes > 0 AND " T " GROUP BY dev),"
		" x AS (SELECT abs(d.sector - d.prev_end) AS dist, s.span FROM d JOIN s USING (dev)"
		"   WHERE d.prev_end IS NOT NULL)"
		" SELECT count(*) FROM x WHERE CASE WHEN dist = 0 THEN 0"
		"   WHEN dist * 1000 <= span THEN 1 WHEN dist * 100 <= span THEN 2"
		"   WHEN dist * 10 <= span THEN 3 WHEN dist * 4 <= span THEN 4"
		"   WHEN dist * 2 <= span THEN 5 ELSE 6 END = %d";

	for (unsigned d = 0; d < 3; d++) {
		cr_assert_eq(rep.dev[d].span_lo, Q("SELECT min(sector) FROM ios WHERE dev = %u AND bytes > 0"
						   " AND " T, d, TID));
		cr_assert_eq(rep.dev[d].span_hi, Q("SELECT max(sector + (bytes + 511) / 512) FROM ios"
						   " WHERE dev = %u AND bytes > 0 AND " T, d, TID));
		cr_assert_eq(rep.dev[d].data_ios, Q("SELECT count(*) FROM ios WHERE dev = %u AND bytes > 0"
						    " AND " T, d, TID));
	}
	cr_assert_eq(rep.ndev, 3);
	uint64_t with_prev = 0;
	for (int k = 0; k < ST_SEEK_CLASSES; k++) {
		cr_assert_eq(rep.seek_hist[k], Q(cls, TID, TID, k), "class %d", k);
		with_prev += rep.seek_hist[k];
	}
	cr_assert_gt(rep.seek_hist[0], N / 3, "the trace has sequential runs");
	cr_assert_eq(with_prev, rep.data_ios - 3);
	cr_assert_float_eq(rep.sequential_share, (double)rep.seek_hist[0] / with_prev, 1e-12);
}

Test(analyze_sql, depth_busy_idle, .init = setup, .fini = done)
{
	/* Events: +1 at each issue, -1 at each completion, issues first at
	 * equal times; the depth after an event holds until the next one. */
	char sql[512];

	snprintf(sql, sizeof(sql),
		 "CREATE TEMP TABLE w AS WITH e AS (SELECT issue_ns AS t, 1 AS d, 0 AS o FROM ios"
		 " WHERE trace_id = %lld UNION ALL SELECT complete_ns, -1, 1 FROM ios WHERE trace_id = %lld)"
		 " SELECT t, sum(d) OVER win AS depth, lead(t) OVER win - t AS len FROM e"
		 " WINDOW win AS (ORDER BY t, o ROWS UNBOUNDED PRECEDING)", TID, TID);
	cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
	for (int k = 0; k < ST_DEPTH_CLASSES; k++) {
		int64_t lo = k ? st_depth_bound[k - 1] + 1 : 0;
		int64_t hi = k < ST_DEPTH_CLASSES - 1 ? st_depth_bound[k] : 1000000000;

		cr_assert_eq(rep.depth_ns[k], Q("SELECT total(len) FROM w WHERE depth BETWEEN %lld AND %lld",
						(long long)lo, (long long)hi), "depth class %d", k);
	}
	cr_assert_eq(rep.max_depth, Q("SELECT max(depth) FROM w"));
	cr_assert_gt(rep.max_depth, 8, "the trace has bursts");
	cr_assert_eq(rep.busy_ns, Q("SELECT total(len) FROM w WHERE depth > 0"));
	cr_assert_eq(rep.idle_ns, Q("SELECT total(len) FROM w WHERE depth = 0"));
	cr_assert_eq(rep.busy_ns + rep.idle_ns, rep.duration_ns);
	cr_assert_gt(rep.idle_ns, 0, "the trace has idle gaps");
	for (int k = 0; k < ST_IDLE_CLASSES; k++) {
		long long lo = k ? (long long)st_idle_bound[k - 1] : 0;
		long long hi = k < ST_IDLE_CLASSES - 1 ? (long long)st_idle_bound[k] : (1ll << 62);

		cr_assert_eq(rep.idle_count[k], Q("SELECT count(*) FROM w WHERE depth = 0 AND len > %lld"
						  " AND len <= %lld", lo, hi), "idle class %d", k);
		cr_assert_eq(rep.idle_ns_hist[k], Q("SELECT total(len) FROM w WHERE depth = 0 AND len > %lld"
						    " AND len <= %lld", lo, hi), "idle class %d", k);
	}
	/* Little's law: the mean outstanding is the summed service time over
	 * the duration */
	cr_assert_float_eq(rep.mean_depth,
			   at_dbl(db, "SELECT total(complete_ns - issue_ns) / (max(complete_ns) - min(issue_ns))"
				  " FROM ios WHERE " T, TID), 1e-9);
}

/* The nearest-rank percentile in SQL: rank ceil(ppm * n / 10^6). */
static int64_t sql_pct(const char *lat, const char *where, uint32_t ppm)
{
	return Q("SELECT %s AS v FROM ios WHERE %s AND " T " ORDER BY v LIMIT 1 OFFSET"
		 " (%u * (SELECT count(*) FROM ios WHERE %s AND " T ") + 999999) / 1000000 - 1",
		 lat, where, TID, ppm, where, TID);
}

static void check_latency(const struct stats_latency *l, const char *lat, const char *where)
{
	cr_assert_eq(l->count, Q("SELECT count(*) FROM ios WHERE %s AND " T, where, TID));
	if (!l->count)
		return;
	for (int p = 0; p < STATS_NPCT - 1; p++)
		cr_assert_eq(l->pct[p], sql_pct(lat, where, stats_pct_ppm[p]), "%s %s %s", lat, where,
			     stats_pct_label[p]);
	cr_assert_eq(l->pct[STATS_NPCT - 1], Q("SELECT max(%s) FROM ios WHERE %s AND " T, lat, where, TID));
	cr_assert_float_eq(l->mean_ns, at_dbl(db, "SELECT avg(%s) FROM ios WHERE %s AND " T, lat, where,
					      TID), 1e-6);
}

Test(analyze_sql, latencies, .init = setup, .fini = done)
{
	char where[32];

	for (unsigned op = 0; op < BPT_OP__COUNT; op++) {
		snprintf(where, sizeof(where), "op = %u", op);
		check_latency(&rep.op[op].service, "complete_ns - issue_ns", where);
		check_latency(&rep.op[op].total, "complete_ns - queue_ns", where);
	}
	check_latency(&rep.all_service, "complete_ns - issue_ns", "1");
	check_latency(&rep.all_total, "complete_ns - queue_ns", "1");
}

Test(analyze_sql, processes_and_seconds, .init = setup, .fini = done)
{
	static const char *const order[2] = { "n DESC, b DESC, pid, comm_id",
					      "b DESC, n DESC, pid, comm_id" };

	cr_assert_eq(rep.nproc_total, Q("SELECT count(*) FROM (SELECT DISTINCT pid, comm_id FROM ios"
					" WHERE " T ")", TID));
	for (int pass = 0; pass < 2; pass++) {
		const struct st_proc *p = pass ? rep.top_bytes : rep.top_ios;
		char *sql = sqlite3_mprintf(
			"SELECT pid, comm, n, b FROM (SELECT pid, comm_id, count(*) AS n, sum(bytes) AS b"
			" FROM ios WHERE trace_id = %lld GROUP BY pid, comm_id) JOIN processes"
			" USING (comm_id) WHERE processes.trace_id = %lld ORDER BY %s LIMIT %d",
			TID, TID, order[pass], ST_TOP);
		sqlite3_stmt *st;
		unsigned i = 0;

		cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
		for (; sqlite3_step(st) == SQLITE_ROW; i++) {
			cr_assert_eq(p[i].pid, (uint32_t)sqlite3_column_int64(st, 0));
			cr_assert_str_eq(p[i].comm, (const char *)sqlite3_column_text(st, 1));
			cr_assert_eq(p[i].ios, (uint64_t)sqlite3_column_int64(st, 2));
			cr_assert_eq(p[i].bytes, (uint64_t)sqlite3_column_int64(st, 3));
		}
		cr_assert_eq(i, ST_TOP);
		cr_assert_eq(pass ? rep.ntop_bytes : rep.ntop_ios, ST_TOP);
		sqlite3_finalize(st);
		sqlite3_free(sql);
	}
	cr_assert_eq(rep.first_second, Q("SELECT min(issue_ns) / 1000000000 FROM ios WHERE " T, TID));
	cr_assert_eq(rep.nseconds, Q("SELECT max(issue_ns) / 1000000000 - min(issue_ns) / 1000000000 + 1"
				     " FROM ios WHERE " T, TID));
	cr_assert_gt(rep.nseconds, 10);
	/* the series, from one GROUP BY; seconds without I/O are 0 */
	sqlite3_stmt *st;
	uint64_t seen = 0, nonzero = 0;
	char sql[256];

	snprintf(sql, sizeof(sql), "SELECT issue_ns / 1000000000 AS s, count(*), sum(bytes) FROM ios"
		 " WHERE trace_id = %lld GROUP BY s", TID);
	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		uint64_t s = (uint64_t)sqlite3_column_int64(st, 0) - rep.first_second;

		cr_assert_lt(s, rep.nseconds);
		cr_assert_eq(rep.series[s].ios, (uint64_t)sqlite3_column_int64(st, 1), "second %llu",
			     (unsigned long long)s);
		cr_assert_eq(rep.series[s].bytes, (uint64_t)sqlite3_column_int64(st, 2));
		seen += rep.series[s].ios;
	}
	sqlite3_finalize(st);
	for (uint64_t s = 0; s < rep.nseconds; s++)
		nonzero += rep.series[s].ios;
	cr_assert_eq(seen, N);
	cr_assert_eq(nonzero, N, "I/Os in seconds SQL has no row for");
}
