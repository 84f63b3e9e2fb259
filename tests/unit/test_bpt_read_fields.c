/*
 * Unit tests of the column-wise read, bpt_reader_read_fields() (bpt.h):
 * every field of every record equals what bpt_reader_next() returns, for
 * every chunk size, across block and decode-chunk borders, with an issue
 * range, after a seek, on a cut file; bad arguments are refused.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpt.h"
#include "bpt_testutil.h"

#define N 5000

/* The test's own map of enum bpt_field to struct bpt_record, from bpt.h. */
#define M(F, m) [BPT_FIELD_##F] = { offsetof(struct bpt_record, m), sizeof(((struct bpt_record *)0)->m) }
static const struct {
	size_t off, size;
} map[BPT_FIELD__COUNT] = {
	M(QUEUE_NS, queue_ns), M(ISSUE_NS, issue_ns), M(COMPLETE_NS, complete_ns),
	M(SECTOR, sector), M(CGROUP_ID, cgroup_id), M(BYTES, bytes), M(PID, pid),
	M(COMM_ID, comm_id), M(ERROR, error), M(DEV, dev), M(OP, op), M(FLAGS, flags),
	M(MEMBER, member), M(SCHED_NS, sched_ns), M(SOURCE_INDEX, source_index),
	M(COMPLETION, completion), M(INTERNAL, internal), M(FILE_CLASS, file_class),
	M(FILE_DEV, file_dev), M(FILE_BYTES, file_bytes), M(INODE, inode),
	M(FILE_OFFSET, file_offset), M(FILE2_DEV, file2_dev), M(FILE2_BYTES, file2_bytes),
	M(INODE2, inode2), M(FILE2_OFFSET, file2_offset), M(CAUSE_PID, cause_pid),
	M(CAUSE_COMM_ID, cause_comm_id), M(CAUSE_CGROUP, cause_cgroup),
	M(CAUSE2_PID, cause2_pid), M(CAUSE2_COMM_ID, cause2_comm_id),
	M(CAUSE2_CGROUP, cause2_cgroup),
};

/* A trace of N records with every optional column, blocks of 700
 * records (decode chunks of 1024 straddle nothing, blocks end mid-way
 * through a chunk's size), issue times rising. */
static const char *write_trace(void)
{
	const char *p = tu_tmpname("fields");
	struct bpt_header h;
	struct bpt_writer *w;
	struct bpt_error e = { 0 };
	struct bpt_writer_opts o = { .block_records = 700 };
	uint64_t seed = 11, t = 0;
	uint32_t id;

	tu_header(&h, 3, BPT_COL__KNOWN);
	cr_assert_eq(bpt_writer_create(&w, p, &h, &o, &e), 0, "%s", e.msg);
	bpt_header_free(&h);
	for (int i = 0; i < 5; i++) {
		char s[16];
		snprintf(s, sizeof(s), "task-%d", i);
		cr_assert_eq(bpt_writer_intern(w, s, &id), 0);
	}
	for (int i = 0; i < N; i++) {
		struct bpt_record r;
		tu_record(&seed, &r, 3, 6, BPT_COL__KNOWN);
		t += 1 + tu_below(&seed, 5000);
		r.complete_ns = t + (r.complete_ns - r.issue_ns) % 100000;
		r.queue_ns = t - (r.issue_ns - r.queue_ns) % 1000;
		r.issue_ns = t;
		if (r.sched_ns)
			r.sched_ns = t;
		cr_assert_eq(bpt_writer_add(w, &r), 0, "record %d", i);
	}
	cr_assert_eq(bpt_writer_close(w, &e), 0, "%s", e.msg);
	return p;
}

/* Every record bpt_reader_next() returns from r, into recs (at most N). */
static size_t by_next(struct bpt_reader *r, struct bpt_record *recs, int *end_rc)
{
	struct bpt_error e;
	size_t n = 0;
	int rc;
	while (n < N && (rc = bpt_reader_next(r, &recs[n], &e)) == 1)
		n++;
	*end_rc = rc;
	return n;
}

/* The same by bpt_reader_read_fields() in calls of `chunk` records, all
 * fields, rebuilt into records (every field of each is written). */
static size_t by_fields(struct bpt_reader *r, struct bpt_record *recs, size_t chunk, int *end_rc)
{
	struct bpt_field_out out[BPT_FIELD__COUNT];
	struct bpt_error e;
	size_t n = 0;

	for (unsigned f = 0; f < BPT_FIELD__COUNT; f++) {
		out[f].field = f;
		out[f].data = malloc(chunk * map[f].size);
		cr_assert_eq(bpt_field_size(f), map[f].size, "field %u", f);
	}
	for (;;) {
		int64_t got = bpt_reader_read_fields(r, out, BPT_FIELD__COUNT, chunk, &e);
		if (got < 0) {
			*end_rc = (int)got;
			break;
		}
		cr_assert_leq(got, (int64_t)chunk);
		cr_assert_leq(n + (size_t)got, (size_t)N);
		for (int64_t i = 0; i < got; i++)
			for (unsigned f = 0; f < BPT_FIELD__COUNT; f++)
				memcpy((char *)&recs[n + i] + map[f].off,
				       (char *)out[f].data + i * map[f].size, map[f].size);
		n += (size_t)got;
		if ((size_t)got < chunk) {
			*end_rc = 0;
			break;
		}
	}
	for (unsigned f = 0; f < BPT_FIELD__COUNT; f++)
		free(out[f].data);
	return n;
}

static struct bpt_record a[N], b[N];

static void same(size_t na, size_t nb, const char *what, size_t chunk)
{
	cr_assert_eq(na, nb, "%s, chunks of %zu: %zu records by next, %zu by fields", what, chunk, na, nb);
	for (size_t i = 0; i < na; i++)
		cr_assert(tu_rec_eq(&a[i], &b[i]), "%s, chunks of %zu: record %zu differs", what, chunk, i);
}

Test(bpt_read_fields, equals_next_for_every_chunk_size)
{
	const char *p = write_trace();
	static const size_t chunks[] = { 1, 7, 699, 700, 1023, 1024, 1025, 4999, N, 100000 };
	struct bpt_reader *r;
	struct bpt_error e;
	int rc1, rc2;

	cr_assert_eq(bpt_reader_open(&r, p, &e), 0, "%s", e.msg);
	size_t na = by_next(r, a, &rc1);
	cr_assert_eq(na, N);
	for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
		cr_assert_eq(bpt_reader_rewind(r, &e), 0);
		same(na, by_fields(r, b, chunks[c], &rc2), "whole file", chunks[c]);
		cr_assert_eq(rc2, 0);
	}
	/* mixed: some records by next, the rest by fields */
	cr_assert_eq(bpt_reader_rewind(r, &e), 0);
	struct bpt_record first;
	cr_assert_eq(bpt_reader_next(r, &first, &e), 1);
	size_t nb = by_fields(r, b + 1, 333, &rc2);
	b[0] = first;
	same(na, nb + 1, "after one next", 333);
	bpt_reader_close(r);
	tu_cleanup();
}

Test(bpt_read_fields, issue_range_and_seek)
{
	const char *p = write_trace();
	struct bpt_reader *r;
	struct bpt_error e;
	int rc;

	cr_assert_eq(bpt_reader_open(&r, p, &e), 0, "%s", e.msg);
	size_t all = by_next(r, a, &rc);
	uint64_t lo = a[1234].issue_ns, hi = a[3456].issue_ns;
	cr_assert_eq(bpt_reader_rewind(r, &e), 0);
	cr_assert_eq(bpt_reader_set_issue_range(r, lo, hi), 0);
	size_t na = by_next(r, a, &rc);
	cr_assert_eq(na, 3456 - 1234 + 1);
	cr_assert_eq(bpt_reader_rewind(r, &e), 0);
	cr_assert_eq(bpt_reader_set_issue_range(r, lo, hi), 0);
	same(na, by_fields(r, b, 500, &rc), "issue range", 500);

	cr_assert_eq(bpt_reader_rewind(r, &e), 0);
	cr_assert_eq(bpt_reader_seek_time(r, lo, &e), 0);
	na = by_next(r, a, &rc);
	cr_assert(na > 0 && na < all);
	cr_assert_eq(bpt_reader_rewind(r, &e), 0);
	cr_assert_eq(bpt_reader_seek_time(r, lo, &e), 0);
	same(na, by_fields(r, b, 1000, &rc), "after seek_time", 1000);
	bpt_reader_close(r);
	tu_cleanup();
}

Test(bpt_read_fields, cut_file_and_damage)
{
	const char *p = write_trace();
	size_t len;
	uint8_t *data = tu_load(p, &len);
	struct bpt_reader *r;
	struct bpt_error e;
	int rc1, rc2;

	cr_assert_not_null(data);
	/* cut: the whole blocks before the cut, by both */
	cr_assert_eq(bpt_reader_open_mem(&r, data, len / 2, "cut", &e), 0, "%s", e.msg);
	size_t na = by_next(r, a, &rc1);
	cr_assert(na > 0 && na < N);
	cr_assert_eq(bpt_reader_rewind(r, &e), 0);
	same(na, by_fields(r, b, 1024, &rc2), "cut file", 1024);
	cr_assert_eq(rc1, 0);
	cr_assert_eq(rc2, 0);
	bpt_reader_close(r);
	/* a flipped byte: both fail with the same error */
	data[len / 3] ^= 0x5a;
	cr_assert_eq(bpt_reader_open_mem(&r, data, len, "bad", &e), 0, "%s", e.msg);
	by_next(r, a, &rc1);
	bpt_reader_close(r);
	cr_assert_eq(bpt_reader_open_mem(&r, data, len, "bad", &e), 0, "%s", e.msg);
	by_fields(r, b, 4096, &rc2);
	cr_assert_lt(rc1, 0);
	cr_assert_eq(rc1, rc2, "next failed with %d, read_fields with %d", rc1, rc2);
	bpt_reader_close(r);
	free(data);
	tu_cleanup();
}

Test(bpt_read_fields, bad_arguments)
{
	const char *p = write_trace();
	struct bpt_reader *r;
	struct bpt_error e;
	uint64_t v[4];
	struct bpt_field_out bad[] = { { BPT_FIELD__COUNT, v } };
	struct bpt_field_out none[] = { { BPT_FIELD_ISSUE_NS, NULL } };

	cr_assert_eq(bpt_reader_open(&r, p, &e), 0, "%s", e.msg);
	cr_assert_eq(bpt_reader_read_fields(r, bad, 1, 4, &e), -EINVAL);
	cr_assert(strstr(e.msg, "bad field"), "%s", e.msg);
	cr_assert_eq(bpt_reader_read_fields(r, none, 1, 4, &e), -EINVAL);
	cr_assert_eq(bpt_field_size(BPT_FIELD__COUNT), 0);
	/* no fields: records are still counted and skipped */
	cr_assert_eq(bpt_reader_read_fields(r, NULL, 0, 10, &e), 10);
	cr_assert_eq(bpt_reader_read_fields(r, NULL, 0, 0, &e), 0);
	bpt_reader_close(r);
	tu_cleanup();
}
