/*
 * Unit tests of a run's fidelity in analyze (run_verify.c, stats.c's
 * lateness, report_text.c, compare.c): replay --verify's end meta read
 * from a run file and from its imported copy alike, damaged meta shown
 * as unknown, the verdict and its warning, and the replayer's own
 * lateness (issue - sched) worked out by hand.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_testutil.h"
#include "compare.h"
#include "jsonout.h"
#include "report.h"
#include "run_verify.h"

static void teardown(void) { at_cleanup(); }

TestSuite(analyze_fidelity, .fini = teardown);

static const char *const comms[] = { "", "blkpeak" };

/*
 * A run of 100 reads of 4 KiB, one every 10 us, each due (sched) at
 * i * 10 us and issued late by i * 100 ns, except every tenth, issued
 * 50 ns early (lateness 0): as replay writes it, with `end` as end meta
 * (key, value pairs, NULL-terminated) like replay --verify's verify.*.
 */
static void write_run(const char *path, const char *src_digest, const char *target,
		      const char *const *end)
{
	struct bpt_writer_opts o = { 0 };
	struct bpt_header h;
	struct bpt_writer *w;
	struct bpt_error e = { 0 };
	struct bpt_device d = { .major = 7, .size_bytes = 1ull << 30, .logical_block_size = 512,
				.physical_block_size = 4096 };
	uint32_t id;

	bpt_header_init(&h, "replay");
	h.columns = BPT_COL_SCHED | BPT_COL_SOURCE;
	snprintf(d.name, sizeof(d.name), "loop0");
	cr_assert_geq(bpt_header_add_device(&h, &d), 0);
	cr_assert_eq(bpt_header_set_meta(&h, BPT_META_SOURCE_DIGEST, src_digest), 0);
	cr_assert_eq(bpt_header_set_meta(&h, BPT_META_TARGET, target), 0);
	cr_assert_eq(bpt_header_set_meta(&h, BPT_META_TIMING, "original"), 0);
	cr_assert_eq(bpt_writer_create(&w, path, &h, &o, &e), 0, "%s", e.msg);
	for (unsigned i = 0; i < 2; i++)
		cr_assert_eq(bpt_writer_intern(w, comms[i], &id), 0);
	for (int i = 0; i < 100; i++) {
		uint64_t sched = (uint64_t)i * 10000 + 1000;
		uint64_t issue = i % 10 ? sched + (uint64_t)i * 100 : sched - 50;
		struct bpt_record r = at_rec(BPT_OP_READ, issue, issue, issue + 5000,
					     (uint64_t)i * 8, 4096, 9, 1);

		r.sched_ns = sched;
		r.source_index = (uint64_t)i;
		cr_assert_eq(bpt_writer_add(w, &r), 0);
	}
	for (int i = 0; end && end[i]; i += 2)
		cr_assert_eq(bpt_writer_set_end_meta(w, end[i], end[i + 1]), 0);
	cr_assert_eq(bpt_writer_close(w, &e), 0, "%s", e.msg);
}

static const char *const verified_ok[] = {
	"verify.ios", "100", "verify.present", "100", "verify.missing", "0",
	"verify.misplaced", "0", "verify.extra", "3", "verify.lost", "0",
	"verify.issue_err_p50_ns", "14100", "verify.issue_err_p99_ns", "52600",
	"verify.issue_err_max_ns", "171900", "verify.drift", "1.2e-05", NULL,
};
static const char *const verified_bad[] = {
	"verify.ios", "100", "verify.present", "97", "verify.missing", "3",
	"verify.misplaced", "1", "verify.extra", "0", "verify.lost", "12",
	"verify.issue_err_p50_ns", "20000", "verify.issue_err_p99_ns", "90000",
	"verify.issue_err_max_ns", "400000", "verify.drift", "-0.0003", NULL,
};

static char *text_of(void (*print)(FILE *, const void *), const void *arg)
{
	char *out = NULL;
	size_t len;
	FILE *f = open_memstream(&out, &len);

	print(f, arg);
	fclose(f);
	return out;
}

/* The cells of the compare table's row `name`, as one string with the
 * gaps between cells (two or more spaces) made one space (static buffer;
 * "" when there is no such row). */
static const char *cells(const char *t, const char *name)
{
	static char buf[512];
	char want[64];
	const char *p;
	size_t n = 0;

	snprintf(want, sizeof(want), "\n%s ", name);
	buf[0] = '\0';
	if (!(p = strstr(t, want)))
		return buf;
	for (p += strlen(want); *p == ' '; p++)
		;
	for (; *p && *p != '\n' && n < sizeof(buf) - 1; p++)
		if (*p != ' ' || p[-1] != ' ')
			buf[n++] = *p;
	buf[n] = '\0';
	return buf;
}

static void print_report(FILE *f, const void *r) { report_print_text(f, r); }
static void print_report_json(FILE *f, const void *r) { report_print_json(f, r); }
static void print_cmp(FILE *f, const void *c) { cmp_print_text(f, c); }
static void print_cmp_json(FILE *f, const void *c) { cmp_print_json(f, c); }

Test(analyze_fidelity, meta_parsing)
{
	struct run_verify v = { 0 };
	char b[64];

	/* keys that are not verify.* leave it unverified */
	run_verify_meta(&v, "target", "/dev/sda");
	run_verify_meta(&v, "verifyx", "1");
	cr_assert_eq(v.verified, 0);
	cr_assert_str_eq(run_verify_cell(&v, RV_MISSING, b, sizeof(b)), "-");
	cr_assert_eq(run_verify_faithful(&v), -1);
	for (int i = 0; verified_ok[i]; i += 2)
		run_verify_meta(&v, verified_ok[i], verified_ok[i + 1]);
	cr_assert_eq(v.verified, 1);
	cr_assert_eq(v.known, (1u << RV_NFIELDS) - 1);
	cr_assert_eq(v.v[RV_EXTRA], 3);
	cr_assert_eq(v.v[RV_ERR_MAX], 171900);
	cr_assert_float_eq(v.drift, 1.2e-5, 1e-18);
	cr_assert_eq(run_verify_faithful(&v), 1);
	cr_assert_str_eq(run_verify_why(&v, b, sizeof(b)), "");
	cr_assert_str_eq(run_verify_cell(&v, RV_PRESENT, b, sizeof(b)), "100");
	cr_assert_str_eq(run_verify_cell(&v, RV_ERR_P50, b, sizeof(b)), "14.1 us");
	cr_assert_str_eq(run_verify_cell(&v, RV_DRIFT, b, sizeof(b)), "0.0012%");

	/* a damaged figure is unknown, never guessed; the verdict too */
	run_verify_meta(&v, "verify.missing", "-1");
	cr_assert_str_eq(run_verify_cell(&v, RV_MISSING, b, sizeof(b)), "?");
	cr_assert_eq(run_verify_faithful(&v), -1);
	run_verify_meta(&v, "verify.missing", "0x0");
	cr_assert_eq(run_verify_faithful(&v), -1);
	run_verify_meta(&v, "verify.missing", "99999999999999999999");
	cr_assert_eq(run_verify_faithful(&v), -1);
	run_verify_meta(&v, "verify.missing", " 0");
	cr_assert_eq(run_verify_faithful(&v), -1);
	run_verify_meta(&v, "verify.missing", "2x");
	cr_assert_eq(run_verify_faithful(&v), -1);
	run_verify_meta(&v, "verify.missing", "");
	cr_assert_eq(run_verify_faithful(&v), -1);
	run_verify_meta(&v, "verify.missing", NULL);
	cr_assert_eq(run_verify_faithful(&v), -1);
	run_verify_meta(&v, "verify.drift", "nan");
	cr_assert_str_eq(run_verify_cell(&v, RV_DRIFT, b, sizeof(b)), "?");
	/* ...but a known loss makes it unfaithful whatever else is unknown */
	run_verify_meta(&v, "verify.lost", "1");
	cr_assert_eq(run_verify_faithful(&v), 0);
	cr_assert_str_eq(run_verify_why(&v, b, sizeof(b)), "1 event lost by the capture");
	run_verify_meta(&v, "verify.missing", "3");
	run_verify_meta(&v, "verify.misplaced", "1");
	cr_assert_str_eq(run_verify_why(&v, b, sizeof(b)),
			 "3 I/Os missing, 1 misplaced, 1 event lost by the capture");
	/* too small a buffer: cut, never overrun */
	char small[8];
	cr_assert_lt(strlen(run_verify_why(&v, small, sizeof(small))), sizeof(small));

	/* JSON: null when not verified; unknown figures are null */
	struct run_verify none = { 0 };
	char *out = NULL;
	size_t len;
	FILE *f = open_memstream(&out, &len);
	struct jw w;

	jw_init(&w, f, 0);
	jw_arr(&w);
	run_verify_json(&w, &none);
	run_verify_json(&w, &v);
	jw_arr_end(&w);
	jw_finish(&w);
	fclose(f);
	cr_assert_str_eq(out, "[null,{\"ios\":100,\"present\":100,\"missing\":3,\"misplaced\":1,"
			 "\"extra_requests\":3,\"lost_events\":1,\"issue_error\":{\"p50_ns\":14100,"
			 "\"p99_ns\":52600,\"max_ns\":171900},\"drift\":null,\"faithful\":false}]\n");
	free(out);
}

/* The same figures from the run file (footer end meta) and from its
 * imported copy (traces.meta), and the lateness worked out by hand. */
Test(analyze_fidelity, report_file_and_database)
{
	const char *run = at_tmp("run.bpt"), *dbp = at_tmp("f.db");
	struct st_report fr, dr;
	struct bpt_error e = { 0 };

	write_run(run, "00000000000000aa", "/dev/loop9", verified_ok);
	sqlite3 *db = at_open(dbp);
	int64_t id = at_import(db, run);

	cr_assert_eq(st_report_compute_file(run, &fr, 0, 0, &e), 0, "%s", e.msg);
	cr_assert_eq(st_report_compute(db, id, &dr, &e), 0, "%s", e.msg);
	for (const struct st_report *r = &fr;; r = &dr) {
		cr_assert_eq(r->verify.verified, 1);
		cr_assert_eq(r->verify.known, (1u << RV_NFIELDS) - 1);
		cr_assert_eq(r->verify.v[RV_IOS], 100);
		cr_assert_eq(r->verify.v[RV_ERR_P99], 52600);
		cr_assert_float_eq(r->verify.drift, 1.2e-5, 1e-18);
		/* lateness: i * 100 ns for the 90 i not multiples of 10, 0 for
		 * the 10 others (early): sorted, rank 50 is the 40th of the 90
		 * = i 44 (4400 ns); rank 99 the 89th = i 98; max i 99 */
		cr_assert_eq(r->lateness.count, 100);
		cr_assert_eq(r->lateness.pct[0], 4400);
		cr_assert_eq(r->lateness.pct[2], 9800);
		cr_assert_eq(r->lateness.pct[5], 9900);
		if (r == &dr)
			break;
	}
	char *ft = text_of(print_report, &fr), *dt = text_of(print_report, &dr);
	cr_assert(strstr(ft, "  lateness     p50 4.4 us p99 9.8 us max 9.9 us   the replayer's "
			 "own clock"), "%s", ft);
	cr_assert(strstr(ft, "  kernel view  replay --verify: 100 I/Os compared, 100 present, 0 "
			 "missing, 0 misplaced; 0 events lost\n"), "%s", ft);
	cr_assert(strstr(ft, "  issue error  p50 14.1 us p99 52.6 us max 171.9 us   the kernel's "
			 "view: its issue - the due time; drift 0.0012%\n"), "%s", ft);
	cr_assert_null(strstr(ft, "WARNING"), "%s", ft);
	/* the file's report is the imported copy's from its fidelity on */
	cr_assert_str_eq(strstr(ft, "fidelity"), strstr(dt, "fidelity"));
	free(ft);
	free(dt);
	ft = text_of(print_report_json, &fr);
	dt = text_of(print_report_json, &dr);
	cr_assert(strstr(ft, "\"fidelity\":{\"ios\":100,"), "%s", ft);
	cr_assert(strstr(ft, "\"drift\":0.000012000,\"faithful\":true}"), "%s", ft);
	cr_assert(strstr(ft, "\"lateness\":{\"count\":100,"), "%s", ft);
	cr_assert_str_eq(strstr(ft, "\"lateness\""), strstr(dt, "\"lateness\""));
	free(ft);
	free(dt);
	st_report_free(&fr);
	st_report_free(&dr);

	/* a database whose meta is not JSON (hand-made): no fidelity, no error */
	char *sqlerr = NULL;
	cr_assert_eq(sqlite3_exec(db, "UPDATE traces SET meta = '{not json'", NULL, NULL, &sqlerr),
		     SQLITE_OK, "%s", sqlerr);
	cr_assert_eq(st_report_compute(db, id, &dr, &e), 0, "%s", e.msg);
	cr_assert_eq(dr.verify.verified, 0);
	cr_assert_eq(dr.lateness.count, 100);
	st_report_free(&dr);
	sqlite3_close(db);
}

/* compare: "-" for a run without --verify and for the trace, the figures
 * of the others, a warning for the run that is not faithful. */
Test(analyze_fidelity, compare_rows_and_warning)
{
	const char *src = at_tmp("src.bpt"), *plain = at_tmp("plain.bpt"), *good = at_tmp("good.bpt");
	const char *bad = at_tmp("bad.bpt"), *dbp = at_tmp("c.db");
	struct bpt_record r[100];
	struct bpt_error e = { 0 };
	struct cmp c;
	char digest[17];

	for (int i = 0; i < 100; i++)
		r[i] = at_rec(BPT_OP_READ, (uint64_t)i * 10000, (uint64_t)i * 10000,
			      (uint64_t)i * 10000 + 5000, (uint64_t)i * 8, 4096, 9, 1);
	at_write(src, "capture", 1, comms, 2, r, 100, 0, NULL, 0);
	snprintf(digest, sizeof(digest), "%s", at_digest(src));
	write_run(plain, digest, "/dev/loop1", NULL);
	write_run(good, digest, "/dev/loop2", verified_ok);
	write_run(bad, digest, "/dev/loop3", verified_bad);
	sqlite3 *db = at_open(dbp);
	int64_t ids[4] = { at_import(db, src), at_import(db, plain), at_import(db, good),
			   at_import(db, bad) };

	cr_assert_eq(cmp_compute(db, ids, 4, 0, &c, &e), 0, "%s", e.msg);
	char *t = text_of(print_cmp, &c);
	cr_assert(strstr(t, "\nfidelity (replay --verify: the kernel's view, issue - due)\n"), "%s", t);
	/* columns: the trace, the plain run, the good run, the bad run */
	cr_assert_str_eq(cells(t, "  missing"), "- - 0 3", "%s", t);
	cr_assert_str_eq(cells(t, "  lost events"), "- - 0 12", "%s", t);
	cr_assert_str_eq(cells(t, "  issue err p50"), "- - 14.1 us 20.0 us", "%s", t);
	cr_assert_str_eq(cells(t, "  drift"), "- - 0.0012% -0.03%", "%s", t);
	cr_assert_str_eq(cells(t, "  faithful"), "- - yes NO", "%s", t);
	cr_assert_str_eq(cells(t, "  lateness p50"), "- 4.4 us 4.4 us 4.4 us", "%s", t);
	cr_assert(strstr(t, "\nWARNING: single loop3 (trace 4) is not a faithful replay of the "
			 "trace: replay --verify found 3 I/Os missing, 1 misplaced, 12 events lost "
			 "by the capture\n"), "%s", t);
	cr_assert_null(strstr(t, "WARNING: single loop2"), "%s", t);
	char want[256];
	snprintf(want, sizeof(want), "\nsingle loop3 finishes 1.0%% later than %s "
		 "(not a faithful replay)\n", strrchr(src, '/') + 1);
	cr_assert(strstr(t, want), "%s", t);
	snprintf(want, sizeof(want), "\nsingle loop2 finishes 1.0%% later than %s\n",
		 strrchr(src, '/') + 1);
	cr_assert(strstr(t, want), "%s", t);
	free(t);
	t = text_of(print_cmp_json, &c);
	/* the trace and the plain run: no fidelity; the trace no lateness */
	cr_assert(strstr(t, "\"lateness\":null,\"fidelity\":null}"), "%s", t);
	cr_assert(strstr(t, "\"lost_events\":12,\"issue_error\":{\"p50_ns\":20000,\"p99_ns\":90000,"
			 "\"max_ns\":400000},\"drift\":-0.000300000,\"faithful\":false}"), "%s", t);
	free(t);
	cmp_free(&c);

	/* no entry verified: one line instead of ten rows of dashes */
	int64_t unverified[2] = { ids[0], ids[1] };
	cr_assert_eq(cmp_compute(db, unverified, 2, 0, &c, &e), 0, "%s", e.msg);
	t = text_of(print_cmp, &c);
	cr_assert(strstr(t, "issue - due)\n  (no entry ran with replay --verify)\n\n"),
		  "%s", t);
	cr_assert_str_eq(cells(t, "  lateness max"), "- 9.9 us", "%s", t);
	free(t);
	cmp_free(&c);

	/* captures only: no fidelity rows at all */
	int64_t caps[2] = { ids[0], ids[0] };
	cr_assert_eq(cmp_compute(db, caps, 2, 0, &c, &e), 0, "%s", e.msg);
	t = text_of(print_cmp, &c);
	cr_assert_null(strstr(t, "fidelity"), "%s", t);
	free(t);
	cmp_free(&c);
	sqlite3_close(db);
}
