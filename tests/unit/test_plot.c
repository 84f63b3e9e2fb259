/* Unit tests of the chart data (analyze/plot.c) on a small in-memory
 * database built from schemas/analyze.sql with hand-made I/Os whose
 * IOPS, queue depth, latencies and sizes are known. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"

static sqlite3 *db;

static void exec(const char *sql)
{
	char *err = NULL;

	cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, &err), SQLITE_OK, "%s: %s", sql, err);
}

/* A traces row; first < 0 makes an empty trace (NULL times). */
static void add_trace(int id, const char *path, const char *kind, int ios, int64_t first,
		      int64_t last)
{
	char sql[512], t0[24] = "NULL", t1[24] = "NULL";

	if (first >= 0) {
		snprintf(t0, sizeof(t0), "%lld", (long long)first);
		snprintf(t1, sizeof(t1), "%lld", (long long)last);
	}
	snprintf(sql, sizeof(sql),
		 "INSERT INTO traces (id, digest, path, kind, format_version, columns, ios, bytes, "
		 "first_issue_ns, last_complete_ns, imported_at) VALUES (%d, 'd%d', '%s', '%s', "
		 "'1.0', 0, %d, 0, %s, %s, '2026-01-01T00:00:00Z')", id, id, path, kind, ios, t0, t1);
	exec(sql);
}

/*
 * Trace 1 (a capture): 1000 I/Os, one issued every ms starting at 5 ms,
 * each taking 100 µs, alternately 4 KiB and 64 KiB, sectors 0, 8, 16, ...
 * Trace 2 (a run of it on raid0): the same, taking 50 µs.
 * Trace 3: imported but empty.
 */
static void setup(void)
{
	FILE *f = fopen("schemas/analyze.sql", "r");
	char *schema = NULL;
	size_t len = 0;
	sqlite3_stmt *st;

	cr_assert_not_null(f, "run from the source folder: schemas/analyze.sql");
	cr_assert_eq(getdelim(&schema, &len, '\0', f) > 0, 1);
	fclose(f);
	cr_assert_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
	exec(schema);
	free(schema);

	add_trace(1, "/tmp/x/photo-edit.bpt", "capture", 1000, 5000000, 5000000 + 999000000 + 100000);
	add_trace(2, "/tmp/x/run-raid0.bpt", "replay", 1000, 5000000, 5000000 + 999000000 + 50000);
	add_trace(3, "/tmp/x/empty.bpt", "capture", 0, -1, -1);
	exec("INSERT INTO runs (trace_id, source_digest, target, timing) "
	     "VALUES (2, 'd1', 'raid0:chunk=64k:/dev/loop4,/dev/loop5', 'causal')");
	cr_assert_eq(sqlite3_prepare_v2(db, "INSERT INTO ios (trace_id, idx, queue_ns, issue_ns, "
				"complete_ns, dev, sector, bytes, op, flags, pid, comm_id, cgroup_id, "
				"error) VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, 0, 1, 0, 0, 0)",
				-1, &st, NULL), SQLITE_OK);
	exec("BEGIN");
	for (int t = 1; t <= 2; t++) {
		for (int i = 0; i < 1000; i++) {
			int64_t issue = 5000000 + (int64_t)i * 1000000;

			sqlite3_bind_int(st, 1, t);
			sqlite3_bind_int(st, 2, i);
			sqlite3_bind_int64(st, 3, issue);
			sqlite3_bind_int64(st, 4, issue);
			sqlite3_bind_int64(st, 5, issue + (t == 1 ? 100000 : 50000));
			sqlite3_bind_int64(st, 6, (int64_t)i * 8);
			sqlite3_bind_int(st, 7, i % 2 ? 65536 : 4096);
			sqlite3_bind_int(st, 8, i % 3 ? 0 : 1);
			cr_assert_eq(sqlite3_step(st), SQLITE_DONE);
			sqlite3_reset(st);
		}
	}
	exec("COMMIT");
	sqlite3_finalize(st);
}

static void teardown(void)
{
	sqlite3_close(db);
}

TestSuite(plot, .init = setup, .fini = teardown);

static const int64_t both[] = { 1, 2 };

Test(plot, kinds_parse)
{
	enum plot_kind k;

	cr_assert_eq(plot_kind_parse("latency-cdf", &k), 0);
	cr_assert_eq(k, PLOT_LATENCY_CDF);
	cr_assert_eq(plot_kind_parse("sizes", &k), 0);
	cr_assert_str_eq(plot_kind_name(k), "sizes");
	cr_assert_eq(plot_kind_parse("pie", &k), -EINVAL);
}

Test(plot, labels)
{
	char b[192];

	cr_assert_eq(plot_trace_label(db, 1, b, sizeof(b)), 0);
	cr_assert_str_eq(b, "1 photo-edit.bpt");
	cr_assert_eq(plot_trace_label(db, 2, b, sizeof(b)), 0);
	cr_assert_str_eq(b, "2 raid0 x2 64k"); /* chart_label(): never the path list */
	cr_assert_eq(plot_trace_label(db, 99, b, sizeof(b)), -ENOENT);
}

Test(plot, latency_cdf)
{
	struct plot_data pd;

	cr_assert_eq(plot_data_build(db, PLOT_LATENCY_CDF, both, 2, &pd), 0);
	cr_assert_eq(pd.n, 2);
	for (size_t s = 0; s < 2; s++) {
		struct plot_series *p = &pd.series[s];

		cr_assert_gt(p->n, 100);
		cr_assert_float_eq(p->y[p->n - 1], 100, 1e-9);
		for (size_t i = 0; i < p->n; i++) {
			cr_assert_float_eq(p->x[i], s ? 50 : 100, 1e-9, "all take %s µs", s ? "50" : "100");
			cr_assert(i == 0 || p->y[i] >= p->y[i - 1], "a CDF never falls");
		}
	}
	cr_assert_eq(pd.chart.x.scale, SVG_LOG10);
	plot_data_free(&pd);
}

Test(plot, iops_and_qd)
{
	struct plot_data pd;
	double sum = 0;
	size_t mid;

	cr_assert_eq(plot_data_build(db, PLOT_IOPS, both, 2, &pd), 0);
	cr_assert_str_eq(pd.chart.x.label, "time (ms)");
	mid = pd.series[0].n / 2;
	cr_assert_float_eq(pd.series[0].y[mid], 1000, 1e-6, "one I/O per ms is 1000 IOPS");
	for (size_t i = 0; i < pd.series[0].n; i++)
		sum += pd.series[0].y[i] * (pd.bin_ns / 1e9);
	cr_assert_float_eq(sum, 1000, 1e-6, "every I/O is counted once");
	plot_data_free(&pd);

	cr_assert_eq(plot_data_build(db, PLOT_QD, both, 2, &pd), 0);
	mid = pd.series[0].n / 2;
	cr_assert_float_eq(pd.series[0].y[mid], 0.1, 1e-9, "100 µs busy per ms");
	cr_assert_float_eq(pd.series[1].y[mid], 0.05, 1e-9, "50 µs busy per ms");
	plot_data_free(&pd);
}

Test(plot, lba_and_sizes)
{
	struct plot_data pd;

	cr_assert_eq(plot_data_build(db, PLOT_LBA, both, 2, &pd), 0);
	cr_assert_gt(pd.series[0].n, 100);
	cr_assert_leq(pd.series[0].n, PLOT_MAX_POINTS);
	cr_assert_str_eq(pd.chart.y.label, "offset (MiB)");
	for (size_t i = 0; i < pd.series[0].n; i++)
		cr_assert(pd.series[0].y[i] >= 0 && pd.series[0].y[i] < 4.0, "sectors 0..8000 are < 4 MiB");
	plot_data_free(&pd);

	cr_assert_eq(plot_data_build(db, PLOT_SIZES, both, 2, &pd), 0);
	cr_assert_eq(pd.chart.ncategories, pd.series[0].n);
	cr_assert_float_eq(pd.series[0].y[0], 50, 1e-9, "half are 4 KiB");
	cr_assert_float_eq(pd.series[0].y[4], 50, 1e-9, "half are 64 KiB");
	plot_data_free(&pd);
}

Test(plot, errors_and_svg)
{
	const int64_t missing[] = { 1, 42 }, empty[] = { 3 }, with_empty[] = { 3, 1 };
	struct plot_data pd;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	cr_assert_eq(plot_data_build(db, PLOT_IOPS, missing, 2, &pd), -ENOENT);
	cr_assert_eq(plot_data_build(db, PLOT_IOPS, empty, 1, &pd), -ENODATA);
	cr_assert_eq(plot_data_build(db, PLOT_IOPS, with_empty, 2, &pd), 0);
	cr_assert_eq(pd.series[0].n, 0, "the empty trace is an empty series");
	plot_data_free(&pd);

	f = open_memstream(&buf, &len);
	cr_assert_eq(plot_write(db, PLOT_LBA, both, 2, 1, f), 0);
	fclose(f);
	cr_assert_not_null(strstr(buf, "Access map"));
	cr_assert_not_null(strstr(buf, "data-label=\"2 raid0 x2 64k\""));
	free(buf);
}

/* Trace 4, a capture in completion order: 50000 I/Os, one every 10 µs
 * taking 5 µs, and one I/O issued with the first that completes after
 * the last, so it is the last row: its issue comes 100000 events late,
 * past the reorder window, and the depth is taken from a sorted query.
 * Depth: 0.5 on average from the short ones, 1 from the long one. */
Test(plot, qd_of_rows_far_out_of_order)
{
	const int64_t id4[] = { 4 };
	const int64_t t0 = 1000000, n = 50000, end = t0 + n * 10000;
	struct plot_data pd;
	sqlite3_stmt *st;

	add_trace(4, "/tmp/x/ooo.bpt", "capture", n + 1, t0, end);
	cr_assert_eq(sqlite3_prepare_v2(db, "INSERT INTO ios (trace_id, idx, queue_ns, issue_ns, "
				"complete_ns, dev, sector, bytes, op, flags, pid, comm_id, cgroup_id, "
				"error) VALUES (4, ?, ?, ?, ?, 0, 0, 4096, 0, 0, 1, 0, 0, 0)",
				-1, &st, NULL), SQLITE_OK);
	exec("BEGIN");
	for (int64_t i = 0; i <= n; i++) {
		int64_t issue = i < n ? t0 + i * 10000 : t0, done = i < n ? issue + 5000 : end;

		sqlite3_bind_int64(st, 1, i);
		sqlite3_bind_int64(st, 2, issue);
		sqlite3_bind_int64(st, 3, issue);
		sqlite3_bind_int64(st, 4, done);
		cr_assert_eq(sqlite3_step(st), SQLITE_DONE);
		sqlite3_reset(st);
	}
	exec("COMMIT");
	sqlite3_finalize(st);
	cr_assert_eq(plot_data_build(db, PLOT_QD, id4, 1, &pd), 0);
	cr_assert_gt(pd.series[0].n, 10);
	for (size_t b = 1; b + 1 < pd.series[0].n; b++)
		cr_assert_float_eq(pd.series[0].y[b], 1.5, 1e-9, "bin %zu: %g", b, pd.series[0].y[b]);
	plot_data_free(&pd);

	cr_assert_eq(plot_data_build(db, PLOT_LATENCY_CDF, id4, 1, &pd), 0);
	/* nearest rank: below 100% every point is a 5 µs I/O, at 100% the longest */
	for (size_t i = 0; i < pd.series[0].n; i++)
		cr_assert_float_eq(pd.series[0].x[i], pd.series[0].y[i] < 100 ? 5 : (end - t0) / 1e3,
				   1e-9, "point %zu at %g %%", i, pd.series[0].y[i]);
	plot_data_free(&pd);
}

/* Sum of y * bin over a rate series: the count (or MB) it stands for. */
static double integral(const struct plot_data *pd, size_t s)
{
	double sum = 0;

	for (size_t i = 0; i < pd->series[s].n; i++)
		sum += pd->series[s].y[i] * (double)pd->bin_ns / 1e9;
	return sum;
}

Test(plot, mbps_seeks_latency_time)
{
	struct plot_data pd;

	cr_assert_eq(plot_data_build(db, PLOT_MBPS, both, 2, &pd), 0);
	/* 500 x 4 KiB + 500 x 64 KiB */
	cr_assert_float_eq(integral(&pd, 0), (500 * 4096.0 + 500 * 65536.0) / 1e6, 1e-6);
	cr_assert_str_eq(pd.chart.y.label, "MB per second");
	plot_data_free(&pd);

	/* I/O i starts at sector 8i; the one before ended there only when it
	 * was a 4 KiB one (even i - 1): the even I/Os after the first seek */
	cr_assert_eq(plot_data_build(db, PLOT_SEEKS, both, 2, &pd), 0);
	cr_assert_float_eq(integral(&pd, 0), 499, 1e-6);
	cr_assert_float_eq(integral(&pd, 1), 499, 1e-6);
	plot_data_free(&pd);

	cr_assert_eq(plot_data_build(db, PLOT_LATENCY_TIME, both, 2, &pd), 0);
	cr_assert_eq(pd.chart.y.scale, SVG_LOG10);
	cr_assert_gt(pd.series[0].n, 100);
	for (size_t i = 0; i < pd.series[0].n; i++)
		cr_assert_float_eq(pd.series[0].y[i], 100, 1e-9);
	for (size_t i = 0; i < pd.series[1].n; i++)
		cr_assert_float_eq(pd.series[1].y[i], 50, 1e-9);
	plot_data_free(&pd);
}

Test(plot, btt_and_members)
{
	struct plot_data pd;

	cr_assert_eq(plot_data_build(db, PLOT_BTT, both, 2, &pd), 0);
	cr_assert_eq(pd.n, 2);
	cr_assert_eq(pd.chart.ncategories, 2);
	cr_assert_str_eq(pd.chart.categories[0], "1 photo-edit.bpt");
	cr_assert_str_eq(pd.chart.categories[1], "2 raid0 x2 64k");
	cr_assert_str_eq(pd.series[0].label, "queue wait Q→D");
	cr_assert_float_eq(pd.series[0].y[0], 0, 1e-9);   /* queued = issued */
	cr_assert_float_eq(pd.series[1].y[0], 100, 1e-9); /* µs */
	cr_assert_float_eq(pd.series[1].y[1], 50, 1e-9);
	cr_assert_str_eq(pd.chart.y.label, "mean time (µs)");
	plot_data_free(&pd);

	exec("INSERT INTO processes (trace_id, comm_id, comm) VALUES (1, 0, 'convert')");
	cr_assert_eq(plot_data_build(db, PLOT_BTT_PROCS, both, 2, &pd), 0);
	cr_assert_eq(pd.chart.ncategories, 2);
	cr_assert_str_eq(pd.chart.categories[0], "1 convert");
	cr_assert_str_eq(pd.chart.categories[1], "2 ?"); /* no name recorded */
	plot_data_free(&pd);

	/* no member column: not a run on a virtual array */
	cr_assert_eq(plot_data_build(db, PLOT_MEMBERS, both, 2, &pd), -ENODATA);
	cr_assert_eq(plot_data_build(db, PLOT_BTT, (int64_t[]){ 3 }, 1, &pd), -ENODATA);
	cr_assert_eq(plot_data_build(db, PLOT_BTT, (int64_t[]){ 99 }, 1, &pd), -ENOENT);
}
