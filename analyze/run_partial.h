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

/* Fill *p as a partial run of `done` of `total` (0: not recorded) I/Os
 * that stopped for `reason` (recorded text, made printable here). */
void run_partial_set(struct run_partial *p, uint64_t done, uint64_t total, const char *reason);

/*
 * What a trace file's header says, by the rules `analyze import` stores
 * (runs, runs.partial): run_header_is_run() is 1 for a replay run (kind
 * replay, or a source digest); run_header_partial() is 1 for a partial
 * run, one that says so (run.status partial) or that was to say how it
 * ended (run.ios) and does not (its file was cut), with *reason why.
 */
int run_header_is_run(const struct bpt_header *h);
int run_header_partial(const struct bpt_header *h, const char **reason);

#endif
