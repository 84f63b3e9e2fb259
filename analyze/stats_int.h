/*
 * stats_int.h — what the files of the report computation share (private
 * to stats.c, stats_load.c and stats_procs.c): one I/O row as read from
 * the database, the scan over a trace's rows, and the process table.
 */
#ifndef BLKPEAK_ANALYZE_STATS_INT_H
#define BLKPEAK_ANALYZE_STATS_INT_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "stats_report.h"

/* One I/O row. op is clamped below BPT_OP__COUNT. */
struct st_row {
	uint64_t idx, queue, issue, complete, sector;
	uint32_t bytes, pid, comm;
	uint16_t dev;
	uint8_t op;
	uint8_t completion; /* ios.completion: 0 seen, else complete is a bound */
	int error;
};

/*
 * Read trace `id`'s row (path, kind, digest, run facts, losses, number of
 * I/Os into *n) into rep. 0, -ENOENT or -EIO with err filled.
 */
int stats_trace_row(sqlite3 *db, int64_t id, struct st_report *rep, uint64_t *n,
		    struct bpt_error *err);

/* Call fn for each I/O row of trace `id` in file order (idx); stops at
 * fn's first non-zero return, which is returned. Checks that there were
 * `n` rows: -EIO otherwise. 0, -EIO or fn's value, with err filled. */
int stats_scan(sqlite3 *db, int64_t id, uint64_t n, int (*fn)(void *ctx, const struct st_row *r),
	       void *ctx, struct bpt_error *err);

/* I/Os and bytes per (pid, comm id), counted one row at a time. */
struct proc_slot;
struct proc_table {
	struct proc_slot *slot;
	uint64_t cap, used; /* cap is a power of two */
};

/* 0 or -ENOMEM. */
int procs_add(struct proc_table *t, uint32_t pid, uint32_t comm, uint32_t bytes);
/* The process figures of rep (nproc_total, top_ios, top_bytes), names
 * from the processes table; frees t. 0 or -EIO. */
int procs_finish(sqlite3 *db, int64_t id, struct st_report *rep, struct proc_table *t,
		 struct bpt_error *err);
void procs_free(struct proc_table *t);

#endif
