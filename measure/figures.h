/*
 * figures.h — the figures of one measurement step, from its I/Os.
 *
 * A step is a list of units in issue order. A unit is what the step
 * counts: one I/O for qd-sweep, zcav and seeks, one write and its flush
 * for commit (the commit is done when the flush completes). A unit's
 * latency is its last completion minus its first issue.
 *
 * The first `warmup` units are left out (the warm-up); the figures are
 * over the others:
 *   window    first issue to last completion of the measured units
 *   iops      measured units / window (commits per second for commit)
 *   mb_per_s  their bytes / window / 1e6
 *   latency   count, mean and the percentiles of common/stats.h (its one
 *             nearest-rank rule) of the units' latencies
 * All from integers in nanoseconds, so a step with known times (the null
 * engine, or a synthetic list) gives figures that can be checked exactly.
 */
#ifndef BLKPEAK_MEASURE_FIGURES_H
#define BLKPEAK_MEASURE_FIGURES_H

#include <stdint.h>

#include "stats.h"

struct unit {
	uint64_t issue_ns, complete_ns; /* first issue, last completion */
	uint64_t bytes;                 /* data bytes (a flush adds none) */
	int32_t error;                  /* 0, or the first negative errno */
};

struct figures {
	uint64_t units, bytes, errors;  /* measured (after the warm-up) */
	uint64_t window_ns;
	double iops, mb_per_s;
	struct stats_latency lat;
};

/* Compute f from u[warmup..n). 0, -EINVAL when no unit is left after the
 * warm-up or a completion precedes its issue, -ENOMEM. */
int figures_compute(const struct unit *u, uint64_t n, uint64_t warmup, struct figures *f);

#endif
