/*
 * summary.h — the numbers printed at the end of a replay: I/Os, duration
 * against the recording, IOPS, MB/s, latency per operation (mean, p50,
 * p99, p99.9), lateness against the schedule (p50, p99, max) and errors by
 * kind. Fed one struct rp_result at a time; printed as text or JSON.
 */
#ifndef BLKPEAK_SUMMARY_H
#define BLKPEAK_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "bpt.h"
#include "sched.h"

/* A growable array of nanosecond values. */
struct ns_vec {
	uint64_t *v;
	uint64_t n, cap;
	int sorted;  /* v is in ascending order */
};

#define SUMMARY_MAX_ERRNOS 16

struct summary {
	uint64_t ios, bytes;
	uint64_t op_ios[BPT_OP__COUNT], op_bytes[BPT_OP__COUNT];
	struct ns_vec lat[BPT_OP__COUNT];   /* complete - issue */
	struct ns_vec late;                 /* issue - sched */
	uint64_t errors, short_ios;
	struct { int code; uint64_t count; } errnos[SUMMARY_MAX_ERRNOS];
	unsigned nerrnos;
	int oom;                            /* a vector could not grow */
};

/* Account one result. Never fails: on memory shortage the percentiles
 * are left out (oom) but the counts stay right. */
void summary_add(struct summary *s, const struct rp_result *r);
void summary_free(struct summary *s);

/* The p-th percentile (0..100) of v (sorted in place), 0 when empty. */
uint64_t ns_vec_percentile(struct ns_vec *v, double p);

/* What the printers need besides the results. */
struct summary_ctx {
	const char *source, *target, *timing;
	double speed;
	unsigned depth;
	uint64_t total_ios;      /* I/Os that were to be replayed */
	uint64_t skipped;        /* left out by --writes */
	uint64_t elapsed_ns;     /* replay: start to last completion */
	uint64_t recorded_ns;    /* recording: first issue to last completion */
	int interrupted;         /* stopped before the end */
	uint64_t done_ios;       /* I/Os with a result */
	const char *stopped;     /* why the run is partial; NULL: it is not */
	const char *run_file;    /* -o, or NULL */
};

void summary_print_text(struct summary *s, const struct summary_ctx *c, FILE *f);
void summary_print_json(struct summary *s, const struct summary_ctx *c, FILE *f);

#endif
