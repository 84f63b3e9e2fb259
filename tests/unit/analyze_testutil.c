/* analyze_testutil.c — helpers for the analyze unit tests (see .h). */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze_testutil.h"
#include "db.h"
#include "import.h"

static char at_paths[128][128];
static int at_npaths;

const char *at_tmp(const char *tag)
{
	char *p;

	cr_assert_lt(at_npaths, 128);
	p = at_paths[at_npaths++];
	snprintf(p, sizeof(at_paths[0]), "/dev/shm/blkpeak-ut-%d-%d-%s", (int)getpid(),
		 at_npaths, tag);
	unlink(p);
	return p;
}

void at_cleanup(void)
{
	for (int i = 0; i < at_npaths; i++) {
		char j[160];

		unlink(at_paths[i]);
		snprintf(j, sizeof(j), "%.120s-journal", at_paths[i]);
		unlink(j);
	}
	at_npaths = 0;
}

void at_write(const char *path, const char *kind, unsigned ndev,
	      const char *const *comms, unsigned ncomms,
	      const struct bpt_record *recs, size_t n, uint32_t columns,
	      const char *const *meta, uint32_t block_records)
{
	struct bpt_writer_opts o = { .block_records = block_records };
	struct bpt_header h;
	struct bpt_writer *w;
	struct bpt_error e = { 0 };
	uint32_t id;

	bpt_header_init(&h, kind);
	h.columns = columns;
	for (unsigned i = 0; i < ndev; i++) {
		struct bpt_device d = { 0 };

		snprintf(d.name, sizeof(d.name), "loop%u", i);
		d.major = 7;
		d.minor = i;
		d.size_bytes = 1ull << 30;
		d.logical_block_size = 512;
		d.physical_block_size = 4096;
		cr_assert_geq(bpt_header_add_device(&h, &d), 0);
	}
	for (int i = 0; meta && meta[i]; i += 2)
		cr_assert_eq(bpt_header_set_meta(&h, meta[i], meta[i + 1]), 0);
	cr_assert_eq(bpt_writer_create(&w, path, &h, &o, &e), 0, "%s", e.msg);
	for (unsigned i = 0; i < ncomms; i++) {
		cr_assert_eq(bpt_writer_intern(w, comms[i], &id), 0);
		cr_assert_eq(id, i, "string %u got id %u", i, id);
	}
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(bpt_writer_add(w, &recs[i]), 0, "record %zu", i);
	cr_assert_eq(bpt_writer_close(w, &e), 0, "%s", e.msg);
}

const char *at_digest(const char *path)
{
	static char hex[17];
	struct bpt_reader *r;
	struct bpt_error e = { 0 };
	uint64_t d;

	cr_assert_eq(bpt_reader_open(&r, path, &e), 0, "%s", e.msg);
	cr_assert_eq(bpt_reader_digest(r, &d, &e), 0, "%s", e.msg);
	bpt_reader_close(r);
	return import_digest_hex(d, hex);
}

struct bpt_record at_rec(unsigned op, uint64_t q, uint64_t i, uint64_t c,
			 uint64_t sector, uint32_t bytes, uint32_t pid, uint32_t comm)
{
	struct bpt_record r;

	memset(&r, 0, sizeof(r));
	r.op = (uint8_t)op;
	r.queue_ns = q;
	r.issue_ns = i;
	r.complete_ns = c;
	r.sector = sector;
	r.bytes = bytes;
	r.pid = pid;
	r.comm_id = comm;
	return r;
}

sqlite3 *at_open(const char *path)
{
	struct bpt_error e = { 0 };
	sqlite3 *db;

	cr_assert_eq(adb_open(&db, path, ADB_CREATE, &e), 0, "%s", e.msg);
	return db;
}

int64_t at_import(sqlite3 *db, const char *path)
{
	struct bpt_error e = { 0 };
	struct import_result res;

	cr_assert_eq(import_file(db, path, NULL, &res, &e), 0, "%s", e.msg);
	return res.trace_id;
}

/* The first column of the first row of the printf-style query, as
 * SQLite's value (valid until *st is finalized). */
static sqlite3_value *at_query(sqlite3 *db, sqlite3_stmt **st, const char *fmt, va_list ap)
{
	char *sql = sqlite3_vmprintf(fmt, ap);

	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, st, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(db));
	cr_assert_eq(sqlite3_step(*st), SQLITE_ROW, "no row: %s", sql);
	sqlite3_free(sql);
	return sqlite3_column_value(*st, 0);
}

int64_t at_int(sqlite3 *db, const char *fmt, ...)
{
	sqlite3_stmt *st;
	va_list ap;
	int64_t v;

	va_start(ap, fmt);
	v = sqlite3_value_int64(at_query(db, &st, fmt, ap));
	va_end(ap);
	sqlite3_finalize(st);
	return v;
}

double at_dbl(sqlite3 *db, const char *fmt, ...)
{
	sqlite3_stmt *st;
	va_list ap;
	double v;

	va_start(ap, fmt);
	v = sqlite3_value_double(at_query(db, &st, fmt, ap));
	va_end(ap);
	sqlite3_finalize(st);
	return v;
}

uint64_t at_file_hash(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint64_t h = 0xcbf29ce484222325ull, n = 0;
	int c;

	if (!f)
		return 0;
	while ((c = getc(f)) != EOF) {
		h = (h ^ (uint8_t)c) * 0x100000001b3ull;
		n++;
	}
	fclose(f);
	return h ^ n;
}
