/*
 * pg_query.h — `analyze query` on the PostgreSQL store: one statement,
 * in a READ ONLY transaction with a statement timeout, its rows written
 * by query.c's printer (the same table, CSV and JSON as on SQLite).
 */
#ifndef BLKPEAK_ANALYZE_PG_QUERY_H
#define BLKPEAK_ANALYZE_PG_QUERY_H

#include <libpq-fe.h>
#include <stdio.h>

#include "query.h"

/* The statement timeout of a query on PostgreSQL. */
#define PG_QUERY_TIMEOUT_S 300

/* Run `sql` (one statement) and print its rows. Returns 0, -EPERM
 * (a write, refused by the server's read-only transaction, or
 * trace_ios, which is local only), -EINVAL (SQL error, timeout) or
 * -EIO. */
int pg_query_run(PGconn *c, const char *sql, enum q_format fmt, FILE *out,
		 struct bpt_error *err);

#endif
