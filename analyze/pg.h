/*
 * pg.h — the analysis database on a PostgreSQL server (libpq).
 *
 * A --db value (or $BLKPEAK_DB) names PostgreSQL when it is a URI
 * (postgresql://..., postgres://...) or a libpq key=value string
 * (host=... dbname=...); anything else is a SQLite file. Credentials come
 * only from libpq's own sources (the URI, ~/.pgpass, PG* variables, a
 * service file); this code never prints them: every message names the
 * server as postgresql://USER@HOST:PORT/DB, built from the connection,
 * which holds no password. TLS is libpq's (sslmode in the value).
 *
 * The schema (schemas/analyze-pg.sql, one version number with the SQLite
 * schema) is created under an advisory lock the first time a writer
 * connects, so that importers starting at once into a new database do not
 * race. Functions return 0 or a negative errno and fill err, never print.
 */
#ifndef BLKPEAK_ANALYZE_PG_H
#define BLKPEAK_ANALYZE_PG_H

#include <libpq-fe.h>

#include "dbpath.h"

#include "bpt.h"
#include "db.h"

/* 1 when `value` names a PostgreSQL database rather than a file. */
int pg_is_pg(const char *value);

/*
 * Connect and check the schema: ADB_CREATE creates it in a database
 * without one; every mode refuses a database of another application or
 * a newer schema. Errors, one line each naming the server: -EHOSTUNREACH
 * (not reachable), -EACCES (authentication failed), -ENOENT (database
 * missing, or no blkpeak schema yet in ADB_READONLY/ADB_READWRITE),
 * -EPROTO (schema newer), -ENOTSUP (another application's tables).
 */
int pg_open(PGconn **out, const char *value, enum adb_mode mode, struct bpt_error *err);

/* postgresql://USER@HOST:PORT/DB of an open connection (no password),
 * into buf. */
const char *pg_name(PGconn *c, char *buf, size_t len);

/* The value without its password: common/dbpath.h's db_redact, which
 * suite/ uses too (it shows the commands it runs). */
#define pg_redact db_redact

/* Fill err with "SERVER: WHAT: the server's first line" (res may be NULL
 * for the connection's message) and return -EIO. */
int pg_fail(PGconn *c, const PGresult *res, struct bpt_error *err, const char *what);

/* Run SQL without results (several statements allowed); 0 or pg_fail(). */
int pg_exec(PGconn *c, const char *sql, struct bpt_error *err);

/* One bigint from a one-row query with text parameters; 0 with *v (0 when
 * the result is empty or NULL, *found then 0) or pg_fail(). */
int pg_query_int(PGconn *c, const char *sql, int nparams, const char *const *params,
		 int64_t *v, int *found, struct bpt_error *err);

/* This machine's name, for hosts (gethostname). */
const char *pg_this_host(char *buf, size_t len);

#endif
