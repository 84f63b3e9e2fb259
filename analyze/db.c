/*
 * db.c — open, create, check and migrate the analysis database.
 *
 * The decision whether a file may be used is taken on a read-only
 * connection, so a foreign, corrupt or too new file is never written to
 * (not even a journal is created). The one exception to read-only first:
 * a hot journal, left by an import that was killed, needs a read-write
 * connection to be rolled back; that is done only when the file's header
 * carries blkpeak's application id. Only then is the file reopened in the
 * mode the caller asked for and, when new or older, given the schema of
 * schemas/analyze.sql (embedded at build time as analyze_schema_sql).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "db.h"
#include "dbpath.h"
#include "filekind.h"
#include "pg.h"

extern const char analyze_schema_sql[]; /* build/gen/schema_sql.c */

int adb_fail(sqlite3 *db, struct bpt_error *err, const char *what)
{
	const char *file = db ? sqlite3_db_filename(db, "main") : NULL;

	return bpt_error_set(err, -EIO, "%s: %s: %s", file && *file ? file : "database",
		       what, db ? sqlite3_errmsg(db) : "out of memory");
}

int adb_exec(sqlite3 *db, const char *sql, struct bpt_error *err)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return adb_fail(db, err, "cannot run SQL");
	return 0;
}

const char *adb_default_path(const char *opt)
{
	return db_default_path(opt);
}

char *adb_utc_now(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return buf;
}

/* One integer from a single-row query; -1 on error. */
static int64_t query_int(sqlite3 *db, const char *sql, int *rc)
{
	sqlite3_stmt *st;
	int64_t v = -1;

	*rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (*rc != SQLITE_OK)
		return -1;
	*rc = sqlite3_step(st);
	if (*rc == SQLITE_ROW) {
		v = sqlite3_column_int64(st, 0);
		*rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return v;
}

/* What a read-only look at an existing file found. */
struct db_facts {
	int64_t app_id;
	int64_t version;
	int64_t tables; /* entries in sqlite_master */
};

/*
 * Look at an existing file read-only. Returns 0 with *facts filled,
 * -ENOTSUP when it is no SQLite database, -EIO on other SQLite errors.
 */
static int inspect(const char *path, struct db_facts *facts,
		   struct bpt_error *err)
{
	sqlite3 *db = NULL;
	int rc;

	rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_busy_timeout(db, ADB_BUSY_TIMEOUT_MS);
	/* the three facts from one snapshot: another blkpeak may commit the
	 * schema between two statements */
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		facts->app_id = query_int(db, "PRAGMA application_id", &rc);
	if (rc == SQLITE_OK)
		facts->version = query_int(db, "PRAGMA user_version", &rc);
	if (rc == SQLITE_OK)
		facts->tables = query_int(db, "SELECT count(*) FROM sqlite_master", &rc);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT) {
		sqlite3_close(db);
		return bpt_error_set(err, -ENOTSUP,
			       "%s: not a SQLite database (or a corrupt one), refusing to touch it",
			       path);
	}
	if (rc == SQLITE_READONLY && sqlite3_extended_errcode(db) == SQLITE_READONLY_ROLLBACK) {
		sqlite3_close(db);
		return bpt_error_set(err, -EAGAIN,
			       "%s: an interrupted write left %s-journal behind, and the file is not"
			       " a blkpeak database: refusing to roll it back", path, path);
	}
	if (rc != SQLITE_OK) {
		bpt_error_set(err, -EIO, "%s: cannot read: %s", path,
			db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return -EIO;
	}
	sqlite3_close(db);
	return 0;
}

/* 1 when the file's 100-byte SQLite header carries our application id
 * (big-endian at offset 68), read without SQLite. */
static int header_is_ours(const char *path)
{
	unsigned char h[100];
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(h, 1, sizeof(h), f) : 0;

	if (f)
		fclose(f);
	return n == sizeof(h) && !memcmp(h, "SQLite format 3", 16) &&
	       ((uint32_t)h[68] << 24 | (uint32_t)h[69] << 16 | (uint32_t)h[70] << 8 | h[71]) ==
		       ADB_APPLICATION_ID;
}

/*
 * A blkpeak database with a hot journal (an import killed mid-way):
 * let SQLite roll it back, which restores the last committed state, by
 * reading it once on a read-write connection.
 */
static int recover(const char *path, struct bpt_error *err)
{
	sqlite3 *db = NULL;
	int rc;

	rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_busy_timeout(db, ADB_BUSY_TIMEOUT_MS);
	if (rc == SQLITE_OK)
		query_int(db, "SELECT count(*) FROM sqlite_master", &rc);
	if (rc != SQLITE_OK)
		bpt_error_set(err, -EIO, "%s: cannot roll back the journal an interrupted import left: %s",
			path, db ? sqlite3_errmsg(db) : "out of memory");
	sqlite3_close(db);
	return rc == SQLITE_OK ? 0 : -EIO;
}

/*
 * Schema version 5 stores the I/Os compactly (io_rows, io_kinds,
 * io_replay) and shows the old `ios` table as a view of the same name;
 * version 6 stores io_rows' issue time as a delta from its block's mark
 * (io_marks). From versions 1-4, the table `ios` is renamed, the schema
 * run again (it adds what is missing: the new tables, the views, the
 * measurement tables of version 4), its rows converted and the table
 * dropped. Each trace's rows become the rowid range after the previous
 * trace's, in idx order; its distinct (device, size, op, flags, process,
 * error, completion) combinations become its kinds. Each block of 64
 * rowids gets the middle of its issue times as its mark (as import does).
 */
static const char ios_to_v6_before[] =
	"ALTER TABLE traces ADD COLUMN io_base INTEGER NOT NULL DEFAULT 0;"
	"DROP VIEW IF EXISTS io_detail;"
	"ALTER TABLE ios RENAME TO ios_v4;";
static const char ios_to_v6_after[] =
	"UPDATE traces SET io_base ="
	" coalesce((SELECT sum(p.ios) FROM traces p WHERE p.id < traces.id), 0);"
	"INSERT INTO io_kinds (trace_id, kind, dev, bytes, op, flags, pid, comm_id,"
	" cgroup_id, error, completion)"
	" SELECT trace_id, row_number() OVER (PARTITION BY trace_id ORDER BY dev, bytes, op,"
	" flags, pid, comm_id, cgroup_id, error, completion) - 1, dev, bytes, op, flags, pid,"
	" comm_id, cgroup_id, error, completion FROM (SELECT DISTINCT trace_id, dev, bytes,"
	" op, flags, pid, comm_id, cgroup_id, error, completion FROM ios_v4);"
	"INSERT INTO io_marks (blk, issue_ns)"
	" SELECT (t.io_base + o.idx) >> 6, (min(o.issue_ns) + max(o.issue_ns)) / 2"
	" FROM ios_v4 o JOIN traces t ON t.id = o.trace_id GROUP BY 1;"
	"INSERT INTO io_rows (rowid, issue_delta, wait_ns, service_ns, sector, kind)"
	" SELECT t.io_base + o.idx, o.issue_ns - m.issue_ns, o.issue_ns - o.queue_ns,"
	" o.complete_ns - o.issue_ns, o.sector, k.kind"
	" FROM ios_v4 o JOIN traces t ON t.id = o.trace_id"
	" JOIN io_marks m ON m.blk = (t.io_base + o.idx) >> 6"
	" JOIN io_kinds k ON k.trace_id = o.trace_id AND k.dev = o.dev AND k.bytes = o.bytes"
	" AND k.op = o.op AND k.flags = o.flags AND k.pid = o.pid AND k.comm_id = o.comm_id"
	" AND k.cgroup_id = o.cgroup_id AND k.error = o.error AND k.completion = o.completion"
	" ORDER BY o.trace_id, o.idx;"
	"INSERT INTO io_replay (io, sched_ns, source_index, member)"
	" SELECT t.io_base + o.idx, o.sched_ns, o.source_index, o.member"
	" FROM ios_v4 o JOIN traces t ON t.id = o.trace_id"
	" WHERE o.sched_ns IS NOT NULL OR o.source_index IS NOT NULL OR o.member IS NOT NULL"
	" ORDER BY o.trace_id, o.idx;"
	"DROP TABLE ios_v4;";

/* 5 -> 6: io_rows copied with its issue times as deltas from the marks
 * (the views and the trigger name its columns: made again by the schema). */
static const char rows_to_v6_before[] =
	"DROP VIEW IF EXISTS io_detail;"
	"DROP TRIGGER IF EXISTS ios_insert;"
	"DROP VIEW IF EXISTS ios;"
	"ALTER TABLE io_rows RENAME TO io_rows_v5;";
static const char rows_to_v6_after[] =
	"INSERT INTO io_marks (blk, issue_ns)"
	" SELECT rowid >> 6, (min(issue_ns) + max(issue_ns)) / 2 FROM io_rows_v5 GROUP BY 1;"
	"INSERT INTO io_rows (rowid, issue_delta, wait_ns, service_ns, sector, kind)"
	" SELECT r.rowid, r.issue_ns - m.issue_ns, r.wait_ns, r.service_ns, r.sector, r.kind"
	" FROM io_rows_v5 r CROSS JOIN io_marks m ON m.blk = r.rowid >> 6 ORDER BY r.rowid;"
	"DROP TABLE io_rows_v5;";

/* Add `column` (with its type) to `table` where it is missing: the
 * schema run again by the older migrations keeps an old table's shape
 * (CREATE TABLE IF NOT EXISTS) but makes a missing one new, with every
 * column; a table that does not exist is left alone. */
static int add_column(sqlite3 *db, const char *table, const char *column, const char *type,
		      struct bpt_error *err)
{
	char sql[256];
	int64_t have;
	int src;

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM pragma_table_info('%s')", table);
	if (query_int(db, sql, &src) == 0 && src == SQLITE_OK)
		return 0; /* no such table */
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM pragma_table_info('%s')"
		 " WHERE name = '%s'", table, column);
	have = query_int(db, sql, &src);
	if (src != SQLITE_OK)
		return adb_fail(db, err, "cannot read the schema");
	if (have)
		return 0;
	snprintf(sql, sizeof(sql), "ALTER TABLE %s ADD COLUMN %s %s", table, column, type);
	return adb_exec(db, sql, err);
}

/* 6 -> 7: the labels of traces and measurements (run_label.h). */
static int labels_v7(sqlite3 *db, struct bpt_error *err)
{
	int rc;

	if ((rc = add_column(db, "traces", "label", "TEXT", err)) ||
	    (rc = add_column(db, "measurements", "label", "TEXT", err)))
		return rc;
	return adb_exec(db, "PRAGMA user_version = 7", err);
}

/* 7 -> 8: the file and cause columns of trace format 1.3 (the file class,
 * its file system and the causing task in io_kinds; io_files, io_files2,
 * paths, file_classes; comparisons.files). Existing I/Os get NULL there:
 * traces imported before carried none into the database, whatever their
 * file had (import them again into a new database to have them). The
 * views and the trigger name the new columns, so they are made again;
 * the columns come first, since SQLite checks the views on ALTER TABLE. */
static int files_kinds_v8(sqlite3 *db, struct bpt_error *err)
{
	static const char *const cols[] = { "file_class", "file_dev", "file_bytes", "cause_pid",
					    "cause_comm_id", "cause_cgroup" };
	int rc = 0;

	for (unsigned i = 0; i < sizeof(cols) / sizeof(cols[0]) && !rc; i++)
		rc = add_column(db, "io_kinds", cols[i], "INTEGER", err);
	return rc ? rc : add_column(db, "comparisons", "files", "TEXT", err);
}

static int files_v8(sqlite3 *db, struct bpt_error *err)
{
	int rc;

	if ((rc = adb_exec(db, "DROP VIEW IF EXISTS io_detail; DROP TRIGGER IF EXISTS ios_insert;"
			       " DROP VIEW IF EXISTS ios;", err)) ||
	    (rc = files_kinds_v8(db, err)) ||
	    (rc = adb_exec(db, analyze_schema_sql, err)))
		return rc;
	return adb_exec(db, "PRAGMA user_version = 8", err);
}

/* 10 -> 11: the knee search's result and steps (blkpeak measure knee) in
 * the measurements tables, new columns that other kinds leave NULL. Run
 * after every older step: a database older than version 4 got the tables
 * with these columns from the schema, and add_column leaves them alone. */
static int knee_v11(sqlite3 *db, struct bpt_error *err)
{
	int rc;

	if ((rc = add_column(db, "measurements", "knee_slo", "TEXT", err)) ||
	    (rc = add_column(db, "measurements", "knee_factor", "REAL", err)) ||
	    (rc = add_column(db, "measurement_points", "speed_factor", "REAL", err)))
		return rc;
	return add_column(db, "measurement_points", "met", "INTEGER", err);
}

/*
 * Bring the schema from version `from` to ADB_SCHEMA_VERSION in one
 * transaction. Version 0 is a new file: it gets the whole schema. Each
 * later schema version adds a case that upgrades from the one before.
 *
 * `from` was read before the write lock was held: another blkpeak may
 * have created or migrated the file meanwhile (two imports into one new
 * database). So the version and owner are read again inside the write
 * transaction (BEGIN IMMEDIATE waits for the other writer, busy timeout),
 * and what is already done is not done twice.
 */
static int migrate(sqlite3 *db, int64_t from, struct bpt_error *err)
{
	int64_t app_id, tables;
	int rc, src;

	/* page_size must be set before the first page is written, outside
	 * a transaction; the schema sets it again, harmlessly. On a file
	 * another connection has written meanwhile it does nothing. */
	if (from == 0 && (rc = adb_exec(db, "PRAGMA page_size = 16384", err)))
		return rc;
	if ((rc = adb_exec(db, "BEGIN IMMEDIATE", err)))
		return rc;
	from = query_int(db, "PRAGMA user_version", &src);
	if (src == SQLITE_OK)
		app_id = query_int(db, "PRAGMA application_id", &src);
	if (src == SQLITE_OK)
		tables = query_int(db, "SELECT count(*) FROM sqlite_master", &src);
	if (src != SQLITE_OK) {
		rc = adb_fail(db, err, "cannot read the schema version");
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return rc;
	}
	if (from >= ADB_SCHEMA_VERSION && app_id == ADB_APPLICATION_ID)
		return adb_exec(db, "COMMIT", err); /* done by another blkpeak */
	if (app_id != ADB_APPLICATION_ID && (app_id != 0 || tables > 0)) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return bpt_error_set(err, -ENOTSUP, "%s: not a blkpeak database (application id 0x%llx,"
			       " %lld schema entries), refusing to touch it",
			       sqlite3_db_filename(db, "main"), (unsigned long long)app_id,
			       (long long)tables);
	}
	switch (from) {
	case 0:
		rc = adb_exec(db, analyze_schema_sql, err);
		break;
	case 1: /* runs learn whether they are partial */
		rc = adb_exec(db, "ALTER TABLE runs ADD COLUMN ios_total INTEGER;"
			      " ALTER TABLE runs ADD COLUMN partial INTEGER NOT NULL DEFAULT 0;"
			      " ALTER TABLE runs ADD COLUMN stop_reason TEXT;", err);
		if (rc)
			break;
		/* fall through */
	case 2: /* 2 -> 3: ios.completion (trace format 1.2) */
		rc = adb_exec(db, "ALTER TABLE ios ADD COLUMN completion INTEGER NOT NULL DEFAULT 0;"
			      " PRAGMA user_version = 3", err);
		if (rc)
			break;
		/* fall through */
	case 3: /* 3 -> 4: the measurements tables, added below by running
		 * the schema again (every CREATE in it says IF NOT EXISTS) */
	case 4: /* 4 -> 6: the compact I/O tables */
		if (!(rc = adb_exec(db, ios_to_v6_before, err)) &&
		    !(rc = files_kinds_v8(db, err)) &&
		    !(rc = adb_exec(db, analyze_schema_sql, err)))
			rc = adb_exec(db, ios_to_v6_after, err);
		if (!rc)
			rc = labels_v7(db, err);
		if (!rc)
			rc = files_v8(db, err);
		break;
	case 5: /* 5 -> 6: issue times as deltas from io_marks */
		if (!(rc = adb_exec(db, rows_to_v6_before, err)) &&
		    !(rc = files_kinds_v8(db, err)) &&
		    !(rc = adb_exec(db, analyze_schema_sql, err)))
			rc = adb_exec(db, rows_to_v6_after, err);
		if (!rc)
			rc = labels_v7(db, err);
		if (!rc)
			rc = files_v8(db, err);
		break;
	case 6: /* 6 -> 7: labels */
		if (!(rc = labels_v7(db, err)))
			rc = files_v8(db, err);
		break;
	case 7: /* 7 -> 8: files and causes (trace format 1.3) */
		rc = files_v8(db, err);
		break;
	case 8: /* 8 -> 9: suite_results, made by running the schema again */
	case 9: /* 9 -> 10: nothing changes in SQLite (version 10 is the
		 * PostgreSQL store's compact I/Os; one number for both) */
	case 10: /* 10 -> 11: the knee's columns, below */
		rc = 0;
		break;
	default:
		rc = bpt_error_set(err, -EPROTO, "%s: schema version %lld has no migration to %d",
			     sqlite3_db_filename(db, "main"), (long long)from,
			     ADB_SCHEMA_VERSION);
	}
	/* 10 -> 11 and 8 -> 9, after every older step: the knee's columns,
	 * then the schema again adds the suite_results table (everything else
	 * in it exists) and sets the version */
	if (!rc && from > 0)
		rc = knee_v11(db, err);
	if (!rc && from > 0)
		rc = adb_exec(db, analyze_schema_sql, err);
	if (rc) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return rc;
	}
	return adb_exec(db, "COMMIT", err);
}

/*
 * The database and the files SQLite keeps next to it (rollback journal,
 * WAL and its index) must each be a regular file or absent: SQLite opens
 * them with O_CREAT and writes, and would write into a device node, a
 * link to one, or (for a journal) through any link. Checked before any
 * sqlite3_open_v2().
 */
static int check_path(const char *path, struct bpt_error *err)
{
	static const char *const sidecar[] = { "", "-journal", "-wal", "-shm" };
	char file[4096];
	struct stat st;

	for (size_t i = 0; i < sizeof(sidecar) / sizeof(sidecar[0]); i++) {
		if ((size_t)snprintf(file, sizeof(file), "%s%s", path, sidecar[i]) >= sizeof(file))
			return bpt_error_set(err, -ENAMETOOLONG, "%s: path too long", path);
		/* The database may be a link (stat follows it: a link to a
		 * device is refused like one); SQLite never makes its journals
		 * links, so a link there is planted, and SQLite would write
		 * through it (lstat). */
		if ((i ? lstat(file, &st) : stat(file, &st)) || S_ISREG(st.st_mode))
			continue;
		if (S_ISLNK(st.st_mode))
			return bpt_error_set(err, -EINVAL, "%s: a symbolic link, refusing to let SQLite "
				       "write its journal through it", file);
		if (!i && S_ISDIR(st.st_mode))
			return bpt_error_set(err, -EISDIR, "%s: is a directory, not a database", path);
		return bpt_error_set(err, -EINVAL, "%s: %s, not a database%s: refusing to let SQLite open it",
			       file, file_kind(st.st_mode), i ? " journal" : "");
	}
	return 0;
}

int adb_open(sqlite3 **out, const char *path, enum adb_mode mode,
	     struct bpt_error *err)
{
	struct db_facts facts = { 0, 0, 0 };
	struct stat stb;
	sqlite3 *db = NULL;
	int flags, rc = 0, exists;

	*out = NULL;
	if (pg_is_pg(path))
		return pg_local_open(out, path, mode, err);
	if ((rc = check_path(path, err)))
		return rc;
	exists = stat(path, &stb) == 0;
	if (!exists && mode != ADB_CREATE)
		return bpt_error_set(err, -ENOENT,
			       "%s: no such database (import a trace first: blkpeak analyze import FILE)",
			       path);
	if (exists && S_ISDIR(stb.st_mode))
		return bpt_error_set(err, -EISDIR, "%s: is a directory, not a database", path);
	if (exists && (rc = inspect(path, &facts, err)) == -EAGAIN && header_is_ours(path) &&
	    !(rc = recover(path, err)))
		rc = inspect(path, &facts, err);
	if (rc)
		return rc;
	if (facts.app_id != ADB_APPLICATION_ID && (facts.app_id != 0 || facts.tables > 0))
		return bpt_error_set(err, -ENOTSUP,
			       "%s: not a blkpeak database (application id 0x%llx, %lld schema entries), refusing to touch it",
			       path, (unsigned long long)facts.app_id, (long long)facts.tables);
	if (facts.version > ADB_SCHEMA_VERSION)
		return bpt_error_set(err, -EPROTO,
			       "%s: schema version %lld is newer than this blkpeak's (%d); use a newer blkpeak",
			       path, (long long)facts.version, ADB_SCHEMA_VERSION);
	if (mode == ADB_READONLY && facts.version < ADB_SCHEMA_VERSION)
		return bpt_error_set(err, -EPROTO,
			       facts.version == 0 ? "%s: empty database (import a trace first)"
						  : "%s: old schema version, run 'blkpeak analyze import' once to migrate it",
			       path);

	/* One connection per thread here: SQLite's own locking is not needed,
	 * and without it and the memory statistics a row costs less (bench/
	 * RESULTS.md, "Figures moved from code comments").
	 * (sqlite3_config fails harmlessly once SQLite is initialised.) */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	flags = mode == ADB_READONLY ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
	flags |= SQLITE_OPEN_NOMUTEX;
	if (mode == ADB_CREATE)
		flags |= SQLITE_OPEN_CREATE;
	rc = sqlite3_open_v2(path, &db, flags, NULL);
	if (rc != SQLITE_OK) {
		bpt_error_set(err, -EIO, "%s: cannot open: %s", path,
			db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return -EIO;
	}
	sqlite3_busy_timeout(db, ADB_BUSY_TIMEOUT_MS);
	if (mode != ADB_READONLY && facts.version < ADB_SCHEMA_VERSION &&
	    (rc = migrate(db, facts.version, err))) {
		sqlite3_close(db);
		return rc;
	}
	if ((rc = adb_exec(db, "PRAGMA foreign_keys = ON", err))) {
		sqlite3_close(db);
		return rc;
	}
	*out = db;
	return 0;
}

int adb_open_memory(sqlite3 **out, struct bpt_error *err)
{
	sqlite3 *db = NULL;
	int rc;

	*out = NULL;
	if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		rc = adb_fail(db, err, "cannot open an in-memory database");
		sqlite3_close(db);
		return rc;
	}
	if ((rc = adb_exec(db, analyze_schema_sql, err)) ||
	    (rc = adb_exec(db, "PRAGMA foreign_keys = ON", err))) {
		sqlite3_close(db);
		return rc;
	}
	*out = db;
	return 0;
}

const char *adb_display_name(const char *value, char *buf, size_t len)
{
	return pg_is_pg(value) ? pg_redact(value, buf, len) : value;
}
