/*
 * pg_rows.h — a trace's I/Os from the PostgreSQL store into memory, as
 * stored (struct adb_ios, db.h), for a report (pg_local.c's
 * adb_remote_ios).
 */
#ifndef BLKPEAK_ANALYZE_PG_ROWS_H
#define BLKPEAK_ANALYZE_PG_ROWS_H

#include <libpq-fe.h>

#include "db.h"

/* Trace id's n I/Os from c (inside the reader's snapshot): 0, -ENOMEM,
 * -EIO with err filled (a row missing or twice, the server's error). */
int pg_rows_fetch(PGconn *c, int64_t id, uint64_t n, struct adb_ios *ios, struct bpt_error *err);

void pg_rows_free(struct adb_ios *ios);

#endif
