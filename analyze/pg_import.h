/*
 * pg_import.h — one .bpt file into the PostgreSQL store.
 *
 * The trace's rows other than its I/Os are made by import.c in an
 * in-memory SQLite database (one code for both engines), then copied to
 * the server; the I/Os go by COPY (binary, FREEZE) into tables of their
 * own, io_rows_t<ID> (and io_replay_t<ID>, io_files_t<ID> where the trace
 * has those columns), attached as the trace's partitions (schema 10,
 * schemas/analyze-pg.sql). All of it is one
 * transaction: a broken connection or a killed blkpeak leaves nothing.
 * Importers of the same trace (same digest) at once wait for each other
 * on an advisory lock of the digest: the second finds it there.
 */
#ifndef BLKPEAK_ANALYZE_PG_IMPORT_H
#define BLKPEAK_ANALYZE_PG_IMPORT_H

#include <libpq-fe.h>
#include <sqlite3.h>

#include "import.h"

/* Like import_file() (import.h), into the server; res->trace_id is the
 * server's id. opts->hooks must be NULL. */
int pg_import_file(PGconn *c, const char *path, const struct import_opts *opts,
		   struct import_result *res, struct bpt_error *err);

/*
 * Trace src_id of the SQLite database src (another machine's, analyze
 * merge) into the server, as import does: its I/Os from next() (1 and a
 * record, 0 at the end), its other rows from src. *already 1 when the
 * digest was there; *dst_id the server's id.
 */
int pg_copy_trace(PGconn *c, sqlite3 *src, int64_t src_id, const char *digest, const char *host,
		  uint32_t columns,
		  int (*next)(void *arg, struct bpt_record *rec, struct bpt_error *err), void *arg,
		  int64_t *dst_id, int *already, struct bpt_error *err);

/* The id of host `name` in table hosts, added when new (its own
 * transaction: call it outside one). */
int pg_host_id(PGconn *c, const char *name, int64_t *id, struct bpt_error *err);

#endif
