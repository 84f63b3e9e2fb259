/*
 * Unit tests of the trace reader on damaged files: a small trace cut at
 * every byte offset reads back exactly its complete blocks or fails with
 * an error naming an offset; a byte flipped anywhere is detected; a
 * writer killed without closing leaves a readable file.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpt.h"
#include "bpt_testutil.h"

#define NBLK 4
#define PER_BLK 25

struct small {
	uint8_t *data;
	size_t len;
	struct bpt_record recs[NBLK * PER_BLK];
	uint64_t blk_end[NBLK];   /* file offset where block k ends */
	size_t nrecs;
};

/* A trace of NBLK blocks with strings and losses added along the way. */
static void make_small(struct small *s, uint32_t columns)
{
	const char *p = tu_tmpname("small");
	struct bpt_header h;
	struct bpt_writer *w;
	struct bpt_error e = { 0 };
	uint64_t seed = 99;
	struct bpt_writer_opts o = { .block_span_ns = UINT64_MAX };
	uint32_t id;

	memset(s, 0, sizeof(*s));
	tu_header(&h, 2, columns);
	cr_assert_eq(bpt_writer_create(&w, p, &h, &o, &e), 0, "%s", e.msg);
	for (int b = 0; b < NBLK; b++) {
		char name[16];

		snprintf(name, sizeof(name), "comm%d", b);
		cr_assert_eq(bpt_writer_intern(w, name, &id), 0);
		if (b & 1)
			cr_assert_eq(bpt_writer_add_loss(w, 1000u * b, 2000u * b, 7u + b), 0);
		for (int i = 0; i < PER_BLK; i++) {
			struct bpt_record *r = &s->recs[s->nrecs++];

			tu_record(&seed, r, 2, id + 1, columns);
			cr_assert_eq(bpt_writer_add(w, r), 0);
		}
		cr_assert_eq(bpt_writer_flush(w), 0);
		s->blk_end[b] = bpt_writer_bytes(w);
	}
	cr_assert_eq(bpt_writer_close(w, &e), 0, "%s", e.msg);
	s->data = tu_load(p, &s->len);
	cr_assert_not_null(s->data);
	tu_cleanup();
}

/* Read everything; returns records read that match, -1 on a mismatch;
 * *rc gets the final return of bpt_reader_next. */
static long read_back(struct bpt_reader *r, const struct small *s, int *rc,
		      struct bpt_error *e)
{
	struct bpt_record got;
	long n = 0;

	while ((*rc = bpt_reader_next(r, &got, e)) == 1) {
		if ((size_t)n >= s->nrecs || !tu_rec_eq(&got, &s->recs[n]))
			return -1;
		n++;
	}
	return n;
}

Test(bpt_damage, cut_at_every_offset, .fini = tu_cleanup)
{
	static struct small s;

	make_small(&s, BPT_COL_SCHED);
	for (size_t len = 0; len < s.len; len++) {
		struct bpt_reader *r;
		struct bpt_error e = { 0 };
		struct bpt_stats st;
		int rc;

		if (bpt_reader_open_mem(&r, s.data, len, "cut.bpt", &e)) {
			cr_assert(strstr(e.msg, "cut.bpt: offset "), "len %zu: %s", len, e.msg);
			cr_assert_lt(e.offset, s.blk_end[0], "len %zu: %s", len, e.msg);
			continue;
		}
		long n = read_back(r, &s, &rc, &e);
		size_t want = 0;
		uint64_t valid = 0;

		for (int b = 0; b < NBLK; b++)
			if (s.blk_end[b] <= len) {
				want = (size_t)(b + 1) * PER_BLK;
				valid = s.blk_end[b];
			}
		cr_assert_eq(rc, 0, "len %zu: %s", len, e.msg);
		cr_assert_eq(n, (long)want, "len %zu: %ld records, want %zu", len, n, want);
		bpt_reader_stats(r, &st);
		cr_assert_eq(st.truncated, 1, "len %zu", len);
		cr_assert_eq(st.complete, 0);
		cr_assert_eq(st.records, want);
		if (want)
			cr_assert_eq(st.valid_bytes, valid, "len %zu", len);
		cr_assert_eq(st.file_bytes, len);
		cr_assert_eq(bpt_reader_verify(r, &e), -ENODATA, "len %zu", len);
		bpt_reader_close(r);
	}
	free(s.data);
}

Test(bpt_damage, flipped_byte_anywhere_is_detected, .fini = tu_cleanup)
{
	static struct small s;

	make_small(&s, BPT_COL_MEMBER | BPT_COL_SOURCE);
	for (size_t off = 0; off < s.len; off++) {
		for (int v = 0; v < 2; v++) {
			uint8_t save = s.data[off];
			struct bpt_reader *r;
			struct bpt_error e = { 0 };
			int rc;

			s.data[off] ^= v ? 0xff : (uint8_t)(1u << (off % 8));
			if (bpt_reader_open_mem(&r, s.data, s.len, "flip.bpt", &e)) {
				cr_assert(strstr(e.msg, "flip.bpt: "), "%s", e.msg);
				s.data[off] = save;
				continue;
			}
			long n = read_back(r, &s, &rc, &e);

			cr_assert_geq(n, 0, "offset %zu: a wrong record was returned", off);
			cr_assert_neq(bpt_reader_verify(r, &e), 0,
				      "offset %zu: flip not detected", off);
			cr_assert(strstr(e.msg, "flip.bpt: offset "), "%s", e.msg);
			bpt_reader_close(r);
			s.data[off] = save;
		}
	}
	free(s.data);
}

Test(bpt_damage, killed_writer_leaves_readable_blocks, .fini = tu_cleanup)
{
	const char *p = tu_tmpname("killed");
	struct bpt_record recs[300];
	uint64_t seed = 5;
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct bpt_header h;
		struct bpt_writer *w;
		struct bpt_writer_opts o = { .block_span_ns = UINT64_MAX };
		uint64_t s2 = 5;

		tu_header(&h, 1, 0);
		if (bpt_writer_create(&w, p, &h, &o, NULL))
			_exit(1);
		for (int i = 0; i < 300; i++) {
			struct bpt_record r;

			tu_record(&s2, &r, 1, 1, 0);
			bpt_writer_add(w, &r);
			if (i == 99 || i == 199)
				bpt_writer_flush(w);
		}
		raise(SIGKILL); /* the open block (records 200..299) is lost */
	}
	int status;

	waitpid(pid, &status, 0);
	cr_assert(WIFSIGNALED(status));
	for (int i = 0; i < 300; i++)
		tu_record(&seed, &recs[i], 1, 1, 0);
	struct bpt_reader *r;
	struct bpt_error e = { 0 };
	struct bpt_record got;
	struct bpt_stats st;
	int n = 0, rc;

	cr_assert_eq(bpt_reader_open(&r, p, &e), 0, "%s", e.msg);
	while ((rc = bpt_reader_next(r, &got, &e)) == 1)
		cr_assert(tu_rec_eq(&got, &recs[n++]));
	cr_assert_eq(rc, 0, "%s", e.msg);
	cr_assert_eq(n, 200);
	bpt_reader_stats(r, &st);
	cr_assert_eq(st.truncated, 1);
	cr_assert_eq(st.valid_bytes, st.file_bytes);
	bpt_reader_close(r);
	tu_cleanup();
}

Test(bpt_damage, zero_filled_tail_is_truncation, .fini = tu_cleanup)
{
	static struct small s;

	make_small(&s, 0);
	size_t cut = s.blk_end[1] + 10;
	uint8_t *d = calloc(1, cut + 4096);

	memcpy(d, s.data, cut);
	struct bpt_reader *r;
	struct bpt_error e = { 0 };
	int rc;

	cr_assert_eq(bpt_reader_open_mem(&r, d, cut + 4096, "z.bpt", &e), 0);
	cr_assert_eq(read_back(r, &s, &rc, &e), 2 * PER_BLK);
	cr_assert_eq(rc, 0, "%s", e.msg);
	bpt_reader_close(r);
	/* Garbage instead of zeros is corruption, named by its offset. */
	memset(d + s.blk_end[1], 0x5a, 64);
	cr_assert_eq(bpt_reader_open_mem(&r, d, cut + 4096, "g.bpt", &e), 0);
	cr_assert_eq(read_back(r, &s, &rc, &e), 2 * PER_BLK);
	cr_assert_eq(rc, -EBADMSG);
	cr_assert_eq(e.offset, s.blk_end[1], "%s", e.msg);
	cr_assert_eq(bpt_reader_next(r, &(struct bpt_record){ 0 }, &e), -EBADMSG,
		     "errors are sticky");
	bpt_reader_close(r);
	free(d);
	free(s.data);
}
