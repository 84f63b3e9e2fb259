/* Unit tests of formats/blktrace_*: decoding v0x07 and v0x08 records in
 * both byte orders, the stream's bounds and errors, the per-CPU merge, the
 * pairing of Q/G/I/M/F/X/D/R/C into requests, the operation mapping, and
 * the blktrace and fio iolog writers read back. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../formats/blktrace_format.h"
#include "../../formats/blktrace_pair.h"
#include "../../formats/blktrace_source.h"
#include "../../formats/blktrace_stream.h"
#include "../../formats/blktrace_writer.h"
#include "../../formats/iolog_writer.h"
#include "bpt_testutil.h"

#define ACT(code, cats) ((uint32_t)(code) | (uint32_t)(cats) << BT_TC_SHIFT)

/* ------------------------------------------------ building test files */

struct buf {
	uint8_t *p;
	size_t len, cap;
};

static void buf_put(struct buf *b, const void *p, size_t len)
{
	if (b->len + len > b->cap) {
		b->cap = (b->len + len) * 2 + 256;
		b->p = realloc(b->p, b->cap);
		cr_assert(b->p);
	}
	memcpy(b->p + b->len, p, len);
	b->len += len;
}

/* A v0x07 little-endian event with an optional payload. */
static void ev1(struct buf *b, uint64_t t, uint32_t action, uint64_t sector, uint32_t bytes,
		uint32_t pid, uint32_t cpu, const void *pdu, uint16_t pdu_len)
{
	uint8_t h[BT_HDR_SIZE_1];

	bt_encode_v1(h, 1, t, sector, bytes, action, pid, bt_dev_make(8, 16), cpu, 0, pdu_len);
	buf_put(b, h, sizeof(h));
	if (pdu_len)
		buf_put(b, pdu, pdu_len);
}

static void put_be(uint8_t *p, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

/* A v0x08 event, written field by field from the layout of struct
 * blk_io_trace2, in either byte order. */
static void ev2(struct buf *b, int be, uint64_t t, uint64_t action, uint64_t sector,
		uint32_t bytes, uint32_t pid, uint16_t error, uint16_t pdu_len)
{
	uint8_t h[BT_HDR_SIZE_2] = { 0 };
	void (*put)(uint8_t *, uint64_t, int) = be ? put_be : put_le;
	uint8_t pdu[64] = { 0xee };

	put(h + 0, BT_MAGIC | BT_VERSION_2, 4);
	put(h + 4, 7, 4);
	put(h + 8, t, 8);
	put(h + 16, sector, 8);
	put(h + 24, bytes, 4);
	put(h + 28, pid, 4);
	put(h + 32, action, 8);
	put(h + 40, bt_dev_make(259, 3), 4);
	put(h + 44, 1, 4);
	put(h + 48, error, 2);
	put(h + 50, pdu_len, 2);
	buf_put(b, h, sizeof(h));
	buf_put(b, pdu, pdu_len);
}

/* A v0x07 event in big-endian order. */
static void ev1_be(struct buf *b, uint64_t t, uint32_t action, uint64_t sector, uint32_t bytes,
		   uint32_t pid, uint16_t error)
{
	uint8_t h[BT_HDR_SIZE_1];

	put_be(h + 0, BT_MAGIC | BT_VERSION_1, 4);
	put_be(h + 4, 3, 4);
	put_be(h + 8, t, 8);
	put_be(h + 16, sector, 8);
	put_be(h + 24, bytes, 4);
	put_be(h + 28, action, 4);
	put_be(h + 32, pid, 4);
	put_be(h + 36, bt_dev_make(8, 0), 4);
	put_be(h + 40, 2, 4);
	put_be(h + 44, error, 2);
	put_be(h + 46, 0, 2);
	buf_put(b, h, sizeof(h));
}

/* A byte source over memory, handing out at most `chunk` bytes a call so
 * that records straddle reads. */
struct memsrc {
	const uint8_t *p;
	size_t len, pos, chunk;
};

static long mem_read(void *ctx, void *out, size_t len, struct bpt_error *err)
{
	struct memsrc *m = ctx;
	size_t n = m->len - m->pos;

	(void)err;
	if (n > len)
		n = len;
	if (n > m->chunk)
		n = m->chunk;
	memcpy(out, m->p + m->pos, n);
	m->pos += n;
	return (long)n;
}

/* All requests of the given files (per-CPU), paired. */
static size_t pair_all(struct buf *files, unsigned n, struct bt_io *io, size_t max,
		       const char **comms, struct bt_pair_stats *st)
{
	struct memsrc m[8];
	struct bt_source_input in[8];
	struct bt_source *s;
	struct bpt_error err = { 0 };
	size_t k = 0;
	const char *comm;
	int rc;

	for (unsigned i = 0; i < n; i++) {
		m[i] = (struct memsrc){ files[i].p, files[i].len, 0, 13 };
		in[i] = (struct bt_source_input){ "test", mem_read, &m[i] };
	}
	cr_assert_eq(bt_source_open(&s, in, n, &err), 0);
	while ((rc = bt_source_next(s, &io[k], &comm, &err)) > 0) {
		if (comms)
			comms[k] = strdup(comm);
		cr_assert(++k <= max);
	}
	cr_assert_eq(rc, 0, "%s", err.msg);
	if (st)
		*st = *bt_source_pair_stats(s);
	bt_source_close(s);
	return k;
}

/* ------------------------------------------------------------ decoding */

Test(blktrace_decode, v1_both_byte_orders_same_event)
{
	struct buf le = { 0 }, be = { 0 };
	struct bt_layout ll, lb;
	struct bt_event a, b;
	uint32_t act = ACT(BT_TA_COMPLETE, BT_TC_COMPLETE | BT_TC_WRITE | BT_TC_SYNC);

	ev1(&le, 123456789, act, 1000, 4096, 77, 2, NULL, 0);
	ev1_be(&be, 123456789, act, 1000, 4096, 77, 0);
	cr_assert_eq(bt_layout_detect(le.p, &ll), 0);
	cr_assert_eq(bt_layout_detect(be.p, &lb), 0);
	cr_assert_eq(ll.big_endian, 0);
	cr_assert_eq(lb.big_endian, 1);
	cr_assert_eq(ll.hdr_size, 48);
	cr_assert_eq(bt_decode(le.p, le.len, &ll, &a), 48);
	cr_assert_eq(bt_decode(be.p, be.len, &lb, &b), 48);
	cr_assert_eq(a.time, 123456789);
	cr_assert_eq(b.time, 123456789);
	cr_assert_eq(b.sector, 1000);
	cr_assert_eq(b.bytes, 4096);
	cr_assert_eq(b.pid, 77);
	cr_assert_eq(b.act, BT_TA_COMPLETE);
	cr_assert_eq(b.cat, a.cat);
	cr_assert_eq(bt_dev_major(b.dev), 8);
	/* A record of the other byte order in the middle is damage. */
	cr_assert_eq(bt_decode(be.p, be.len, &ll, &a), -EPROTO);
	/* Not enough bytes yet: 0. */
	cr_assert_eq(bt_decode(le.p, 47, &ll, &a), 0);
	free(le.p);
	free(be.p);
}

Test(blktrace_decode, v2_layout_64bit_action_cgroup_and_payload)
{
	for (int be = 0; be < 2; be++) {
		struct buf b = { 0 };
		struct bt_layout lay;
		struct bt_event e;
		uint64_t action = BT_TA_ISSUE | BT_TA_CGROUP |
				  (uint64_t)(BT_TC_ISSUE | BT_TC_WRITE | BT_TC_WRITE_ZEROES) << BT_TC_SHIFT;

		ev2(&b, be, 5000, action, 2048, 65536, 42, 0, 8 + 4);
		/* the cgroup id is the first 8 payload bytes: 0xeeee...? set it */
		put_le(b.p + 64, 0x1122334455667788ull, 8);
		if (be)
			put_be(b.p + 64, 0x1122334455667788ull, 8);
		cr_assert_eq(bt_layout_detect(b.p, &lay), 0);
		cr_assert_eq(lay.version, BT_VERSION_2);
		cr_assert_eq(lay.hdr_size, 64);
		cr_assert_eq(bt_decode(b.p, b.len, &lay, &e), 64 + 12);
		cr_assert_eq(e.act, BT_TA_ISSUE);
		cr_assert(e.cat & BT_TC_WRITE_ZEROES);
		cr_assert_eq(e.pid, 42);
		cr_assert_eq(e.sector, 2048);
		cr_assert_eq(e.cpu, 1);
		cr_assert_eq(e.cgroup, 0x1122334455667788ull);
		cr_assert_eq(e.pdu_len, 4);
		cr_assert_eq(bt_dev_major(e.dev), 259);
		cr_assert_eq(bt_dev_minor(e.dev), 3);
		free(b.p);
	}
}

Test(blktrace_decode, unknown_version_and_no_magic)
{
	uint8_t p[4];
	struct bt_layout lay;

	put_le(p, BT_MAGIC | 0x06, 4);
	cr_assert_eq(bt_layout_detect(p, &lay), -EPROTONOSUPPORT);
	put_le(p, 0x12345678, 4);
	cr_assert_eq(bt_layout_detect(p, &lay), -EPROTO);
}

/* -------------------------------------------------------------- stream */

Test(blktrace_stream, payloads_skipped_errors_name_the_offset)
{
	struct buf b = { 0 };
	uint8_t pdu[300];
	struct memsrc m;
	struct bt_stream s;
	struct bt_event e;
	struct bpt_error err = { 0 };

	memset(pdu, 0x65, sizeof(pdu)); /* payload bytes that look like a magic */
	ev1(&b, 10, ACT(BT_TA_QUEUE, BT_TC_QUEUE), 8, 4096, 1, 0, pdu, sizeof(pdu));
	ev1(&b, 20, ACT(BT_TA_ISSUE, BT_TC_ISSUE), 8, 4096, 1, 0, NULL, 0);
	m = (struct memsrc){ b.p, b.len, 0, 5 };
	cr_assert_eq(bt_stream_init(&s, "t.bin", mem_read, &m), 0);
	cr_assert_eq(bt_stream_next(&s, &e, &err), 1);
	cr_assert_eq(e.pdu_len, 300);
	cr_assert_eq(bt_stream_next(&s, &e, &err), 1);
	cr_assert_eq(e.time, 20);
	cr_assert_eq(bt_stream_next(&s, &e, &err), 0);
	bt_stream_free(&s);

	/* Cut inside the second record. */
	m = (struct memsrc){ b.p, b.len - 10, 0, 1 << 20 };
	cr_assert_eq(bt_stream_init(&s, "t.bin", mem_read, &m), 0);
	cr_assert_eq(bt_stream_next(&s, &e, &err), 1);
	cr_assert_eq(bt_stream_next(&s, &e, &err), -EBADMSG);
	cr_assert_eq(err.offset, 48 + 300);
	cr_assert(strstr(err.msg, "t.bin: offset 348: the file ends inside a record"), "%s", err.msg);
	bt_stream_free(&s);

	/* Damage the second record's magic. */
	b.p[348] ^= 0xff;
	m = (struct memsrc){ b.p, b.len, 0, 1 << 20 };
	cr_assert_eq(bt_stream_init(&s, "t.bin", mem_read, &m), 0);
	cr_assert_eq(bt_stream_next(&s, &e, &err), 1);
	cr_assert_eq(bt_stream_next(&s, &e, &err), -EBADMSG);
	cr_assert(strstr(err.msg, "offset 348: record 2: bad magic"), "%s", err.msg);
	bt_stream_free(&s);

	/* Not blktrace at all. */
	m = (struct memsrc){ (const uint8_t *)"hello world, not a trace", 24, 0, 99 };
	cr_assert_eq(bt_stream_init(&s, "x.txt", mem_read, &m), 0);
	cr_assert_eq(bt_stream_next(&s, &e, &err), -EBADMSG);
	cr_assert(strstr(err.msg, "not a blktrace file"), "%s", err.msg);
	bt_stream_free(&s);
	free(b.p);
}

Test(blktrace_stream, merge_orders_per_cpu_files_by_time)
{
	struct buf f[3] = { 0 };
	uint64_t t0[] = { 1, 4, 9, 12 }, t1[] = { 2, 3, 10, 11 }, t2[] = { 5 };
	struct memsrc m[3];
	struct bt_stream s[3], *sp[3] = { &s[0], &s[1], &s[2] };
	struct bt_merge mg;
	struct bt_event e;
	struct bpt_error err = { 0 };
	uint64_t want[] = { 1, 2, 3, 4, 5, 9, 10, 11, 12 }, last = 0;
	size_t k = 0;

	for (int i = 0; i < 4; i++)
		ev1(&f[0], t0[i], ACT(BT_TA_PLUG, BT_TC_QUEUE), 0, 0, 1, 0, NULL, 0);
	for (int i = 0; i < 4; i++)
		ev1(&f[1], t1[i], ACT(BT_TA_PLUG, BT_TC_QUEUE), 0, 0, 1, 1, NULL, 0);
	ev1(&f[2], t2[0], ACT(BT_TA_PLUG, BT_TC_QUEUE), 0, 0, 1, 2, NULL, 0);
	for (int i = 0; i < 3; i++) {
		m[i] = (struct memsrc){ f[i].p, f[i].len, 0, 7 };
		cr_assert_eq(bt_stream_init(&s[i], "cpu", mem_read, &m[i]), 0);
	}
	cr_assert_eq(bt_merge_init(&mg, sp, 3), 0);
	while (bt_merge_next(&mg, &e, &err) == 1) {
		cr_assert(k < 9);
		cr_assert_eq(e.time, want[k], "event %zu at %lu", k, (unsigned long)e.time);
		cr_assert_geq(e.time, last);
		last = e.time;
		k++;
	}
	cr_assert_eq(k, 9);
	bt_merge_free(&mg);
	for (int i = 0; i < 3; i++) {
		bt_stream_free(&s[i]);
		free(f[i].p);
	}
}

/* ------------------------------------------------------------- pairing */

#define W_S (BT_TC_WRITE | BT_TC_SYNC)

Test(blktrace_pair, q_g_i_d_c_across_cpus_with_notes)
{
	struct buf f[2] = { 0 };
	struct bt_io io[4];
	const char *comm[4];
	struct bt_pair_stats st;
	uint8_t op, flags;

	/* CPU 0: the submitter's side; CPU 1: the completion. The note's
	 * code (PROCESS = 0) and a MESSAGE note (code 2 = BACKMERGE's) must
	 * be taken as notes, by category. */
	ev1(&f[0], 100, ACT(BT_TN_PROCESS, BT_TC_NOTIFY), 0, 0, 500, 0, "fio\0\0\0\0\0\0\0\0\0\0\0\0", 16);
	ev1(&f[0], 150, ACT(BT_TA_QUEUE, BT_TC_QUEUE | W_S), 64, 8192, 500, 0, NULL, 0);
	ev1(&f[0], 151, ACT(BT_TN_MESSAGE, BT_TC_NOTIFY), 64, 8192, 500, 0, "hello", 5);
	ev1(&f[0], 160, ACT(BT_TA_GETRQ, BT_TC_QUEUE | W_S), 64, 8192, 500, 0, NULL, 0);
	ev1(&f[0], 161, ACT(BT_TA_PLUG, BT_TC_QUEUE), 0, 0, 500, 0, NULL, 0);
	ev1(&f[0], 170, ACT(BT_TA_INSERT, BT_TC_QUEUE | W_S), 64, 8192, 500, 0, NULL, 0);
	ev1(&f[0], 180, ACT(BT_TA_ISSUE, BT_TC_ISSUE | BT_TC_FS | W_S), 64, 8192, 99, 0, NULL, 0);
	ev1(&f[1], 155, ACT(BT_TA_QUEUE, BT_TC_QUEUE | BT_TC_READ | BT_TC_AHEAD), 8, 4096, 600, 1, NULL, 0);
	ev1(&f[1], 190, ACT(BT_TA_ISSUE, BT_TC_ISSUE | BT_TC_READ | BT_TC_AHEAD), 8, 4096, 600, 1, NULL, 0);
	ev1(&f[1], 300, ACT(BT_TA_COMPLETE, BT_TC_COMPLETE | W_S), 64, 8192, 0, 1, NULL, 0);
	ev1(&f[1], 310, ACT(BT_TA_COMPLETE, BT_TC_COMPLETE | BT_TC_READ), 8, 4096, 0, 1, NULL, 0);
	cr_assert_eq(pair_all(f, 2, io, 4, comm, &st), 2);
	cr_assert_eq(io[0].queue_ns, 150);
	cr_assert_eq(io[0].issue_ns, 180);
	cr_assert_eq(io[0].complete_ns, 300);
	cr_assert_eq(io[0].sector, 64);
	cr_assert_eq(io[0].bytes, 8192);
	cr_assert_eq(io[0].pid, 500, "the submitter, not the issuing task");
	cr_assert_str_eq(comm[0], "fio");
	cr_assert_eq(io[0].completed, 1);
	cr_assert_eq(bt_cat_to_op(io[0].cat, io[0].bytes, &op, &flags), 0);
	cr_assert_eq(op, BPT_OP_WRITE);
	cr_assert_eq(flags, BPT_F_SYNC);
	cr_assert_eq(io[1].queue_ns, 155);
	cr_assert_eq(io[1].issue_ns, 190);
	cr_assert_str_eq(comm[1], "");
	cr_assert_eq(bt_cat_to_op(io[1].cat, io[1].bytes, &op, &flags), 0);
	cr_assert_eq(op, BPT_OP_READ);
	cr_assert_eq(flags, BPT_F_READAHEAD);
	cr_assert_eq(st.unmatched_completions, 0);
	cr_assert_eq(st.merges, 0);
	for (int i = 0; i < 2; i++)
		free((void *)comm[i]);
	free(f[0].p);
	free(f[1].p);
}

Test(blktrace_pair, merges_split_requeue_partial_flush_unmatched_pending)
{
	struct buf f = { 0 };
	struct bt_io io[8];
	struct bt_pair_stats st;
	uint8_t be[8];
	uint8_t op, flags;
	size_t n;

	/* Back merges: bios at 100, 108, 116 become one request at 100. */
	ev1(&f, 10, ACT(BT_TA_QUEUE, BT_TC_QUEUE | BT_TC_WRITE), 100, 4096, 1, 0, NULL, 0);
	ev1(&f, 11, ACT(BT_TA_GETRQ, BT_TC_QUEUE | BT_TC_WRITE), 100, 4096, 1, 0, NULL, 0);
	ev1(&f, 12, ACT(BT_TA_QUEUE, BT_TC_QUEUE | BT_TC_WRITE), 108, 4096, 1, 0, NULL, 0);
	ev1(&f, 13, ACT(BT_TA_BACKMERGE, BT_TC_QUEUE | BT_TC_WRITE), 108, 4096, 1, 0, NULL, 0);
	ev1(&f, 14, ACT(BT_TA_QUEUE, BT_TC_QUEUE | BT_TC_WRITE), 116, 4096, 1, 0, NULL, 0);
	ev1(&f, 15, ACT(BT_TA_BACKMERGE, BT_TC_QUEUE | BT_TC_WRITE), 116, 4096, 1, 0, NULL, 0);
	/* Front merge: a bio at 92 joins the request at 100. */
	ev1(&f, 16, ACT(BT_TA_QUEUE, BT_TC_QUEUE | BT_TC_WRITE), 92, 4096, 1, 0, NULL, 0);
	ev1(&f, 17, ACT(BT_TA_FRONTMERGE, BT_TC_QUEUE | BT_TC_WRITE), 92, 4096, 1, 0, NULL, 0);
	ev1(&f, 20, ACT(BT_TA_ISSUE, BT_TC_ISSUE | BT_TC_WRITE), 92, 16384, 1, 0, NULL, 0);
	/* Requeued, issued again, completed in two parts. */
	ev1(&f, 25, ACT(BT_TA_REQUEUE, BT_TC_REQUEUE | BT_TC_WRITE), 92, 16384, 1, 0, NULL, 0);
	ev1(&f, 30, ACT(BT_TA_ISSUE, BT_TC_ISSUE | BT_TC_WRITE), 92, 16384, 1, 0, NULL, 0);
	ev1(&f, 40, ACT(BT_TA_COMPLETE, BT_TC_COMPLETE | BT_TC_WRITE), 92, 8192, 1, 0, NULL, 0);
	ev1(&f, 45, ACT(BT_TA_COMPLETE, BT_TC_COMPLETE | BT_TC_WRITE), 108, 8192, 1, 0, NULL, 0);
	/* A split: one 1 MiB bio at 4096 becomes two requests. */
	put_be(be, 4096 + 1024, 8);
	ev1(&f, 50, ACT(BT_TA_QUEUE, BT_TC_QUEUE | BT_TC_READ), 4096, 1 << 20, 2, 0, NULL, 0);
	ev1(&f, 51, ACT(BT_TA_SPLIT, BT_TC_READ), 4096, 1 << 19, 2, 0, be, 8);
	ev1(&f, 52, ACT(BT_TA_ISSUE, BT_TC_ISSUE | BT_TC_READ), 4096, 1 << 19, 2, 0, NULL, 0);
	ev1(&f, 53, ACT(BT_TA_ISSUE, BT_TC_ISSUE | BT_TC_READ), 5120, 1 << 19, 2, 0, NULL, 0);
	ev1(&f, 60, ACT(BT_TA_COMPLETE, BT_TC_COMPLETE | BT_TC_READ), 5120, 1 << 19, 0, 0, NULL, 0);
	ev1(&f, 61, ACT(BT_TA_COMPLETE, BT_TC_COMPLETE | BT_TC_READ), 4096, 1 << 19, 0, 0, NULL, 0);
	/* fsync: an empty preflush write, a flush issued by the kernel, the
	 * flush's completion, then the empty write's (no D of its own). */
	ev1(&f, 70, ACT(BT_TA_QUEUE, BT_TC_QUEUE | BT_TC_WRITE | BT_TC_FLUSH | BT_TC_SYNC), 0, 0, 3, 0, NULL, 0);
	ev1(&f, 71, ACT(BT_TA_GETRQ, BT_TC_QUEUE | BT_TC_WRITE | BT_TC_FLUSH | BT_TC_SYNC), 0, 0, 3, 0, NULL, 0);
	ev1(&f, 72, ACT(BT_TA_ISSUE, BT_TC_ISSUE | BT_TC_READ | BT_TC_FLUSH), 0, 0, 44, 0, NULL, 0);
	ev1(&f, 73, ACT(BT_TA_COMPLETE, BT_TC_COMPLETE | BT_TC_READ | BT_TC_FLUSH), 0, 0, 0, 0, NULL, 0);
	ev1(&f, 74, ACT(BT_TA_COMPLETE, BT_TC_COMPLETE | BT_TC_WRITE | BT_TC_SYNC), 0, 0, 0, 0, NULL, 0);
	/* A passthrough request: not returned. */
	ev1(&f, 80, ACT(BT_TA_ISSUE, BT_TC_ISSUE | BT_TC_PC), 0, 512, 5, 0, NULL, 0);
	ev1(&f, 81, ACT(BT_TA_COMPLETE, BT_TC_COMPLETE | BT_TC_PC), 0, 512, 5, 0, NULL, 0);
	/* Issued and never completed; queued and never issued. */
	ev1(&f, 90, ACT(BT_TA_QUEUE, BT_TC_QUEUE | BT_TC_READ), 7000, 4096, 6, 0, NULL, 0);
	ev1(&f, 91, ACT(BT_TA_ISSUE, BT_TC_ISSUE | BT_TC_READ), 7000, 4096, 6, 0, NULL, 0);
	ev1(&f, 92, ACT(BT_TA_QUEUE, BT_TC_QUEUE | BT_TC_READ), 8000, 4096, 6, 0, NULL, 0);
	ev1(&f, 95, ACT(BT_TA_PLUG, BT_TC_QUEUE), 0, 0, 6, 0, NULL, 0);

	n = pair_all(&f, 1, io, 8, NULL, &st);
	cr_assert_eq(n, 5);
	/* The merged request: queued when its first bio was (10), issued
	 * the last time (30), completed by its second part (45). */
	cr_assert_eq(io[0].sector, 92);
	cr_assert_eq(io[0].bytes, 16384);
	cr_assert_eq(io[0].queue_ns, 10);
	cr_assert_eq(io[0].issue_ns, 30);
	cr_assert_eq(io[0].complete_ns, 45);
	/* The split's halves, in issue order, both queued at 50. */
	cr_assert_eq(io[2].sector, 5120);
	cr_assert_eq(io[2].bytes, 1 << 19);
	cr_assert_eq(io[2].queue_ns, 50);
	cr_assert_eq(io[2].issue_ns, 53);
	cr_assert_eq(io[1].sector, 4096);
	cr_assert_eq(io[1].bytes, 1 << 19);
	cr_assert_eq(io[1].queue_ns, 50);
	cr_assert_eq(io[1].issue_ns, 52);
	/* The flush. */
	cr_assert_eq(io[3].issue_ns, 72);
	cr_assert_eq(io[3].complete_ns, 73);
	cr_assert_eq(bt_cat_to_op(io[3].cat, io[3].bytes, &op, &flags), 0);
	cr_assert_eq(op, BPT_OP_FLUSH);
	/* The pending one: completion unknown, at the end of the trace. */
	cr_assert_eq(io[4].sector, 7000);
	cr_assert_eq(io[4].completed, 0);
	cr_assert_eq(io[4].complete_ns, 95);
	cr_assert_eq(st.merges, 3);
	cr_assert_eq(st.splits, 1);
	cr_assert_eq(st.requeues, 1);
	cr_assert_eq(st.partial_completions, 1);
	cr_assert_eq(st.passthrough, 2);
	cr_assert_eq(st.unmatched_completions, 1);
	cr_assert_eq(st.never_issued, 1);
	cr_assert_eq(st.pending, 1);
	free(f.p);
}

Test(blktrace_pair, same_sector_in_flight_twice_matches_oldest_and_length)
{
	struct buf f = { 0 };
	struct bt_io io[4];

	ev1(&f, 1, ACT(BT_TA_QUEUE, BT_TC_QUEUE | BT_TC_READ), 64, 4096, 1, 0, NULL, 0);
	ev1(&f, 2, ACT(BT_TA_QUEUE, BT_TC_QUEUE | BT_TC_READ), 64, 8192, 2, 0, NULL, 0);
	ev1(&f, 3, ACT(BT_TA_ISSUE, BT_TC_ISSUE | BT_TC_READ), 64, 8192, 0, 0, NULL, 0);
	ev1(&f, 4, ACT(BT_TA_ISSUE, BT_TC_ISSUE | BT_TC_READ), 64, 4096, 0, 0, NULL, 0);
	ev1(&f, 5, ACT(BT_TA_COMPLETE, BT_TC_COMPLETE | BT_TC_READ), 64, 4096, 0, 0, NULL, 0);
	ev1(&f, 6, ACT(BT_TA_COMPLETE, BT_TC_COMPLETE | BT_TC_READ), 64, 8192, 0, 0, NULL, 0);
	cr_assert_eq(pair_all(&f, 1, io, 4, NULL, NULL), 2);
	/* in issue order */
	cr_assert_eq(io[1].pid, 1);
	cr_assert_eq(io[1].issue_ns, 4);
	cr_assert_eq(io[1].complete_ns, 5);
	cr_assert_eq(io[0].pid, 2);
	cr_assert_eq(io[0].issue_ns, 3);
	cr_assert_eq(io[0].complete_ns, 6);
	free(f.p);
}

Test(blktrace_pair, v2_and_byteswapped_files_pair_the_same)
{
	struct buf v2 = { 0 }, sw = { 0 };
	struct bt_io io[2];
	uint8_t op, flags;

	for (int be = 0; be < 2; be++) {
		struct buf b = { 0 };

		ev2(&b, be, 1000, BT_TA_QUEUE | (uint64_t)(BT_TC_QUEUE | BT_TC_WRITE | BT_TC_WRITE_ZEROES) << 16,
		    512, 65536, 9, 0, 0);
		ev2(&b, be, 1100, BT_TA_ISSUE | (uint64_t)(BT_TC_ISSUE | BT_TC_WRITE | BT_TC_WRITE_ZEROES) << 16,
		    512, 65536, 9, 0, 4);
		ev2(&b, be, 1500, BT_TA_COMPLETE | (uint64_t)(BT_TC_COMPLETE | BT_TC_WRITE | BT_TC_WRITE_ZEROES) << 16,
		    512, 65536, 0, (uint16_t)-5, 0);
		cr_assert_eq(pair_all(&b, 1, io, 2, NULL, NULL), 1);
		cr_assert_eq(io[0].queue_ns, 1000);
		cr_assert_eq(io[0].issue_ns, 1100);
		cr_assert_eq(io[0].complete_ns, 1500);
		cr_assert_eq(io[0].error, -5);
		cr_assert_eq(bt_cat_to_op(io[0].cat, io[0].bytes, &op, &flags), 0);
		cr_assert_eq(op, BPT_OP_WRITE_ZEROES);
		free(b.p);
	}
	/* v0x07 big-endian */
	ev1_be(&sw, 10, ACT(BT_TA_QUEUE, BT_TC_QUEUE | BT_TC_DISCARD | BT_TC_WRITE), 80, 1 << 20, 4, 0);
	ev1_be(&sw, 11, ACT(BT_TA_ISSUE, BT_TC_ISSUE | BT_TC_DISCARD | BT_TC_WRITE), 80, 1 << 20, 4, 0);
	ev1_be(&sw, 19, ACT(BT_TA_COMPLETE, BT_TC_COMPLETE | BT_TC_DISCARD | BT_TC_WRITE), 80, 1 << 20, 4, 0);
	cr_assert_eq(pair_all(&sw, 1, io, 2, NULL, NULL), 1);
	cr_assert_eq(io[0].bytes, 1 << 20);
	cr_assert_eq(bt_dev_major(io[0].dev), 8);
	cr_assert_eq(bt_cat_to_op(io[0].cat, io[0].bytes, &op, &flags), 0);
	cr_assert_eq(op, BPT_OP_DISCARD);
	free(v2.p);
	free(sw.p);
}

Test(blktrace_pair, zone_management_has_no_op_and_mapping_round_trips)
{
	uint8_t op, flags;

	cr_assert_eq(bt_cat_to_op(BT_TC_WRITE | BT_TC_ZONE_RESET, 0, &op, &flags), -1);
	for (unsigned o = 0; o < BPT_OP__COUNT; o++)
		for (unsigned f = 0; f <= BPT_F__ALL; f++) {
			uint32_t bytes = o == BPT_OP_FLUSH ? 0 : 4096;

			if (o == BPT_OP_FLUSH && (f & BPT_F_PREFLUSH))
				continue; /* a flush is a preflush without data */
			cr_assert_eq(bt_cat_to_op(bt_op_to_cat(o, f), bytes, &op, &flags), 0);
			cr_assert_eq(op, o == BPT_OP_WRITE_ZEROES ? BPT_OP_WRITE : o, "op %u", o);
			cr_assert_eq(flags, f, "op %u flags %x", o, f);
		}
	cr_assert_eq(bt_errno(0), 0);
	cr_assert_eq(bt_errno((uint16_t)-5), -5);
	cr_assert_eq(bt_errno(5), -5);
}

Test(blktrace_pair, table_full_of_fresh_requests_fails)
{
	struct bt_pair *p;
	struct bt_event e = { .act = BT_TA_QUEUE, .cat = BT_TC_QUEUE, .bytes = 512 };

	cr_assert_eq(bt_pair_create(&p, 1024), 0);
	for (uint32_t i = 0; i < 1024; i++) {
		e.sector = i;
		e.time = i;
		cr_assert_eq(bt_pair_feed(p, &e), 0);
	}
	e.sector = 5000;
	cr_assert_eq(bt_pair_feed(p, &e), -ENOSPC);
	/* 60 s later the old ones are given up and counted. */
	e.time = 61ull * 1000000000;
	cr_assert_eq(bt_pair_feed(p, &e), 0);
	cr_assert_eq(bt_pair_stats(p)->never_issued, 1024);
	bt_pair_free(p);
}

/* Thousands of requests in flight, fifty at each sector: the hash table
 * grows with the pool (1024 -> 8192 entries) while chains hold many
 * entries of one key, and each D and C must still take the oldest. */
Test(blktrace_pair, growing_table_keeps_the_oldest_first)
{
	struct bt_pair *p;
	struct bt_event e = { .cat = BT_TC_READ, .bytes = 512, .dev = 8 << 20 };
	struct bt_io io;
	const uint32_t n = 5000;

	cr_assert_eq(bt_pair_create(&p, 0), 0);
	for (uint32_t step = 0; step < 3; step++)
		for (uint32_t i = 0; i < n; i++) {
			e.act = step == 0 ? BT_TA_QUEUE : step == 1 ? BT_TA_ISSUE : BT_TA_COMPLETE;
			e.sector = i % 100;
			e.pid = i;
			e.time = step * 100000ull + i;
			cr_assert_eq(bt_pair_feed(p, &e), 0);
		}
	for (uint32_t k = 0; k < n; k++) {
		cr_assert_eq(bt_pair_take(p, &io), 1, "I/O %u", k);
		cr_assert_eq(io.pid, k, "I/O %u has the pid of request %u", k, io.pid);
		cr_assert_eq(io.queue_ns, k);
		cr_assert_eq(io.issue_ns, 100000ull + k);
		cr_assert_eq(io.complete_ns, 200000ull + k);
		cr_assert_eq(io.sector, k % 100);
	}
	cr_assert_eq(bt_pair_take(p, &io), 0);
	cr_assert_eq(bt_pair_stats(p)->max_inflight, n);
	bt_pair_free(p);
}

/* ------------------------------------------------------------- writers */

static char tmpdir[64];

static void mk_tmpdir(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/dev/shm/blkpeak-bt-XXXXXX");
	cr_assert(mkdtemp(tmpdir));
}

static void rm_tmpdir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	cr_assert_eq(system(cmd), 0);
}

Test(blktrace_writer, written_files_pair_back_to_the_records, .init = mk_tmpdir, .fini = rm_tmpdir)
{
	struct bpt_header h;
	struct bpt_device d = { .name = "sdq", .major = 65, .minor = 0 };
	struct bpt_record r[3];
	struct btw *w;
	struct bpt_error err = { 0 };
	struct buf f = { 0 };
	struct bt_io io[4];
	const char *comm[4];
	char path[128];
	uint8_t *data;
	size_t len;
	uint8_t op, flags;

	bpt_header_init(&h, "capture");
	h.start_mono_ns = 5000000000ull;
	cr_assert_eq(bpt_header_add_device(&h, &d), 0);
	memset(r, 0, sizeof(r));
	/* Issue order; the second is queued long before and completes last. */
	r[0] = (struct bpt_record){ .queue_ns = 1000, .issue_ns = 2000, .complete_ns = 9000,
				    .sector = 8, .bytes = 4096, .pid = 10, .op = BPT_OP_READ,
				    .flags = BPT_F_SYNC };
	r[1] = (struct bpt_record){ .queue_ns = 500, .issue_ns = 3000, .complete_ns = 20000,
				    .sector = 1 << 20, .bytes = 65536, .pid = 11, .op = BPT_OP_WRITE,
				    .flags = BPT_F_FUA | BPT_F_PREFLUSH, .error = -5, .cgroup_id = 77 };
	r[2] = (struct bpt_record){ .queue_ns = 3500, .issue_ns = 3500, .complete_ns = 3500,
				    .sector = 0, .bytes = 0, .pid = 10, .op = BPT_OP_FLUSH,
				    .completion = BPT_COMPLETION_PENDING };
	cr_assert_eq(btw_open(&w, tmpdir, &h, NULL, BTW_OPT_CGROUP, &err), 0, "%s", err.msg);
	cr_assert_eq(btw_add(w, &r[0], "dd", &err), 0);
	cr_assert_eq(btw_add(w, &r[1], "kworker/u8:1", &err), 0);
	cr_assert_eq(btw_add(w, &r[2], "dd", &err), 0);
	cr_assert_eq(btw_close(w, 0, &err), 0, "%s", err.msg);

	snprintf(path, sizeof(path), "%s/sdq.blktrace.0", tmpdir);
	data = tu_load(path, &len);
	cr_assert(data);
	buf_put(&f, data, len);
	free(data);
	cr_assert_eq(pair_all(&f, 1, io, 4, comm, NULL), 3);
	/* issue order: r0 (2000), r1 (3000), r2 (3500, pending) */
	cr_assert_eq(io[0].queue_ns, 5000000000ull + 1000);
	cr_assert_eq(io[0].issue_ns, 5000000000ull + 2000);
	cr_assert_eq(io[0].complete_ns, 5000000000ull + 9000);
	cr_assert_eq(io[0].sector, 8);
	cr_assert_str_eq(comm[0], "dd");
	cr_assert_eq(bt_dev_major(io[0].dev), 65);
	cr_assert_eq(io[1].queue_ns, 5000000000ull + 500);
	cr_assert_eq(io[1].error, -5);
	cr_assert_eq(io[1].cgroup, 77);
	cr_assert_eq(io[1].pid, 11);
	cr_assert_str_eq(comm[1], "kworker/u8:1");
	cr_assert_eq(bt_cat_to_op(io[1].cat, io[1].bytes, &op, &flags), 0);
	cr_assert_eq(op, BPT_OP_WRITE);
	cr_assert_eq(flags, BPT_F_FUA | BPT_F_PREFLUSH);
	cr_assert_eq(io[2].completed, 0);
	cr_assert_eq(io[2].unseen, BPT_COMPLETION_PENDING);
	cr_assert_eq(bt_cat_to_op(io[2].cat, io[2].bytes, &op, &flags), 0);
	cr_assert_eq(op, BPT_OP_FLUSH);
	for (int i = 0; i < 3; i++)
		free((void *)comm[i]);
	free(f.p);
}

/* Scan a v0x07 little-endian file: counts of I/O events with the cgroup
 * bit, and of MESSAGE notes. */
static void scan_events(const uint8_t *p, size_t len, unsigned *cgroup, unsigned *msgs)
{
	*cgroup = *msgs = 0;
	for (size_t off = 0; off + BT_HDR_SIZE_1 <= len;) {
		uint32_t act, pdu = (uint32_t)(p[off + 46] | p[off + 47] << 8);

		memcpy(&act, p + off + 28, 4);
		if ((act >> BT_TC_SHIFT) & BT_TC_NOTIFY)
			*msgs += (act & 0xffff) == BT_TN_MESSAGE;
		else
			*cgroup += !!(act & BT_TA_CGROUP);
		off += BT_HDR_SIZE_1 + pdu;
	}
}

/* blktrace 1.2.0 drops every event with BT_TA_CGROUP ("Bad fs action"):
 * not written unless asked for. A completion not seen (reused, pending)
 * is a MESSAGE note after the D that gives the request back at once,
 * with its value and bound, even while a later request is in flight. */
Test(blktrace_writer, cgroup_only_on_request_and_unseen_completions_round_trip,
     .init = mk_tmpdir, .fini = rm_tmpdir)
{
	struct bpt_header h;
	struct bpt_device d = { .name = "vdz", .major = 252, .minor = 0 };
	struct bpt_record r[3] = {
		{ .queue_ns = 100, .issue_ns = 200, .complete_ns = 50000, .sector = 8,
		  .bytes = 4096, .pid = 3, .cgroup_id = 99, .op = BPT_OP_WRITE,
		  .completion = BPT_COMPLETION_REUSED },
		{ .queue_ns = 300, .issue_ns = 400, .complete_ns = 900, .sector = 16,
		  .bytes = 4096, .pid = 3, .cgroup_id = 99, .op = BPT_OP_READ },
		{ .queue_ns = 500, .issue_ns = 600, .complete_ns = 70000, .sector = 8,
		  .bytes = 4096, .pid = 4, .cgroup_id = 99, .op = BPT_OP_WRITE,
		  .completion = BPT_COMPLETION_PENDING },
	};
	struct btw *w;
	struct bpt_error err = { 0 };
	struct bt_io io[4];
	struct buf f = { 0 };
	char path[128];
	unsigned cg, msgs;
	uint8_t *data;
	size_t len;

	bpt_header_init(&h, "capture");
	h.start_mono_ns = 1000000000ull;
	cr_assert_eq(bpt_header_add_device(&h, &d), 0);
	for (int opt = 0; opt < 2; opt++) {
		cr_assert_eq(btw_open(&w, tmpdir, &h, NULL, opt ? BTW_OPT_CGROUP : 0, &err), 0,
			     "%s", err.msg);
		for (int i = 0; i < 3; i++)
			cr_assert_eq(btw_add(w, &r[i], "fio", &err), 0, "%s", err.msg);
		cr_assert_eq(btw_close(w, 0, &err), 0, "%s", err.msg);
		snprintf(path, sizeof(path), "%s/vdz.blktrace.0", tmpdir);
		data = tu_load(path, &len);
		cr_assert(data);
		scan_events(data, len, &cg, &msgs);
		cr_assert_eq(cg, opt ? 9u : 0u, "events with the cgroup bit: %u", cg);
		cr_assert_eq(msgs, 2);
		f.len = 0;
		buf_put(&f, data, len);
		free(data);
		cr_assert_eq(pair_all(&f, 1, io, 4, NULL, NULL), 3);
		for (int i = 0; i < 3; i++) {
			cr_assert_eq(io[i].issue_ns, 1000000000ull + r[i].issue_ns);
			cr_assert_eq(io[i].complete_ns, 1000000000ull + r[i].complete_ns, "I/O %d", i);
			cr_assert_eq(io[i].completed, r[i].completion == BPT_COMPLETION_SEEN);
			cr_assert_eq(io[i].cgroup, opt ? 99u : 0u);
		}
		cr_assert_eq(io[0].unseen, BPT_COMPLETION_REUSED);
		cr_assert_eq(io[2].unseen, BPT_COMPLETION_PENDING);
		unlink(path);
	}
	free(f.p);
}

Test(blktrace_writer, output_named_like_a_cpu_file, .init = mk_tmpdir, .fini = rm_tmpdir)
{
	struct bpt_header h;
	struct bpt_device d1 = { .name = "a", .major = 8 }, d2 = { .name = "b", .major = 9 };
	struct btw *w;
	struct bpt_error err = { 0 };
	char path[128];
	struct stat st;

	bpt_header_init(&h, "capture");
	cr_assert_eq(bpt_header_add_device(&h, &d1), 0);
	snprintf(path, sizeof(path), "%s/mine.blktrace.0", tmpdir);
	cr_assert_eq(btw_open(&w, path, &h, NULL, 0, &err), 0, "%s", err.msg);
	cr_assert_eq(btw_close(w, 0, &err), 0, "%s", err.msg);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert(S_ISREG(st.st_mode));
	snprintf(path, sizeof(path), "%s/mine.blktrace.1", tmpdir);
	cr_assert_eq(btw_open(&w, path, &h, NULL, 0, &err), -EINVAL);
	cr_assert(strstr(err.msg, "give NAME.blktrace.0, or a directory"), "%s", err.msg);
	cr_assert_eq(bpt_header_add_device(&h, &d2), 1);
	snprintf(path, sizeof(path), "%s/two.blktrace.0", tmpdir);
	cr_assert_eq(btw_open(&w, path, &h, NULL, 0, &err), -EINVAL);
	cr_assert(strstr(err.msg, "has 2 devices, one file each: give a directory"), "%s", err.msg);
	cr_assert_neq(stat(path, &st), 0);
}

/* A request whose completion the trace lost does not hold the others:
 * after BT_PAIR_MAX_HELD later requests finished it is given up (pending,
 * counted) and every request still leaves in issue order. */
Test(blktrace_pair, lost_completion_given_up_requests_in_issue_order)
{
	struct bt_pair *p;
	struct bt_event e = { .cat = BT_TC_READ, .bytes = 4096, .dev = 8 << 20 };
	struct bt_io io;
	uint64_t last = 0, n = 0;
	int rc;

	cr_assert_eq(bt_pair_create(&p, 0), 0);
	e.act = BT_TA_ISSUE;
	e.sector = 1ull << 40;
	e.time = 1;
	cr_assert_eq(bt_pair_feed(p, &e), 0); /* never completed */
	for (uint64_t i = 0; i < BT_PAIR_MAX_HELD + 10ull; i++) {
		e.sector = i * 8;
		e.time = 10 + 3 * i;
		e.act = BT_TA_ISSUE;
		cr_assert_eq(bt_pair_feed(p, &e), 0);
		/* completions out of order: each pair swapped */
		e.time++;
		e.act = BT_TA_COMPLETE;
		if (i & 1) {
			cr_assert_eq(bt_pair_feed(p, &e), 0);
			e.sector -= 8;
			cr_assert_eq(bt_pair_feed(p, &e), 0);
		}
		while ((rc = bt_pair_take(p, &io)) == 1) {
			cr_assert_geq(io.issue_ns, last);
			last = io.issue_ns;
			if (n++ == 0) {
				cr_assert_eq(io.completed, 0);
				cr_assert_eq(io.sector, 1ull << 40);
			}
		}
		cr_assert_eq(rc, 0);
	}
	cr_assert_eq(bt_pair_finish(p), 0);
	while (bt_pair_take(p, &io) == 1) {
		cr_assert_geq(io.issue_ns, last);
		last = io.issue_ns;
		n++;
	}
	cr_assert_eq(n, BT_PAIR_MAX_HELD + 11ull);
	cr_assert_eq(bt_pair_stats(p)->given_up, 1);
	bt_pair_free(p);
}

Test(blktrace_writer, queued_too_early_is_an_error, .init = mk_tmpdir, .fini = rm_tmpdir)
{
	struct bpt_header h;
	struct bpt_device d = { .name = "x" };
	struct bpt_record r = { .bytes = 512, .op = BPT_OP_READ };
	struct btw *w;
	struct bpt_error err = { 0 };
	int rc = 0;

	bpt_header_init(&h, "capture");
	cr_assert_eq(bpt_header_add_device(&h, &d), 0);
	cr_assert_eq(btw_open(&w, tmpdir, &h, NULL, 0, &err), 0, "%s", err.msg);
	r.queue_ns = r.issue_ns = r.complete_ns = 10ull * 1000000000;
	cr_assert_eq(btw_add(w, &r, "", &err), 0);
	r.queue_ns = r.issue_ns = r.complete_ns = 12ull * 1000000000;
	cr_assert_eq(btw_add(w, &r, "", &err), 0);
	r.queue_ns = 1ull * 1000000000; /* before what was written */
	r.issue_ns = r.complete_ns = 13ull * 1000000000;
	rc = btw_add(w, &r, "", &err);
	if (!rc)
		rc = btw_close(w, 0, &err);
	else
		btw_close(w, 1, NULL);
	cr_assert_eq(rc, -ERANGE);
	cr_assert(strstr(err.msg, "queued more than 1000 ms before its issue"), "%s", err.msg);
}

Test(blktrace_writer, file_names_are_safe)
{
	char b[64];

	btw_file_name("../etc/passwd", b, sizeof(b));
	cr_assert_str_eq(b, ".._etc_passwd");
	btw_file_name("..", b, sizeof(b));
	cr_assert_str_eq(b, "_.");
	btw_file_name("", b, sizeof(b));
	cr_assert_str_eq(b, "dev");
}

Test(iolog_writer, v3_lines, .init = mk_tmpdir, .fini = rm_tmpdir)
{
	struct bpt_header h;
	struct bpt_device d0 = { .name = "loop3" }, d1 = { .name = "/srv/disk 1.img" };
	struct bpt_record r = { 0 };
	struct fiow *w;
	struct bpt_error err = { 0 };
	char path[128];
	uint8_t *data;
	size_t len;

	bpt_header_init(&h, "capture");
	cr_assert_eq(bpt_header_add_device(&h, &d0), 0);
	cr_assert_eq(bpt_header_add_device(&h, &d1), 1);
	snprintf(path, sizeof(path), "%s/t.iolog", tmpdir);
	cr_assert_eq(fiow_open(&w, path, &h, NULL, &err), 0, "%s", err.msg);
	r = (struct bpt_record){ .issue_ns = 1500, .sector = 8, .bytes = 4096, .op = BPT_OP_READ };
	cr_assert_eq(fiow_add(w, &r, "", &err), 0);
	r = (struct bpt_record){ .issue_ns = 2999999, .sector = 16, .bytes = 512, .op = BPT_OP_WRITE_ZEROES, .dev = 1 };
	cr_assert_eq(fiow_add(w, &r, "", &err), 0);
	r = (struct bpt_record){ .issue_ns = 3000000, .op = BPT_OP_FLUSH };
	cr_assert_eq(fiow_add(w, &r, "", &err), 0);
	r = (struct bpt_record){ .issue_ns = 4000000, .sector = 1, .bytes = 1 << 20, .op = BPT_OP_DISCARD };
	cr_assert_eq(fiow_add(w, &r, "", &err), 0);
	cr_assert_eq(fiow_close(w, 0, &err), 0, "%s", err.msg);
	data = tu_load(path, &len);
	cr_assert(data);
	data = realloc(data, len + 1);
	data[len] = 0;
	cr_assert_str_eq((char *)data,
			 "fio version 3 iolog\n"
			 "0 /dev/loop3 add\n"
			 "0 /srv/disk_1.img add\n"
			 "0 /dev/loop3 open\n"
			 "0 /srv/disk_1.img open\n"
			 "1 /dev/loop3 read 4096 4096\n"
			 "2999 /srv/disk_1.img write 8192 512\n"
			 "3000 /dev/loop3 sync 0 0\n"
			 "4000 /dev/loop3 trim 512 1048576\n"
			 "4000 /dev/loop3 close\n"
			 "4000 /srv/disk_1.img close\n");
	free(data);
}

/* Issue 27, group 7: a TIMESTAMP note at 2^63 ns or later was a signed
 * overflow (wall clock minus time); it is refused, naming the note. */
Test(blktrace_source, timestamp_note_past_2_63_is_refused)
{
	struct buf f = { 0 };
	uint32_t wall[2] = { 1700000000u, 5 };
	struct memsrc m;
	struct bt_source_input in;
	struct bt_source *s;
	struct bpt_error err = { 0 };
	struct bt_io io;
	const char *comm;
	int rc;

	ev1(&f, 1ull << 63, ACT(BT_TN_TIMESTAMP, BT_TC_NOTIFY), 0, 0, 0, 0, wall, 8);
	ev1(&f, (1ull << 63) + 10, ACT(BT_TA_QUEUE, BT_TC_QUEUE | BT_TC_READ), 8, 4096, 600, 0, NULL, 0);
	ev1(&f, (1ull << 63) + 20, ACT(BT_TA_ISSUE, BT_TC_ISSUE | BT_TC_READ), 8, 4096, 600, 0, NULL, 0);
	ev1(&f, (1ull << 63) + 30, ACT(BT_TA_COMPLETE, BT_TC_COMPLETE | BT_TC_READ), 8, 4096, 0, 0, NULL, 0);
	m = (struct memsrc){ f.p, f.len, 0, 13 };
	in = (struct bt_source_input){ "test", mem_read, &m };
	cr_assert_eq(bt_source_open(&s, &in, 1, &err), 0);
	while ((rc = bt_source_next(s, &io, &comm, &err)) > 0)
		;
	cr_assert_lt(rc, 0);
	cr_assert(strstr(err.msg, "TIMESTAMP note at time 9223372036854775808 ns"), "%s", err.msg);
	bt_source_close(s);
	free(f.p);
}
