/* fifo_guard.c — the RT-throttle guard's arithmetic (fifo_guard.h). */
#include <string.h>

#include "fifo_guard.h"

void fifo_guard_start(struct fifo_guard *g, uint64_t now_ns, uint64_t cpu_ns)
{
	memset(g, 0, sizeof(*g));
	g->bucket_end = now_ns + FIFO_GUARD_BUCKET_NS;
	g->last_cpu_ns = cpu_ns;
}

int fifo_guard_tick(struct fifo_guard *g, uint64_t now_ns, uint64_t cpu_ns)
{
	uint64_t used = cpu_ns > g->last_cpu_ns ? cpu_ns - g->last_cpu_ns : 0;

	g->last_cpu_ns = cpu_ns;
	/* CPU time since the last tick goes to the bucket then filling: a
	 * tick late by several buckets charges them all to one, which only
	 * errs towards leaving FIFO early */
	g->used_ns[g->cur] += used;
	g->sum_ns += used;
	for (unsigned n = 0; now_ns >= g->bucket_end && n < FIFO_GUARD_BUCKETS; n++) {
		g->cur = (g->cur + 1) % FIFO_GUARD_BUCKETS;
		g->sum_ns -= g->used_ns[g->cur];
		g->used_ns[g->cur] = 0;
		g->bucket_end += FIFO_GUARD_BUCKET_NS;
	}
	if (now_ns >= g->bucket_end) /* idle for a whole window: start over */
		g->bucket_end = now_ns + FIFO_GUARD_BUCKET_NS;
	return g->sum_ns > FIFO_GUARD_BUDGET_NS;
}
