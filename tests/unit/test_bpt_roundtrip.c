/*
 * Unit tests of the trace library: randomised round trips through writer
 * and reader (every field, op and flag, extremes, optional columns on and
 * off), the header, strings across blocks, losses, block closing rules
 * and seeking.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpt.h"
#include "bpt_testutil.h"

static const char *comms[] = { "", "fio", "kworker/0:1", "postgres", "a b c",
			       "x123456789012345" };
#define NCOMMS (sizeof(comms) / sizeof(comms[0]))

/* Write n random records to path; returns them (malloc'd). */
static struct bpt_record *write_random(const char *path, uint64_t seed,
				       size_t n, uint32_t columns,
				       uint32_t block_records)
{
	struct bpt_header h;
	struct bpt_writer *w;
	struct bpt_error e = { 0 };
	struct bpt_writer_opts o = { .block_records = block_records,
				     .block_span_ns = UINT64_MAX };
	struct bpt_record *recs = calloc(n ? n : 1, sizeof(*recs));
	uint32_t ids[NCOMMS];

	tu_header(&h, 3, columns);
	cr_assert_eq(bpt_writer_create(&w, path, &h, &o, &e), 0, "%s", e.msg);
	for (size_t i = 0; i < NCOMMS; i++)
		cr_assert_eq(bpt_writer_intern(w, comms[i], &ids[i]), 0);
	cr_assert_eq(ids[0], 0, "\"\" is string 0");
	for (size_t i = 0; i < n; i++) {
		tu_record(&seed, &recs[i], 3, NCOMMS, columns);
		cr_assert_eq(bpt_writer_add(w, &recs[i]), 0, "record %zu", i);
	}
	cr_assert_eq(bpt_writer_count(w), n);
	cr_assert_eq(bpt_writer_close(w, &e), 0, "%s", e.msg);
	return recs;
}

static void read_all_check(const char *path, const struct bpt_record *recs,
			   size_t n)
{
	struct bpt_reader *r;
	struct bpt_error e = { 0 };
	struct bpt_record got;
	struct bpt_stats st;
	size_t i = 0;
	int rc;

	cr_assert_eq(bpt_reader_open(&r, path, &e), 0, "%s", e.msg);
	while ((rc = bpt_reader_next(r, &got, &e)) == 1) {
		cr_assert_lt(i, n);
		cr_assert(tu_rec_eq(&got, &recs[i]), "record %zu differs", i);
		cr_assert_str_eq(bpt_reader_string(r, got.comm_id), comms[got.comm_id]);
		i++;
	}
	cr_assert_eq(rc, 0, "%s", e.msg);
	cr_assert_eq(i, n);
	bpt_reader_stats(r, &st);
	cr_assert_eq(st.records, n);
	cr_assert_eq(st.complete, 1);
	cr_assert_eq(st.truncated, 0);
	cr_assert_eq(bpt_reader_verify(r, &e), 0, "%s", e.msg);
	bpt_reader_close(r);
}

Test(bpt_roundtrip, random_all_columns_combinations, .fini = tu_cleanup)
{
	for (uint32_t cols = 0; cols <= BPT_COL__KNOWN; cols++) {
		const char *p = tu_tmpname("rt");
		size_t n = 3000 + cols * 117;
		struct bpt_record *recs = write_random(p, 42 + cols, n, cols, 500);

		read_all_check(p, recs, n);
		free(recs);
	}
	tu_cleanup();
}

Test(bpt_roundtrip, big_blocks_and_single_record_blocks, .fini = tu_cleanup)
{
	const char *p = tu_tmpname("big");
	struct bpt_record *recs = write_random(p, 7, 70000, BPT_COL__KNOWN, 0);

	read_all_check(p, recs, 70000);
	free(recs);
	recs = write_random(p, 8, 50, 0, 1);
	read_all_check(p, recs, 50);
	free(recs);
	tu_cleanup();
}

Test(bpt_roundtrip, empty_trace, .fini = tu_cleanup)
{
	const char *p = tu_tmpname("empty");
	struct bpt_record *recs = write_random(p, 1, 0, 0, 0);
	struct bpt_reader *r;
	struct bpt_error e = { 0 };
	struct bpt_stats st;
	uint64_t d;

	read_all_check(p, recs, 0);
	cr_assert_eq(bpt_reader_open(&r, p, &e), 0, "%s", e.msg);
	bpt_reader_stats(r, &st);
	cr_assert_eq(st.blocks, 1, "the block holding the strings");
	cr_assert_eq(bpt_reader_digest(r, &d, &e), 0);
	bpt_reader_close(r);
	free(recs);
	tu_cleanup();
}

Test(bpt_roundtrip, header_devices_meta, .fini = tu_cleanup)
{
	const char *p = tu_tmpname("hdr");
	struct bpt_header h, *g;
	struct bpt_writer *w;
	struct bpt_reader *r;
	struct bpt_error e = { 0 };
	char key[32], val[224];

	tu_header(&h, BPT_MAX_DEVICES, BPT_COL_SOURCE);
	cr_assert_eq(bpt_header_add_device(&h, &h.devices[0]), -E2BIG);
	strcpy(h.devices[5].model, "ACME SSD 9000 with a long model name, 47 chars");
	h.start_wall_ns = -12345;
	h.start_mono_ns = UINT64_MAX;
	for (int i = 1; i < BPT_MAX_META; i++) {
		snprintf(key, sizeof(key), "key.%d", i);
		memset(val, 'a' + i % 26, sizeof(val) - 1);
		val[sizeof(val) - 1] = 0;
		cr_assert_eq(bpt_header_set_meta(&h, key, val), 0);
	}
	cr_assert_eq(bpt_header_set_meta(&h, "one.too.many", "x"), -E2BIG);
	cr_assert_eq(bpt_header_set_meta(&h, "generator", "replaced"), 0);
	cr_assert_str_eq(bpt_header_get_meta(&h, "generator"), "replaced");
	cr_assert_null(bpt_header_get_meta(&h, "nope"));
	memset(val, 'v', sizeof(val));
	val[sizeof(val) - 1] = 0;
	cr_assert_eq(bpt_header_set_meta(&h, "key.1", val), 0);
	cr_assert_eq(bpt_writer_create(&w, p, &h, NULL, &e), 0, "%s", e.msg);
	cr_assert_eq(bpt_writer_close(w, &e), 0);
	cr_assert_eq(bpt_reader_open(&r, p, &e), 0, "%s", e.msg);
	g = (struct bpt_header *)bpt_reader_header(r);
	cr_assert_eq(g->version_major, BPT_FORMAT_MAJOR);
	cr_assert_eq(g->version_minor, BPT_FORMAT_MINOR);
	cr_assert_str_eq(g->kind, "test");
	cr_assert_str_eq(g->host, h.host);
	cr_assert_str_eq(g->kernel, h.kernel);
	cr_assert_str_eq(g->tool_version, h.tool_version);
	cr_assert_eq(g->start_wall_ns, -12345);
	cr_assert_eq(g->start_mono_ns, UINT64_MAX);
	cr_assert_eq(g->columns, BPT_COL_SOURCE);
	cr_assert_eq(g->ndevices, BPT_MAX_DEVICES);
	cr_assert_eq(memcmp(g->devices, h.devices, h.ndevices * sizeof(*h.devices)), 0);
	cr_assert_eq(g->nmeta, h.nmeta);
	for (uint32_t i = 0; i < h.nmeta; i++) {
		cr_assert_str_eq(g->meta[i].key, h.meta[i].key);
		cr_assert_str_eq(g->meta[i].value, h.meta[i].value);
	}
	bpt_reader_close(r);
	tu_cleanup();
}

Test(bpt_roundtrip, writer_rejects_bad_records, .fini = tu_cleanup)
{
	const char *p = tu_tmpname("bad");
	struct bpt_header h;
	struct bpt_writer *w;
	struct bpt_record rec = { .bytes = 4096 };
	struct bpt_error e = { 0 };
	char big[5000];

	tu_header(&h, 2, 0);
	cr_assert_eq(bpt_writer_create(&w, p, &h, NULL, &e), 0);
	cr_assert_eq(bpt_writer_add(w, &rec), 0);
	rec.dev = 2;
	cr_assert_eq(bpt_writer_add(w, &rec), -EINVAL);
	rec.dev = 0;
	rec.op = BPT_OP__COUNT;
	cr_assert_eq(bpt_writer_add(w, &rec), -EINVAL);
	rec.op = 0;
	rec.flags = BPT_F__ALL + 1;
	cr_assert_eq(bpt_writer_add(w, &rec), -EINVAL);
	rec.flags = 0;
	rec.comm_id = 1;
	cr_assert_eq(bpt_writer_add(w, &rec), -EINVAL, "comm not interned");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	uint32_t id;

	cr_assert_eq(bpt_writer_intern(w, big, &id), -E2BIG);
	cr_assert_eq(bpt_writer_add_loss(w, 10, 5, 1), -EINVAL);
	cr_assert_eq(bpt_writer_count(w), 1);
	cr_assert_eq(bpt_writer_close(w, &e), 0);
	h.columns = 1u << 7;
	cr_assert_eq(bpt_writer_create(&w, p, &h, NULL, &e), -EINVAL);
	cr_assert_str_neq(e.msg, "");
	tu_header(&h, 1, 0);
	cr_assert_eq(bpt_writer_create(&w, "/nonexistent/dir/x.bpt", &h, NULL, &e), -ENOENT);
	cr_assert(strstr(e.msg, "/nonexistent/dir/x.bpt"), "%s", e.msg);
	tu_cleanup();
}

Test(bpt_roundtrip, names_and_flags, .fini = tu_cleanup)
{
	char b[8];

	cr_assert_str_eq(bpt_op_name(BPT_OP_WRITE_ZEROES), "write-zeroes");
	cr_assert_str_eq(bpt_op_name(99), "?");
	for (unsigned op = 0; op < BPT_OP__COUNT; op++)
		cr_assert_eq(bpt_op_parse(bpt_op_name(op)), (int)op);
	cr_assert_eq(bpt_op_parse("frob"), -EINVAL);
	cr_assert_str_eq(bpt_flags_str(0, b), "");
	cr_assert_str_eq(bpt_flags_str(BPT_F__ALL, b), "SFPMA");
	cr_assert_str_eq(bpt_flags_str(BPT_F_FUA | BPT_F_READAHEAD, b), "FA");
}

Test(bpt_roundtrip, open_errors_name_the_file)
{
	struct bpt_reader *r;
	struct bpt_error e = { 0 };
	static const uint8_t text[] = "hello, this is not a trace at all\n";

	cr_assert_eq(bpt_reader_open_mem(&r, NULL, 0, "empty.bpt", &e), -EBADMSG);
	cr_assert_str_eq(e.msg, "empty.bpt: offset 0: empty file, not a .bpt trace");
	cr_assert_eq(bpt_reader_open_mem(&r, text, sizeof(text), "t.txt", &e), -EBADMSG);
	cr_assert_str_eq(e.msg, "t.txt: offset 0: not a .bpt trace (bad magic)");
	cr_assert_eq(bpt_reader_open(&r, "/nonexistent/x.bpt", &e), -ENOENT);
	cr_assert_str_eq(e.msg, "/nonexistent/x.bpt: cannot open: No such file or directory");
	cr_assert_eq(bpt_reader_open(&r, "/dev/null", &e), -EINVAL);
	cr_assert_str_eq(e.msg, "/dev/null: a character device, not a trace file (a trace is read "
			 "from a regular file: its index is at the end)");
	cr_assert_eq(bpt_reader_open(&r, "/tmp", &e), -EINVAL);
	bpt_reader_close(NULL);
	cr_assert_eq(bpt_writer_close(NULL, NULL), 0);
}

/*
 * End meta (format 1.1): facts set before close land in the footer and a
 * reader shows them with the header's, replacing a header key; header and
 * end meta together hold at most BPT_MAX_META keys. A file cut before its
 * footer has none.
 */
Test(bpt_roundtrip, end_meta_in_the_footer, .fini = tu_cleanup)
{
	const char *p = tu_tmpname("endmeta");
	struct bpt_header h;
	struct bpt_writer *w;
	struct bpt_reader *r;
	struct bpt_error e = { 0 };
	struct bpt_record rec = { .issue_ns = 1, .complete_ns = 2, .bytes = 512 };
	char key[16];
	uint8_t *data;
	size_t len;

	bpt_header_init(&h, "replay");
	cr_assert_eq(bpt_header_add_device(&h, &(struct bpt_device){ .name = "d" }), 0);
	for (int i = 0; i < BPT_MAX_META - 2; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		cr_assert_eq(bpt_header_set_meta(&h, key, "h"), 0);
	}
	cr_assert_eq(bpt_header_set_meta(&h, BPT_META_RUN_IOS, "9"), 0);
	cr_assert_eq(bpt_writer_create(&w, p, &h, NULL, &e), 0, "%s", e.msg);
	cr_assert_eq(bpt_writer_add(w, &rec), 0);
	cr_assert_eq(bpt_writer_set_end_meta(w, "k0", "replaced"), 0, "a header key: no new slot");
	cr_assert_eq(bpt_writer_set_end_meta(w, BPT_META_RUN_STATUS, "partial"), 0, "the 32nd key");
	cr_assert_eq(bpt_writer_set_end_meta(w, BPT_META_RUN_STOPPED, "x"), -E2BIG, "a 33rd");
	cr_assert_eq(bpt_writer_set_end_meta(w, BPT_META_RUN_STATUS, BPT_RUN_PARTIAL), 0);
	cr_assert_eq(bpt_writer_set_end_meta(w, "", "x"), -E2BIG);
	cr_assert_eq(bpt_writer_close(w, &e), 0, "%s", e.msg);

	cr_assert_eq(bpt_reader_open(&r, p, &e), 0, "%s", e.msg);
	const struct bpt_header *g = bpt_reader_header(r);

	cr_assert_eq(g->nmeta, BPT_MAX_META);
	cr_assert_str_eq(bpt_header_get_meta(g, "k0"), "replaced");
	cr_assert_str_eq(bpt_header_get_meta(g, "k1"), "h");
	cr_assert_str_eq(bpt_header_get_meta(g, BPT_META_RUN_IOS), "9");
	cr_assert_str_eq(bpt_header_get_meta(g, BPT_META_RUN_STATUS), BPT_RUN_PARTIAL);
	cr_assert_null(bpt_header_get_meta(g, BPT_META_RUN_STOPPED));
	bpt_reader_close(r);

	/* the trailer gone: no footer, so no end meta; the header's stay */
	data = tu_load(p, &len);
	cr_assert_not_null(data);
	cr_assert_eq(bpt_reader_open_mem(&r, data, len - 1, "cut.bpt", &e), 0, "%s", e.msg);
	g = bpt_reader_header(r);
	cr_assert_str_eq(bpt_header_get_meta(g, "k0"), "h");
	cr_assert_str_eq(bpt_header_get_meta(g, BPT_META_RUN_IOS), "9");
	cr_assert_null(bpt_header_get_meta(g, BPT_META_RUN_STATUS));
	bpt_reader_close(r);
	free(data);
}

Test(bpt_roundtrip, completion_flag_checked_and_kept, .fini = tu_cleanup)
{
	const char *p = tu_tmpname("unseen");
	struct bpt_header h;
	struct bpt_writer *w;
	struct bpt_reader *r;
	struct bpt_error e = { 0 };
	struct bpt_record rec = { .issue_ns = 10, .complete_ns = 20, .bytes = 4096 }, got;

	tu_header(&h, 1, BPT_COL_COMPLETION);
	cr_assert_eq(bpt_writer_create(&w, p, &h, NULL, &e), 0, "%s", e.msg);
	rec.completion = BPT_COMPLETION__COUNT;
	cr_assert_eq(bpt_writer_add(w, &rec), -EINVAL, "an unknown completion value");
	for (unsigned c = 0; c < BPT_COMPLETION__COUNT; c++) {
		rec.completion = (uint8_t)c;
		cr_assert_eq(bpt_writer_add(w, &rec), 0);
	}
	cr_assert_eq(bpt_writer_close(w, &e), 0, "%s", e.msg);
	cr_assert_eq(bpt_reader_open(&r, p, &e), 0, "%s", e.msg);
	cr_assert_eq(bpt_reader_header(r)->columns, BPT_COL_COMPLETION);
	for (unsigned c = 0; c < BPT_COMPLETION__COUNT; c++) {
		cr_assert_eq(bpt_reader_next(r, &got, &e), 1, "%s", e.msg);
		cr_assert_eq(got.completion, c);
		cr_assert_eq(got.complete_ns, 20);
	}
	bpt_reader_close(r);
	cr_assert_str_eq(bpt_completion_name(BPT_COMPLETION_REUSED), "reused");
	cr_assert_str_eq(bpt_completion_name(BPT_COMPLETION_PENDING), "pending");
}
