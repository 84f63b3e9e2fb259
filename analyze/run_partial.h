/*
 * run_partial.h — whether a trace of the database is a partial replay
 * run (runs.partial, schemas/analyze.sql): one that stopped before its
 * last I/O, whose figures describe only part of the trace. report and
 * compare mark such a run on every line that names it; compare refuses it
 * unless told otherwise.
 */
#ifndef BLKPEAK_ANALYZE_RUN_PARTIAL_H
#define BLKPEAK_ANALYZE_RUN_PARTIAL_H

#include <sqlite3.h>
#include <stdint.h>

#include "bpt.h"

struct run_partial {
	int partial;         /* 0: complete, or not a run */
	uint64_t done;       /* I/Os in the database (traces.ios) */
	uint64_t total;      /* I/Os it was to do; 0 when not recorded */
	char reason[224];    /* why it stopped */
	char text[320];      /* "PARTIAL: 1234 of 5000 I/Os (interrupted by SIGINT)" */
};

/* Fill *p for trace `trace_id` (zeroed when it is not a partial run).
 * 0, or -EIO with err filled. */
int run_partial_load(sqlite3 *db, int64_t trace_id, struct run_partial *p,
		     struct bpt_error *err);

#endif
