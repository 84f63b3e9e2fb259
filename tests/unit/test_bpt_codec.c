/*
 * Unit tests of the trace library's building blocks (private API from
 * bpt_internal.h): XXH64 against published values and zstd's frame
 * checksum, varints, zigzag, both column kinds, and the compatibility
 * rules of the format (unknown columns and header bytes skipped, another
 * major refused), checked on hand-built files.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "bpt_coltest.h"
#include "bpt_internal.h"
#include "bpt_testutil.h"

Test(bpt_codec, xxh64_known_values)
{
	cr_assert_eq(bpt_xxh64("", 0, 0), 0xEF46DB3751D8E999ull);
	cr_assert_eq(bpt_xxh64("abc", 3, 0), 0x44BC2CF5AD770999ull);
	/* zstd's content checksum is the low 32 bits of XXH64(content, 0):
	 * an independent implementation to compare with, at every length. */
	static uint8_t data[1000], frame[2000];
	uint64_t s = 1;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)tu_rand(&s);
	ZSTD_CCtx *cc = ZSTD_createCCtx();

	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
	for (size_t len = 0; len < sizeof(data); len += 1 + len / 8) {
		size_t z = ZSTD_compress2(cc, frame, sizeof(frame), data, len);

		cr_assert(!ZSTD_isError(z));
		cr_assert_eq((uint32_t)bpt_xxh64(data, len, 0), get_le32(frame + z - 4),
			     "length %zu", len);
		/* streaming form, fed in uneven pieces */
		struct bpt_xxh64_state st;

		bpt_xxh64_init(&st, 0);
		for (size_t off = 0; off < len;) {
			size_t k = 1 + off % 37;

			k = k > len - off ? len - off : k;
			bpt_xxh64_update(&st, data + off, k);
			off += k;
		}
		cr_assert_eq(bpt_xxh64_final(&st), bpt_xxh64(data, len, 0));
	}
	ZSTD_freeCCtx(cc);
}

Test(bpt_codec, varint_and_zigzag, .fini = tu_cleanup)
{
	static const uint64_t v[] = { 0, 1, 127, 128, 300, 1ull << 35,
				      UINT64_MAX - 1, UINT64_MAX };
	struct bpt_buf b = { 0 };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		buf_varint(&b, v[i]);
	struct bpt_cur c = { .p = b.p, .len = b.len };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		uint64_t got;

		cr_assert_eq(cur_varint(&c, &got), 0);
		cr_assert_eq(got, v[i]);
	}
	cr_assert_eq(c.pos, b.len);
	uint64_t got;
	uint8_t over[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02 };
	uint8_t tooLong[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0 };
	uint8_t cut[] = { 0x80 };

	c = (struct bpt_cur){ .p = over, .len = sizeof(over) };
	cr_assert_eq(cur_varint(&c, &got), -EBADMSG, "more than 64 bits");
	c = (struct bpt_cur){ .p = tooLong, .len = sizeof(tooLong) };
	cr_assert_eq(cur_varint(&c, &got), -EBADMSG, "11 bytes");
	c = (struct bpt_cur){ .p = cut, .len = sizeof(cut) };
	cr_assert_eq(cur_varint(&c, &got), -EBADMSG, "cut short");
	buf_free(&b);
	static const int64_t z[] = { 0, -1, 1, INT64_MIN, INT64_MAX, -123456789 };

	for (size_t i = 0; i < sizeof(z) / sizeof(z[0]); i++)
		cr_assert_eq(unzigzag64(zigzag64(z[i])), z[i]);
	cr_assert_eq(zigzag64(-1), 1);
	cr_assert_eq(zigzag64(1), 2);
}

Test(bpt_codec, columns_every_width_and_kind, .fini = tu_cleanup)
{
	static uint64_t v[5000];
	uint64_t s = 9;

	for (unsigned bits = 0; bits <= 64; bits += 4) {
		for (uint32_t i = 0; i < 5000; i++)
			v[i] = bits == 64 ? tu_rand(&s) : tu_rand(&s) & ((1ull << bits) - 1);
		tu_col_roundtrip(v, 5000, 0);
		for (uint32_t i = 0; i < 5000; i++)
			v[i] = (v[i] << 12) + 77; /* common shift and base */
		tu_col_roundtrip(v, 5000, 0);
	}
	for (uint32_t i = 0; i < 5000; i++)
		v[i] = 4096;
	cr_assert_eq(tu_col_roundtrip(v, 5000, 0), BPT_COL_PLANES, "constant: width 0");
	for (unsigned nd = 2; nd <= 16; nd++) {
		for (uint32_t i = 0; i < 5000; i++)
			v[i] = 1000 + 977 * tu_below(&s, nd);
		cr_assert_eq(tu_col_roundtrip(v, 5000, 0), BPT_COL_DICT, "%u values", nd);
	}
	v[0] = UINT64_MAX;
	v[1] = 0;
	tu_col_roundtrip(v, 2, 0);
	/* the bound a reader checks ranges by: the largest value exactly
	 * for a constant and a dictionary, none for planes of 8 bytes */
	struct bpt_buf b = { 0 };
	struct bpt_colview cv;
	unsigned np;
	size_t at;
	static const uint64_t cst[4] = { 9, 9, 9, 9 }, dict[8] = { 5, 1ull << 40, 5, 5, 5, 5, 5, 5 },
			      wide[4] = { 1, UINT64_MAX - 1, 2, 3 }, small[4] = { 100, 300, 200, 700 };

	bpt_col_encode(&b, cst, 4, 0, &np, &at);
	cr_assert_eq(bpt_col_parse(b.p, b.len, 4, &cv), 0);
	cr_assert_eq(bpt_col_bound(&cv), 9);
	b.len = 0;
	bpt_col_encode(&b, dict, 8, 0, &np, &at);
	cr_assert_eq(bpt_col_parse(b.p, b.len, 8, &cv), 0);
	cr_assert_eq(cv.kind, BPT_COL_DICT);
	cr_assert_eq(bpt_col_bound(&cv), 1ull << 40);
	b.len = 0;
	bpt_col_encode(&b, wide, 4, 0, &np, &at);
	cr_assert_eq(bpt_col_parse(b.p, b.len, 4, &cv), 0);
	cr_assert_eq(bpt_col_bound(&cv), UINT64_MAX);
	b.len = 0;
	bpt_col_encode(&b, small, 4, 0, &np, &at);
	cr_assert_eq(bpt_col_parse(b.p, b.len, 4, &cv), 0);
	cr_assert_eq(cv.width, 1, "(v - 100) >> 2 fits a byte");
	cr_assert_eq(bpt_col_bound(&cv), 100 + (255u << 2));
	buf_free(&b);
	tu_col_roundtrip(v, 1, 0);
	tu_col_roundtrip(v, 0, 0);
}

Test(bpt_codec, dictionary_index_out_of_range, .fini = tu_cleanup)
{
	uint8_t col[] = { BPT_COL_DICT, 0, 2, 3, 10, 20, 30, 0xff };
	struct bpt_colview cv;
	uint64_t out[4];

	cr_assert_eq(bpt_col_parse(col, sizeof(col), 4, &cv), 0);
	cr_assert_eq(bpt_col_decode(&cv, 0, 4, out), -EBADMSG, "index 3 of 3 entries");
	col[3] = 5;
	cr_assert_eq(bpt_col_parse(col, sizeof(col), 4, &cv), -EBADMSG, "5 > 2^2");
	col[2] = 3;
	cr_assert_eq(bpt_col_parse(col, sizeof(col), 4, &cv), -EBADMSG, "3 bits");
}

/*
 * A hand-built file as a newer minor version could write it: header with
 * extension bytes and an unknown column bit, a block with an unknown
 * column id. This reader must return the records and ignore the rest.
 */
static size_t build_file_with(uint8_t *out, size_t cap, uint16_t major,
			      const uint64_t sref[3], uint64_t sector0, int col,
			      const uint64_t col_vals[3])
{
	struct bpt_header h;
	struct bpt_buf hb = { 0 }, pay = { 0 };
	uint64_t vals[COL_MANDATORY][3] = { { 0 } };
	unsigned np;
	size_t at;

	tu_header(&h, 1, 0);
	cr_assert_eq(bpt_header_encode(&h, &hb, "f", NULL), 0);
	/* unknown columns bit 9, 5 extension bytes, new size and checksum */
	hb.len -= 8;
	size_t cols_off = 16 + 2 + strlen(h.kind) + 2 + strlen(h.tool_version) +
			  2 + strlen(h.host) + 2 + strlen(h.kernel) + 16;

	put_le32(hb.p + cols_off, 1u << 9);
	buf_put(&hb, "\1\2\3\4\5", 5);
	put_le16(hb.p + 8, major);
	put_le16(hb.p + 10, 7);
	put_le32(hb.p + 12, (uint32_t)hb.len + 8);
	buf_u64(&hb, bpt_xxh64(hb.p, hb.len, 0));
	/* payload: "" as string 0, no losses, 12 columns, sector_ref
	 * (coding 0 has sector deltas) + unknown id 1000 */
	buf_varint(&pay, 1);
	buf_varint(&pay, 0);
	buf_str16(&pay, "", 0);
	buf_varint(&pay, 0);
	buf_varint(&pay, COL_MANDATORY + 2);
	for (int i = 0; i < 3; i++) {
		vals[COL_ISSUE][i] = zigzag64(i ? 1000 : 0); /* 5000, 6000, 7000 */
		vals[COL_COMPLETE][i] = zigzag64(500);
		vals[COL_SECTOR][i] = zigzag64(0);            /* sequential */
		vals[COL_BYTES][i] = 4096;
		vals[COL_PID][i] = 42;
		if (col >= 0)
			vals[col][i] = col_vals[i]; /* as stored */
	}
	for (int id = 0; id <= COL_MANDATORY; id++) {
		struct bpt_buf cb = { 0 };

		if (id == COL_MANDATORY) {
			/* sector_ref: 0, each sector follows the previous end */
			bpt_col_encode(&cb, sref, 3, 0, &np, &at);
			buf_varint(&pay, COL_SECTOR_REF);
			buf_varint(&pay, cb.len);
			buf_put(&pay, cb.p, cb.len);
			buf_free(&cb);
			buf_varint(&pay, 1000);
			buf_varint(&pay, 4);
			buf_put(&pay, "zzzz", 4);
			break;
		}
		bpt_col_encode(&cb, vals[id], 3,
			       id == COL_ISSUE ? 5000 : id == COL_SECTOR ? sector0 : 0, &np, &at);
		buf_varint(&pay, (uint64_t)id);
		buf_varint(&pay, cb.len);
		buf_put(&pay, cb.p, cb.len);
		buf_free(&cb);
	}
	uint8_t bh[BPT_BLOCK_HDR] = { 'B', 'P', 'T', 'B' };

	put_le32(bh + 8, 3);
	put_le32(bh + 12, (uint32_t)pay.len);
	put_le32(bh + 16, (uint32_t)pay.len);
	put_le64(bh + 24, 5000);
	put_le64(bh + 32, 7000);
	put_le64(bh + 40, 7500);
	struct bpt_xxh64_state st;

	bpt_xxh64_init(&st, 0);
	bpt_xxh64_update(&st, bh, 48);
	bpt_xxh64_update(&st, pay.p, pay.len);
	put_le64(bh + 48, bpt_xxh64_final(&st));
	size_t len = hb.len + sizeof(bh) + pay.len;

	cr_assert_leq(len, cap);
	memcpy(out, hb.p, hb.len);
	memcpy(out + hb.len, bh, sizeof(bh));
	memcpy(out + hb.len + sizeof(bh), pay.p, pay.len);
	buf_free(&hb);
	buf_free(&pay);
	return len;
}

static size_t build_future_file(uint8_t *out, size_t cap, uint16_t major,
				const uint64_t sref[3], uint64_t sector0)
{
	return build_file_with(out, cap, major, sref, sector0, -1, NULL);
}

Test(bpt_codec, newer_minor_is_read_other_major_refused, .fini = tu_cleanup)
{
	static uint8_t file[8192];
	static const uint64_t sref[3] = { 0 };
	size_t len = build_future_file(file, sizeof(file), BPT_FORMAT_MAJOR, sref, 800);
	struct bpt_reader *r;
	struct bpt_error e = { 0 };
	struct bpt_record rec;

	cr_assert_eq(bpt_reader_open_mem(&r, file, len, "future.bpt", &e), 0, "%s", e.msg);
	cr_assert_eq(bpt_reader_header(r)->version_minor, 7);
	cr_assert_eq(bpt_reader_header(r)->columns, 0, "unknown bits dropped");
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(bpt_reader_next(r, &rec, &e), 1, "%s", e.msg);
		cr_assert_eq(rec.issue_ns, 5000 + 1000u * i);
		cr_assert_eq(rec.complete_ns, rec.issue_ns + 500);
		cr_assert_eq(rec.sector, 800 + 8u * i);
		cr_assert_eq(rec.pid, 42);
	}
	cr_assert_eq(bpt_reader_next(r, &rec, &e), 0, "%s", e.msg);
	bpt_reader_close(r);

	len = build_future_file(file, sizeof(file), BPT_FORMAT_MAJOR + 1, sref, 800);
	cr_assert_eq(bpt_reader_open_mem(&r, file, len, "v2.bpt", &e), -EPROTONOSUPPORT);
	cr_assert(strstr(e.msg, "v2.bpt: offset 8: format version 2.7"), "%s", e.msg);
}

/*
 * The reference column as the spec defines it, on hand-built bytes:
 * sector_ref k makes a sector relative to the end of record i-1-k, and
 * the seed for a record before the block; 32 or more is an error.
 */
Test(bpt_codec, sector_ref_decodes_as_specified, .fini = tu_cleanup)
{
	static uint8_t file[8192];
	static const uint64_t back[3] = { 5, 0, 1 }, bad[3] = { 0, 32, 0 };
	size_t len = build_future_file(file, sizeof(file), BPT_FORMAT_MAJOR, back, 800);
	struct bpt_reader *r;
	struct bpt_error e = { 0 };
	struct bpt_record rec;

	cr_assert_eq(bpt_reader_open_mem(&r, file, len, "ref.bpt", &e), 0, "%s", e.msg);
	/* record 0: before the block -> seed 800; record 1 after record 0's
	 * end (808); record 2 after record 0's end again (808) */
	static const uint64_t want[3] = { 800, 808, 808 };

	for (int i = 0; i < 3; i++) {
		cr_assert_eq(bpt_reader_next(r, &rec, &e), 1, "%s", e.msg);
		cr_assert_eq(rec.sector, want[i], "record %d: %llu", i,
			     (unsigned long long)rec.sector);
	}
	bpt_reader_close(r);
	len = build_future_file(file, sizeof(file), BPT_FORMAT_MAJOR, bad, 800);
	cr_assert_eq(bpt_reader_open_mem(&r, file, len, "ref.bpt", &e), 0, "%s", e.msg);
	cr_assert_eq(bpt_reader_next(r, &rec, &e), -EBADMSG);
	cr_assert(strstr(e.msg, "block 0: record 1: a reference column reaches past 32 records"),
		  "%s", e.msg);
	bpt_reader_close(r);
}

/*
 * A record whose last byte (sector * 512 + bytes) lies past 2^64 would
 * wrap to a small offset (a replay wrote at offset 0): hand-built bytes
 * with such a record are damage, named by block and record; the writer
 * never writes one.
 */
Test(bpt_codec, sector_past_2p64_bytes_is_damage, .fini = tu_cleanup)
{
	static uint8_t file[8192];
	static const uint64_t sref[3] = { 0 };
	const uint64_t last_ok = (UINT64_MAX - 4096) >> 9; /* 4096-byte I/Os */
	size_t len = build_future_file(file, sizeof(file), BPT_FORMAT_MAJOR, sref, last_ok);
	struct bpt_reader *r;
	struct bpt_error e = { 0 };
	struct bpt_record rec;
	struct bpt_header h;
	struct bpt_writer *w;

	cr_assert_eq(bpt_reader_open_mem(&r, file, len, "far.bpt", &e), 0, "%s", e.msg);
	/* record 0 ends at the last byte; record 1, 8 sectors later, past it */
	cr_assert_eq(bpt_reader_next(r, &rec, &e), -EBADMSG, "record 1 is in the first chunk");
	cr_assert(strstr(e.msg, "far.bpt: offset "), "%s", e.msg);
	cr_assert(strstr(e.msg, "block 0: record 1: sector 36028797018963967 + 4096 bytes "
			 "ends past 2^64 bytes"), "%s", e.msg);
	bpt_reader_close(r);
	len = build_future_file(file, sizeof(file), BPT_FORMAT_MAJOR, sref, last_ok - 16);
	cr_assert_eq(bpt_reader_open_mem(&r, file, len, "edge.bpt", &e), 0, "%s", e.msg);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(bpt_reader_next(r, &rec, &e), 1, "%s", e.msg);
	cr_assert_eq(rec.sector, last_ok, "the last I/O ends at byte 2^64 - 1");
	bpt_reader_close(r);

	tu_header(&h, 1, 0);
	cr_assert_eq(bpt_writer_create(&w, tu_tmpname("far"), &h, NULL, &e), 0, "%s", e.msg);
	rec = (struct bpt_record){ .issue_ns = 1, .complete_ns = 2, .bytes = 4096,
				   .sector = 1ull << 55 };
	cr_assert_eq(bpt_writer_add(w, &rec), -EINVAL);
	rec.sector = last_ok;
	cr_assert_eq(bpt_writer_add(w, &rec), 0);
	cr_assert_eq(bpt_writer_close(w, &e), 0, "%s", e.msg);
}

/*
 * Fields out of range are damage, named by block and record, whether the
 * column's coding (planes here, a dictionary for the wide values) leaves
 * them to be checked record by record or not; values in range are read.
 * The reader checks a column once per block when its coding keeps every
 * value in range (bpt_col_bound), so both sides of that are tried.
 */
Test(bpt_codec, fields_out_of_range_are_damage, .fini = tu_cleanup)
{
	static uint8_t file[8192];
	static const uint64_t sref[3] = { 0 };
	static const struct {
		int col;
		uint64_t v[3];
		const char *msg; /* NULL: read */
	} cases[] = {
		{ COL_DEV, { 0, 1, 0 }, "block 0: record 1: device 1, trace has 1" },
		{ COL_DEV, { 0, 0, 0 }, NULL },
		{ COL_OP, { 0, BPT_OP__COUNT, 0 }, "block 0: record 1: bad op or flags" },
		{ COL_OP, { 1, 0, 1 }, NULL },
		{ COL_FLAGS, { BPT_F__ALL, BPT_F__ALL + 1, 0 }, "block 0: record 1: bad op or flags" },
		{ COL_FLAGS, { BPT_F__ALL, 0, BPT_F_SYNC }, NULL },
		{ COL_COMM, { 0, 0, 1 }, "block 0: record 2: unknown string id 1" },
		{ COL_PID, { 7, 1ull << 32, 7 }, "block 0: a 32-bit field out of range" },
		{ COL_PID, { 0, 1ull << 60, 1ull << 60 }, "block 0: a 32-bit field out of range" },
		{ COL_PID, { 0, UINT32_MAX, UINT32_MAX }, NULL },
		{ COL_BYTES, { 512, 512, 1ull << 32 }, "block 0: a 32-bit field out of range" },
		{ COL_ERROR, { 0, 1ull << 32, 0 }, "block 0: a 32-bit field out of range" },
		{ COL_ERROR, { 0, 0, 9 }, NULL }, /* zigzag(-5) */
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		size_t len = build_file_with(file, sizeof(file), BPT_FORMAT_MAJOR, sref, 800,
					     cases[k].col, cases[k].v);
		struct bpt_reader *r;
		struct bpt_error e = { 0 };
		struct bpt_record rec;
		int rc, n = 0;

		cr_assert_eq(bpt_reader_open_mem(&r, file, len, "range.bpt", &e), 0, "%s", e.msg);
		while ((rc = bpt_reader_next(r, &rec, &e)) == 1)
			n++;
		if (cases[k].msg) {
			cr_assert_eq(rc, -EBADMSG, "case %zu", k);
			cr_assert_eq(n, 0, "case %zu: the chunk is refused whole", k);
			cr_assert(strstr(e.msg, cases[k].msg), "case %zu: %s", k, e.msg);
		} else {
			cr_assert_eq(rc, 0, "case %zu: %s", k, e.msg);
			cr_assert_eq(n, 3, "case %zu", k);
			if (cases[k].col == COL_ERROR)
				cr_assert_eq(rec.error, -5);
		}
		bpt_reader_close(r);
	}
}

/*
 * The writer picks the time coding per block: issue deltas for records in
 * issue order, completion deltas for completion order, "issued after the
 * previous completion" at queue depth 1; sectors as deltas when
 * sequential, as they are when random. Each round-trips exactly.
 */
Test(bpt_codec, coding_choice_per_block, .fini = tu_cleanup)
{
	static const struct {
		int order; /* 0 issue order, 1 completion order, 2 QD1,
			      3 issue order with slowly drifting service */
		int random;
		uint8_t want;
	} cases[] = {
		{ 0, 0, 0 },
		{ 1, 0, BPT_CODING_TIME_COMPLETE },
		{ 2, 0, BPT_CODING_TIME_AFTER },
		{ 3, 0, BPT_CODING_TIME_BOTH },
		{ 0, 1, BPT_CODING_SECTOR_ABS },
	};
	static struct bpt_record recs[20000];

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const char *p = tu_tmpname("coding");
		struct bpt_header h;
		struct bpt_writer *w;
		struct bpt_reader *r;
		struct bpt_error e = { 0 };
		struct bpt_writer_opts o = { .block_span_ns = UINT64_MAX };
		uint64_t s = 17, t = 1000, svc = 100000;

		tu_header(&h, 1, 0);
		for (int i = 0; i < 20000; i++) {
			struct bpt_record *x = &recs[i];

			memset(x, 0, sizeof(*x));
			x->bytes = 4096;
			x->sector = cases[k].random ? tu_below(&s, 1u << 22) * 8 : 8u * i;
			if (cases[k].order == 2) {
				x->issue_ns = t + 500 + tu_below(&s, 300);
				x->complete_ns = x->issue_ns + 20000 + tu_below(&s, 50000);
				t = x->complete_ns;
			} else if (cases[k].order == 3) {
				t += 3000 + tu_below(&s, 6000);
				svc += tu_below(&s, 1001) - 500;
				svc = svc < 20000 ? 20000 : svc;
				x->issue_ns = t;
				x->complete_ns = t + svc;
			} else {
				t += tu_below(&s, 20000);
				x->issue_ns = t;
				x->complete_ns = t + 20000 + tu_below(&s, 200000);
			}
			x->queue_ns = x->issue_ns - tu_below(&s, 1000);
		}
		if (cases[k].order == 1) /* completion order, by insertion */
			for (int i = 1; i < 20000; i++)
				for (int j = i; j > 0 && recs[j].complete_ns < recs[j - 1].complete_ns; j--) {
					struct bpt_record tmp = recs[j];

					recs[j] = recs[j - 1];
					recs[j - 1] = tmp;
				}
		cr_assert_eq(bpt_writer_create(&w, p, &h, &o, &e), 0);
		for (int i = 0; i < 20000; i++)
			cr_assert_eq(bpt_writer_add(w, &recs[i]), 0);
		cr_assert_eq(bpt_writer_close(w, &e), 0);
		size_t len;
		uint8_t *f = tu_load(p, &len);

		cr_assert_eq(f[get_le32(f + 12) + 21], cases[k].want, "case %zu: coding 0x%x",
			     k, f[get_le32(f + 12) + 21]);
		cr_assert_eq(bpt_reader_open_mem(&r, f, len, "c.bpt", &e), 0);
		for (int i = 0; i < 20000; i++) {
			struct bpt_record got;

			cr_assert_eq(bpt_reader_next(r, &got, &e), 1);
			if (!tu_rec_eq(&got, &recs[i]))
				cr_assert_fail("case %zu: record %d differs", k, i);
		}
		bpt_reader_close(r);
		free(f);
	}
	tu_cleanup();
}

/* A newer minor's footer fields after the string table are skipped. */
Test(bpt_codec, footer_extension_is_skipped, .fini = tu_cleanup)
{
	const char *p = tu_tmpname("footx");
	struct bpt_header h;
	struct bpt_writer *w;
	struct bpt_reader *r;
	struct bpt_error e = { 0 };
	struct bpt_record rec = { .issue_ns = 5, .bytes = 512 };
	struct bpt_stats st;
	size_t len;

	tu_header(&h, 1, 0);
	cr_assert_eq(bpt_writer_create(&w, p, &h, NULL, &e), 0);
	cr_assert_eq(bpt_writer_add(w, &rec), 0);
	cr_assert_eq(bpt_writer_close(w, &e), 0);
	uint8_t *f = tu_load(p, &len);
	uint8_t *g = malloc(len + 8);
	size_t toff = len - BPT_TRAILER;
	uint64_t foff = get_le64(f + toff);

	memcpy(g, f, toff);
	memcpy(g + toff, "newfield", 8);
	memcpy(g + toff + 8, f + toff, BPT_TRAILER);
	put_le64(g + toff + 8 + 8, bpt_xxh64(g + foff, toff + 8 - foff, 0));
	cr_assert_eq(bpt_reader_open_mem(&r, g, len + 8, "x.bpt", &e), 0, "%s", e.msg);
	bpt_reader_stats(r, &st);
	cr_assert_eq(st.complete, 1);
	cr_assert_eq(st.records, 1);
	cr_assert_eq(bpt_reader_verify(r, &e), 0, "%s", e.msg);
	bpt_reader_close(r);
	free(f);
	free(g);
}
