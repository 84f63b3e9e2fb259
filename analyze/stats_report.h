/*
 * stats_report.h — the figures of a report, computed from one trace's rows in
 * the analysis database.
 *
 * Definitions (the tests check each against an independent computation):
 *   duration     last completion - first issue; IOPS and MB/s (10^6 bytes
 *                per second) are I/Os and bytes over it.
 *   size         bytes of a request, histogram in power-of-two classes:
 *                class 0 holds 0 bytes, class k >= 1 the sizes in
 *                (2^(k-2), 2^(k-1)] (1 B, 2 B, 3-4 B, ... 2-4 KiB, ...).
 *   seek         for the data I/Os (bytes > 0) of each device in issue order
 *                (ties by file order): distance = sector - (previous sector
 *                + previous length in sectors). 0 is sequential. |distance|
 *                is classed relative to the device's span actually used
 *                (max end - min start over its data I/Os).
 *   sequential   share of the data I/Os that have a predecessor on their
 *                device (all but the first) whose distance is 0.
 *   depth        I/Os outstanding at the device (issued, not completed),
 *                time-weighted over [first issue, last completion]; the mean
 *                is the integral over the duration. Busy = depth >= 1,
 *                idle = depth 0; an idle period is a maximal interval of
 *                depth 0 between two I/Os.
 *   lateness     of a run's I/Os (those with a due time, sched_ns): issue -
 *                sched, 0 when early: the replayer's own clock, how late
 *                it submitted each I/O (replay's summary "lateness").
 *                The kernel's view of the same run is `verify`, from the
 *                run's meta (run_verify.h), not from the rows.
 *   latency      service = complete - issue, total = complete - queue,
 *                over every I/O (errors too). Percentiles follow
 *                common/stats.h's rule (nearest rank: the value of rank
 *                ceil(p/100 * n), 1-based, in ascending order) and are
 *                exact, computed in bounded memory over two or more
 *                passes over the rows.
 *   per second   I/Os and bytes by issue second (issue_ns / 10^9), from
 *                the first I/O's second to the last's; left out (nseconds
 *                0) for a trace spanning more than ST_MAX_SECONDS.
 */
#ifndef BLKPEAK_ANALYZE_STATS_REPORT_H
#define BLKPEAK_ANALYZE_STATS_REPORT_H

#include <sqlite3.h>
#include <stdint.h>

#include "bpt.h"
#include "run_partial.h"
#include "run_verify.h"
#include "stats.h"

#define ST_SIZE_CLASSES 27 /* 0, 1 B, 2 B, 3-4 B, ... 16 MiB, bigger */
#define ST_SEEK_CLASSES 7
#define ST_DEPTH_CLASSES 11
#define ST_IDLE_CLASSES 7
#define ST_TOP 10
#define ST_MAX_DEV BPT_MAX_DEVICES /* every device of a trace has its own figures */
#define ST_MAX_SECONDS (1u << 24) /* 194 days */

/* Upper bounds (inclusive) of the seek classes 1.. as fractions num/den
 * of the device's span; class 0 is distance 0. |distance| never exceeds
 * the span, so the last bound is 1/1. */
extern const uint32_t st_seek_bound[ST_SEEK_CLASSES - 1][2];
extern const char *const st_seek_name[ST_SEEK_CLASSES];
/* Upper bounds (inclusive) of the depth classes; the last is open. */
extern const uint32_t st_depth_bound[ST_DEPTH_CLASSES - 1];
/* Upper bounds (inclusive, ns) of the idle-period classes; last open. */
extern const uint64_t st_idle_bound[ST_IDLE_CLASSES - 1];

struct st_op {
	uint64_t ios, bytes;
	struct stats_latency service, total;
};

struct st_proc {
	uint32_t pid;
	char comm[64];
	uint64_t ios, bytes;
};

/* A file or directory of the report's file figures (stats_files.c). */
struct st_file {
	char name[512];     /* path, or "dev M:m inode N" */
	uint64_t ios, bytes, reads, writes;
	double busy_share;  /* of the service time of all I/Os */
};

struct st_dev {
	char name[33];
	uint64_t data_ios;
	uint64_t span_lo, span_hi; /* sectors: [lo, hi) */
};

struct st_second {
	uint64_t ios, bytes;
};

struct files_filter;

struct st_report {
	int64_t trace_id;
	/* --files (files_filter.h): the patterns, NULL for every I/O; then
	 * the figures cover the I/Os that match, files_ios_of of the trace's */
	const struct files_filter *files;
	uint64_t files_ios_of;
	/* --recording (files->recording): the mixed run's recordings, by
	 * name and joined by ", " for messages */
	char mix_recordings[512];
	char mix_name[16][128];
	unsigned nmix;
	int files_unknown;  /* the trace matched has no file columns: every I/O :unknown */
	/* the trace has file columns but was imported before schema 8,
	 * which kept none of them: no files, no causes in the database */
	int files_lost;
	char path[4096], kind[16], digest[17];
	/* A replay run: what it replayed and how ("" when not a run, or not
	 * known); source_id 0 when the source trace is not in the database. */
	int is_run;
	int64_t source_id;
	uint64_t lost_events, loss_windows; /* a capture's losses: I/Os the figures miss */
	int truncated;                      /* imported from a truncated file (--partial) */
	char source_digest[17], target[256], timing[16];
	char label[64];                     /* given label (replay --label, analyze label), "" none */
	char transform[512];                /* what-if transforms applied (meta "transform"), "" none */
	struct run_partial partial;         /* a partial replay run */
	struct run_verify verify;           /* replay --verify's findings (the kernel's view) */
	struct stats_latency lateness;      /* issue - sched (count 0: no due times) */
	uint64_t ios, bytes, errors;
	uint64_t unseen_completions;    /* I/Os whose completion was not seen: in
					   every figure but the latencies, the queue
					   depth and busy/idle time */
	uint64_t first_issue_ns, last_complete_ns, duration_ns;
	double iops, mbps;
	struct st_op op[BPT_OP__COUNT];
	struct stats_latency all_service, all_total;
	uint64_t size_hist[ST_SIZE_CLASSES][3]; /* [class][read, write, other] */
	uint64_t seek_hist[ST_SEEK_CLASSES]; /* data I/Os with a predecessor */
	uint64_t data_ios, sequential;
	double sequential_share;
	uint32_t ndev;
	struct st_dev *dev;             /* ndev entries, allocated (st_report_free) */
	uint32_t dev_cap;
	uint64_t depth_ns[ST_DEPTH_CLASSES];
	uint32_t max_depth;
	double mean_depth;
	uint64_t busy_ns, idle_ns;
	uint64_t idle_count[ST_IDLE_CLASSES], idle_ns_hist[ST_IDLE_CLASSES];
	uint32_t nproc_total;           /* distinct (pid, comm) */
	uint32_t ntop_ios, ntop_bytes;
	struct st_proc top_ios[ST_TOP], top_bytes[ST_TOP];
	/* the file columns (format 1.3): distinct files, the busiest files
	 * and directories by share of the service time */
	uint32_t nfile_total, ntop_files, ntop_dirs;
	struct st_file top_files[ST_TOP], top_dirs[ST_TOP];
	/* queue depth / seeks came from a sorted query: the rows were further
	 * out of order than the reorder window (stats.c) */
	int depth_resorted, seeks_resorted;
	uint64_t first_second;          /* issue second of series[0] */
	uint64_t nseconds;
	struct st_second *series;       /* malloc'ed, nseconds long */
};

/*
 * Compute the report of trace `trace_id` from db. Returns 0, -ENOENT
 * (no such trace), -ENOMEM or -EIO; err says which. Free with
 * st_report_free().
 */
int st_report_compute(sqlite3 *db, int64_t trace_id, struct st_report *rep,
		      struct bpt_error *err);

/* The same with the reorder window (entries, see reorder.h) given: the
 * tests use a tiny one to take the sorted-query path. */
#define ST_REORDER_WINDOW (1u << 18)
int st_report_compute_window(sqlite3 *db, int64_t trace_id, struct st_report *rep,
			     uint64_t window, struct bpt_error *err);
void st_report_free(struct st_report *rep);

/*
 * The same figures from a trace file read in place (no database): two or
 * more passes over the file, memory bounded as from the database. The
 * report's trace_id is 0; everything else is what the report of the
 * file's imported copy says (tests/e2e/42-analyze-inplace.sh). window 0
 * is ST_REORDER_WINDOW; progress: a progress line on a terminal.
 */
int st_report_compute_file(const char *path, struct st_report *rep, uint64_t window,
			   int progress, struct bpt_error *err);

/* The same two restricted to the I/Os of files (files_filter.h); files
 * NULL: every I/O. */
int st_report_compute_files(sqlite3 *db, int64_t trace_id, const struct files_filter *files,
			    struct st_report *rep, struct bpt_error *err);
int st_report_compute_file_files(const char *path, const struct files_filter *files,
				 struct st_report *rep, int progress, struct bpt_error *err);
/* The I/Os of trace `id` that --files keeps (a run's by the trace it
 * replayed), as a bitmap the caller frees (free(k->bits)); for the charts,
 * which read the rows in SQL. 0, or <0 with err filled. */
struct st_keep {
	uint64_t *bits, n;
	int by_source; /* a run: bits by source_index, else by idx */
};
int st_keep_trace(sqlite3 *db, int64_t id, const struct files_filter *files, struct st_keep *k,
		  struct bpt_error *err);
/* Is the I/O (idx, source_index) kept? */
int st_keep_has(const struct st_keep *k, uint64_t idx, uint64_t source_index);

/* With the reorder window given (the tests' tiny one takes the sorted
 * queries, which --files narrows too). */
int st_report_compute_files_window(sqlite3 *db, int64_t trace_id,
				   const struct files_filter *files, struct st_report *rep,
				   uint64_t window, struct bpt_error *err);

/* Label of a size class ("4 KiB", "0", "> 16 MiB") into buf. */
const char *st_size_label(unsigned k, char *buf, size_t len);

/* Class of a request size (see above). */
unsigned st_size_class(uint64_t bytes);

#endif
