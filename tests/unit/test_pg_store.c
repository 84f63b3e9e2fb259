/*
 * Unit tests of the PostgreSQL store's pure parts: which --db values name
 * PostgreSQL (analyze/pg.c), that no message form keeps a password
 * (pg_redact), and that an I/O survives the stores' columns and back
 * (analyze/store_io.c) for every combination of optional columns.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "pg.h"
#include "io_kind.h"
#include "store_io.h"

Test(pg_store, is_pg)
{
	cr_assert(pg_is_pg("postgresql://u@h/db"));
	cr_assert(pg_is_pg("postgres://h"));
	cr_assert(pg_is_pg("host=/tmp dbname=x"));
	cr_assert(pg_is_pg("service=lab"));
	cr_assert(!pg_is_pg("blkpeak.db"));
	cr_assert(!pg_is_pg("a=b.db"), "not a libpq keyword: a file");
	cr_assert(!pg_is_pg("/srv/x=y/blkpeak.db"));
	cr_assert(!pg_is_pg("postgresql.db"));
	cr_assert(!pg_is_pg(""));
	cr_assert(!pg_is_pg(NULL));
}

static void redacts(const char *in, const char *want)
{
	char buf[256];

	pg_redact(in, buf, sizeof(buf));
	cr_assert_str_eq(buf, want, "%s", in);
	cr_assert(!strstr(buf, "pw"), "%s kept the password: %s", in, buf);
}

Test(pg_store, redact)
{
	redacts("postgresql://alice:pw1@db.lab:5433/blk", "postgresql://alice@db.lab:5433/blk");
	redacts("postgres://alice:pw@/blk?host=/tmp", "postgres://alice@/blk?host=/tmp");
	redacts("postgresql://h/blk?sslmode=require&password=pw9&user=a",
		"postgresql://h/blk?sslmode=require&password=***&user=a");
	redacts("postgresql://h/blk?password=pw", "postgresql://h/blk?password=***");
	redacts("host=h password=pw dbname=x", "host=h password=*** dbname=x");
	redacts("password='p w pw' host=h", "password=*** host=h");
	redacts("password='it\\'s pw' host=h", "password=*** host=h");
	redacts("host=h dbname=x", "host=h dbname=x");
	redacts("host=h password = pw dbname=x", "host=h password=*** dbname=x");
	redacts("password=a\\ pw host=h", "password=*** host=h");
	redacts("dbname=x\tpassword=pw", "dbname=x\tpassword=***");
	redacts("postgresql://alice@h/blk", "postgresql://alice@h/blk");
	/* a '@' in the path is no user part */
	redacts("postgresql://h/db@x", "postgresql://h/db@x");

	char small[8];

	pg_redact("postgresql://a:pw@h/x", small, sizeof(small));
	cr_assert_eq(strlen(small), 7);
	cr_assert(!strstr(small, "pw"));
}

static struct bpt_record sample(unsigned k)
{
	struct bpt_record r = { 0 };

	r.queue_ns = k & 1 ? 0 : 1000 + k;
	r.issue_ns = 2000 + k;
	r.complete_ns = 9000 + k;
	r.sector = UINT64_MAX - k;
	r.cgroup_id = UINT64_MAX - 7;
	r.pid = UINT32_MAX;
	r.bytes = 4096;
	r.comm_id = 3;
	r.dev = 65535;
	r.error = -5;
	r.member = 2;
	r.sched_ns = 1500;
	r.source_index = 77;
	r.op = 1;
	r.flags = 9;
	r.completion = 2;
	r.file_class = k & 2 ? BPT_FILE_DATA : 2;
	r.file_dev = 8 << 20 | 1;
	r.inode = 1234567890123ULL;
	r.file_offset = k & 4 ? BPT_FILE_OFFSET_UNKNOWN : 65536;
	r.file_bytes = 2048;
	r.file2_bytes = k & 8 ? 2048 : 0;
	r.file2_dev = r.file2_bytes ? 9 : 0;
	r.inode2 = r.file2_bytes ? 42 : 0;
	r.file2_offset = r.file2_bytes ? 0 : 0;
	r.cause_pid = k & 16 ? 0 : 4242;
	r.cause_comm_id = r.cause_pid ? 5 : 0;
	r.cause_cgroup = r.cause_pid ? 11 : 0;
	r.cause2_pid = r.file2_bytes ? 4343 : 0;
	r.cause2_comm_id = r.cause2_pid ? 6 : 0;
	r.cause2_cgroup = r.cause2_pid ? 12 : 0;
	return r;
}

Test(pg_store, io_roundtrip)
{
	static const uint32_t all = BPT_COL_SCHED | BPT_COL_SOURCE | BPT_COL_MEMBER |
				    BPT_COL_FILE | BPT_COL_CAUSE;

	for (uint32_t cols = 0; cols <= all; cols++) {
		if (cols & ~all)
			continue;
		for (unsigned k = 0; k < 32; k++) {
			struct bpt_record in = sample(k), out;
			struct st_io io, again;

			st_io_from_record(&io, &in, cols);
			st_io_to_record(&io, &out);
			st_io_from_record(&again, &out, cols);
			cr_assert(!memcmp(io.v, again.v, sizeof(io.v)) &&
				  !memcmp(io.null, again.null, sizeof(io.null)),
				  "cols %#x k %u: columns change on a second trip", cols, k);
			cr_assert_eq(out.issue_ns, in.issue_ns);
			cr_assert_eq(out.queue_ns, in.queue_ns ? in.queue_ns : in.issue_ns);
			cr_assert_eq(out.sector, in.sector);
			cr_assert_eq(out.cgroup_id, in.cgroup_id);
			cr_assert_eq(out.pid, in.pid);
			cr_assert_eq(out.error, in.error);
			cr_assert_eq(out.dev, in.dev);
			cr_assert_eq(out.sched_ns, cols & BPT_COL_SCHED ? in.sched_ns : 0);
			cr_assert_eq(out.member, cols & BPT_COL_MEMBER ? in.member : 0);
			if ((cols & BPT_COL_FILE) && in.file_class == BPT_FILE_DATA) {
				cr_assert_eq(out.inode, in.inode);
				cr_assert_eq(out.file_offset, in.file_offset);
				cr_assert_eq(out.file2_bytes, in.file2_bytes);
			}
			if (cols & BPT_COL_CAUSE)
				cr_assert_eq(out.cause_pid, in.cause_pid);
			else
				cr_assert(io.null[17], "cause_pid NULL without the column");
		}
	}
}

/* The kinds both imports number I/Os by (analyze/io_kind.c): dense from
 * 0 in order of first use, the same key the same number (also after the
 * table grows), and the NULL rules of io_kinds' file and cause columns. */
Test(pg_store, io_kinds)
{
	struct io_kind_map m = IO_KIND_MAP_INIT;
	struct bpt_record r;
	struct io_kind_key k;
	int is_new;

	for (int round = 0; round < 2; round++)
		for (uint32_t i = 0; i < 5000; i++) {
			memset(&r, 0, sizeof(r));
			r.bytes = 4096 * (i % 1000 + 1);
			r.pid = i / 1000;
			r.sector = i; /* not part of a kind */
			io_kind_key_of(&k, &r, 0);
			int64_t kind = io_kind_map_find(&m, &k, &is_new);
			cr_assert_eq(kind, (int64_t)i, "I/O %u: kind %lld", i, (long long)kind);
			cr_assert_eq(is_new, !round);
		}
	cr_assert_eq(m.n, 5000);
	io_kind_map_free(&m);

	int64_t v[IO_KIND_N];
	unsigned char null[IO_KIND_N];

	memset(&r, 0, sizeof(r));
	r.file_class = BPT_FILE_DATA;
	r.file_dev = 7;
	r.file_bytes = 512;
	r.cause_pid = 42;
	io_kind_key_of(&k, &r, 0); /* a trace without file and cause columns */
	io_kind_values(&k, 0, v, null);
	for (int i = 9; i < IO_KIND_N; i++)
		cr_assert(null[i], "column %d of a trace without files is not NULL", i);
	io_kind_key_of(&k, &r, BPT_COL_FILE | BPT_COL_CAUSE);
	io_kind_values(&k, BPT_COL_FILE | BPT_COL_CAUSE, v, null);
	for (int i = 0; i < IO_KIND_N; i++)
		cr_assert(!null[i], "column %d NULL", i);
	cr_assert_eq(v[10], 7);
	cr_assert_eq(v[11], 512);
	cr_assert_eq(v[12], 42);
	r.file_class = 2; /* metadata: no file's bytes */
	r.cause_pid = 0;  /* the cause unknown */
	io_kind_key_of(&k, &r, BPT_COL_FILE | BPT_COL_CAUSE);
	io_kind_values(&k, BPT_COL_FILE | BPT_COL_CAUSE, v, null);
	cr_assert(!null[9] && !null[10] && null[11] && null[12] && null[13] && null[14]);
}
