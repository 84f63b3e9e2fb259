/*
 * query.h — running user SQL read-only, and writing any statement's rows
 * as an aligned table, CSV or JSON (used by query and export).
 */
#ifndef BLKPEAK_ANALYZE_QUERY_H
#define BLKPEAK_ANALYZE_QUERY_H

#include <sqlite3.h>
#include <stdio.h>

#include "bpt.h"

enum q_format { Q_TABLE, Q_CSV, Q_JSON };

/*
 * Make the connection refuse writes at every level: PRAGMA query_only,
 * SQLITE_DBCONFIG_DEFENSIVE, and an authorizer that denies ATTACH,
 * DETACH and PRAGMAs that set a value. Call once after opening (the
 * database itself is opened with SQLITE_OPEN_READONLY too).
 */
int query_guard(sqlite3 *db, struct bpt_error *err);

/*
 * Compile every statement of `sql` first and refuse the whole text,
 * running nothing, if any statement could write (sqlite3_stmt_readonly)
 * or is denied by the guard; then run them in order and write their rows
 * to out. Returns 0, -EPERM (refused: err says which statement and why),
 * -EINVAL (SQL error) or -EIO.
 */
int query_run(sqlite3 *db, const char *sql, enum q_format fmt, FILE *out,
	      struct bpt_error *err);

/* Step `st` to its end writing each row to out in `fmt`: a header line
 * (table, CSV) or a JSON array of objects keyed by column name. Returns
 * the number of rows, or -EIO (err filled) on a SQLite or write error. */
long long query_print(sqlite3 *db, sqlite3_stmt *st, enum q_format fmt, FILE *out,
		      struct bpt_error *err);

#endif
