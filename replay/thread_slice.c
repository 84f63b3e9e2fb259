/*
 * thread_slice.c — thread_slice_long (thread_slice.h).
 */
#include <sched.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "thread_slice.h"

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
