/*
 * Unit tests of column kind 2, "tick" (lib/bpt_coltick.c, spec "Column
 * coding"): time differences of a clock that advances in steps of more
 * than a nanosecond are coded as tick counts and a small remainder, and
 * read back exactly whatever the values (escapes, huge deltas, the
 * extremes of 64 bits, records out of order, one-record blocks); bad
 * headers are refused; a kind the reader does not know is refused by
 * name.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "bpt_coltest.h"
#include "bpt_internal.h"
#include "bpt_testutil.h"

/* A reading of a clock of tick `t` (ns) after `count` ticks, phase 0.3. */
static uint64_t clock_at(double t, uint64_t count)
{
	return (uint64_t)(count * t + 0.3);
}

/* Service times (complete - issue) of n I/Os on a clock of tick t: the
 * zigzagged differences a writer's complete column holds. */
static void service_times(uint64_t *v, uint32_t n, double t, uint64_t *s)
{
	uint64_t at = 1000000;

	for (uint32_t i = 0; i < n; i++) {
		at += 50 + tu_below(s, 400);
		uint64_t ticks = 900 + tu_below(s, 300);

		v[i] = zigzag64((int64_t)(clock_at(t, at + ticks) - clock_at(t, at)));
	}
}

Test(bpt_tick, coarse_clock_is_coded_by_ticks_and_read_exactly, .fini = tu_cleanup)
{
	static uint64_t v[20000];
	static const double ticks[] = { 10.015, 41.666666, 100, 18.5185, 6.25, 3.9 };
	uint64_t s = 3;

	/* (what it saves is checked on whole files below: the planes
	 * before zstd are as many, an escape may even add one) */
	for (unsigned k = 0; k < sizeof(ticks) / sizeof(ticks[0]); k++) {
		service_times(v, 20000, ticks[k], &s);
		cr_assert_eq(tu_col_roundtrip(v, 20000, 1), BPT_COL_TICK,
			     "tick %.4f ns", ticks[k]);
	}
}

/* A writer tries the last block's tick first: taken while it codes the
 * values, searched again when the clock is another, and never in the
 * way of a column that is not coded by ticks; each round trips exactly. */
Test(bpt_tick, last_blocks_tick_is_reused_only_where_it_fits, .fini = tu_cleanup)
{
	static uint64_t v[20000];
	struct bpt_tick_hint hint = { 0 };
	uint64_t s = 11;

	service_times(v, 20000, 10.015, &s);
	cr_assert_eq(tu_col_roundtrip_hint(v, 20000, &hint), BPT_COL_TICK);
	struct bpt_tick_hint first = hint;

	cr_assert_gt(first.tq, 0, "the tick is kept for the next block");
	service_times(v, 20000, 10.015, &s);
	cr_assert_eq(tu_col_roundtrip_hint(v, 20000, &hint), BPT_COL_TICK);
	cr_assert(hint.tq == first.tq && hint.cq == first.cq, "same clock: the hint was used");
	service_times(v, 20000, 41.666666, &s);
	cr_assert_eq(tu_col_roundtrip_hint(v, 20000, &hint), BPT_COL_TICK);
	cr_assert_neq(hint.tq, first.tq, "another clock: searched again");
	for (uint32_t i = 0; i < 20000; i++)
		v[i] = zigzag64((int64_t)(9000 + tu_below(&s, 3000)));
	cr_assert_neq(tu_col_roundtrip_hint(v, 20000, &hint), BPT_COL_TICK, "1 ns clock");
	cr_assert_eq(hint.tq, 0, "no tick found: no hint");
	/* a hint that is wrong for the values: a tick of 3 ticks' worth */
	hint = first;
	hint.tq *= 3;
	service_times(v, 20000, 10.015, &s);
	cr_assert_eq(tu_col_roundtrip_hint(v, 20000, &hint), BPT_COL_TICK);
	cr_assert_neq(hint.tq, first.tq * 3);
}

Test(bpt_tick, nanosecond_clock_and_small_columns_keep_the_planes, .fini = tu_cleanup)
{
	static uint64_t v[20000];
	uint64_t s = 5;

	for (uint32_t i = 0; i < 20000; i++)
		v[i] = zigzag64((int64_t)(9000 + tu_below(&s, 3000)));
	cr_assert_neq(tu_col_roundtrip(v, 20000, 1), BPT_COL_TICK, "1 ns clock");
	service_times(v, 63, 10.015, &s);
	cr_assert_neq(tu_col_roundtrip(v, 63, 1), BPT_COL_TICK, "63 values");
	tu_col_roundtrip(v, 1, 1);
	tu_col_roundtrip(v, 0, 1);
}

/* Values that do not fit a tick count: escapes, read back exactly. */
Test(bpt_tick, escapes_huge_deltas_and_extremes, .fini = tu_cleanup)
{
	static uint64_t v[20000];
	static const int64_t odd[] = {
		1ll << 30, -(1ll << 30), (1ll << 30) - 1, 1ll << 40, -(1ll << 50),
		(1ll << 60) + 12345, -(1ll << 60), 7, -1, 0,
	};
	uint64_t s = 11;

	service_times(v, 20000, 10.015, &s);
	/* a few values off the lattice and far out, spread over the column */
	for (unsigned k = 0; k < sizeof(odd) / sizeof(odd[0]); k++)
		v[k * 1999] = zigzag64(odd[k]);
	cr_assert_eq(tu_col_roundtrip(v, 20000, 1), BPT_COL_TICK);
	/* the extremes of 64 bits cannot be escaped: the planes take them */
	v[5] = UINT64_MAX;
	v[6] = UINT64_MAX - 1;
	v[7] = zigzag64(INT64_MAX);
	cr_assert_eq(tu_col_roundtrip(v, 20000, 1), BPT_COL_PLANES);
	v[5] = v[6] = v[7] = zigzag64(1ll << 61);
	cr_assert_eq(tu_col_roundtrip(v, 20000, 1), BPT_COL_PLANES, "2^61 does not fit");
	v[5] = v[6] = v[7] = zigzag64((1ll << 60) - 1);
	cr_assert_eq(tu_col_roundtrip(v, 20000, 1), BPT_COL_TICK, "2^60 - 1 does");
}

/* The header's tick and offset are checked; any planes decode to some
 * value (checked by the reader's record checks), never out of bounds. */
Test(bpt_tick, bad_headers_refused_any_planes_decoded, .fini = tu_cleanup)
{
	struct bpt_buf b = { 0 };
	struct bpt_colview cv;
	uint64_t out[4];
	static const uint64_t ticks[] = { 0, 1, (2ull << 32) - 1, 256ull << 32, UINT64_MAX };

	for (unsigned k = 0; k < sizeof(ticks) / sizeof(ticks[0]); k++) {
		b.len = 0;
		buf_u8(&b, BPT_COL_TICK);
		buf_varint(&b, 0);
		buf_varint(&b, ticks[k]);
		buf_varint(&b, 0);
		buf_u8(&b, 0);
		buf_u8(&b, 0);
		buf_varint(&b, 0);
		cr_assert_eq(bpt_col_parse(b.p, b.len, 4, &cv), -EBADMSG, "tick %llu",
			     (unsigned long long)ticks[k]);
	}
	static const int64_t offs[] = { 256ll << 32, -(256ll << 32), INT64_MIN };

	for (unsigned k = 0; k < sizeof(offs) / sizeof(offs[0]); k++) {
		b.len = 0;
		buf_u8(&b, BPT_COL_TICK);
		buf_varint(&b, 0);
		buf_varint(&b, 10ull << 32);
		buf_varint(&b, zigzag64(offs[k]));
		buf_u8(&b, 0);
		buf_u8(&b, 0);
		buf_varint(&b, 0);
		cr_assert_eq(bpt_col_parse(b.p, b.len, 4, &cv), -EBADMSG, "offset %lld",
			     (long long)offs[k]);
	}
	/* width 8, every byte 0xff or 0x00: tick counts near 2^62, escapes */
	b.len = 0;
	buf_u8(&b, BPT_COL_TICK);
	buf_varint(&b, 0);
	buf_varint(&b, (255ull << 32) + 12345);
	buf_varint(&b, zigzag64(-(255ll << 32)));
	buf_u8(&b, 8);
	buf_u8(&b, 0);
	buf_varint(&b, 0);
	for (int i = 0; i < 32; i++)
		buf_u8(&b, (i % 4) & 1 ? 0xff : (uint8_t)(i * 37));
	cr_assert_eq(bpt_col_parse(b.p, b.len, 4, &cv), 0);
	cr_assert_eq(bpt_col_decode(&cv, 0, 4, out), 0);
	/* a kind this reader does not know */
	b.p[0] = 3;
	cr_assert_eq(bpt_col_parse(b.p, b.len, 4, &cv), -EPROTONOSUPPORT);
	buf_free(&b);
}

/* A capture-like trace on a 10.015 ns clock: records in completion
 * order, written in blocks of every size down to one record. */
static void write_ticked(const char *path, uint32_t nrec, uint32_t block_records,
			 int jitter)
{
	struct bpt_header h;
	struct bpt_writer *w;
	struct bpt_writer_opts o = { .block_records = block_records };
	struct bpt_error e;
	uint64_t s = 21, t = 1000;

	tu_header(&h, 1, 0);
	cr_assert_eq(bpt_writer_create(&w, path, &h, &o, &e), 0, "%s", e.msg);
	for (uint32_t i = 0; i < nrec; i++) {
		uint64_t q = t + tu_below(&s, 300), is = q + 38 + tu_below(&s, 3);
		uint64_t co = is + 900 + tu_below(&s, 200);
		struct bpt_record r = {
			.queue_ns = clock_at(10.015, q), .issue_ns = clock_at(10.015, is),
			.complete_ns = clock_at(10.015, co), .sector = tu_below(&s, 1u << 21) * 8,
			.bytes = 4096,
		};

		if (jitter) { /* a nanosecond clock instead */
			r.queue_ns += tu_below(&s, 10);
			r.issue_ns += tu_below(&s, 10);
			r.complete_ns = r.issue_ns + (co - is) * 10 + tu_below(&s, 10);
		}
		t += 100;
		cr_assert_eq(bpt_writer_add(w, &r), 0);
	}
	cr_assert_eq(bpt_writer_close(w, &e), 0, "%s", e.msg);
	bpt_header_free(&h);
}

static void read_back(const char *a, const char *b)
{
	struct bpt_reader *ra, *rb;
	struct bpt_error e;
	struct bpt_record x, y;
	int ga, gb;

	cr_assert_eq(bpt_reader_open(&ra, a, &e), 0, "%s", e.msg);
	cr_assert_eq(bpt_reader_open(&rb, b, &e), 0, "%s", e.msg);
	cr_assert_eq(bpt_reader_verify(rb, &e), 0, "%s", e.msg);
	while ((ga = bpt_reader_next(ra, &x, &e)) == 1) {
		gb = bpt_reader_next(rb, &y, &e);
		cr_assert_eq(gb, 1, "%s", e.msg);
		cr_assert(tu_rec_eq(&x, &y));
	}
	cr_assert_eq(ga, 0, "%s", e.msg);
	cr_assert_eq(bpt_reader_next(rb, &y, &e), 0);
	bpt_reader_close(ra);
	bpt_reader_close(rb);
}

Test(bpt_tick, whole_files_round_trip_and_shrink, .fini = tu_cleanup)
{
	const char *big = tu_tmpname("tick-big"), *ns = tu_tmpname("tick-ns");
	static const uint32_t blocks[] = { 1, 2, 63, 64, 1000 };
	size_t tick_len, ns_len;

	write_ticked(big, 100000, 0, 0);
	write_ticked(ns, 100000, 0, 1);
	free(tu_load(big, &tick_len));
	free(tu_load(ns, &ns_len));
	/* the same timing on a 1 ns clock costs log2(10) bits more per time,
	 * less what the remainders hold: at least 0.5 bytes per record */
	cr_assert_lt(tick_len + 100000 / 2, ns_len, "%zu vs %zu bytes", tick_len, ns_len);
	for (unsigned k = 0; k < sizeof(blocks) / sizeof(blocks[0]); k++) {
		const char *p = tu_tmpname("tick-small");

		write_ticked(p, 3000, blocks[k], 0);
		write_ticked(big, 3000, 0, 0);
		read_back(big, p);
	}
}

/* Block 0 of a written file with the first column's kind byte set to
 * `kind`, stored uncompressed and checksummed again, the rest cut off. */
static size_t patch_kind(uint8_t *f, size_t len, uint8_t kind)
{
	uint32_t hsize = get_le32(f + 12);
	uint8_t *h = f + hsize;
	uint32_t stored = get_le32(h + BPT_BLOCK_STORED_OFF), raw = get_le32(h + BPT_BLOCK_RAW_OFF);
	uint8_t *p = malloc(raw);
	struct bpt_cur c = { .p = p, .len = raw };
	uint64_t v, ns;

	cr_assert_not_null(p);
	cr_assert_eq(h[BPT_BLOCK_COMP_OFF], BPT_COMP_ZSTD);
	cr_assert_eq(ZSTD_decompress(p, raw, h + BPT_BLOCK_HDR, stored), raw);
	cr_assert_eq(cur_varint(&c, &ns), 0);
	cr_assert_eq(cur_varint(&c, &v), 0);
	for (uint64_t k = 0; k < ns; k++) {
		const uint8_t *sp;
		uint16_t sl;

		cr_assert_eq(cur_u16(&c, &sl), 0);
		cr_assert_eq(cur_bytes(&c, &sp, sl), 0);
	}
	cr_assert_eq(cur_varint(&c, &v), 0);
	cr_assert_eq(v, 0, "no losses");
	cr_assert_eq(cur_varint(&c, &v), 0); /* columns */
	cr_assert_eq(cur_varint(&c, &v), 0); /* id */
	cr_assert_eq(cur_varint(&c, &v), 0); /* length */
	p[c.pos] = kind;
	cr_assert_leq(hsize + BPT_BLOCK_HDR + raw, len);
	memcpy(h + BPT_BLOCK_HDR, p, raw);
	free(p);
	put_le32(h + BPT_BLOCK_STORED_OFF, raw);
	h[BPT_BLOCK_COMP_OFF] = BPT_COMP_NONE;

	struct bpt_xxh64_state st;

	bpt_xxh64_init(&st, 0);
	bpt_xxh64_update(&st, h, BPT_BLOCK_CKSUM_OFF);
	bpt_xxh64_update(&st, h + BPT_BLOCK_HDR, raw);
	put_le64(h + BPT_BLOCK_CKSUM_OFF, bpt_xxh64_final(&st));
	return hsize + BPT_BLOCK_HDR + raw;
}

Test(bpt_tick, unknown_kind_is_refused_by_name, .fini = tu_cleanup)
{
	const char *p = tu_tmpname("tick-kind");
	size_t len;
	uint8_t *f;
	struct bpt_reader *r;
	struct bpt_error e;
	struct bpt_record rec;

	write_ticked(p, 5000, 0, 0);
	f = tu_load(p, &len);
	cr_assert_not_null(f);
	/* room for the payload stored raw */
	f = realloc(f, len + (8u << 20));
	len = patch_kind(f, len + (8u << 20), 3);
	cr_assert_eq(bpt_reader_open_mem(&r, f, len, "newer.bpt", &e), 0, "%s", e.msg);
	cr_assert_eq(bpt_reader_next(r, &rec, &e), -EBADMSG);
	cr_assert(strstr(e.msg, "column 0: coding kind 3 unknown (written by a newer blkpeak"),
		  "%s", e.msg);
	bpt_reader_close(r);
	free(f);
}
