/*
 * fifo_guard.h — keeps a SCHED_FIFO issuer out of the kernel's RT throttle.
 *
 * The kernel gives real-time tasks at most sched_rt_runtime_us of each
 * sched_rt_period_us (950 ms of every second by default); a SCHED_FIFO
 * thread that stays busy longer is stopped for the rest of the period —
 * up to 50 ms in which no I/O is issued (seen here: bench/RESULTS.md,
 * "a SCHED_FIFO spinner meets the RT throttle"). The guard sums the
 * issuer's own CPU time in FIFO_GUARD_BUCKETS buckets of FIFO_GUARD_BUCKET_NS
 * (one second) and says when the last second used more than
 * FIFO_GUARD_BUDGET_NS: then the issuer leaves SCHED_FIFO before the
 * kernel stops it. Any kernel period overlaps at most one more bucket than
 * the window, so it sees at most budget + 2 buckets = 900 ms < 950 ms.
 * Pure arithmetic on the times it is given (unit-tested).
 */
#ifndef BLKPEAK_FIFO_GUARD_H
#define BLKPEAK_FIFO_GUARD_H

#include <stdint.h>

#define FIFO_GUARD_BUCKETS 20
#define FIFO_GUARD_BUCKET_NS 50000000ull  /* 20 x 50 ms: one second */
#define FIFO_GUARD_BUDGET_NS 800000000ull

struct fifo_guard {
	uint64_t used_ns[FIFO_GUARD_BUCKETS]; /* CPU time per bucket */
	uint64_t sum_ns;       /* of used_ns */
	unsigned cur;          /* the bucket now filling */
	uint64_t bucket_end;   /* wall time its bucket ends */
	uint64_t last_cpu_ns;  /* CPU time at the last tick */
};

/* Start at wall time now_ns with the thread's CPU time cpu_ns. */
void fifo_guard_start(struct fifo_guard *g, uint64_t now_ns, uint64_t cpu_ns);

/* Wall time of the next tick worth making (the current bucket's end). */
static inline uint64_t fifo_guard_due(const struct fifo_guard *g)
{
	return g->bucket_end;
}

/* Account the CPU time used since the last tick and move to the bucket
 * of now_ns. 1 when the last second's CPU time is over the budget. */
int fifo_guard_tick(struct fifo_guard *g, uint64_t now_ns, uint64_t cpu_ns);

#endif
