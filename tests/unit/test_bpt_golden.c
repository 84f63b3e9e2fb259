/*
 * Unit test of format stability: the committed seed corpus files
 * (tests/fuzz/corpus/bpt/, written by tests/fuzz/make_corpus.c with an
 * earlier version of the library) must still read back to exactly the
 * records, header, strings, losses and digests they were written with.
 * A change to the library that breaks this breaks existing traces.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpt.h"
#include "bpt_testutil.h"
#include "../fuzz/corpus_record.h"

struct golden {
	const char *name;
	uint32_t columns;
	int nrec;        /* records written */
	int nread;       /* records readable (fewer when cut) */
	int complete;
	uint64_t lost;
	int qd;          /* corpus_record's queue-depth pattern */
};

static const struct golden files[] = {
	{ "empty", 0, 0, 0, 1, 0, 0 },
	{ "one-block", 0, 6, 6, 1, 0, 0 },
	{ "all-columns", 7, 9, 9, 1, 1 + 5 + 9, 0 },
	{ "three-blocks", 0, 12, 12, 1, 1 + 5 + 9, 0 },
	{ "queue-depth", 0, 40, 40, 1, 0, 1 },
	{ "no-footer", 1, 12, 4, 0, 0, 0 },
};

static void check_file(const struct golden *g)
{
	char path[256];
	struct bpt_reader *r;
	struct bpt_error e = { 0 };
	struct bpt_record got, want;
	struct bpt_stats st;
	uint32_t ids[3];
	int n = 0, rc;

	snprintf(path, sizeof(path), "tests/fuzz/corpus/bpt/%s.bpt", g->name);
	cr_assert_eq(bpt_reader_open(&r, path, &e), 0, "%s (run from the source root)", e.msg);
	const struct bpt_header *h = bpt_reader_header(r);

	cr_assert_str_eq(h->kind, "generate");
	cr_assert_str_eq(h->host, "fuzzhost");
	cr_assert_str_eq(h->kernel, "6.0.0");
	cr_assert_eq(h->start_wall_ns, 1700000000000000000ll);
	cr_assert_eq(h->start_mono_ns, 1000);
	cr_assert_eq(h->columns, g->columns);
	cr_assert_eq(h->ndevices, 2);
	cr_assert_str_eq(h->devices[1].name, "loop1");
	cr_assert_eq(h->devices[1].size_bytes, 1 << 30);
	cr_assert_str_eq(bpt_header_get_meta(h, "generator"), "make_corpus");
	/* ids as make_corpus interned them: "" is 0 */
	ids[0] = 1;
	ids[1] = 2;
	ids[2] = 3;
	while ((rc = bpt_reader_next(r, &got, &e)) == 1) {
		cr_assert_lt(n, g->nrec);
		corpus_record(n, g->nrec, ids, g->qd, &want);
		if (!(g->columns & BPT_COL_SCHED))
			want.sched_ns = 0;
		if (!(g->columns & BPT_COL_SOURCE))
			want.source_index = 0;
		if (!(g->columns & BPT_COL_MEMBER))
			want.member = 0;
		cr_assert(tu_rec_eq(&got, &want), "%s: record %d", g->name, n);
		n++;
	}
	cr_assert_eq(rc, 0, "%s", e.msg);
	cr_assert_eq(n, g->nread, "%s", g->name);
	if (n) {
		cr_assert_str_eq(bpt_reader_string(r, 1), "fio");
		cr_assert_str_eq(bpt_reader_string(r, 2), "kworker/1:2");
	}
	bpt_reader_stats(r, &st);
	cr_assert_eq(st.complete, g->complete);
	cr_assert_eq(st.lost_events, g->lost, "%s", g->name);
	cr_assert_eq(bpt_reader_verify(r, &e), g->complete ? 0 : -ENODATA, "%s", e.msg);
	bpt_reader_close(r);
}

Test(bpt_golden, committed_corpus_reads_back)
{
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		check_file(&files[i]);
}
