/*
 * Unit tests of what the reference columns buy (spec, "Columns"):
 * sequential I/O written in completion order, which swaps neighbours,
 * costs no more than in issue order, and a queue kept full (each I/O
 * issued the moment an earlier one completes) costs little more than
 * its service times. Each bound fails by a wide margin with sectors
 * coded against the previous record only, or issue times against the
 * previous completion only.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "bpt.h"
#include "bpt_testutil.h"

#define N 100000

static struct bpt_record recs[N];

/* Bytes of a trace holding recs[0..n) in that order. */
static double bytes_per_io(size_t n)
{
	const char *p = tu_tmpname("size");
	struct bpt_header h;
	struct bpt_writer *w;
	struct bpt_error e = { 0 };
	struct stat st;

	tu_header(&h, 1, 0);
	cr_assert_eq(bpt_writer_create(&w, p, &h, NULL, &e), 0, "%s", e.msg);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(bpt_writer_add(w, &recs[i]), 0);
	cr_assert_eq(bpt_writer_close(w, &e), 0, "%s", e.msg);
	cr_assert_eq(stat(p, &st), 0);
	return (double)st.st_size / (double)n;
}

/* 4 KiB sequential reads at QD1: service 10 us + up to 4 us, issued 1 us
 * + up to 1 us after the previous completion. */
static void sequential(uint64_t *seed)
{
	uint64_t t = 1000;

	for (size_t i = 0; i < N; i++) {
		struct bpt_record *r = &recs[i];

		memset(r, 0, sizeof(*r));
		r->queue_ns = r->issue_ns = t;
		r->complete_ns = t + 10000 + tu_below(seed, 4096);
		r->sector = 8 * i;
		r->bytes = 4096;
		t = r->complete_ns + 1000 + tu_below(seed, 1024);
	}
}

Test(bpt_size, completion_order_costs_no_more_than_issue_order, .fini = tu_cleanup)
{
	uint64_t seed = 5;

	sequential(&seed);
	double in_order = bytes_per_io(N);

	/* completion order: neighbours swapped in pairs */
	for (size_t i = 0; i + 1 < N; i += 2) {
		struct bpt_record x = recs[i];

		recs[i] = recs[i + 1];
		recs[i + 1] = x;
	}
	double swapped = bytes_per_io(N);

	cr_assert_leq(swapped, in_order * 1.10 + 0.05,
		      "issue order %.3f B/I/O, completion order %.3f", in_order, swapped);
}

Test(bpt_size, full_queue_costs_about_its_service_times, .fini = tu_cleanup)
{
	enum { QD = 8 };
	uint64_t seed = 6, slot[QD] = { 0 };

	/* closed loop at queue depth 8, in issue order: each I/O is issued
	 * when the earliest of the 8 outstanding completes; service times
	 * 50 us + up to 65.5 us: 16 bits, 2 bytes per I/O of information */
	for (size_t i = 0; i < N; i++) {
		struct bpt_record *r = &recs[i];
		unsigned k = 0;

		for (unsigned j = 1; j < QD; j++)
			k = slot[j] < slot[k] ? j : k;
		memset(r, 0, sizeof(*r));
		r->queue_ns = r->issue_ns = slot[k];
		r->complete_ns = slot[k] = r->issue_ns + 50000 + tu_below(&seed, 65536);
		r->sector = 8 * i;
		r->bytes = 4096;
	}
	double b = bytes_per_io(N);

	cr_assert_leq(b, 2.6, "%.3f B/I/O", b);
}
