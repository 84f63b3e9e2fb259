/*
 * pg_measure.h — measurements (blkpeak measure's results) in the
 * PostgreSQL store: parsed and checked by measure_import.c into an
 * in-memory SQLite database (one parser for both engines), then copied.
 */
#ifndef BLKPEAK_ANALYZE_PG_MEASURE_H
#define BLKPEAK_ANALYZE_PG_MEASURE_H

#include <libpq-fe.h>
#include <sqlite3.h>

#include "measure_import.h"

/* Like measure_import(), into the server; res->id is the server's id. */
int pg_measure_import(PGconn *c, const char *path, struct measure_import_result *res,
		      struct bpt_error *err);

/* Measurement `src_id` of src (with its points) into the server, in the
 * caller's transaction; one with the same (kind, target, started_wall_ns)
 * there already is kept (*already 1). *dst_id: the server's id. */
int pg_measure_copy(sqlite3 *src, int64_t src_id, PGconn *c, int64_t *dst_id, int *already,
		    struct bpt_error *err);

#endif
