/*
 * thread_slice.h — a helper thread that gives way to the threads the
 * I/O path wakes.
 */
#ifndef BLKPEAK_THREAD_SLICE_H
#define BLKPEAK_THREAD_SLICE_H

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

#endif
