/*
 * xfer.h — rows of one table between a SQLite database and the
 * PostgreSQL store, by column name (both schemas have the same tables and
 * columns: schemas/analyze.sql, schemas/analyze-pg.sql). Used by import
 * (staging -> server), merge (other machines' files -> server) and the
 * local working copy (server -> memory).
 *
 * Values keep their type: integers as integers, reals with 17 significant
 * digits (exact), text as text, NULL as NULL. A column may be remapped
 * (ids that differ between the two databases): map() gets the column's
 * name and value and returns the value to write.
 */
#ifndef BLKPEAK_ANALYZE_XFER_H
#define BLKPEAK_ANALYZE_XFER_H

#include <libpq-fe.h>
#include <sqlite3.h>
#include <stdint.h>

#include "bpt.h"

enum { XFER_KEEP, XFER_VALUE, XFER_NULL };

struct xfer_map {
	/* XFER_VALUE and *out when `col`'s value `v` must change, XFER_NULL
	 * when it must become NULL, XFER_KEEP (0) to keep it. */
	int (*map)(void *arg, const char *col, int64_t v, int64_t *out);
	void *arg;
};

/* INSERT INTO pg.table (cols) the rows of
 * `SELECT cols FROM table WHERE where` in src (where bound to ?1 = arg;
 * "1" with arg ignored for all rows). `suffix` is appended to the INSERT
 * (e.g. " ON CONFLICT DO NOTHING"), may be "". *rows counts them. */
int xfer_to_pg(sqlite3 *src, PGconn *dst, const char *table, const char *cols,
	       const char *where, int64_t arg, const struct xfer_map *m, const char *suffix,
	       uint64_t *rows, struct bpt_error *err);

/* INSERT INTO dst.table (cols) every row of `SELECT cols FROM table` on
 * the server. */
int xfer_from_pg(PGconn *src, sqlite3 *dst, const char *table, const char *cols,
		 struct bpt_error *err);

/* The same between two SQLite databases; `verb` is "INSERT" or e.g.
 * "INSERT OR IGNORE" (NULL: INSERT). */
int xfer_sqlite(sqlite3 *src, sqlite3 *dst, const char *table, const char *cols,
		const char *where, int64_t arg, const struct xfer_map *m, const char *verb,
		uint64_t *rows, struct bpt_error *err);

#endif
