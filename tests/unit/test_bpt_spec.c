/*
 * Unit test of the trace library against schemas/trace-format.md: a file
 * written through the public API is read back as raw bytes and checked at
 * the offsets the spec gives (file magic, header field order, the block
 * header and its checksum, footer, trailer). The round-trip tests cannot
 * see a writer and reader that agree with each other but not with the
 * spec; this one can.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpt.h"
#include "bpt_internal.h"
#include "bpt_testutil.h"

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const uint8_t *p) { return le16(p) | (uint32_t)le16(p + 2) << 16; }
static uint64_t le64(const uint8_t *p) { return le32(p) | (uint64_t)le32(p + 4) << 32; }

/* A str16 at *pos equal to s; moves *pos past it. */
static void expect_str16(const uint8_t *f, size_t *pos, const char *s, const char *field)
{
	size_t n = le16(f + *pos);

	cr_assert_eq(n, strlen(s), "%s: length %zu, want %zu", field, n, strlen(s));
	cr_assert_eq(memcmp(f + *pos + 2, s, n), 0, "%s differs", field);
	*pos += 2 + n;
}

Test(bpt_spec, bytes_where_the_spec_puts_them, .fini = tu_cleanup)
{
	const char *p = tu_tmpname("spec");
	struct bpt_header h;
	struct bpt_device dev = { .name = "loop7", .major = 7, .minor = 7,
				  .size_bytes = 1 << 30, .logical_block_size = 512,
				  .physical_block_size = 4096, .rotational = 1,
				  .model = "disk" };
	struct bpt_writer *w;
	struct bpt_error e = { 0 };
	uint32_t id;
	size_t len, pos;

	bpt_header_init(&h, "generate");
	h.start_wall_ns = 0x0102030405060708ll;
	h.start_mono_ns = 0x1112131415161718ull;
	cr_assert_eq(bpt_header_add_device(&h, &dev), 0);
	cr_assert_eq(bpt_header_set_meta(&h, "k", "v"), 0);
	cr_assert_eq(bpt_writer_create(&w, p, &h, NULL, &e), 0, "%s", e.msg);
	cr_assert_eq(bpt_writer_intern(w, "fio", &id), 0);
	for (int i = 0; i < 3; i++) {
		struct bpt_record r = { .issue_ns = 1000 + 10 * i, .complete_ns = 2000 + 10 * i,
					.sector = 8 * i, .bytes = 4096, .comm_id = id };
		cr_assert_eq(bpt_writer_add(w, &r), 0);
	}
	cr_assert_eq(bpt_writer_set_end_meta(w, "k", "w"), 0);
	cr_assert_eq(bpt_writer_close(w, &e), 0, "%s", e.msg);
	uint8_t *f = tu_load(p, &len);
	cr_assert_not_null(f);

	/* Header: magic, version, header_size, then the fields in order. */
	cr_assert_eq(memcmp(f, "\x89\x42\x50\x54\x0d\x0a\x1a\x0a", 8), 0, "file magic");
	cr_assert_eq(le16(f + 8), 1, "version_major");
	cr_assert_eq(le16(f + 10), 4, "version_minor");
	uint32_t hsize = le32(f + 12);
	cr_assert(hsize >= 24 && hsize < len, "header_size %u", hsize);
	pos = 16;
	expect_str16(f, &pos, "generate", "kind");
	expect_str16(f, &pos, h.tool_version, "tool_version");
	expect_str16(f, &pos, h.host, "host");
	expect_str16(f, &pos, h.kernel, "kernel");
	cr_assert_eq(le64(f + pos), 0x0102030405060708ull, "start_wall_ns");
	cr_assert_eq(le64(f + pos + 8), 0x1112131415161718ull, "start_mono_ns");
	cr_assert_eq(le32(f + pos + 16), 0, "columns");
	cr_assert_eq(le16(f + pos + 20), 1, "ndevices");
	pos += 22;
	expect_str16(f, &pos, "loop7", "device name");
	cr_assert_eq(le32(f + pos), 7, "major");
	cr_assert_eq(le32(f + pos + 4), 7, "minor");
	cr_assert_eq(le64(f + pos + 8), 1u << 30, "size_bytes");
	cr_assert_eq(le32(f + pos + 16), 512, "logical_block_size");
	cr_assert_eq(le32(f + pos + 20), 4096, "physical_block_size");
	cr_assert_eq(f[pos + 24], 1, "rotational");
	pos += 25;
	expect_str16(f, &pos, "disk", "model");
	cr_assert_eq(le16(f + pos), 1, "nmeta");
	pos += 2;
	expect_str16(f, &pos, "k", "meta key");
	expect_str16(f, &pos, "v", "meta value");
	cr_assert_eq(pos, hsize - 8, "no extension in 1.0: the checksum follows the meta");
	cr_assert_eq(le64(f + hsize - 8), bpt_xxh64(f, hsize - 8, 0), "header_checksum");

	/* The first block starts at header_size with its 56-byte header. */
	const uint8_t *b = f + hsize;
	cr_assert_eq(memcmp(b, "BPTB", 4), 0, "block magic");
	cr_assert_eq(le32(b + 4), 0, "seq");
	cr_assert_eq(le32(b + 8), 3, "nrecords");
	uint32_t stored = le32(b + 12), raw = le32(b + 16);
	cr_assert(b[20] == 0 || b[20] == 1, "compression %u", b[20]);
	if (b[20] == 0)
		cr_assert_eq(stored, raw, "stored block: stored_size = raw_size");
	cr_assert_eq(b[21] & ~7u, 0, "coding: only bits 0-2");
	cr_assert_eq(le16(b + 22), 0, "reserved");
	cr_assert_eq(le64(b + 24), 1000, "min_issue_ns");
	cr_assert_eq(le64(b + 32), 1020, "max_issue_ns");
	cr_assert_eq(le64(b + 40), 2020, "max_complete_ns");
	uint8_t *ck = malloc(48 + stored);
	memcpy(ck, b, 48);
	memcpy(ck + 48, b + 56, stored);
	cr_assert_eq(le64(b + 48), bpt_xxh64(ck, 48 + stored, 0),
		     "block checksum: XXH64 of header bytes [0, 48) and the stored payload");
	free(ck);

	/* The footer follows the last (only) block; the trailer ends the file. */
	uint64_t foff = hsize + 56 + stored;
	const uint8_t *t = f + len - 24;
	cr_assert_eq(le64(t), foff, "footer_offset");
	cr_assert_eq(le64(t + 8), bpt_xxh64(f + foff, len - 24 - foff, 0), "footer_checksum");
	cr_assert_eq(memcmp(t + 16, "\x89\x42\x50\x45\x0d\x0a\x1a\x0a", 8), 0, "trailer magic");
	const uint8_t *ft = f + foff;
	cr_assert_eq(memcmp(ft, "BPTF", 4), 0, "footer magic");
	cr_assert_eq(le32(ft + 4), 0, "footer reserved");
	cr_assert_eq(le64(ft + 8), 1, "nblocks");
	cr_assert_eq(le64(ft + 16), 3, "nrecords");
	cr_assert_eq(le64(ft + 24), 1000, "first_issue_ns");
	cr_assert_eq(le64(ft + 32), 1020, "last_issue_ns");
	cr_assert_eq(le64(ft + 40), 2020, "last_complete_ns");
	cr_assert_eq(le64(ft + 48), 0, "lost_events");
	cr_assert_eq(le64(ft + 64), 2, "nstrings: \"\" and \"fio\"");
	const uint8_t *ix = ft + 80;
	cr_assert_eq(le64(ix), hsize, "index: first block at header_size");
	cr_assert_eq(le32(ix + 8), 3, "index: nrecords");
	cr_assert_eq(le32(ix + 12), 0, "index: reserved");
	cr_assert_eq(le64(ix + 16), 1000, "index: min_issue_ns");
	cr_assert_eq(le64(ix + 24), 1020, "index: max_issue_ns");
	/* string table after the (empty) loss table: "" then "fio" */
	const uint8_t *st = ix + 32;
	cr_assert_eq(le16(st), 0);
	cr_assert_eq(le16(st + 2), 3);
	cr_assert_eq(memcmp(st + 4, "fio", 3), 0);
	/* end meta (1.1): one entry, k=w */
	cr_assert_eq(le16(st + 7), 1, "nendmeta");
	cr_assert_eq(le16(st + 9), 1);
	cr_assert_eq(st[11], 'k');
	cr_assert_eq(le16(st + 12), 1);
	cr_assert_eq(st[14], 'w');
	/* path table (1.3): none */
	cr_assert_eq(le32(st + 15), 0, "npaths");
	cr_assert_eq(st + 19, t, "footer ends where the trailer begins");
	free(f);
}

/* The offset of `ndevices` in a header (after the four str16 and the
 * fixed fields before it). */
static size_t ndevices_offset(const uint8_t *f)
{
	size_t pos = 16;

	for (int i = 0; i < 4; i++)
		pos += 2 + le16(f + pos);
	return pos + 8 + 8 + 4;
}

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }

/*
 * Format 1.3's device table (schemas/trace-format.md, "Header"): up to 64
 * devices the 1.2 table (a u16 count), which 1.2 readers read; more, the
 * escape 0xffff and a u32 count, which a 1.2 reader refuses as more
 * devices than its 64 (emulated here: the same file said to be 1.2 is
 * refused with that message); a 1.3 reader reads both.
 */
Test(bpt_spec, device_table_of_1_3_and_the_version_rule, .fini = tu_cleanup)
{
	const unsigned counts[] = { 3, 64, 65, 2038, BPT_MAX_DEVICES };

	for (unsigned k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		const char *p = tu_tmpname("dev13");
		struct bpt_header h;
		struct bpt_writer *w;
		struct bpt_reader *r;
		struct bpt_error e = { 0 };
		struct bpt_record rec = { .issue_ns = 5, .complete_ns = 9, .bytes = 512,
					  .dev = counts[k] - 1 };
		size_t len, at;
		uint8_t *f;
		FILE *o;

		tu_header(&h, counts[k], 0);
		cr_assert_eq(h.ndevices, counts[k]);
		cr_assert_eq(bpt_writer_create(&w, p, &h, NULL, &e), 0, "%s", e.msg);
		cr_assert_eq(bpt_writer_add(w, &rec), 0);
		cr_assert_eq(bpt_writer_close(w, &e), 0, "%s", e.msg);
		bpt_header_free(&h);
		f = tu_load(p, &len);
		cr_assert_not_null(f);
		at = ndevices_offset(f);
		if (counts[k] <= BPT_DEVICES_V12) {
			cr_assert_eq(le16(f + at), counts[k], "a 1.2 table of %u", counts[k]);
		} else {
			cr_assert_eq(le16(f + at), 0xffff, "the escape for %u", counts[k]);
			cr_assert_eq(le32(f + at + 2), counts[k]);
		}
		cr_assert_eq(bpt_reader_open(&r, p, &e), 0, "%u devices: %s", counts[k], e.msg);
		cr_assert_eq(bpt_reader_header(r)->ndevices, counts[k]);
		char want[16];

		snprintf(want, sizeof(want), "loop%u", counts[k] - 1);
		cr_assert_str_eq(bpt_reader_header(r)->devices[counts[k] - 1].name, want);
		cr_assert_eq(bpt_reader_next(r, &rec, &e), 1, "%s", e.msg);
		cr_assert_eq(rec.dev, counts[k] - 1);
		bpt_reader_close(r);
		if (counts[k] > BPT_DEVICES_V12) {
			/* As a 1.2 file (checksum made good): refused, naming it. */
			uint32_t hs = le32(f + 12);
			uint64_t c;

			put16(f + 10, 2);
			c = bpt_xxh64(f, hs - 8, 0);
			for (int i = 0; i < 8; i++)
				f[hs - 8 + i] = (uint8_t)(c >> (8 * i));
			cr_assert_not_null(o = fopen(p, "wb"));
			cr_assert_eq(fwrite(f, 1, len, o), len);
			fclose(o);
			cr_assert_eq(bpt_reader_open(&r, p, &e), -EBADMSG);
			cr_assert(strstr(e.msg, "header: 65535 devices, at most 64"), "%s", e.msg);
		}
		free(f);
	}
}
