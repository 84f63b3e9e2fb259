/*
 * Unit test of the trace library's memory bounds on a long trace: 10
 * million I/Os written to /dev/shm and read back, heap in use and RSS
 * sampled along the way must stay flat (writer: one block; reader:
 * constant whatever the length).
 */
#include <criterion/criterion.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bpt.h"
#include "bpt_testutil.h"

#define BIG_N 10000000ull

static size_t heap_in_use(void)
{
	return mallinfo2().uordblks;
}

static size_t rss_bytes(void)
{
	long pages = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
			rss = 0;
		fclose(f);
	}
	return (size_t)rss * (size_t)sysconf(_SC_PAGESIZE);
}

static void big_record(uint64_t i, uint64_t *seed, struct bpt_record *r)
{
	uint64_t x = tu_rand(seed);

	r->issue_ns = i * 10000 + (x & 1023);
	r->queue_ns = r->issue_ns - ((x >> 10) & 511);
	r->complete_ns = r->issue_ns + 20000 + ((x >> 19) & 65535);
	r->sector = (x >> 35) * 8;
	r->bytes = 4096;
	r->op = (x >> 60) & 1;
	r->pid = 1000 + ((x >> 61) & 1);
	r->comm_id = 0;
	r->cgroup_id = 1;
	r->error = 0;
	r->dev = 0;
	r->flags = 0;
}

Test(bpt_big, memory_flat_on_ten_million_ios, .timeout = 60, .fini = tu_cleanup)
{
	const char *p = tu_tmpname("big");
	struct bpt_header h;
	struct bpt_writer *w;
	struct bpt_reader *r;
	struct bpt_error e = { 0 };
	struct bpt_record rec = { 0 }, got;
	uint64_t seed = 1, seed2 = 1;
	size_t heap0 = heap_in_use(), heap_w = 0;

	tu_header(&h, 1, 0);
	cr_assert_eq(bpt_writer_create(&w, p, &h, NULL, &e), 0, "%s", e.msg);
	for (uint64_t i = 0; i < BIG_N; i++) {
		big_record(i, &seed, &rec);
		cr_assert_eq(bpt_writer_add(w, &rec), 0);
		if (i % 1000000 == 999999) {
			size_t now = heap_in_use() - heap0;

			heap_w = now > heap_w ? now : heap_w;
		}
	}
	cr_assert_eq(bpt_writer_close(w, &e), 0, "%s", e.msg);
	cr_assert_lt(heap_w, 24u << 20, "writer heap %zu bytes", heap_w);

	cr_assert_eq(bpt_reader_open(&r, p, &e), 0, "%s", e.msg);
	size_t heap1 = 0, rss1 = 0, heap_max = 0, rss_max = 0;

	for (uint64_t i = 0; i < BIG_N; i++) {
		int rc = bpt_reader_next(r, &got, &e);

		cr_assert_eq(rc, 1, "record %llu: %s", (unsigned long long)i, e.msg);
		big_record(i, &seed2, &rec);
		if (!tu_rec_eq(&got, &rec))
			cr_assert_fail("record %llu differs", (unsigned long long)i);
		if (i == 1000000) {
			heap1 = heap_in_use();
			rss1 = rss_bytes();
		} else if (i > 1000000 && i % 1000000 == 0) {
			size_t hh = heap_in_use(), rr = rss_bytes();

			heap_max = hh > heap_max ? hh : heap_max;
			rss_max = rr > rss_max ? rr : rss_max;
		}
	}
	cr_assert_eq(bpt_reader_next(r, &got, &e), 0);
	cr_assert_leq(heap_max, heap1 + 4096, "reader heap grew from %zu to %zu",
		      heap1, heap_max);
	cr_assert_leq(rss_max, rss1 + (1u << 20), "reader RSS grew from %zu to %zu",
		      rss1, rss_max);
	struct bpt_stats st;

	bpt_reader_stats(r, &st);
	cr_assert_eq(st.records, BIG_N);
	cr_log_info("10M I/Os: %llu bytes (%.2f per I/O), reader heap %zu, RSS %zu",
		    (unsigned long long)st.file_bytes, (double)st.file_bytes / BIG_N,
		    heap1, rss1);
	bpt_reader_close(r);
	tu_cleanup();
}
