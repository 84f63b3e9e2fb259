/*
 * Unit tests of the file columns in the database and of --files
 * (analyze/stats_keep.c): a capture-like trace of 2,000 overlapping I/Os
 * whose data belong to two files (paths in the path table), the rest
 * metadata; the database's report equals the file's, and the sorted
 * queries a tiny reorder window forces are narrowed to the same I/Os as
 * the streamed passes (a report that counted every I/O there would
 * differ).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "analyze_testutil.h"
#include "files_filter.h"
#include "stats_report.h"

static void teardown(void) { at_cleanup(); }

TestSuite(analyze_files, .fini = teardown);

#define N 2000
#define FDEV (8u << 20 | 1)

/* I/O i: data of /d/a.dat (i % 3 == 0), of /d/sub/b.dat (1), metadata
 * (2); caused by task 100 + i % 2 ("w0", "w1"), submitted by "kw". */
static void write_files_trace(const char *path)
{
	static struct bpt_record r[N];
	const char *const comms[] = { "", "kw", "w0", "w1" }; /* the writer's id 0 is "" */
	struct bpt_writer_opts o = { 0 };
	struct bpt_error e = { 0 };
	struct bpt_writer *w;
	struct bpt_header h;
	struct bpt_device d = { .major = 7, .size_bytes = 1ull << 30, .logical_block_size = 512,
				.physical_block_size = 4096 };
	uint64_t x = 42;
	uint32_t id;

	for (uint32_t i = 0; i < N; i++) {
		uint64_t lat;

		x = x * 6364136223846793005ull + 1442695040888963407ull;
		lat = 20000 + (x >> 33) % 400000; /* overlapping, far out of order */
		r[i] = at_rec(BPT_OP_WRITE, i * 3000ull, i * 3000ull + 50, i * 3000ull + 50 + lat,
			      (x >> 20) % 1000000, 4096, 9, 1);
		r[i].file_class = i % 3 == 2 ? BPT_FILE_META : BPT_FILE_DATA;
		r[i].file_dev = FDEV;
		if (i % 3 != 2) {
			r[i].inode = 12 + i % 3;
			r[i].file_offset = (uint64_t)i * 4096;
			r[i].file_bytes = 4096;
		}
		r[i].cause_pid = 100 + i % 2;
		r[i].cause_comm_id = 2 + i % 2;
	}
	for (uint32_t i = 1; i < N; i++) /* completion order */
		for (uint32_t j = i; j > 0 && r[j - 1].complete_ns > r[j].complete_ns; j--) {
			struct bpt_record t = r[j];

			r[j] = r[j - 1];
			r[j - 1] = t;
		}
	bpt_header_init(&h, "capture");
	h.columns = BPT_COL_FILE | BPT_COL_CAUSE;
	snprintf(d.name, sizeof(d.name), "loop0");
	cr_assert_geq(bpt_header_add_device(&h, &d), 0);
	cr_assert_eq(bpt_writer_create(&w, path, &h, &o, &e), 0, "%s", e.msg);
	for (unsigned i = 0; i < 4; i++) {
		cr_assert_eq(bpt_writer_intern(w, comms[i], &id), 0);
		cr_assert_eq(id, i);
	}
	cr_assert_eq(bpt_writer_add_path(w, FDEV, 12, "/d/a.dat"), 0);
	cr_assert_eq(bpt_writer_add_path(w, FDEV, 13, "/d/sub/b.dat"), 0);
	for (size_t i = 0; i < N; i++)
		cr_assert_eq(bpt_writer_add(w, &r[i]), 0, "record %zu", i);
	cr_assert_eq(bpt_writer_close(w, &e), 0, "%s", e.msg);
}

static void same_figures(const struct st_report *a, const struct st_report *b)
{
	cr_assert_eq(a->ios, b->ios);
	cr_assert_eq(a->bytes, b->bytes);
	cr_assert_eq(memcmp(a->depth_ns, b->depth_ns, sizeof(a->depth_ns)), 0);
	cr_assert_eq(memcmp(a->seek_hist, b->seek_hist, sizeof(a->seek_hist)), 0);
	cr_assert_eq(a->max_depth, b->max_depth);
	cr_assert_eq(a->busy_ns, b->busy_ns);
	cr_assert_eq(memcmp(&a->all_service, &b->all_service, sizeof(a->all_service)), 0);
	cr_assert_eq(a->ntop_files, b->ntop_files);
	for (uint32_t i = 0; i < a->ntop_files; i++) {
		cr_assert_str_eq(a->top_files[i].name, b->top_files[i].name);
		cr_assert_eq(a->top_files[i].ios, b->top_files[i].ios);
	}
	cr_assert_eq(a->ntop_ios, b->ntop_ios);
	for (uint32_t i = 0; i < a->ntop_ios; i++) {
		cr_assert_str_eq(a->top_ios[i].comm, b->top_ios[i].comm);
		cr_assert_eq(a->top_ios[i].ios, b->top_ios[i].ios);
	}
}

Test(analyze_files, database_equals_file_and_sorted_queries_are_narrowed)
{
	const char *trace = at_tmp("files.bpt"), *dbp = at_tmp("files.db");
	struct files_filter ff = { 0 };
	struct st_report f, d, small, all;
	struct bpt_error e = { 0 };
	sqlite3 *db;
	int64_t id;

	write_files_trace(trace);
	db = at_open(dbp);
	id = at_import(db, trace);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM io_files"), N - N / 3); /* i % 3 != 2 */
	cr_assert_eq(at_int(db, "SELECT count(*) FROM paths WHERE trace_id = %lld", (long long)id), 2);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM io_detail WHERE file_path = '/d/sub/b.dat'"
			    " AND cause_comm IN ('w0', 'w1') AND file = 'data'"), (N + 1) / 3);

	/* every I/O: the database's report is the file's, By program by cause */
	cr_assert_eq(st_report_compute_file(trace, &f, 0, 0, &e), 0, "%s", e.msg);
	cr_assert_eq(st_report_compute(db, id, &d, &e), 0, "%s", e.msg);
	same_figures(&f, &d);
	cr_assert_eq(d.ntop_files, 2);
	cr_assert_str_eq(d.top_ios[0].comm, "w0", "credited to the cause, not the submitter");
	st_report_free(&f);
	st_report_free(&d);

	/* --files '/d/sub/\*' --files :metadata: 2 of each 3 I/Os */
	cr_assert_eq(files_filter_add(&ff, "/d/sub/*", &e), 0, "%s", e.msg);
	cr_assert_eq(files_filter_add(&ff, ":metadata", &e), 0, "%s", e.msg);
	cr_assert_eq(st_report_compute_file_files(trace, &ff, &f, 0, &e), 0, "%s", e.msg);
	cr_assert_eq(st_report_compute_files(db, id, &ff, &d, &e), 0, "%s", e.msg);
	cr_assert_eq(st_report_compute_files_window(db, id, &ff, &small, 4, &e), 0, "%s", e.msg);
	cr_assert_eq(st_report_compute(db, id, &all, &e), 0, "%s", e.msg);
	cr_assert_eq(d.ios, N - (N + 2) / 3, "%llu", (unsigned long long)d.ios);
	cr_assert_eq(d.files_ios_of, N);
	cr_assert(small.depth_resorted && small.seeks_resorted, "the tiny window takes the sorted queries");
	cr_assert(!d.depth_resorted && !d.seeks_resorted);
	same_figures(&f, &d);
	same_figures(&d, &small);
	cr_assert_neq(memcmp(d.depth_ns, all.depth_ns, sizeof(d.depth_ns)), 0,
		      "the filtered depth differs from every I/O's");
	cr_assert_eq(d.ntop_files, 1);
	cr_assert_str_eq(d.top_files[0].name, "/d/sub/b.dat");
	st_report_free(&f);
	st_report_free(&d);
	st_report_free(&small);
	st_report_free(&all);
	sqlite3_close(db);
}
