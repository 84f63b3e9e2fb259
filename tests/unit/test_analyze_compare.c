/*
 * Unit tests of `analyze compare` (analyze/compare.c): a trace and two
 * runs of it with known durations, the percentages worked out by hand,
 * what is stored, and the refusal to compare different traces.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_testutil.h"
#include "compare.h"

static void teardown(void) { at_cleanup(); }

TestSuite(analyze_compare, .fini = teardown);

static const char *const comms[] = { "", "app" };

/* 100 reads of 4 KiB one after another, each taking `lat` ns, from
 * t = 0: the trace lasts 100 * lat. */
static void write_serial(const char *path, const char *kind, uint64_t lat,
			 const char *const *meta)
{
	struct bpt_record r[100];

	for (int i = 0; i < 100; i++)
		r[i] = at_rec(BPT_OP_READ, (uint64_t)i * lat, (uint64_t)i * lat,
			      (uint64_t)(i + 1) * lat, (uint64_t)i * 8, 4096, 7, 1);
	at_write(path, kind, 1, comms, 2, r, 100, 0, meta, 0);
}

Test(analyze_compare, trace_and_runs)
{
	const char *src = at_tmp("src.bpt"), *fast = at_tmp("fast.bpt"), *slow = at_tmp("slow.bpt");
	const char *other = at_tmp("other.bpt"), *dbp = at_tmp("cmp.db");
	struct bpt_error e = { 0 };
	struct cmp c;
	char digest[17];
	int64_t *ids, idsrc, idfast, idslow, idother;
	int n;

	write_serial(src, "capture", 100000, NULL); /* 10 ms */
	snprintf(digest, sizeof(digest), "%s", at_digest(src));
	const char *mfast[] = { "source.digest", digest, "target", "raid0:/dev/loop1,/dev/loop2",
				"timing", "afap", NULL };
	const char *mslow[] = { "source.digest", digest, "target", "/dev/loop3", "timing", "afap", NULL };
	write_serial(fast, "replay", 63100, mfast);  /* 6.31 ms */
	write_serial(slow, "replay", 125000, mslow); /* 12.5 ms */
	write_serial(other, "capture", 50000, NULL);

	sqlite3 *db = at_open(dbp);
	idsrc = at_import(db, src);
	idfast = at_import(db, fast);
	idslow = at_import(db, slow);
	idother = at_import(db, other);

	/* one trace id: the trace and its runs, by id */
	cr_assert_eq(cmp_expand_ids(db, &idsrc, 1, &ids, &n, &e), 0, "%s", e.msg);
	cr_assert_eq(n, 3);
	cr_assert_eq(ids[0], idsrc);
	cr_assert_eq(ids[1], idfast);
	cr_assert_eq(ids[2], idslow);
	cr_assert_eq(cmp_compute(db, ids, n, 0, &c, &e), 0, "%s", e.msg);
	free(ids);

	cr_assert_eq(c.n, 3);
	cr_assert_eq(c.e[0].rep.duration_ns, 10000000);
	cr_assert_eq(c.e[1].rep.duration_ns, 6310000);
	cr_assert_eq(c.e[2].rep.duration_ns, 12500000);
	/* time saved (T0 - T) / T0: 36.9% sooner, 25% later */
	cr_assert_float_eq(c.e[0].time_saved_pct, 0, 1e-12);
	cr_assert_float_eq(c.e[1].time_saved_pct, 36.9, 1e-9);
	cr_assert_float_eq(c.e[2].time_saved_pct, -25.0, 1e-9);
	/* speedup T0 / T - 1 */
	cr_assert_float_eq(c.e[1].speedup_pct, (10.0 / 6.31 - 1) * 100, 1e-9);
	cr_assert_float_eq(c.e[2].speedup_pct, -20.0, 1e-9);
	cr_assert_float_eq(c.e[1].rep.iops, 100 / 6.31e-3, 1e-6);
	cr_assert_str_eq(c.e[1].label, "raid0 x2");
	/* the report of a run says what it replayed */
	cr_assert_eq(c.e[0].rep.is_run, 0);
	cr_assert_eq(c.e[1].rep.is_run, 1);
	cr_assert_eq(c.e[1].rep.source_id, idsrc);
	cr_assert_str_eq(c.e[1].rep.source_digest, digest);
	cr_assert_str_eq(c.e[1].rep.target, "raid0:/dev/loop1,/dev/loop2");
	cr_assert_str_eq(c.e[1].rep.timing, "afap");
	cr_assert_eq(c.e[2].rep.all_service.pct[0], 125000);
	cr_assert_eq(c.forced, 0);

	/* stored */
	cr_assert_eq(cmp_store(db, &c, &e), 0, "%s", e.msg);
	cr_assert_gt(c.id, 0);
	cr_assert_eq(at_int(db, "SELECT baseline_trace_id FROM comparisons WHERE id = %lld",
			    (long long)c.id), idsrc);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM comparison_entries WHERE comparison_id = %lld",
			    (long long)c.id), 3);
	cr_assert_float_eq(at_dbl(db, "SELECT time_saved_pct FROM comparison_entries WHERE position = 1"),
			   36.9, 1e-9);
	cr_assert_eq(at_int(db, "SELECT duration_ns FROM comparison_entries WHERE position = 2"), 12500000);
	cr_assert_eq(at_int(db, "SELECT service_p50_ns FROM comparison_entries WHERE position = 1"), 63100);

	/* the text names the winner */
	char *out;
	size_t len;
	FILE *f = open_memstream(&out, &len);
	cmp_print_text(f, &c);
	fclose(f);
	cr_assert(strstr(out, "raid0 x2 finishes 36.9% sooner than"), "%s", out);
	cr_assert(strstr(out, "single loop3 finishes 25.0% later than"), "%s", out);
	free(out);
	cmp_free(&c);

	/* runs only: fine too (same source) */
	int64_t two[2] = { idslow, idfast };
	cr_assert_eq(cmp_compute(db, two, 2, 0, &c, &e), 0, "%s", e.msg);
	cr_assert_float_eq(c.e[1].time_saved_pct, (12.5 - 6.31) / 12.5 * 100, 1e-9);
	cmp_free(&c);

	/* a different trace is refused, unless forced */
	int64_t mixed[2] = { idsrc, idother };
	cr_assert_eq(cmp_compute(db, mixed, 2, 0, &c, &e), -EXDEV);
	cr_assert(strstr(e.msg, "--force"), "%s", e.msg);
	cr_assert_eq(cmp_compute(db, mixed, 2, 1, &c, &e), 0, "%s", e.msg);
	cr_assert_eq(c.forced, 1);
	cmp_free(&c);

	/* one id that is a run, or a trace without runs, is a usage error */
	cr_assert_eq(cmp_expand_ids(db, &idfast, 1, &ids, &n, &e), -EINVAL);
	cr_assert(strstr(e.msg, "is a run"), "%s", e.msg);
	cr_assert_eq(cmp_expand_ids(db, &idother, 1, &ids, &n, &e), -EINVAL);
	cr_assert(strstr(e.msg, "no runs"), "%s", e.msg);
	int64_t none = 999;
	cr_assert_eq(cmp_expand_ids(db, &none, 1, &ids, &n, &e), -ENOENT);
	sqlite3_close(db);
}

/* Repeats of a configuration (compare_group.c), from hand-set durations:
 * the nearest-rank median and the range, time saved against the
 * baseline's median, "within noise" when the ranges of total time
 * overlap, and the headline that says who won, by how much, how sure. */
static void entry(struct cmp *c, int i, const char *label, uint64_t ns)
{
	snprintf(c->e[i].label, sizeof(c->e[i].label), "%s", label);
	snprintf(c->e[i].group, sizeof(c->e[i].group), "%s\ntarget of %s\ncausal", label, label);
	c->e[i].rep.duration_ns = ns;
}

Test(analyze_compare, repeats_median_range_noise_headline)
{
	struct cmp c = { .n = 8 };
	char h[1024];

	c.e = calloc(c.n, sizeof(*c.e));
	cr_assert_not_null(c.e);
	/* base 10, 11, 9 s; raid0 6.2, 6.0, 6.6 s (beyond); raid1 9.5, 11.5 s (within) */
	entry(&c, 0, "single hdd:7200", 10000000000);
	entry(&c, 1, "raid0 x2 64k", 6200000000);
	entry(&c, 2, "single hdd:7200", 11000000000);
	entry(&c, 3, "raid0 x2 64k", 6000000000);
	entry(&c, 4, "raid1 x2", 9500000000);
	entry(&c, 5, "single hdd:7200", 9000000000);
	entry(&c, 6, "raid0 x2 64k", 6600000000);
	entry(&c, 7, "raid1 x2", 11500000000);
	cr_assert_eq(cmp_group(&c), 0);
	cr_assert_eq(c.ng, 3);
	cr_assert_eq(c.g[0].n, 3);
	cr_assert_eq(c.g[1].n, 3);
	cr_assert_eq(c.g[2].n, 2);
	cr_assert_eq(c.g[1].entry[2], 6);
	cr_assert_float_eq(c.g[0].fig[CF_TIME].med, 10e9, 1);
	cr_assert_float_eq(c.g[1].fig[CF_TIME].min, 6.0e9, 1);
	cr_assert_float_eq(c.g[1].fig[CF_TIME].max, 6.6e9, 1);
	/* against the baseline's median (10 s): 38%, range 34-40% */
	cr_assert_float_eq(c.g[1].fig[CF_SAVED].med, 38.0, 1e-9);
	cr_assert_float_eq(c.g[1].fig[CF_SAVED].min, 34.0, 1e-9);
	cr_assert_float_eq(c.g[1].fig[CF_SAVED].max, 40.0, 1e-9);
	cr_assert_float_eq(c.e[2].time_saved_pct, -10.0, 1e-9);
	/* of two runs the median is the lower (nearest rank) */
	cr_assert_float_eq(c.g[2].fig[CF_TIME].med, 9.5e9, 1);
	cr_assert_eq(c.g[0].within_noise, -1);
	cr_assert_eq(c.g[1].within_noise, 0);
	cr_assert_eq(c.g[2].within_noise, 1);
	cr_assert_str_eq(cmp_headline(&c, h, sizeof(h)),
			 "raid0 x2 64k finishes 38.0% sooner than single hdd:7200"
			 " (median of 3, range 34.0\u201340.0%)");
	cmp_how_sure(&c, 2, h, sizeof(h));
	/* 9.5 s is the median: 5% sooner, range -15% to +5% */
	cr_assert_str_eq(h, " (median of 2 vs 3 runs, range -15.0\u20135.0%, within noise)");
	cmp_free(&c);

	/* one run each: no spread to speak of */
	c = (struct cmp){ .n = 2 };
	c.e = calloc(c.n, sizeof(*c.e));
	entry(&c, 0, "a", 100);
	entry(&c, 1, "b", 150);
	cr_assert_eq(cmp_group(&c), 0);
	cr_assert_eq(c.g[1].within_noise, -1);
	cr_assert_str_eq(cmp_headline(&c, h, sizeof(h)),
			 "a is the fastest: b finishes 50.0% later"
			 " (one run each, no range: use replay --repeat)");
	cmp_free(&c);
}
