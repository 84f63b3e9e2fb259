/*
 * db.h — opening the blkpeak analysis database (schemas/analyze.sql).
 *
 * One function decides whether a file may be used: a path that is not a
 * regular file (a device, a FIFO, a link to one: SQLite would write into
 * it) is refused before SQLite sees it; a file that is not a SQLite
 * database, or a SQLite database of another application, or a
 * blkpeak database of a newer schema, is refused with a message and never
 * written to (it is inspected read-only first). A new or empty file gets
 * the schema; an older schema is migrated in one transaction. A blkpeak
 * database that an interrupted import left with a hot journal is first
 * rolled back to its last committed state (SQLite's own recovery).
 *
 * Like the trace library, these functions return 0 or a negative errno,
 * fill `err` (may be NULL) and never print.
 */
#ifndef BLKPEAK_ANALYZE_DB_H
#define BLKPEAK_ANALYZE_DB_H

#include <sqlite3.h>

#include "bpt.h"

#define ADB_SCHEMA_VERSION 11
#define ADB_APPLICATION_ID 0x424C4B50 /* 'BLKP' */
/* Every connection waits this long for another blkpeak's lock (an
 * import holds the write lock for its whole transaction) instead of
 * failing with "database is locked". */
#define ADB_BUSY_TIMEOUT_MS (60 * 60 * 1000)

/*
 * "SELECT " ADB_IOS_ROW_COLUMNS("idx, issue_ns, ...") reads columns of
 * the view `ios` for the trace bound to parameter 1, in idx order,
 * straight from the compact tables: the view would sort by idx, this
 * reads one rowid range in order. Every column of `ios` may be named.
 */
#define ADB_IOS_ROW_COLUMNS(cols) \
	cols " FROM (SELECT t.id AS trace_id, r.rowid - t.io_base AS idx," \
	" m.issue_ns + r.issue_delta - r.wait_ns AS queue_ns," \
	" CAST(m.issue_ns + r.issue_delta AS INTEGER) AS issue_ns," \
	" m.issue_ns + r.issue_delta + r.service_ns AS complete_ns, k.dev AS dev, r.sector AS sector," \
	" k.bytes AS bytes, k.op AS op, k.flags AS flags, k.pid AS pid," \
	" k.comm_id AS comm_id, k.cgroup_id AS cgroup_id, k.error AS error," \
	" k.completion AS completion, x.sched_ns AS sched_ns," \
	" x.source_index AS source_index, x.member AS member FROM traces t" \
	" CROSS JOIN io_rows r ON r.rowid >= t.io_base AND r.rowid < t.io_base + t.ios" \
	" CROSS JOIN io_marks m ON m.blk = r.rowid >> 6" \
	" CROSS JOIN io_kinds k ON k.trace_id = t.id AND k.kind = r.kind" \
	" LEFT JOIN io_replay x ON x.io = r.rowid" \
	" WHERE t.id = ?1 ORDER BY r.rowid) AS io"

enum adb_mode {
	ADB_READONLY,  /* must exist; opened with SQLITE_OPEN_READONLY */
	ADB_READWRITE, /* must exist; migrated when older */
	ADB_CREATE,    /* created when missing; migrated when older */
};

/* The database path the user meant: `opt` (--db) if not NULL, else
 * $BLKPEAK_DB if set and not empty, else "blkpeak.db". */
const char *adb_default_path(const char *opt);

/*
 * Open `path` in `mode` and check it is a usable blkpeak database.
 * Errors: -ENOENT (missing, modes other than ADB_CREATE), -ENOTSUP (not a
 * SQLite file, or another application's), -EAGAIN (another application's
 * database with a hot journal), -EPROTO (schema newer than
 * ADB_SCHEMA_VERSION, or older in ADB_READONLY mode), -EIO (SQLite error).
 * On success *out is an open connection the caller closes with
 * sqlite3_close(); foreign keys are on.
 */
int adb_open(sqlite3 **out, const char *path, enum adb_mode mode,
	     struct bpt_error *err);

/*
 * A PostgreSQL store (pg.h) opened by adb_open() in ADB_READONLY mode is
 * a local working copy (pg_local.c): every table but the I/Os, whose
 * rows of a trace come in when a reader asks for them first. Every
 * reader of a trace's I/Os calls adb_need_ios() before it reads them
 * (nothing to do on a SQLite file); adb_need_related() fetches a trace,
 * the trace it replayed and every run of either (plot, html).
 * ADB_READWRITE gives the same copy: what a command writes into it stays
 * local unless it publishes it (adb_publish*); ADB_CREATE is refused.
 */
int adb_need_ios(sqlite3 *db, int64_t id, struct bpt_error *err);
int adb_need_related(sqlite3 *db, int64_t id, struct bpt_error *err);
/*
 * A trace's I/Os as a report reads them from a PostgreSQL working copy
 * without copying them into it (pg_rows.c): the store's own columns
 * (io_rows, io_kinds, the side tables), fetched once by COPY (binary)
 * and kept in memory, 32 bytes an I/O (16 more for a run, 8 for a trace
 * with files). rows[i] is I/O idx i.
 */
struct adb_io {
	int64_t issue, sector;
	int32_t wait, service; /* when !(flags & ADB_IO_WIDE) */
	uint32_t kind;
	uint8_t flags;
};
#define ADB_IO_WIDE  1 /* wait and service: wide[] (io_wide) */
#define ADB_IO_SCHED 2 /* sched[] is set (io_replay.sched_ns not NULL) */
struct adb_io_wide { int64_t idx, wait, service; };
struct adb_io_file2 { int64_t idx, dev, inode, bytes; };
/* The columns of a kind as a report reads it, in this order. */
#define ADB_KIND_SQL "SELECT kind, dev, bytes, op, coalesce(cause_pid, pid)," \
	" coalesce(cause_comm_id, comm_id), error, completion, coalesce(file_class, 0)," \
	" coalesce(file_dev, 0), coalesce(file_bytes, 0) FROM io_kinds WHERE trace_id = $1" \
	" ORDER BY kind DESC"
#define ADB_KIND_VALS 11
struct adb_ios {
	int64_t id;
	uint64_t n;
	struct adb_io *rows;
	int64_t *sched, *source;       /* NULL: no io_replay rows */
	int64_t *inode;                /* NULL: no io_files rows */
	struct adb_io_wide *wide;      /* by idx */
	struct adb_io_file2 *file2;    /* by idx */
	size_t nwide, nfile2;
	int64_t (*kinds)[ADB_KIND_VALS]; /* rows of ADB_KIND_SQL */
	size_t nkinds;
	int files_lost; /* a kind without file and cause columns (imported before 8) */
};
/* On a working copy, trace id's I/Os unless they were fetched into it
 * (adb_need_ios): 0 and *out (the copy's until adb_close or the next
 * call). *out NULL: read the database's tables (a SQLite file, or I/Os
 * already fetched). */
int adb_remote_ios(sqlite3 *db, int64_t id, uint64_t n, const struct adb_ios **out,
		   struct bpt_error *err);

/* On a working copy: run sql (PostgreSQL's $1 parameters, text values)
 * on the store too, *changes the rows it changed; on a SQLite file
 * nothing is done and *changes is -1. */
int adb_publish(sqlite3 *db, const char *sql, int n, const char *const *params,
		int64_t *changes, struct bpt_error *err);
/* On a working copy: comparison *id (stored locally) into the store too,
 * *id then its id there; nothing on a SQLite file. */
int adb_publish_comparison(sqlite3 *db, int64_t *id, struct bpt_error *err);
/* On a working copy: the rows of `SELECT cols FROM table WHERE where`
 * (?1 = arg) into the store, `suffix` appended to each INSERT (an ON
 * CONFLICT clause); *rows their count; nothing on a SQLite file (-1). */
int adb_publish_rows(sqlite3 *db, const char *table, const char *cols, const char *where,
		     int64_t arg, const char *suffix, int64_t *rows, struct bpt_error *err);
/* Close db, and its store's connections when it is a working copy. */
void adb_close(sqlite3 *db);
int pg_local_open(sqlite3 **out, const char *value, enum adb_mode mode, struct bpt_error *err);

/* The database as messages name it: a file's path as it is, a
 * PostgreSQL value without its password (pg_redact), into buf. */
const char *adb_display_name(const char *value, char *buf, size_t len);

/* A new database in memory with the schema (the PostgreSQL store's
 * staging area and local working copy: pg_import.c, pg_local.c). */
int adb_open_memory(sqlite3 **out, struct bpt_error *err);

/* Fill err with "PATH: WHAT: sqlite's message" for a failed call on db
 * and return -EIO. */
int adb_fail(sqlite3 *db, struct bpt_error *err, const char *what);

/* Run SQL without results; 0 or adb_fail(). */
int adb_exec(sqlite3 *db, const char *sql, struct bpt_error *err);

/* The current UTC time as "YYYY-MM-DDTHH:MM:SSZ" into buf (>= 21 bytes). */
char *adb_utc_now(char *buf, size_t len);

#endif
