/*
 * thread_slice.h — a helper thread that gives way to the threads the
 * I/O path wakes.
 */
#ifndef BLKPEAK_THREAD_SLICE_H
#define BLKPEAK_THREAD_SLICE_H

#include <stdint.h>

/*
 * Give the calling thread the longest time slice the kernel takes for a
 * normal task (sched_attr.sched_runtime, 100 ms; Linux 6.12 and later):
 * the kernel then lets a task that wakes with a shorter slice (the
 * issuer, a loop device's worker, the block softirq) preempt it at once,
 * rather than after up to a default slice of its batch. Its share of the
 * CPU is unchanged. Best effort: an older kernel leaves it as it was.
 */
#define THREAD_SLICE_LONG_NS 100000000ull
void thread_slice_long(void);

/* The kernel's struct sched_attr, first version, for sched_getattr and
 * sched_setattr (linux/sched/types.h cannot be included beside
 * <sched.h>: both define struct sched_param). */
struct slice_attr {
	uint32_t size, sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
};

#endif
