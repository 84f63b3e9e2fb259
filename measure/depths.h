/*
 * depths.h — the queue depths of a sweep and their weights.
 *
 * Depths: "1,2,4,...,256" (the default) or any list of increasing
 * depths, each 1..MEASURE_MAX_DEPTH.
 *
 * Weights from a recorded trace (--weights-from): the share of the
 * recording's busy time spent at each queue depth. The queue depth at
 * time t is the number of the trace's requests issued at or before t and
 * not yet completed (issue_ns <= t < complete_ns; a request whose
 * completion the capture did not see counts until its bound, the
 * complete_ns the trace holds). Time at depth 0 (idle) counts for no
 * depth. Time at depth q counts for the smallest swept depth >= q, and
 * time above the largest swept depth for the largest. Each weight is that
 * time divided by the busy time (so the weights sum to 1).
 *
 * Weights given (--weights "1:0.4,4:0.6"): DEPTH:WEIGHT pairs, each depth
 * one of the sweep's, each weight >= 0; the depths not named weigh 0.
 * They are divided by their sum. With neither, every depth weighs the same.
 *
 * The score is the weighted mean of the depths' IOPS: sum(w_d * IOPS_d).
 */
#ifndef BLKPEAK_MEASURE_DEPTHS_H
#define BLKPEAK_MEASURE_DEPTHS_H

#include <stdint.h>

#include "error.h"

#define MEASURE_MAX_DEPTHS 32
#define MEASURE_MAX_DEPTH 65536

struct depths {
	unsigned n;
	uint32_t depth[MEASURE_MAX_DEPTHS];  /* increasing */
	double weight[MEASURE_MAX_DEPTHS];   /* sum 1 */
	uint64_t busy_ns[MEASURE_MAX_DEPTHS]; /* --weights-from: time counted for each */
};

/* Parse a depth list into d (weights equal). -EINVAL with the reason. */
int depths_parse(const char *s, struct depths *d, struct bpt_error *err);

/* Parse DEPTH:WEIGHT pairs into d's weights (normalised). -EINVAL. */
int depths_weights_parse(const char *s, struct depths *d, struct bpt_error *err);

/* Weights from the trace at `path` (see above). -EINVAL when the trace has
 * no request with a duration, or the reader's error. */
int depths_weights_from(const char *path, struct depths *d, struct bpt_error *err);

/* The same from `n` (issue, complete) pairs, for tests: events[2i] is an
 * issue time and events[2i+1] its completion (both ns). */
int depths_weights_of(const uint64_t *times, uint64_t n, struct depths *d,
		      struct bpt_error *err);

#endif
