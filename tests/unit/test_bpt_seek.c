/*
 * Unit tests of the trace reader's positioning and bookkeeping: seeking
 * to a time with and without a footer, strings interned across blocks,
 * loss entries, the digest, verify, and block closing rules.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpt.h"
#include "bpt_testutil.h"

#define N 5000

struct trace {
	struct bpt_record recs[N];
	uint32_t blk_of[N];      /* block index of each record */
	uint64_t blk_max[N];     /* max issue per block */
	uint32_t nblk;
	char comm[N][16];
	uint8_t *data;
	size_t len;
};

/*
 * Records in roughly rising issue order with jitter (so blocks overlap a
 * little), a new comm every 97 records, losses every 1000, a block every
 * 300 records (block_records) or 1 ms of issue time (block_span_ns).
 */
static void make_trace(struct trace *t, int jitter)
{
	const char *p = tu_tmpname("seek");
	struct bpt_header h;
	struct bpt_writer *w;
	struct bpt_error e = { 0 };
	struct bpt_writer_opts o = { .block_records = 300, .block_span_ns = 1000000 };
	uint64_t seed = 3, now = 1000;
	uint32_t id = 0;

	memset(t, 0, sizeof(*t));
	tu_header(&h, 1, 0);
	cr_assert_eq(bpt_writer_create(&w, p, &h, &o, &e), 0, "%s", e.msg);
	for (int i = 0; i < N; i++) {
		struct bpt_record *r = &t->recs[i];

		if (i % 97 == 0) {
			snprintf(t->comm[i], 16, "task-%d", i);
			cr_assert_eq(bpt_writer_intern(w, t->comm[i], &id), 0);
		} else {
			strcpy(t->comm[i], t->comm[i - 1]);
		}
		if (i % 1000 == 500)
			cr_assert_eq(bpt_writer_add_loss(w, now, now + 10, 3), 0);
		now += tu_below(&seed, 2000);
		memset(r, 0, sizeof(*r));
		r->issue_ns = now + (jitter ? tu_below(&seed, 3000) : 0);
		r->queue_ns = r->issue_ns - 100;
		r->complete_ns = r->issue_ns + 5000;
		r->sector = tu_below(&seed, 1000000) * 8;
		r->bytes = 4096;
		r->comm_id = id;
		r->pid = 100 + id;
		cr_assert_eq(bpt_writer_add(w, r), 0);
	}
	cr_assert_eq(bpt_writer_close(w, &e), 0, "%s", e.msg);
	t->data = tu_load(p, &t->len);
	cr_assert_not_null(t->data);
	tu_cleanup();
	/* Block boundaries, replaying the writer's rules. */
	uint64_t lo = 0, hi = 0;
	uint32_t cnt = 0;

	for (int i = 0; i < N; i++) {
		uint64_t x = t->recs[i].issue_ns;

		if (cnt && ((x > hi ? x : hi) - (x < lo ? x : lo) >= 1000000)) {
			t->nblk++;
			cnt = 0;
		}
		if (!cnt)
			lo = hi = x;
		lo = x < lo ? x : lo;
		hi = x > hi ? x : hi;
		t->blk_of[i] = t->nblk;
		t->blk_max[t->nblk] = hi;
		if (++cnt == 300) {
			t->nblk++;
			cnt = 0;
		}
	}
	if (cnt)
		t->nblk++;
}

/* What seek_time(tt) must return first: index or N for none. */
static int expect_seek(const struct trace *t, uint64_t tt)
{
	for (int i = 0; i < N; i++)
		if (t->blk_max[t->blk_of[i]] >= tt) {
			uint32_t b = t->blk_of[i];

			for (; i < N && t->blk_of[i] == b; i++)
				if (t->recs[i].issue_ns >= tt)
					return i;
			return i; /* next block's first record */
		}
	return N;
}

static void check_seeks(struct trace *t, size_t len)
{
	struct bpt_reader *r;
	struct bpt_error e = { 0 };
	struct bpt_record got;
	uint64_t seed = 11;

	cr_assert_eq(bpt_reader_open_mem(&r, t->data, len, "s.bpt", &e), 0, "%s", e.msg);
	for (int k = 0; k < 60; k++) {
		uint64_t tt = k == 0 ? 0 : k == 1 ? UINT64_MAX
			      : tu_below(&seed, t->recs[N - 1].issue_ns + 5000);
		int want = expect_seek(t, tt);

		cr_assert_eq(bpt_reader_seek_time(r, tt, &e), 0, "%s", e.msg);
		int rc = bpt_reader_next(r, &got, &e);

		if (want == N) {
			cr_assert_eq(rc, 0, "seek %llu", (unsigned long long)tt);
			continue;
		}
		cr_assert_eq(rc, 1, "seek %llu: %s", (unsigned long long)tt, e.msg);
		cr_assert(tu_rec_eq(&got, &t->recs[want]), "seek %llu: want record %d",
			  (unsigned long long)tt, want);
		cr_assert_str_eq(bpt_reader_string(r, got.comm_id), t->comm[want]);
		/* and the rest follows in file order, records of the seek's
		 * block before tt skipped */
		for (int i = want + 1; i < want + 400 && i < N; i++) {
			if (t->blk_of[i] == t->blk_of[want] && t->recs[i].issue_ns < tt)
				continue;
			cr_assert_eq(bpt_reader_next(r, &got, &e), 1);
			cr_assert(tu_rec_eq(&got, &t->recs[i]));
			cr_assert_str_eq(bpt_reader_string(r, got.comm_id), t->comm[i]);
		}
	}
	cr_assert_eq(bpt_reader_rewind(r, &e), 0);
	cr_assert_eq(bpt_reader_next(r, &got, &e), 1);
	cr_assert(tu_rec_eq(&got, &t->recs[0]));
	bpt_reader_close(r);
}

Test(bpt_seek, with_footer_and_without, .fini = tu_cleanup)
{
	static struct trace t;

	for (int jitter = 0; jitter < 2; jitter++) {
		make_trace(&t, jitter);
		cr_assert_gt(t.nblk, 10);
		check_seeks(&t, t.len);
		check_seeks(&t, t.len - 30); /* footer lost: walks the blocks */
		free(t.data);
	}
}

/* An issue range returns exactly the records issued in it, each with its
 * file position, with and without the footer index (with it, blocks
 * outside the range are skipped unread), alone and after a seek. */
static void check_ranges(struct trace *t, size_t len)
{
	struct bpt_reader *r;
	struct bpt_error e = { 0 };
	struct bpt_record got;
	uint64_t seed = 5, end = t->recs[N - 1].issue_ns + 5000;

	cr_assert_eq(bpt_reader_open_mem(&r, t->data, len, "r.bpt", &e), 0, "%s", e.msg);
	cr_assert_eq(bpt_reader_set_issue_range(r, 5, 4), -EINVAL);
	for (int k = 0; k < 40; k++) {
		uint64_t lo = k == 0 ? 0 : tu_below(&seed, end);
		uint64_t hi = k == 1 ? UINT64_MAX : k == 2 ? lo : lo + tu_below(&seed, end / 8);
		/* boundary cases: a range ending or starting on a record's time */
		if (k == 3)
			lo = hi = t->recs[N / 2].issue_ns;
		if (k == 4)
			hi = t->recs[300 * 7 - 1].issue_ns, lo = t->recs[300 * 3].issue_ns;
		uint64_t seek = k % 5 == 4 ? lo + (hi - lo) / 2 : 0;

		cr_assert_eq(bpt_reader_rewind(r, &e), 0);
		cr_assert_eq(bpt_reader_set_issue_range(r, lo, hi), 0);
		if (seek)
			cr_assert_eq(bpt_reader_seek_time(r, seek, &e), 0, "%s", e.msg);
		int want = seek ? expect_seek(t, seek) : 0;

		for (int i = want; i < N; i++) {
			const struct bpt_record *x = &t->recs[i];

			if (x->issue_ns < lo || x->issue_ns > hi)
				continue;
			if (seek && t->blk_of[i] == t->blk_of[want] && x->issue_ns < seek)
				continue;
			cr_assert_eq(bpt_reader_next(r, &got, &e), 1, "range %d: record %d: %s", k, i, e.msg);
			cr_assert(tu_rec_eq(&got, x), "range %d: want record %d", k, i);
			cr_assert_eq(bpt_reader_record_index(r), (uint64_t)i);
			cr_assert_str_eq(bpt_reader_string(r, got.comm_id), t->comm[i]);
		}
		cr_assert_eq(bpt_reader_next(r, &got, &e), 0, "range %d: a record too many", k);
	}
	/* rewind clears the range and the index restarts */
	cr_assert_eq(bpt_reader_rewind(r, &e), 0);
	for (int i = 0; i < N; i++) {
		cr_assert_eq(bpt_reader_next(r, &got, &e), 1);
		cr_assert_eq(bpt_reader_record_index(r), (uint64_t)i);
	}
	bpt_reader_close(r);
}

Test(bpt_seek, issue_range_and_record_index, .fini = tu_cleanup)
{
	static struct trace t;

	for (int jitter = 0; jitter < 2; jitter++) {
		make_trace(&t, jitter);
		check_ranges(&t, t.len);
		check_ranges(&t, t.len - 30); /* no footer: blocks read and filtered */
		free(t.data);
	}
}

Test(bpt_seek, strings_losses_and_stats, .fini = tu_cleanup)
{
	static struct trace t;
	struct bpt_reader *r;
	struct bpt_error e = { 0 };
	struct bpt_stats st;
	const struct bpt_loss *l;
	struct bpt_record got;

	make_trace(&t, 1);
	for (int cut = 0; cut < 2; cut++) {
		cr_assert_eq(bpt_reader_open_mem(&r, t.data, t.len - cut * 30, "l.bpt", &e), 0);
		bpt_reader_stats(r, &st);
		if (!cut) {
			cr_assert_eq(st.records, N);
			cr_assert_eq(st.blocks, t.nblk);
			cr_assert_eq(st.lost_events, 15);
			cr_assert_eq(st.loss_windows, 5);
			cr_assert_eq(bpt_reader_losses(r, &l), 5);
			cr_assert_str_eq(bpt_reader_string(r, (N - 1) / 97 + 1), t.comm[N - 1]);
		} else {
			cr_assert_eq(st.records, 0, "nothing read yet");
			cr_assert_null(bpt_reader_string(r, 3));
		}
		int n = 0;

		while (bpt_reader_next(r, &got, &e) == 1)
			cr_assert_str_eq(bpt_reader_string(r, got.comm_id), t.comm[n++]);
		cr_assert_eq(n, N);
		/* read twice: nothing is counted twice */
		bpt_reader_rewind(r, &e);
		while (bpt_reader_next(r, &got, &e) == 1)
			;
		bpt_reader_stats(r, &st);
		cr_assert_eq(st.records, N);
		cr_assert_eq(st.blocks, t.nblk);
		cr_assert_eq(st.lost_events, 15);
		cr_assert_eq(bpt_reader_losses(r, &l), 5);
		cr_assert_eq(l[0].t0_ns + 10, l[0].t1_ns);
		cr_assert_eq(l[4].count, 3);
		uint64_t lo = UINT64_MAX, hi = 0;

		for (int i = 0; i < N; i++) {
			lo = t.recs[i].issue_ns < lo ? t.recs[i].issue_ns : lo;
			hi = t.recs[i].issue_ns > hi ? t.recs[i].issue_ns : hi;
		}
		cr_assert_eq(st.first_issue_ns, lo);
		cr_assert_eq(st.last_issue_ns, hi);
		cr_assert_eq(st.last_complete_ns, hi + 5000);
		cr_assert_eq(st.truncated, cut);
		bpt_reader_close(r);
	}
	free(t.data);
}

Test(bpt_seek, digest_and_verify, .fini = tu_cleanup)
{
	static struct trace t;
	struct bpt_reader *r;
	struct bpt_error e = { 0 };
	uint64_t d_full, d_cut, d_again;

	make_trace(&t, 0);
	cr_assert_eq(bpt_reader_open_mem(&r, t.data, t.len, "d.bpt", &e), 0);
	cr_assert_eq(bpt_reader_digest(r, &d_full, &e), 0);
	cr_assert_eq(bpt_reader_verify(r, &e), 0, "%s", e.msg);
	bpt_reader_close(r);
	/* Without the footer the digest is computed, and it is the same. */
	cr_assert_eq(bpt_reader_open_mem(&r, t.data, t.len - 1, "d.bpt", &e), 0);
	struct bpt_record got;

	cr_assert_eq(bpt_reader_next(r, &got, &e), 1);
	cr_assert_eq(bpt_reader_digest(r, &d_cut, &e), 0);
	cr_assert_eq(d_cut, d_full);
	cr_assert_eq(bpt_reader_next(r, &got, &e), 1, "position kept");
	cr_assert(tu_rec_eq(&got, &t.recs[1]));
	bpt_reader_close(r);
	/* The same content again gives the same digest; header kept equal. */
	uint8_t *copy = malloc(t.len);

	memcpy(copy, t.data, t.len);
	free(t.data);
	make_trace(&t, 0);
	cr_assert_eq(bpt_reader_open_mem(&r, t.data, t.len, "d.bpt", &e), 0);
	cr_assert_eq(bpt_reader_digest(r, &d_again, &e), 0);
	bpt_reader_close(r);
	/* make_trace's header carries the wall clock: equal only if equal */
	if (!memcmp(copy, t.data, t.len))
		cr_assert_eq(d_again, d_full);
	else
		cr_assert_neq(d_again, d_full);
	/* A byte flipped in a middle block: verify names that block. */
	size_t mid = t.len / 2;

	t.data[mid] ^= 0x10;
	cr_assert_eq(bpt_reader_open_mem(&r, t.data, t.len, "v.bpt", &e), 0);
	cr_assert_eq(bpt_reader_verify(r, &e), -EBADMSG);
	cr_assert(strstr(e.msg, "v.bpt: offset "), "%s", e.msg);
	cr_assert_leq(e.offset, mid);
	cr_assert_gt(e.offset, mid - 2000, "%s", e.msg);
	bpt_reader_close(r);
	free(copy);
	free(t.data);
}

Test(bpt_seek, digest_changes_with_content, .fini = tu_cleanup)
{
	struct bpt_header h;
	uint64_t d[3];

	tu_header(&h, 1, 0);
	for (int k = 0; k < 3; k++) {
		const char *p = tu_tmpname("dg");
		struct bpt_writer *w;
		struct bpt_reader *r;
		struct bpt_error e = { 0 };

		cr_assert_eq(bpt_writer_create(&w, p, &h, NULL, &e), 0);
		for (int i = 0; i < 1000; i++) {
			struct bpt_record rec = { .issue_ns = i * 1000u, .sector = i * 8u,
						  .bytes = 4096 };

			if (k == 2 && i == 500)
				rec.sector++;
			cr_assert_eq(bpt_writer_add(w, &rec), 0);
		}
		cr_assert_eq(bpt_writer_close(w, &e), 0);
		cr_assert_eq(bpt_reader_open(&r, p, &e), 0);
		cr_assert_eq(bpt_reader_digest(r, &d[k], &e), 0);
		bpt_reader_close(r);
	}
	cr_assert_eq(d[0], d[1], "same content, same digest");
	cr_assert_neq(d[0], d[2], "one sector differs");
	tu_cleanup();
}

Test(bpt_seek, blocks_close_on_span_and_flush, .fini = tu_cleanup)
{
	const char *p = tu_tmpname("span");
	struct bpt_header h;
	struct bpt_writer *w;
	struct bpt_reader *r;
	struct bpt_error e = { 0 };
	struct bpt_stats st;

	tu_header(&h, 1, 0);
	cr_assert_eq(bpt_writer_create(&w, p, &h, NULL, &e), 0);
	/* 10 s of records at 1 ms: the 1 s default span makes 10 blocks */
	for (int i = 0; i < 10000; i++) {
		struct bpt_record rec = { .issue_ns = i * 1000000ull, .bytes = 512 };

		cr_assert_eq(bpt_writer_add(w, &rec), 0);
	}
	cr_assert_eq(bpt_writer_flush(w), 0);
	cr_assert_eq(bpt_writer_flush(w), 0, "nothing to flush is fine");
	cr_assert_eq(bpt_writer_add_loss(w, 5, 6, 1), 0);
	cr_assert_eq(bpt_writer_flush(w), 0, "a block of losses only");
	cr_assert_eq(bpt_writer_close(w, &e), 0);
	cr_assert_eq(bpt_reader_open(&r, p, &e), 0);
	bpt_reader_stats(r, &st);
	cr_assert_eq(st.blocks, 11);
	cr_assert_eq(st.records, 10000);
	cr_assert_eq(st.lost_events, 1);
	cr_assert_eq(st.last_issue_ns, 9999000000ull);
	cr_assert_eq(bpt_reader_verify(r, &e), 0, "%s", e.msg);
	bpt_reader_close(r);
	tu_cleanup();
}
