/*
 * thread_slice.c — thread_slice_long (thread_slice.h).
 */
#include <sched.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "thread_slice.h"

/* The kernel's struct sched_attr, first version (linux/sched/types.h
 * cannot be included beside <sched.h>: both define struct sched_param). */
struct slice_attr {
	uint32_t size, sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
};

void thread_slice_long(void)
{
	struct slice_attr a = { 0 };

	/* the thread's own policy and nice value, only the slice changed */
	if (syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0) || a.sched_policy != SCHED_OTHER)
		return;
	a.size = sizeof(a);
	a.sched_runtime = THREAD_SLICE_LONG_NS;
	(void)syscall(SYS_sched_setattr, 0, &a, 0);
}
