/*
 * stats_int.h — what the files of the report computation share (private
 * to stats.c, stats_load.c and stats_procs.c): the rows of one trace held
 * column by column, and the latency key layout.
 */
#ifndef BLKPEAK_ANALYZE_STATS_INT_H
#define BLKPEAK_ANALYZE_STATS_INT_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "stats.h"

/* Latency keys: ns << OP_BITS | op, so that one sort orders them by
 * latency and a stable split by op then gives each op's sorted run. */
#define OP_BITS 3
#define OP_MASK ((1u << OP_BITS) - 1)
#define LAT_MAX ((1ull << 56) - 1) /* longer latencies count as this */
_Static_assert(BPT_OP__COUNT <= (1u << OP_BITS), "an op fits in OP_BITS");

/*
 * The rows of one trace, column by column (n rows), and the scratch
 * arrays of the sorts, all carved from one anonymous mapping: one
 * allocation to check and to free. (Transparent huge pages for it were
 * tried: on this kernel they tripled the system time of a 10 M I/O
 * report, so none are asked for.)
 */
struct cols {
	uint64_t n;
	uint64_t *issue, *complete, *sector, *svc, *tot, *tmp, *tmp2;
	uint32_t *bytes, *pid, *comm, *ord, *ordt;
	uint16_t *dev;
	uint8_t *op;
	void *arena;
	size_t arena_len;
};

/*
 * Read trace `id`'s row (path, kind, digest, run facts, losses) into rep
 * and all its I/O rows into c (allocated here; free with cols_free() also
 * on failure). Latencies are stored as keys ns << OP_BITS | op.
 * Returns 0, -ENOENT, -ENOMEM or -EIO with err filled.
 */
int stats_load(sqlite3 *db, int64_t id, struct st_report *rep, struct cols *c,
	       struct bpt_error *err);
void cols_free(struct cols *c);

/* The process figures of rep (nproc_total, top_ios, top_bytes) from the
 * pid and comm columns, names from the processes table. 0, -ENOMEM or
 * -EIO. */
int stats_processes(sqlite3 *db, int64_t id, struct st_report *rep, const struct cols *c,
		    struct bpt_error *err);

#endif
