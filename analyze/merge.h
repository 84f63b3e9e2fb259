/*
 * merge.h — `analyze merge`: the traces, runs, comparisons and
 * measurements of a SQLite database (another machine's) into the
 * database in use, SQLite or PostgreSQL.
 *
 * A trace is known by its digest: one the destination has is not copied
 * again (its id there is used for what refers to it). A comparison is
 * known by its time, baseline and source; a measurement by (kind, target,
 * started_wall_ns). Each trace is one transaction, as an import is; the
 * recording host stays the trace's own (traces.host, and hosts on
 * PostgreSQL).
 */
#ifndef BLKPEAK_ANALYZE_MERGE_H
#define BLKPEAK_ANALYZE_MERGE_H

#include <libpq-fe.h>
#include <sqlite3.h>

#include "bpt.h"

struct merge_counts {
	unsigned traces, traces_had;
	unsigned comparisons, comparisons_had;
	unsigned measurements, measurements_had;
	uint64_t ios; /* I/Os of the traces copied */
};

/* src into dst (a SQLite database opened read-write) or, when pg is not
 * NULL, into the server. Returns 0 or -errno with err. */
int merge_from(sqlite3 *src, sqlite3 *dst, PGconn *pg, struct merge_counts *n,
	       struct bpt_error *err);

#endif
