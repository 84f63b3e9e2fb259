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
