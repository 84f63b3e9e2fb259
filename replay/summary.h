/*
 * summary.h — the numbers printed at the end of a replay: I/Os, duration
 * against the recording, IOPS, MB/s, latency per operation and overall
 * (count, mean, p50 p90 p99 p99.9 p99.99, max: common/stats.h's rule and
 * JSON object, so `analyze report` of the run file prints the same),
 * lateness against the schedule (p50, p99, max) and errors by kind.
 *
 * Memory stays bounded and the percentiles exact: summary_add() feeds
 * the first pass of the exact-percentile streams and appends the I/O's
 * latency and lateness (16 bytes) to an unlinked temporary file in
 * $TMPDIR (else /var/tmp); summary_finish() reads that file back for the
 * further passes. The run file (-o) could serve as well, but it is
 * optional and compressed: the temporary file is there in every run and
 * is read back at disk speed.
 */
#ifndef BLKPEAK_SUMMARY_H
#define BLKPEAK_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "bpt.h"
#include "sched.h"
#include "stats.h"

#define SUMMARY_MAX_ERRNOS 16
/* Placements counted: 0 the I/O its device's maps place, 1.. a file or
 * task map's (rp_io.placement, replay/filemap.h) */
#define SUMMARY_MAX_PLACEMENTS 17
#define SUMMARY_NLATE 3 /* lateness: p50 p99 max */

struct summary_spill; /* the temporary file of (latency, lateness) pairs */

struct summary {
	uint64_t ios, bytes;
	uint64_t op_ios[BPT_OP__COUNT], op_bytes[BPT_OP__COUNT];
	uint64_t errors, short_ios;
	uint64_t member_ios;             /* parts on members, internal included */
	uint64_t internal_ios[2];        /* raid5/raid6 internal reads, writes */
	struct { int code; uint64_t count; } errnos[SUMMARY_MAX_ERRNOS];
	/* per placement: I/Os done and bytes asked, errors included */
	uint64_t place_ios[SUMMARY_MAX_PLACEMENTS], place_bytes[SUMMARY_MAX_PLACEMENTS];
	unsigned nerrnos;
	/* complete - issue, per op and for all; issue - sched */
	struct stats_exact *lat[BPT_OP__COUNT], *lat_all, *late;
	struct summary_spill *spill;
	char failed[400];   /* why there are no percentiles, "" when there are */
	int finished;
	/* after summary_finish() */
	struct stats_latency op_lat[BPT_OP__COUNT], all_lat;
	uint64_t late_pct[SUMMARY_NLATE];
};

/* Account one result: every I/O counts in the latency (errors too, as in
 * analyze report); bytes only for I/Os without error. Never fails: when
 * memory or the temporary file fail, the percentiles are left out (and
 * the summary says why) but the counts stay right. */
void summary_add(struct summary *s, const struct rp_result *r);

/* Compute the percentiles (reads the temporary file back). */
void summary_finish(struct summary *s);
void summary_free(struct summary *s);

/* What the printers need besides the results. */
struct verify_result;

/* What the targets' controller caches did (cache= in a spec; sched.h's
 * wc_* counts). */
struct summary_cache {
	uint64_t writes, waits, read_hits;
	uint64_t destages, destaged_bytes, full_rows;
	uint64_t drained_ns;     /* the last destage's completion, from time 0 */
	uint64_t unwritten;      /* bytes left dirty (a destage failed) */
	int error;               /* that destage's error, or 0 */
};

struct summary_ctx {
	const char *source, *target, *timing;
	double speed;
	unsigned depth;
	uint64_t total_ios;      /* I/Os that were to be replayed */
	uint64_t skipped;        /* left out by --writes */
	const char *transform;   /* the what-if transforms as recorded ("" or NULL: none) */
	uint64_t deselected;     /* I/Os the transforms left out (--select, ...) */
	uint64_t conflicts;      /* I/Os overlapping an earlier one in flight (conflicts.h) */
	const char *conflicts_rule; /* keep, order or drop */
	uint64_t elapsed_ns;     /* replay: start to last completion */
	uint64_t recorded_ns;    /* recording: first issue to last completion */
	int interrupted;         /* stopped before the end */
	uint64_t done_ios;       /* I/Os with a result */
	const char *stopped;     /* why the run is partial; NULL: it is not */
	const char *run_file;    /* -o, or NULL */
	const struct verify_result *verify; /* --verify's findings, or NULL */
	const struct summary_cache *cache;  /* a controller cache's work, or NULL */
	/* file and task maps: placement k (1..nplaces) is map[k - 1]; 0
	 * (none) prints no placement lines */
	const struct summary_place *place;
	unsigned nplaces;
	/* a mixed replay's recordings (nrecs >= 2), else NULL, 0 */
	const struct summary_rec *recs;
	unsigned nrecs;
};

/* A recording of a mixed replay (replay/mix.h): its share of the run,
 * times from the replay's start. */
struct summary_rec {
	const char *name, *source;
	const char *run_file;      /* its own run file (-o), or NULL */
	uint64_t offset_ns;        /* --mix-offset */
	uint64_t ios, errors;      /* I/Os with a result, of those failed */
	uint64_t first_issue_ns, last_done_ns, lat_sum_ns;
};

/* A file or task map, as the summary names it. */
struct summary_place {
	const char *map;         /* its key: path:GLOB or comm:NAME */
	const char *target;      /* its target spec */
	int packed;              /* @OFFSET given */
	uint64_t at, end;        /* packed: its area on the target, bytes */
	uint64_t files;          /* files (or devices' raw parts) it took */
};

/* Print (summary_finish() first, or it is called here). */
void summary_print_text(struct summary *s, const struct summary_ctx *c, FILE *f);
void summary_print_json(struct summary *s, const struct summary_ctx *c, FILE *f);

#endif
