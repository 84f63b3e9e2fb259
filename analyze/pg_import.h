/*
 * pg_import.h — one .bpt file into the PostgreSQL store.
 *
 * The trace's rows other than its I/Os are made by import.c in an
 * in-memory SQLite database (one code for both engines), then copied to
 * the server; the I/Os go by COPY (binary) into a table of their own,
 * ios_t<ID>, attached as the trace's partition of `ios`. All of it is one
 * transaction: a broken connection or a killed blkpeak leaves nothing.
 * Importers of the same trace (same digest) at once wait for each other
 * on an advisory lock of the digest: the second finds it there.
 */
#ifndef BLKPEAK_ANALYZE_PG_IMPORT_H
#define BLKPEAK_ANALYZE_PG_IMPORT_H

#include <libpq-fe.h>

#include "import.h"

/* Like import_file() (import.h), into the server; res->trace_id is the
 * server's id. opts->hooks must be NULL. */
int pg_import_file(PGconn *c, const char *path, const struct import_opts *opts,
		   struct import_result *res, struct bpt_error *err);

/* The id of host `name` in table hosts, added when new (its own
 * transaction: call it outside one). */
int pg_host_id(PGconn *c, const char *name, int64_t *id, struct bpt_error *err);

#endif
