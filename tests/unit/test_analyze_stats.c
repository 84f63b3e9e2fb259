/*
 * Unit tests of the report figures (analyze/stats.c) on small hand-made
 * traces whose answers are worked out here, by hand, in the comments.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "analyze_testutil.h"
#include "report.h"
#include "stats_report.h"

static void teardown(void) { at_cleanup(); }

TestSuite(analyze_stats, .fini = teardown);

static const char *const comms[] = { "", "fio", "dd", "postgres" };

/* The text and the JSON report of rep, one after the other (malloc'ed). */
static char *printed(const struct st_report *rep)
{
	char *out;
	size_t len;
	FILE *f = open_memstream(&out, &len);

	report_print_text(f, rep);
	report_print_json(f, rep);
	fclose(f);
	return out;
}

/*
 * Five I/Os on one device, in completion order (ns):
 *   idx op     queue   issue   complete sector bytes  pid comm
 *   0   read       0    1000     11000      0  4096  100 fio
 *   1   read    1000    2000     22000      8  4096  100 fio   (sequential)
 *   2   write  30000   30000     60000   1000  8192  200 dd    (error -5)
 *   3   flush  70000   70000     71000      0     0  200 dd
 *   4   write 100000  101000    200000   2000 65536  300 postgres
 */
static void write_five(const char *path)
{
	struct bpt_record r[5] = {
		at_rec(BPT_OP_READ, 0, 1000, 11000, 0, 4096, 100, 1),
		at_rec(BPT_OP_READ, 1000, 2000, 22000, 8, 4096, 100, 1),
		at_rec(BPT_OP_WRITE, 30000, 30000, 60000, 1000, 8192, 200, 2),
		at_rec(BPT_OP_FLUSH, 70000, 70000, 71000, 0, 0, 200, 2),
		at_rec(BPT_OP_WRITE, 100000, 101000, 200000, 2000, 65536, 300, 3),
	};

	r[0].queue_ns = 0; /* 0 = unknown: taken as the issue time, 1000 */
	r[2].error = -5;
	at_write(path, "capture", 1, comms, 4, r, 5, 0, NULL, 0);
}

Test(analyze_stats, hand_made_five)
{
	const char *trace = at_tmp("five.bpt"), *dbp = at_tmp("five.db");
	struct bpt_error e = { 0 };
	struct st_report rep;
	sqlite3 *db;
	int64_t id;

	write_five(trace);
	db = at_open(dbp);
	id = at_import(db, trace);
	cr_assert_eq(st_report_compute(db, id, &rep, &e), 0, "%s", e.msg);

	/* totals: 5 I/Os, 4096+4096+8192+0+65536 bytes, one error */
	cr_assert_eq(rep.ios, 5);
	cr_assert_eq(rep.bytes, 81920);
	cr_assert_eq(rep.errors, 1);
	/* duration: first issue 1000 to last completion 200000 */
	cr_assert_eq(rep.first_issue_ns, 1000);
	cr_assert_eq(rep.last_complete_ns, 200000);
	cr_assert_eq(rep.duration_ns, 199000);
	cr_assert_float_eq(rep.iops, 5 / 199e-6, 1e-6);
	cr_assert_float_eq(rep.mbps, 81920 / 1e6 / 199e-6, 1e-9);

	/* mix */
	cr_assert_eq(rep.op[BPT_OP_READ].ios, 2);
	cr_assert_eq(rep.op[BPT_OP_READ].bytes, 8192);
	cr_assert_eq(rep.op[BPT_OP_WRITE].ios, 2);
	cr_assert_eq(rep.op[BPT_OP_WRITE].bytes, 73728);
	cr_assert_eq(rep.op[BPT_OP_FLUSH].ios, 1);
	cr_assert_eq(rep.op[BPT_OP_DISCARD].ios, 0);

	/* sizes: 4 KiB is class 13 ((2 KiB, 4 KiB]), 8 KiB 14, 64 KiB 17, 0 is 0 */
	cr_assert_eq(rep.size_hist[13][0], 2);
	cr_assert_eq(rep.size_hist[14][1], 1);
	cr_assert_eq(rep.size_hist[17][1], 1);
	cr_assert_eq(rep.size_hist[0][2], 1);
	uint64_t sum = 0;
	for (int k = 0; k < ST_SIZE_CLASSES; k++)
		sum += rep.size_hist[k][0] + rep.size_hist[k][1] + rep.size_hist[k][2];
	cr_assert_eq(sum, 5);

	/* seeks: data I/Os in issue order 0, 1, 2, 4; span = 0 .. 2000+128;
	 * idx1 starts at 8 = end of idx0: sequential; idx2 at 1000, previous
	 * end 16: 984 sectors; idx4 at 2000, previous end 1016: 984. 984/2128
	 * is 46%: the "<= 50%" class (5). The flush has no data. */
	cr_assert_eq(rep.dev[0].span_lo, 0);
	cr_assert_eq(rep.dev[0].span_hi, 2128);
	cr_assert_eq(rep.dev[0].data_ios, 4);
	cr_assert_eq(rep.data_ios, 4);
	cr_assert_eq(rep.seek_hist[0], 1);
	cr_assert_eq(rep.seek_hist[5], 2);
	cr_assert_eq(rep.seek_hist[1] + rep.seek_hist[2] + rep.seek_hist[3] +
		     rep.seek_hist[4] + rep.seek_hist[6], 0);
	cr_assert_float_eq(rep.sequential_share, 1.0 / 3, 1e-12);

	/* depth over time: [1000,2000) 1, [2000,11000) 2, [11000,22000) 1,
	 * [22000,30000) 0, [30000,60000) 1, [60000,70000) 0, [70000,71000) 1,
	 * [71000,101000) 0, [101000,200000) 1 */
	cr_assert_eq(rep.depth_ns[0], 8000 + 10000 + 30000);
	cr_assert_eq(rep.depth_ns[1], 1000 + 11000 + 30000 + 1000 + 99000);
	cr_assert_eq(rep.depth_ns[2], 9000);
	cr_assert_eq(rep.max_depth, 2);
	cr_assert_float_eq(rep.mean_depth, 160000.0 / 199000, 1e-12);
	cr_assert_eq(rep.busy_ns, 151000);
	cr_assert_eq(rep.idle_ns, 48000);
	/* idle periods 8000 and 10000 (<= 10 us), 30000 (<= 100 us) */
	cr_assert_eq(rep.idle_count[0], 2);
	cr_assert_eq(rep.idle_ns_hist[0], 18000);
	cr_assert_eq(rep.idle_count[1], 1);
	cr_assert_eq(rep.idle_ns_hist[1], 30000);

	/* service: read 10000, 20000; write 30000, 99000; flush 1000 */
	const struct stats_latency *rs = &rep.op[BPT_OP_READ].service;
	cr_assert_eq(rs->count, 2);
	cr_assert_eq(rs->pct[0], 10000);  /* p50: rank ceil(1.0) = 1 */
	cr_assert_eq(rs->pct[1], 20000);  /* p90: rank ceil(1.8) = 2 */
	cr_assert_eq(rs->pct[4], 20000);
	cr_assert_eq(rs->pct[5], 20000);
	cr_assert_float_eq(rs->mean_ns, 15000, 1e-9);
	cr_assert_eq(rep.op[BPT_OP_WRITE].service.pct[0], 30000);
	cr_assert_eq(rep.op[BPT_OP_WRITE].service.pct[5], 99000);
	cr_assert_eq(rep.op[BPT_OP_FLUSH].service.pct[0], 1000);
	/* all: 1000 10000 20000 30000 99000: p50 rank 3, p90 rank ceil(4.5) = 5 */
	cr_assert_eq(rep.all_service.pct[0], 20000);
	cr_assert_eq(rep.all_service.pct[1], 99000);
	cr_assert_float_eq(rep.all_service.mean_ns, 32000, 1e-9);
	/* total: read idx0 has queue 0 (unknown), taken as its issue time:
	 * 10000; idx1 21000; writes 30000 and 100000; flush 1000 */
	const struct stats_latency *rt = &rep.op[BPT_OP_READ].total;
	cr_assert_eq(rt->pct[0], 10000);
	cr_assert_eq(rt->pct[5], 21000);
	cr_assert_eq(rep.op[BPT_OP_WRITE].total.pct[5], 100000);
	/* all total: 1000 10000 21000 30000 100000 */
	cr_assert_eq(rep.all_total.pct[0], 21000);
	cr_assert_float_eq(rep.all_total.mean_ns, 162000 / 5.0, 1e-9);

	/* processes: fio 2 I/Os 8 KiB, dd 2 I/Os 8 KiB, postgres 1 I/O 64 KiB;
	 * ties in I/Os and bytes go by pid */
	cr_assert_eq(rep.nproc_total, 3);
	cr_assert_eq(rep.ntop_ios, 3);
	cr_assert_eq(rep.top_ios[0].pid, 100);
	cr_assert_str_eq(rep.top_ios[0].comm, "fio");
	cr_assert_eq(rep.top_ios[0].ios, 2);
	cr_assert_eq(rep.top_ios[1].pid, 200);
	cr_assert_str_eq(rep.top_ios[1].comm, "dd");
	cr_assert_eq(rep.top_ios[2].pid, 300);
	cr_assert_str_eq(rep.top_bytes[0].comm, "postgres");
	cr_assert_eq(rep.top_bytes[0].bytes, 65536);
	cr_assert_eq(rep.top_bytes[1].pid, 100);

	/* one second of series */
	cr_assert_eq(rep.first_second, 0);
	cr_assert_eq(rep.nseconds, 1);
	cr_assert_eq(rep.series[0].ios, 5);
	cr_assert_eq(rep.series[0].bytes, 81920);

	st_report_free(&rep);
	sqlite3_close(db);
}

/*
 * 10000 reads with service times 1..10000 us in a scrambled order, one
 * at a time (each issued when the previous completed): nearest-rank
 * percentiles are p50 5000, p90 9000, p99 9900, p99.9 9990, p99.99 9999,
 * max 10000 (us). Two devices alternate, each reading backwards 8 KiB at
 * a time. The I/Os cross second boundaries: the series is checked.
 */
Test(analyze_stats, percentiles_and_two_devices)
{
	enum { N = 10000 };
	const char *trace = at_tmp("pct.bpt"), *dbp = at_tmp("pct.db");
	static struct bpt_record r[N];
	struct bpt_error e = { 0 };
	struct st_report rep;
	uint64_t t = 0, per_sec[64] = { 0 };
	sqlite3 *db;

	for (uint32_t i = 0; i < N; i++) {
		uint64_t lat = (uint64_t)((i * 7919u) % N + 1) * 1000; /* a permutation of 1..N us */

		r[i] = at_rec(BPT_OP_READ, t, t, t + lat, (N - 1 - i / 2) * 16, 8192, 1, 1);
		r[i].dev = i % 2;
		per_sec[t / 1000000000u]++;
		t += lat;
	}
	at_write(trace, "capture", 2, comms, 2, r, N, 0, NULL, 0);
	db = at_open(dbp);
	cr_assert_eq(st_report_compute(db, at_import(db, trace), &rep, &e), 0, "%s", e.msg);

	const uint64_t want[STATS_NPCT] = { 5000000, 9000000, 9900000, 9990000, 9999000, 10000000 };
	for (int p = 0; p < STATS_NPCT; p++) {
		cr_assert_eq(rep.op[BPT_OP_READ].service.pct[p], want[p], "%s", stats_pct_label[p]);
		cr_assert_eq(rep.all_total.pct[p], want[p], "%s", stats_pct_label[p]);
	}
	cr_assert_float_eq(rep.all_service.mean_ns, (N + 1) / 2.0 * 1000, 1e-6);
	/* one outstanding at any time, never idle: depth 1 all the time */
	cr_assert_eq(rep.duration_ns, t);
	cr_assert_eq(rep.depth_ns[1], t);
	cr_assert_eq(rep.busy_ns, t);
	cr_assert_eq(rep.idle_ns, 0);
	cr_assert_float_eq(rep.mean_depth, 1.0, 1e-12);
	/* each device: its k-th I/O (k = 0 .. N/2-1) at sector (N-1-k)*16,
	 * 16 sectors long: span [N/2*16, N*16) = 80000 sectors; the next I/O
	 * starts 32 sectors before the previous end: 32/80000 <= 0.1% */
	cr_assert_eq(rep.ndev, 2);
	cr_assert_str_eq(rep.dev[1].name, "loop1");
	cr_assert_eq(rep.dev[0].data_ios, N / 2);
	cr_assert_eq(rep.dev[0].span_lo, N / 2 * 16);
	cr_assert_eq(rep.dev[0].span_hi, N * 16);
	cr_assert_eq(rep.dev[1].span_lo, N / 2 * 16);
	cr_assert_eq(rep.seek_hist[1], N - 2);
	cr_assert_eq(rep.sequential, 0);
	cr_assert_eq(rep.nseconds, t / 1000000000u + 1);
	for (uint64_t s = 0; s < rep.nseconds; s++)
		cr_assert_eq(rep.series[s].ios, per_sec[s], "second %llu", (unsigned long long)s);
	st_report_free(&rep);
	sqlite3_close(db);
}

Test(analyze_stats, helpers)
{
	char b[32];

	cr_assert_eq(st_size_class(0), 0);
	cr_assert_eq(st_size_class(1), 1);
	cr_assert_eq(st_size_class(512), 10);
	cr_assert_eq(st_size_class(513), 11);
	cr_assert_eq(st_size_class(4096), 13);
	cr_assert_eq(st_size_class(UINT32_MAX), ST_SIZE_CLASSES - 1);
	cr_assert_str_eq(st_size_label(13, b, sizeof(b)), "4 KiB");
	cr_assert_str_eq(st_size_label(10, b, sizeof(b)), "512 B");
}

/* Rows far out of order for the reorder windows (a capture written in
 * completion order, latencies from 1 us to 50 ms): a window of 4 entries
 * takes the sorted-query path for depth and seeks, the default window
 * the streaming path; every figure agrees, and agrees with SQL. */
Test(analyze_stats, reorder_fallback_agrees)
{
	enum { N = 3000 };
	const char *trace = at_tmp("ooo.bpt"), *dbp = at_tmp("ooo.db");
	static struct bpt_record r[N];
	struct bpt_error e = { 0 };
	struct st_report a, b;
	uint64_t x = 88172645463325252ull;
	sqlite3 *db;

	for (uint32_t i = 0; i < N; i++) {
		uint64_t lat;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		lat = x % 16 == 0 ? 1000 + x % 50000000 : 1000 + x % 200000;
		r[i] = at_rec(i % 3 ? BPT_OP_READ : BPT_OP_WRITE, i * 5000ull, i * 5000ull + 100,
			      i * 5000ull + 100 + lat, (x >> 20) % 1000000, 4096, 1 + i % 3, 1);
		r[i].dev = (x >> 40) % 2;
	}
	/* completion order, as a capture writes */
	for (uint32_t i = 1; i < N; i++)
		for (uint32_t j = i; j > 0 && r[j - 1].complete_ns > r[j].complete_ns; j--) {
			struct bpt_record t = r[j];

			r[j] = r[j - 1];
			r[j - 1] = t;
		}
	at_write(trace, "capture", 2, comms, 2, r, N, 0, NULL, 0);
	db = at_open(dbp);
	int64_t id = at_import(db, trace);
	cr_assert_eq(st_report_compute_window(db, id, &a, 4, &e), 0, "%s", e.msg);
	cr_assert_eq(st_report_compute(db, id, &b, &e), 0, "%s", e.msg);
	cr_assert(a.depth_resorted && a.seeks_resorted, "the tiny window takes the sorted queries");
	cr_assert(!b.depth_resorted && !b.seeks_resorted, "the default window streams");
	cr_assert_eq(memcmp(a.depth_ns, b.depth_ns, sizeof(a.depth_ns)), 0);
	cr_assert_eq(memcmp(a.seek_hist, b.seek_hist, sizeof(a.seek_hist)), 0);
	cr_assert_eq(memcmp(a.idle_count, b.idle_count, sizeof(a.idle_count)), 0);
	cr_assert_eq(a.max_depth, b.max_depth);
	cr_assert_eq(a.busy_ns, b.busy_ns);
	cr_assert_float_eq(a.mean_depth, b.mean_depth, 1e-12);
	cr_assert_gt(a.max_depth, 8, "the trace has deep overlap: %u", a.max_depth);
	cr_assert_eq(memcmp(&a.all_service, &b.all_service, sizeof(a.all_service)), 0);
	/* Little's law over the rows, in SQL */
	cr_assert_float_eq(a.mean_depth,
			   at_dbl(db, "SELECT total(complete_ns - issue_ns) / (max(complete_ns) - min(issue_ns))"
				  " FROM ios WHERE trace_id = %lld", (long long)id), 1e-9);
	/* seeks against a window function in SQL over issue order */
	cr_assert_eq(a.seek_hist[0], at_int(db, "SELECT count(*) FROM (SELECT sector, lag(sector + (bytes + 511) / 512)"
					 " OVER (PARTITION BY dev ORDER BY issue_ns, idx) AS pe FROM ios"
					 " WHERE trace_id = %lld) WHERE pe = sector", (long long)id));
	st_report_free(&a);
	st_report_free(&b);
	sqlite3_close(db);
}

/* A trace without I/Os: every figure 0, both printers work. */
Test(analyze_stats, empty_trace)
{
	const char *trace = at_tmp("empty.bpt"), *dbp = at_tmp("empty.db");
	struct bpt_error e = { 0 };
	struct st_report rep;
	char *out;
	sqlite3 *db;

	at_write(trace, "capture", 1, comms, 1, NULL, 0, 0, NULL, 0);
	db = at_open(dbp);
	cr_assert_eq(st_report_compute(db, at_import(db, trace), &rep, &e), 0, "%s", e.msg);
	cr_assert_eq(rep.ios, 0);
	cr_assert_eq(rep.duration_ns, 0);
	cr_assert_eq(rep.nseconds, 0);
	cr_assert_eq(rep.all_service.pct[0], 0);
	out = printed(&rep);
	cr_assert(strstr(out, "\"ios\":0,"), "%s", out);
	cr_assert(strstr(out, "\"per_second\":{\"first_second\":0,\"ios_per_s\":[],\"mb_per_s\":[]}"), "%s", out);
	cr_assert(strstr(out, "I/Os        0 (0 with errors)"), "%s", out);
	free(out);
	st_report_free(&rep);
	sqlite3_close(db);
}

/* A capture that lost events: the losses are stored and the report says
 * so, in text and JSON. */
Test(analyze_stats, losses_are_reported)
{
	const char *trace = at_tmp("loss.bpt"), *dbp = at_tmp("loss.db");
	struct bpt_error e = { 0 };
	struct bpt_header h;
	struct bpt_writer *w;
	struct bpt_record r = at_rec(BPT_OP_READ, 0, 10, 20, 0, 4096, 1, 0);
	struct bpt_device d = { .name = "loop0", .major = 7, .logical_block_size = 512 };
	struct st_report rep;
	uint32_t comm;
	char *out;
	sqlite3 *db;

	bpt_header_init(&h, "capture");
	cr_assert_eq(bpt_header_add_device(&h, &d), 0);
	cr_assert_eq(bpt_writer_create(&w, trace, &h, NULL, &e), 0, "%s", e.msg);
	cr_assert_eq(bpt_writer_intern(w, "", &comm), 0);
	cr_assert_eq(bpt_writer_add(w, &r), 0);
	cr_assert_eq(bpt_writer_add_loss(w, 100, 200, 7), 0);
	cr_assert_eq(bpt_writer_add_loss(w, 300, 400, 5), 0);
	cr_assert_eq(bpt_writer_close(w, &e), 0, "%s", e.msg);
	db = at_open(dbp);
	cr_assert_eq(st_report_compute(db, at_import(db, trace), &rep, &e), 0, "%s", e.msg);
	cr_assert_eq(rep.lost_events, 12);
	cr_assert_eq(rep.loss_windows, 2);
	cr_assert_eq(rep.truncated, 0);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM losses WHERE t0_ns = 300 AND t1_ns = 400 AND count = 5"), 1);
	out = printed(&rep);
	cr_assert(strstr(out, "the capture lost 12 events in 2 windows"), "%s", out);
	cr_assert(strstr(out, "\"lost_events\":12,\"loss_windows\":2,\"truncated\":false"), "%s", out);
	free(out);
	st_report_free(&rep);
	sqlite3_close(db);
}

/* A stable sort with payload, checked against a plain one: keys nearly in
 * order (each a few places out: the insertion sort's case), in no order
 * (the radix sort's), and in order but for one key far off late in the
 * array (the insertion sort gives up half way, the radix sort finishes). */
static void check_sort(uint64_t *k, uint64_t n)
{
	uint64_t *tmp = malloc(n * sizeof(*tmp)), *want = malloc(n * sizeof(*want));
	uint32_t *p = malloc(n * sizeof(*p)), *pt = malloc(n * sizeof(*pt));
	uint32_t *wantp = malloc(n * sizeof(*wantp));

	cr_assert(tmp && want && p && pt && wantp);
	for (uint64_t i = 0; i < n; i++) { /* the reference: a stable selection by merging */
		want[i] = k[i];
		wantp[i] = (uint32_t)i;
		p[i] = (uint32_t)i;
	}
	for (uint64_t w = 1; w < n; w *= 2) /* bottom-up merge sort, stable */
		for (uint64_t lo = 0; lo < n; lo += 2 * w) {
			uint64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			uint64_t a = lo, b = mid, o = lo;

			while (a < mid || b < hi)
				if (b >= hi || (a < mid && want[a] <= want[b]))
					tmp[o] = want[a], pt[o++] = wantp[a++];
				else
					tmp[o] = want[b], pt[o++] = wantp[b++];
			memcpy(want + lo, tmp + lo, (hi - lo) * sizeof(*tmp));
			memcpy(wantp + lo, pt + lo, (hi - lo) * sizeof(*pt));
		}
	stats_sort_u64(k, tmp, p, pt, n);
	for (uint64_t i = 0; i < n; i++) {
		cr_assert_eq(k[i], want[i], "key %llu", (unsigned long long)i);
		cr_assert_eq(p[i], wantp[i], "payload %llu", (unsigned long long)i);
	}
	free(tmp), free(want), free(p), free(pt), free(wantp);
}

Test(analyze_stats, sort_nearly_in_order_and_not)
{
	enum { N = 100000 };
	uint64_t *k = malloc(N * sizeof(*k));
	uint64_t x = 88172645463325252ull;

	cr_assert(k);
	for (uint64_t i = 0; i < N; i++) { /* a few places out, with ties */
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		k[i] = i / 2 * 10 + x % 40;
	}
	check_sort(k, N);
	for (uint64_t i = 0; i < N; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		k[i] = x;
	}
	check_sort(k, N);
	for (uint64_t i = 0; i < N; i++)
		k[i] = i * 3;
	k[N - 10] = 7; /* far from its place */
	k[N / 3] = k[N / 3 + 1] + 1;
	check_sort(k, N);
	free(k);
}

/* I/Os whose completion the capture did not see (trace format 1.2) count
 * as I/Os but stay out of the latencies: their complete_ns is a bound. */
Test(analyze_stats, unseen_completions_left_out_of_latencies)
{
	const char *trace = at_tmp("unseen.bpt"), *dbp = at_tmp("unseen.db");
	struct bpt_record r[6];
	struct bpt_error e = { 0 };
	struct st_report rep;
	char *out;
	sqlite3 *db;

	/* four seen reads of 10..40 us, one reused bound at 5 ms, one
	 * pending bound at 9 ms: with them the max would be 9 ms */
	for (int i = 0; i < 4; i++)
		r[i] = at_rec(BPT_OP_READ, 100, 100, 100 + (uint64_t)(i + 1) * 10000, 8 * i, 4096, 1, 1);
	r[4] = at_rec(BPT_OP_READ, 100, 100, 5000000, 64, 4096, 1, 1);
	r[4].completion = BPT_COMPLETION_REUSED;
	r[5] = at_rec(BPT_OP_WRITE, 100, 100, 9000000, 72, 4096, 1, 1);
	r[5].completion = BPT_COMPLETION_PENDING;
	at_write(trace, "capture", 1, comms, 2, r, 6, BPT_COL_COMPLETION, NULL, 0);
	db = at_open(dbp);
	cr_assert_eq(st_report_compute(db, at_import(db, trace), &rep, &e), 0, "%s", e.msg);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM ios WHERE completion = 1"), 1);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM ios WHERE completion = 2"), 1);
	cr_assert_eq(rep.ios, 6);
	cr_assert_eq(rep.op[BPT_OP_WRITE].ios, 1);
	cr_assert_eq(rep.unseen_completions, 2);
	cr_assert_eq(rep.all_service.count, 4);
	cr_assert_eq(rep.all_service.pct[STATS_NPCT - 1], 40000, "max of the seen ones");
	cr_assert_eq(rep.all_total.pct[STATS_NPCT - 1], 40000);
	cr_assert_eq(rep.op[BPT_OP_READ].service.count, 4);
	cr_assert_eq(rep.op[BPT_OP_WRITE].service.count, 0);
	/* the queue depth too: the seen four are all in flight at 100 ns
	 * (max 4); with the two bounds it would be 6, and busy to 9 ms */
	cr_assert_eq(rep.max_depth, 4);
	cr_assert_lt(rep.busy_ns, 50000, "busy %llu ns", (unsigned long long)rep.busy_ns);
	out = printed(&rep);
	cr_assert(strstr(out, "2 I/Os whose completion the capture did not see are left out"), "%s", out);
	cr_assert(strstr(out, "max 4 (I/Os whose completion was seen)"), "%s", out);
	cr_assert(strstr(out, "\"completion_not_seen\":2,"), "%s", out);
	free(out);
	st_report_free(&rep);
	sqlite3_close(db);
}
