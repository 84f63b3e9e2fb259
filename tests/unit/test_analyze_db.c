/*
 * Unit tests of the analysis database's safety: the schema and its
 * version, idempotent import, refusing foreign, corrupt and newer
 * database files, missing, truncated and corrupt traces (each leaving the
 * database byte for byte as it was), and read-only queries.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyze_testutil.h"
#include "bpt_testutil.h"
#include "db.h"
#include "import.h"
#include "query.h"

static void teardown(void) { at_cleanup(); }

TestSuite(analyze_db, .fini = teardown);

static const char *const comms[] = { "", "fio", "dd" };

/* n simple records: reads and writes of 4 KiB, 10 us apart. */
static struct bpt_record *simple_records(size_t n, uint64_t seed)
{
	struct bpt_record *r = calloc(n, sizeof(*r));

	for (size_t i = 0; i < n; i++) {
		uint64_t t = i * 10000 + seed;

		r[i] = at_rec(i % 3 ? BPT_OP_READ : BPT_OP_WRITE, t, t + 100, t + 20000 + i % 7,
			      (i * 7919 + seed) % 100000 * 8, 4096, 1000 + i % 3, 1 + i % 2);
	}
	return r;
}

static void write_simple(const char *path, size_t n, uint64_t seed, uint32_t block_records)
{
	struct bpt_record *r = simple_records(n, seed);

	at_write(path, "capture", 1, comms, 3, r, n, 0, NULL, block_records);
	free(r);
}

Test(analyze_db, schema_and_version)
{
	const char *dbp = at_tmp("v.db");
	struct bpt_error e = { 0 };
	sqlite3 *db = at_open(dbp);

	cr_assert_eq(at_int(db, "PRAGMA user_version"), ADB_SCHEMA_VERSION);
	cr_assert_eq(at_int(db, "PRAGMA application_id"), ADB_APPLICATION_ID);
	cr_assert_eq(at_int(db, "PRAGMA page_size"), 16384);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM sqlite_master WHERE name IN"
			    " ('traces','devices','processes','ops','ios','losses','runs',"
			    " 'comparisons','comparison_entries','io_detail')"), 10);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM ops"), BPT_OP__COUNT);
	sqlite3_close(db);
	/* reopening in every mode accepts it */
	cr_assert_eq(adb_open(&db, dbp, ADB_READONLY, &e), 0, "%s", e.msg);
	sqlite3_close(db);
	cr_assert_eq(adb_open(&db, dbp, ADB_READWRITE, &e), 0, "%s", e.msg);
	sqlite3_close(db);
	cr_assert_eq(adb_open(&db, dbp, ADB_CREATE, &e), 0, "%s", e.msg);
	sqlite3_close(db);
}

/* The schema built into the binary is the file schemas/analyze.sql:
 * a database made by the sqlite3 shell from the file has the same
 * schema entries as one made by adb_open(). */
Test(analyze_db, embedded_schema_is_the_file)
{
	const char *a = at_tmp("a.db"), *b = at_tmp("b.db");
	char cmd[512];
	sqlite3 *da, *dbb;

	snprintf(cmd, sizeof(cmd), "sqlite3 %s < schemas/analyze.sql", b);
	if (access("schemas/analyze.sql", R_OK) || system("command -v sqlite3 >/dev/null"))
		cr_skip_test("needs the sqlite3 shell and the source tree");
	cr_assert_eq(system(cmd), 0);
	da = at_open(a);
	cr_assert_eq(sqlite3_open(b, &dbb), SQLITE_OK);
	cr_assert_eq(at_int(da, "SELECT count(*) FROM sqlite_master"),
		     at_int(dbb, "SELECT count(*) FROM sqlite_master"));
	char sql[256];
	snprintf(sql, sizeof(sql), "ATTACH '%s' AS other", b);
	cr_assert_eq(sqlite3_exec(da, sql, NULL, NULL, NULL), SQLITE_OK);
	cr_assert_eq(at_int(da, "SELECT count(*) FROM (SELECT type, name, sql FROM main.sqlite_master"
			    " EXCEPT SELECT type, name, sql FROM other.sqlite_master)"), 0);
	cr_assert_eq(at_int(da, "SELECT count(*) FROM (SELECT type, name, sql FROM other.sqlite_master"
			    " EXCEPT SELECT type, name, sql FROM main.sqlite_master)"), 0);
	cr_assert_eq(at_int(dbb, "PRAGMA user_version"), ADB_SCHEMA_VERSION);
	cr_assert_eq(at_int(dbb, "PRAGMA application_id"), ADB_APPLICATION_ID);
	sqlite3_close(da);
	sqlite3_close(dbb);
}

Test(analyze_db, import_is_idempotent)
{
	const char *trace = at_tmp("t.bpt"), *dbp = at_tmp("i.db");
	struct bpt_error e = { 0 };
	struct import_result r1, r2;
	sqlite3 *db = at_open(dbp);
	uint64_t before;

	write_simple(trace, 1000, 1, 0);
	cr_assert_eq(import_file(db, trace, NULL, &r1, &e), 0, "%s", e.msg);
	cr_assert_eq(r1.already, 0);
	cr_assert_eq(r1.records, 1000);
	cr_assert_str_eq(r1.digest, at_digest(trace));
	sqlite3_close(db);
	before = at_file_hash(dbp);
	db = at_open(dbp);
	cr_assert_eq(import_file(db, trace, NULL, &r2, &e), 0, "%s", e.msg);
	cr_assert_eq(r2.already, 1);
	cr_assert_eq(r2.trace_id, r1.trace_id);
	cr_assert_eq(r2.records, 1000);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM traces"), 1);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM ios"), 1000);
	sqlite3_close(db);
	cr_assert_eq(at_file_hash(dbp), before, "a second import changed the database");
}

Test(analyze_db, import_stores_every_field)
{
	const char *trace = at_tmp("f.bpt"), *dbp = at_tmp("f.db");
	struct bpt_record r[2];
	const char *meta[] = { "options", "a \"quoted\" value", NULL };
	sqlite3 *db;
	int64_t id;

	r[0] = at_rec(BPT_OP_DISCARD, 5, 7, 11, 1ull << 40, 1u << 20, 4242, 2);
	r[0].flags = BPT_F_SYNC | BPT_F_FUA;
	r[0].cgroup_id = 0xfedcba9876543210ull;
	r[0].error = -28;
	r[0].sched_ns = 6;
	r[0].source_index = 99;
	r[0].member = 3;
	r[1] = at_rec(BPT_OP_WRITE, 0, 20, 30, 8, 512, 1, 1);
	r[1].dev = 1;
	at_write(trace, "replay", 2, comms, 3, r, 2,
		 BPT_COL_SCHED | BPT_COL_SOURCE | BPT_COL_MEMBER, meta, 0);
	db = at_open(dbp);
	id = at_import(db, trace);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM ios WHERE trace_id = %lld AND idx = 0 AND"
			    " queue_ns = 5 AND issue_ns = 7 AND complete_ns = 11 AND dev = 0 AND"
			    " sector = %lld AND bytes = %d AND op = 3 AND flags = 3 AND pid = 4242"
			    " AND comm_id = 2 AND cgroup_id = %lld AND error = -28 AND sched_ns = 6"
			    " AND source_index = 99 AND member = 3",
			    (long long)id, 1ll << 40, 1 << 20, (long long)0xfedcba9876543210ull), 1);
	/* queue 0 is "unknown": stored as the issue time */
	cr_assert_eq(at_int(db, "SELECT queue_ns FROM ios WHERE idx = 1"), 20);
	cr_assert_eq(at_int(db, "SELECT dev FROM ios WHERE idx = 1"), 1);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM io_detail WHERE comm = 'dd' AND"
			    " op_name = 'discard' AND service_ns = 4 AND total_ns = 6"), 1);
	cr_assert_eq(at_int(db, "SELECT ios FROM traces"), 2);
	cr_assert_eq(at_int(db, "SELECT bytes FROM traces"), (1 << 20) + 512);
	cr_assert_eq(at_int(db, "SELECT first_issue_ns FROM traces"), 7);
	cr_assert_eq(at_int(db, "SELECT last_complete_ns FROM traces"), 30);
	cr_assert_eq(at_int(db, "SELECT columns FROM traces"), 7);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM traces WHERE kind = 'replay' AND"
			    " json_extract(meta, '$.options') = 'a \"quoted\" value'"), 1);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM devices WHERE trace_id = %lld", (long long)id), 2);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM devices WHERE name = 'loop1' AND minor = 1"), 1);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM processes"), 3);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM runs WHERE trace_id = %lld", (long long)id), 1);
	sqlite3_close(db);
}

/* A run imported before and after its source trace is linked to it. */
Test(analyze_db, runs_link_to_their_source)
{
	const char *src = at_tmp("src.bpt"), *run1 = at_tmp("run1.bpt"), *run2 = at_tmp("run2.bpt");
	const char *dbp = at_tmp("runs.db");
	struct bpt_record *r = simple_records(100, 3);
	char digest[17];
	sqlite3 *db;

	at_write(src, "capture", 1, comms, 3, r, 100, 0, NULL, 0);
	snprintf(digest, sizeof(digest), "%s", at_digest(src));
	const char *meta1[] = { "source.digest", digest, "target", "/dev/loop7", "timing", "afap",
				"speed", "1.5", "queue_depth", "32", "engine", "libaio", NULL };
	const char *meta2[] = { "source.digest", digest, "target", "raid0:a,b", "timing", "original", NULL };
	for (int i = 0; i < 100; i++)
		r[i].complete_ns -= 5000;
	at_write(run1, "replay", 1, comms, 3, r, 100, 0, meta1, 0);
	at_write(run2, "replay", 1, comms, 3, r, 50, 0, meta2, 0);
	db = at_open(dbp);
	int64_t id1 = at_import(db, run1);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM runs WHERE source_trace_id IS NULL"), 1);
	int64_t ids = at_import(db, src);
	int64_t id2 = at_import(db, run2);
	cr_assert_eq(at_int(db, "SELECT source_trace_id FROM runs WHERE trace_id = %lld", (long long)id1), ids);
	cr_assert_eq(at_int(db, "SELECT source_trace_id FROM runs WHERE trace_id = %lld", (long long)id2), ids);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM runs WHERE trace_id = %lld AND target = '/dev/loop7'"
			    " AND timing = 'afap' AND speed = 1.5 AND queue_depth = 32 AND engine = 'libaio'",
			    (long long)id1), 1);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM runs WHERE trace_id = %lld", (long long)ids), 0);
	sqlite3_close(db);
	free(r);
}

/* Each bad database file is refused in every mode and left untouched. */
static void refused(const char *dbp, int code, const char *words)
{
	const enum adb_mode modes[] = { ADB_READONLY, ADB_READWRITE, ADB_CREATE };
	uint64_t before = at_file_hash(dbp);

	for (int m = 0; m < 3; m++) {
		struct bpt_error e = { 0 };
		sqlite3 *db = NULL;

		cr_assert_eq(adb_open(&db, dbp, modes[m], &e), code, "mode %d: %s", m, e.msg);
		cr_assert_null(db);
		cr_assert(strstr(e.msg, words), "message '%s' lacks '%s'", e.msg, words);
		cr_assert(strstr(e.msg, dbp), "message '%s' does not name the file", e.msg);
	}
	cr_assert_eq(at_file_hash(dbp), before, "%s was changed", dbp);
	char j[256];
	snprintf(j, sizeof(j), "%s-journal", dbp);
	cr_assert_neq(access(j, F_OK), 0, "a journal was left");
}

Test(analyze_db, refuses_garbage_file)
{
	const char *dbp = at_tmp("garbage.db");
	FILE *f = fopen(dbp, "w");

	for (int i = 0; i < 10000; i++)
		fputc((i * 31 + 7) & 0xff, f);
	fclose(f);
	refused(dbp, -ENOTSUP, "not a SQLite database");
}

Test(analyze_db, refuses_foreign_database)
{
	const char *dbp = at_tmp("foreign.db");
	sqlite3 *db;

	cr_assert_eq(sqlite3_open(dbp, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, "CREATE TABLE accounts (id INTEGER, balance REAL);"
				  " INSERT INTO accounts VALUES (1, 100.0)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	refused(dbp, -ENOTSUP, "not a blkpeak database");
}

Test(analyze_db, refuses_newer_schema)
{
	const char *dbp = at_tmp("newer.db");
	sqlite3 *db = at_open(dbp);

	cr_assert_eq(sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	refused(dbp, -EPROTO, "newer");
}

Test(analyze_db, missing_database_is_not_created)
{
	const char *dbp = at_tmp("missing.db");
	struct bpt_error e = { 0 };
	sqlite3 *db;

	cr_assert_eq(adb_open(&db, dbp, ADB_READONLY, &e), -ENOENT);
	cr_assert(strstr(e.msg, "no such database"), "%s", e.msg);
	cr_assert_eq(adb_open(&db, dbp, ADB_READWRITE, &e), -ENOENT);
	cr_assert_neq(access(dbp, F_OK), 0);
}

/* A bad trace leaves the database byte for byte as it was. */
static void import_fails(const char *dbp, const char *trace, const char *words)
{
	struct bpt_error e = { 0 };
	struct import_result res;
	uint64_t before = at_file_hash(dbp);
	sqlite3 *db = at_open(dbp);

	cr_assert_lt(import_file(db, trace, NULL, &res, &e), 0);
	cr_assert(strstr(e.msg, words), "message '%s' lacks '%s'", e.msg, words);
	cr_assert(strstr(e.msg, trace), "message '%s' does not name the file", e.msg);
	sqlite3_close(db);
	cr_assert_eq(at_file_hash(dbp), before, "the database changed");
}

Test(analyze_db, bad_traces_leave_the_database_alone)
{
	const char *good = at_tmp("good.bpt"), *trunc = at_tmp("trunc.bpt");
	const char *corrupt = at_tmp("corrupt.bpt"), *dbp = at_tmp("bad.db");
	size_t len;
	uint8_t *data;
	sqlite3 *db = at_open(dbp);

	write_simple(good, 1000, 5, 0);
	at_import(db, good);
	sqlite3_close(db);

	/* missing */
	import_fails(dbp, "/dev/shm/blkpeak-no-such-trace.bpt", "No such file");

	/* truncated in the middle of its blocks */
	write_simple(trunc, 60000, 6, 4096);
	data = tu_load(trunc, &len);
	cr_assert_not_null(data);
	cr_assert_eq(tu_store(trunc, data, len / 2), 0);
	import_fails(dbp, trunc, "truncated");

	/* corrupt: one byte flipped inside a block, found only while reading */
	write_simple(corrupt, 60000, 7, 4096);
	free(data);
	data = tu_load(corrupt, &len);
	data[len / 2] ^= 0x5a;
	cr_assert_eq(tu_store(corrupt, data, len), 0);
	import_fails(dbp, corrupt, corrupt);
	free(data);

	/* --partial imports the complete blocks of the truncated file */
	struct bpt_error e = { 0 };
	struct import_result res;
	struct import_opts o = { .partial = 1 };
	db = at_open(dbp);
	cr_assert_eq(import_file(db, trunc, &o, &res, &e), 0, "%s", e.msg);
	cr_assert_eq(res.truncated, 1);
	cr_assert_gt(res.records, 0);
	cr_assert_lt(res.records, 60000);
	cr_assert_eq(res.records % 4096, 0, "whole blocks only");
	cr_assert_eq(at_int(db, "SELECT truncated FROM traces WHERE id = %lld", (long long)res.trace_id), 1);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM ios WHERE trace_id = %lld", (long long)res.trace_id),
		     (int64_t)res.records);
	sqlite3_close(db);
}

/* Run SQL through the guarded read-only connection; output in *out. */
static int guarded(const char *dbp, const char *sql, char **out, struct bpt_error *e)
{
	size_t len;
	FILE *f = open_memstream(out, &len);
	sqlite3 *db;
	int rc;

	cr_assert_eq(adb_open(&db, dbp, ADB_READONLY, e), 0, "%s", e->msg);
	cr_assert_eq(query_guard(db, e), 0, "%s", e->msg);
	rc = query_run(db, sql, Q_CSV, f, e);
	fclose(f);
	sqlite3_close(db);
	return rc;
}

Test(analyze_db, query_is_read_only)
{
	const char *trace = at_tmp("q.bpt"), *dbp = at_tmp("q.db"), *other = at_tmp("other.db");
	const char *refuse[] = {
		"DROP TABLE io_rows",
		"INSERT INTO ops VALUES (9, 'x')",
		"DELETE FROM traces",
		"UPDATE io_rows SET sector = 0",
		"CREATE TABLE t (x)",
		"CREATE TEMP TABLE t (x)",
		"PRAGMA user_version = 5",
		"PRAGMA journal_mode = WAL",
		"PRAGMA query_only = 0",
		"VACUUM",
		"VACUUM INTO '/dev/shm/blkpeak-ut-vacuum.db'",
		"WITH x AS (SELECT 1) DELETE FROM io_rows",
		"SELECT 1; DROP TABLE io_rows",
		NULL,
	};
	char attach[256], *out;
	struct bpt_error e = { 0 };
	sqlite3 *db = at_open(dbp);
	uint64_t before;

	write_simple(trace, 100, 9, 0);
	at_import(db, trace);
	sqlite3_close(db);
	before = at_file_hash(dbp);
	for (int i = 0; refuse[i]; i++) {
		cr_assert_eq(guarded(dbp, refuse[i], &out, &e), -EPERM, "'%s' not refused (%s)",
			     refuse[i], e.msg);
		cr_assert(strstr(e.msg, "refused"), "'%s': message '%s'", refuse[i], e.msg);
		cr_assert_str_eq(out, "", "'%s' printed something", refuse[i]);
		free(out);
	}
	snprintf(attach, sizeof(attach), "ATTACH '%s' AS o", other);
	cr_assert_eq(guarded(dbp, attach, &out, &e), -EPERM);
	cr_assert(strstr(e.msg, "ATTACH"), "%s", e.msg);
	free(out);
	cr_assert_neq(access(other, F_OK), 0, "ATTACH created a file");
	cr_assert_eq(at_file_hash(dbp), before, "the database changed");

	/* reading works, reading PRAGMAs too */
	cr_assert_eq(guarded(dbp, "SELECT count(*) AS n FROM ios", &out, &e), 0, "%s", e.msg);
	cr_assert_str_eq(out, "n\r\n100\r\n");
	free(out);
	cr_assert_eq(guarded(dbp, "PRAGMA user_version", &out, &e), 0, "%s", e.msg);
	free(out);
	cr_assert_eq(guarded(dbp, "PRAGMA table_info(ios)", &out, &e), 0, "%s", e.msg);
	cr_assert(strstr(out, "sector"));
	free(out);
	cr_assert_eq(guarded(dbp, "SELECT nonsense FROM nowhere", &out, &e), -EINVAL);
	free(out);
}

Test(analyze_db, a_database_path_must_be_a_regular_file_or_absent)
{
	const char *link = at_tmp("link.db"), *fresh = at_tmp("fresh.db");
	char journal[512];
	struct bpt_error e = { 0 };
	sqlite3 *db = NULL;

	cr_assert_eq(adb_open(&db, "/dev/null", ADB_CREATE, &e), -EINVAL);
	cr_assert_str_eq(e.msg, "/dev/null: a character device, not a database: refusing to let "
				"SQLite open it");
	cr_assert_eq(symlink("/dev/null", link), 0);
	cr_assert_eq(adb_open(&db, link, ADB_CREATE, &e), -EINVAL);
	cr_assert(strstr(e.msg, "link.db: a character device"), "%s", e.msg);
	/* SQLite would create and write the journal through a planted link */
	snprintf(journal, sizeof(journal), "%s-journal", fresh);
	cr_assert_eq(symlink("/dev/null", journal), 0);
	cr_assert_eq(adb_open(&db, fresh, ADB_CREATE, &e), -EINVAL);
	cr_assert(strstr(e.msg, "fresh.db-journal: a symbolic link, refusing"), "%s", e.msg);
	unlink(journal);
	cr_assert_eq(mkfifo(journal, 0600), 0);
	cr_assert_eq(adb_open(&db, fresh, ADB_CREATE, &e), -EINVAL);
	cr_assert(strstr(e.msg, "fresh.db-journal: a FIFO, not a database journal"), "%s", e.msg);
	cr_assert_neq(access(fresh, F_OK), 0, "nothing was created");
	cr_assert_null(db);
}

Test(analyze_db, query_refuses_functions_not_for_reading_data)
{
	const char *trace = at_tmp("fn.bpt"), *dbp = at_tmp("fn.db");
	const char *refuse[][2] = {
		{ "SELECT fts3_tokenizer('simple')", "fts3_tokenizer() is refused" },
		{ "SELECT hex(FTS3_TOKENIZER('porter'))", "fts3_tokenizer() is refused" },
		{ "SELECT load_extension('/tmp/x.so')", "load_extension() is refused" },
		{ "SELECT count(*) FROM ios WHERE load_extension('x') IS NULL",
		  "load_extension() is refused" },
	};
	struct bpt_error e = { 0 };
	sqlite3 *db = at_open(dbp);
	char *out;

	write_simple(trace, 10, 9, 0);
	at_import(db, trace);
	sqlite3_close(db);
	for (size_t i = 0; i < sizeof(refuse) / sizeof(refuse[0]); i++) {
		cr_assert_eq(guarded(dbp, refuse[i][0], &out, &e), -EPERM, "'%s' not refused (%s)",
			     refuse[i][0], e.msg);
		cr_assert(strstr(e.msg, refuse[i][1]), "'%s': message '%s'", refuse[i][0], e.msg);
		cr_assert_str_eq(out, "", "'%s' printed something", refuse[i][0]);
		free(out);
	}
	/* the functions for reading data still work */
	cr_assert_eq(guarded(dbp, "SELECT count(*), upper('a'), round(1.26, 1), "
				  "length(hex(randomblob(4))) FROM ios", &out, &e), 0, "%s", e.msg);
	cr_assert(strstr(out, "10,A,1.3,8"), "%s", out);
	free(out);
}

Test(analyze_db, query_output_formats)
{
	const char *dbp = at_tmp("fmt.db");
	char *out;
	size_t len;
	FILE *f;
	sqlite3 *db = at_open(dbp);
	struct bpt_error e = { 0 };
	const char *sql = "SELECT 1 AS i, 2.5 AS r, 'a,\"b\"' AS t, NULL AS n, x'00ff' AS b";

	f = open_memstream(&out, &len);
	cr_assert_eq(query_run(db, sql, Q_JSON, f, &e), 0, "%s", e.msg);
	fclose(f);
	cr_assert_str_eq(out, "[\n{\"i\":1,\"r\":2.500000000,\"t\":\"a,\\\"b\\\"\",\"n\":null,\"b\":\"00ff\"}\n]\n");
	free(out);
	f = open_memstream(&out, &len);
	cr_assert_eq(query_run(db, "SELECT 1 AS i, 2.5 AS r, 'a,\"b\"' AS t, NULL AS n", Q_CSV, f, &e),
		     0, "%s", e.msg);
	fclose(f);
	cr_assert_str_eq(out, "i,r,t,n\r\n1,2.5,\"a,\"\"b\"\"\",\r\n");
	free(out);
	f = open_memstream(&out, &len);
	cr_assert_eq(query_run(db, "SELECT 1 AS a, 'xyz' AS bb UNION ALL SELECT 22, NULL", Q_TABLE, f, &e), 0);
	fclose(f);
	cr_assert_str_eq(out, " a  bb\n--  ---\n 1  xyz\n22  \n");
	free(out);
	sqlite3_close(db);
}

/* Version 0 (an empty file, or a database with only our application id)
 * is brought to the current schema; a read-only open does not do that. */
Test(analyze_db, version_zero_gets_the_schema)
{
	const char *empty = at_tmp("empty.db"), *bare = at_tmp("bare.db");
	struct bpt_error e = { 0 };
	sqlite3 *db;
	FILE *f = fopen(empty, "w");

	fclose(f);
	cr_assert_eq(adb_open(&db, empty, ADB_READONLY, &e), -EPROTO);
	cr_assert(strstr(e.msg, "empty database"), "%s", e.msg);
	cr_assert_eq(adb_open(&db, empty, ADB_READWRITE, &e), 0, "%s", e.msg);
	cr_assert_eq(at_int(db, "PRAGMA user_version"), ADB_SCHEMA_VERSION);
	sqlite3_close(db);

	cr_assert_eq(sqlite3_open(bare, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, "PRAGMA application_id = 1112296272", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	db = at_open(bare);
	cr_assert_eq(at_int(db, "PRAGMA user_version"), ADB_SCHEMA_VERSION);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM ops"), BPT_OP__COUNT);
	sqlite3_close(db);
}

/* An import killed in the middle leaves a hot journal; the next open, in
 * any mode, rolls it back to the last committed state, byte for byte. A
 * foreign database with a hot journal is refused instead. */
Test(analyze_db, interrupted_import_is_rolled_back)
{
	const char *trace = at_tmp("hot.bpt"), *dbp = at_tmp("hot.db"), *foreign = at_tmp("fhot.db");
	struct bpt_error e = { 0 };
	uint64_t committed;
	sqlite3 *db;
	char journal[256];
	pid_t pid;
	int status;

	write_simple(trace, 20000, 11, 0);
	db = at_open(dbp);
	at_import(db, trace);
	sqlite3_close(db);
	committed = at_file_hash(dbp);
	for (int k = 0; k < 2; k++) {
		const char *path = k ? foreign : dbp;

		if (k) { /* another application's database, same story */
			cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
			cr_assert_eq(sqlite3_exec(db, "CREATE TABLE t (x); WITH RECURSIVE n(i) AS"
						  " (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)"
						  " INSERT INTO t SELECT randomblob(100) FROM n", NULL, NULL, NULL),
				     SQLITE_OK);
			sqlite3_close(db);
		}
		pid = fork();
		cr_assert_geq(pid, 0);
		if (pid == 0) { /* write much in a transaction, then die without ending it */
			sqlite3_open(path, &db);
			sqlite3_exec(db, k ? "PRAGMA cache_size = 2; BEGIN; UPDATE t SET x = randomblob(100)"
					   : "PRAGMA cache_size = 2; BEGIN; INSERT INTO io_rows (issue_delta, wait_ns,"
					     " service_ns, sector, kind) SELECT issue_delta, wait_ns, service_ns, sector,"
					     " kind FROM io_rows",
				     NULL, NULL, NULL);
			_exit(0);
		}
		cr_assert_eq(waitpid(pid, &status, 0), pid);
		snprintf(journal, sizeof(journal), "%s-journal", path);
		cr_assert_eq(access(journal, F_OK), 0, "no journal was left");
	}
	cr_assert_neq(at_file_hash(dbp), committed, "the killed transaction wrote nothing");

	cr_assert_eq(adb_open(&db, dbp, ADB_READONLY, &e), 0, "%s", e.msg);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM ios"), 20000);
	sqlite3_close(db);
	cr_assert_eq(at_file_hash(dbp), committed, "not rolled back to the committed state");
	snprintf(journal, sizeof(journal), "%s-journal", dbp);
	cr_assert_neq(access(journal, F_OK), 0);

	uint64_t before = at_file_hash(foreign);
	cr_assert_eq(adb_open(&db, foreign, ADB_CREATE, &e), -EAGAIN);
	cr_assert(strstr(e.msg, "interrupted write"), "%s", e.msg);
	cr_assert_eq(at_file_hash(foreign), before);
}

/* Turn a database of schema version 8 into one of version 4: the I/Os
 * back in the table `ios` of versions 1-4. */
static const char to_version_4[] =
	"CREATE TABLE ios_v4 (trace_id INTEGER NOT NULL, idx INTEGER NOT NULL,"
	" queue_ns INTEGER NOT NULL, issue_ns INTEGER NOT NULL, complete_ns INTEGER NOT NULL,"
	" dev INTEGER NOT NULL, sector INTEGER NOT NULL, bytes INTEGER NOT NULL,"
	" op INTEGER NOT NULL, flags INTEGER NOT NULL, pid INTEGER NOT NULL,"
	" comm_id INTEGER NOT NULL, cgroup_id INTEGER NOT NULL, error INTEGER NOT NULL,"
	" sched_ns INTEGER, source_index INTEGER, member INTEGER,"
	" completion INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (trace_id, idx)) WITHOUT ROWID;"
	" INSERT INTO ios_v4 SELECT trace_id, idx, queue_ns, issue_ns, complete_ns, dev, sector,"
	" bytes, op, flags, pid, comm_id, cgroup_id, error, sched_ns, source_index, member,"
	" completion FROM ios;"
	" DROP VIEW io_detail; DROP TRIGGER ios_insert; DROP VIEW ios; DROP TABLE io_rows;"
	" DROP TABLE io_kinds; DROP TABLE io_replay; DROP TABLE io_marks; DROP TABLE io_files;"
	" DROP TABLE io_files2; DROP TABLE paths; DROP TABLE file_classes;"
	" ALTER TABLE comparisons DROP COLUMN files;"
	" ALTER TABLE traces DROP COLUMN io_base;"
	" ALTER TABLE ios_v4 RENAME TO ios; CREATE VIEW io_detail AS SELECT * FROM ios;"
	" PRAGMA user_version = 4;";

/* A database of schema version 2 (before ios.completion) is migrated on
 * the next open for writing: the column appears, 0 for the rows there. */
Test(analyze_db, migrates_version_2)
{
	const char *trace = at_tmp("mig.bpt"), *dbp = at_tmp("mig.db");
	struct bpt_error e = { 0 };
	sqlite3 *db;

	write_simple(trace, 100, 3, 0);
	db = at_open(dbp);
	at_import(db, trace);
	cr_assert_eq(sqlite3_exec(db, to_version_4, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
	cr_assert_eq(sqlite3_exec(db, "DROP VIEW io_detail; ALTER TABLE ios DROP COLUMN completion;"
				  " CREATE VIEW io_detail AS SELECT * FROM ios; PRAGMA user_version = 2",
				  NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
	sqlite3_close(db);
	cr_assert_eq(adb_open(&db, dbp, ADB_READONLY, &e), -EPROTO, "read-only: no migration");
	cr_assert_eq(adb_open(&db, dbp, ADB_CREATE, &e), 0, "%s", e.msg);
	cr_assert_eq(at_int(db, "PRAGMA user_version"), ADB_SCHEMA_VERSION);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM ios WHERE completion = 0"), 100);
	sqlite3_close(db);
}

/* Version 3 -> 4 adds the measurements tables (blkpeak measure) and
 * keeps what was there. */
Test(analyze_db, migrates_version_3)
{
	const char *trace = at_tmp("mig3.bpt"), *dbp = at_tmp("mig3.db");
	struct bpt_error e = { 0 };
	sqlite3 *db;

	write_simple(trace, 50, 3, 0);
	db = at_open(dbp);
	at_import(db, trace);
	cr_assert_eq(sqlite3_exec(db, to_version_4, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
	cr_assert_eq(sqlite3_exec(db, "DROP TABLE measurement_points; DROP TABLE measurements;"
				  " PRAGMA user_version = 3", NULL, NULL, NULL), SQLITE_OK, "%s",
		     sqlite3_errmsg(db));
	sqlite3_close(db);
	cr_assert_eq(adb_open(&db, dbp, ADB_READONLY, &e), -EPROTO, "read-only: no migration");
	cr_assert_eq(adb_open(&db, dbp, ADB_CREATE, &e), 0, "%s", e.msg);
	cr_assert_eq(at_int(db, "PRAGMA user_version"), ADB_SCHEMA_VERSION);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM ios"), 50);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM io_rows"), 50);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM sqlite_master WHERE name IN"
			    " ('measurements', 'measurement_points')"), 2);
	sqlite3_close(db);
}

/* Version 10 -> 11 adds the knee's columns to the measurements tables
 * (NULL for the measurements there) and keeps every row and value. */
Test(analyze_db, migrates_version_10)
{
	const char *dbp = at_tmp("mig10.db");
	struct bpt_error e = { 0 };
	sqlite3 *db = at_open(dbp);

	cr_assert_eq(sqlite3_exec(db, "INSERT INTO measurements (id, kind, target, capacity_bytes,"
				  " started_wall_ns, access, ios_per_step, warmup_ios, imported_at,"
				  " label) VALUES (7, 'seeks', '/dev/x', 4096, 1, 'random', 20, 2, 'now',"
				  " 'mine');"
				  " INSERT INTO measurement_points (measurement_id, step, depth,"
				  " offset_bytes, span_bytes, ios, bytes, errors, window_ns, ios_per_s,"
				  " mb_per_s, mean_ns, p50_ns, p90_ns, p99_ns, p999_ns, p9999_ns, max_ns)"
				  " VALUES (7, 0, 1, 0, 4096, 20, 81920, 0, 1000, 123.5, 0.5, 10, 9, 11,"
				  " 12, 13, 14, 15);"
				  " ALTER TABLE measurements DROP COLUMN knee_slo;"
				  " ALTER TABLE measurements DROP COLUMN knee_factor;"
				  " ALTER TABLE measurement_points DROP COLUMN speed_factor;"
				  " ALTER TABLE measurement_points DROP COLUMN met;"
				  " PRAGMA user_version = 10", NULL, NULL, NULL), SQLITE_OK, "%s",
		     sqlite3_errmsg(db));
	sqlite3_close(db);
	cr_assert_eq(adb_open(&db, dbp, ADB_READONLY, &e), -EPROTO, "read-only: no migration");
	cr_assert_eq(adb_open(&db, dbp, ADB_CREATE, &e), 0, "%s", e.msg);
	cr_assert_eq(at_int(db, "PRAGMA user_version"), ADB_SCHEMA_VERSION);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM measurements WHERE id = 7 AND kind = 'seeks'"
			    " AND label = 'mine' AND warmup_ios = 2 AND knee_slo IS NULL"
			    " AND knee_factor IS NULL"), 1);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM measurement_points WHERE measurement_id = 7"
			    " AND ios_per_s = 123.5 AND max_ns = 15 AND speed_factor IS NULL"
			    " AND met IS NULL"), 1);
	/* the new columns take a knee's values */
	cr_assert_eq(sqlite3_exec(db, "UPDATE measurement_points SET speed_factor = 2.5, met = 1",
				  NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
	cr_assert_eq(at_int(db, "SELECT count(*) FROM measurement_points WHERE speed_factor = 2.5"
			    " AND met = 1"), 1);
	sqlite3_close(db);
}
