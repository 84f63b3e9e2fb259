/*
 * db.c — open, create, check and migrate the analysis database.
 *
 * The decision whether a file may be used is taken on a read-only
 * connection, so a foreign, corrupt or too new file is never written to
 * (not even a journal is created). Only then is the file reopened in the
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

extern const char analyze_schema_sql[]; /* build/gen/schema_sql.c */

int adb_err(struct bpt_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	err->code = code;
	err->offset = 0;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

int adb_fail(sqlite3 *db, struct bpt_error *err, const char *what)
{
	const char *file = db ? sqlite3_db_filename(db, "main") : NULL;

	return adb_err(err, -EIO, "%s: %s: %s", file && *file ? file : "database",
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
	const char *env = getenv("BLKPEAK_DB");

	if (opt)
		return opt;
	if (env && *env)
		return env;
	return "blkpeak.db";
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
		facts->app_id = query_int(db, "PRAGMA application_id", &rc);
	if (rc == SQLITE_OK)
		facts->version = query_int(db, "PRAGMA user_version", &rc);
	if (rc == SQLITE_OK)
		facts->tables = query_int(db, "SELECT count(*) FROM sqlite_master", &rc);
	if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT) {
		sqlite3_close(db);
		return adb_err(err, -ENOTSUP,
			       "%s: not a SQLite database (or a corrupt one), refusing to touch it",
			       path);
	}
	if (rc != SQLITE_OK) {
		adb_err(err, -EIO, "%s: cannot read: %s", path,
			db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return -EIO;
	}
	sqlite3_close(db);
	return 0;
}

/*
 * Bring the schema from version `from` to ADB_SCHEMA_VERSION in one
 * transaction. Version 0 is a new file: it gets the whole schema. Each
 * later schema version adds a case that upgrades from the one before.
 */
static int migrate(sqlite3 *db, int64_t from, struct bpt_error *err)
{
	int rc;

	/* page_size must be set before the first page is written, outside
	 * a transaction; the schema sets it again, harmlessly. */
	if (from == 0 && (rc = adb_exec(db, "PRAGMA page_size = 16384", err)))
		return rc;
	if ((rc = adb_exec(db, "BEGIN IMMEDIATE", err)))
		return rc;
	switch (from) {
	case 0:
		rc = adb_exec(db, analyze_schema_sql, err);
		break;
	/* case 1: the ALTERs from version 1 to 2, then fall through. */
	default:
		rc = adb_err(err, -EPROTO, "%s: schema version %lld has no migration to %d",
			     sqlite3_db_filename(db, "main"), (long long)from,
			     ADB_SCHEMA_VERSION);
	}
	if (rc) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return rc;
	}
	return adb_exec(db, "COMMIT", err);
}

int adb_open(sqlite3 **out, const char *path, enum adb_mode mode,
	     struct bpt_error *err)
{
	struct db_facts facts = { 0, 0, 0 };
	struct stat stb;
	sqlite3 *db = NULL;
	int flags, rc, exists;

	*out = NULL;
	exists = stat(path, &stb) == 0;
	if (!exists && mode != ADB_CREATE)
		return adb_err(err, -ENOENT,
			       "%s: no such database (import a trace first: blkpeak analyze import FILE)",
			       path);
	if (exists && S_ISDIR(stb.st_mode))
		return adb_err(err, -EISDIR, "%s: is a directory, not a database", path);
	if (exists && (rc = inspect(path, &facts, err)))
		return rc;
	if (facts.app_id != ADB_APPLICATION_ID && (facts.app_id != 0 || facts.tables > 0))
		return adb_err(err, -ENOTSUP,
			       "%s: not a blkpeak database (application id 0x%llx, %lld schema entries), refusing to touch it",
			       path, (unsigned long long)facts.app_id, (long long)facts.tables);
	if (facts.version > ADB_SCHEMA_VERSION)
		return adb_err(err, -EPROTO,
			       "%s: schema version %lld is newer than this blkpeak's (%d); use a newer blkpeak",
			       path, (long long)facts.version, ADB_SCHEMA_VERSION);
	if (mode == ADB_READONLY && facts.version < ADB_SCHEMA_VERSION)
		return adb_err(err, -EPROTO,
			       facts.version == 0 ? "%s: empty database (import a trace first)"
						  : "%s: old schema version, run 'blkpeak analyze import' once to migrate it",
			       path);

	/* One connection per thread here: SQLite's own locking is not needed,
	 * and without it and the memory statistics a row costs ~10% less.
	 * (sqlite3_config fails harmlessly once SQLite is initialised.) */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	flags = mode == ADB_READONLY ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
	flags |= SQLITE_OPEN_NOMUTEX;
	if (mode == ADB_CREATE)
		flags |= SQLITE_OPEN_CREATE;
	rc = sqlite3_open_v2(path, &db, flags, NULL);
	if (rc != SQLITE_OK) {
		adb_err(err, -EIO, "%s: cannot open: %s", path,
			db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return -EIO;
	}
	sqlite3_busy_timeout(db, 10000);
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
