/* Unit tests of the RT-throttle guard's arithmetic (replay/fifo_guard.c):
 * over budget only when the last second's CPU time is, whatever the tick
 * pattern, and never past what the kernel's throttle allows. */
#include <criterion/criterion.h>

#include "../../replay/fifo_guard.h"

#define MS 1000000ull

/* A thread busy `busy` ms of every 50 ms bucket, ticked at each bucket's
 * end: returns the tick (1-based) that first reports over budget, 0 if
 * none in `ticks`. */
static unsigned first_over(uint64_t busy, unsigned ticks)
{
	struct fifo_guard g;
	uint64_t now = 1000 * MS, cpu = 7 * MS;

	fifo_guard_start(&g, now, cpu);
	for (unsigned t = 1; t <= ticks; t++) {
		now = fifo_guard_due(&g);
		cpu += busy * MS;
		if (fifo_guard_tick(&g, now, cpu))
			return t;
	}
	return 0;
}

Test(fifo_guard, a_mostly_sleeping_thread_stays)
{
	/* 75%: 750 ms a second, under the 800 ms budget, for a minute */
	cr_assert_eq(first_over(37, 1200), 0);
	cr_assert_eq(first_over(40, 1200), 0); /* exactly 800 ms: not over */
}

Test(fifo_guard, a_busy_thread_leaves_before_the_kernels_950_ms)
{
	/* 100% busy: over after 17 buckets (850 ms > 800 ms), i.e. before
	 * it has used 950 ms in any second */
	cr_assert_eq(first_over(50, 100), 17);
	/* 90% busy: 45 ms per bucket; 18 buckets = 810 ms */
	cr_assert_eq(first_over(45, 100), 18);
}

Test(fifo_guard, old_buckets_leave_the_window)
{
	struct fifo_guard g;
	uint64_t now = 0, cpu = 0;

	fifo_guard_start(&g, now, cpu);
	/* a busy half second, then an idle one: the busy part leaves */
	for (int i = 0; i < 10; i++) {
		now = fifo_guard_due(&g);
		cpu += 50 * MS;
		cr_assert_eq(fifo_guard_tick(&g, now, cpu), 0);
	}
	cr_assert_eq(g.sum_ns, 500 * MS);
	for (int i = 0; i < 20; i++) {
		now = fifo_guard_due(&g);
		cr_assert_eq(fifo_guard_tick(&g, now, cpu), 0);
	}
	cr_assert_eq(g.sum_ns, 0);
	/* then busy again: the old half second does not count */
	for (int i = 1; i <= 17; i++) {
		now = fifo_guard_due(&g);
		cpu += 50 * MS;
		cr_assert_eq(fifo_guard_tick(&g, now, cpu), i == 17, "tick %d", i);
	}
}

Test(fifo_guard, a_late_tick_charges_one_bucket_and_moves_on)
{
	struct fifo_guard g;

	fifo_guard_start(&g, 0, 0);
	/* first tick 3 s late, 2.9 s of CPU: the window restarts empty */
	cr_assert_eq(fifo_guard_tick(&g, 3000 * MS, 2900 * MS), 0);
	cr_assert_eq(g.sum_ns, 0);
	cr_assert(fifo_guard_due(&g) > 3000 * MS);
	/* 900 ms of CPU charged at once within the window: over */
	cr_assert_eq(fifo_guard_tick(&g, fifo_guard_due(&g), 3800 * MS), 1);
}

Test(fifo_guard, a_cpu_clock_going_back_counts_nothing)
{
	struct fifo_guard g;

	fifo_guard_start(&g, 0, 500 * MS);
	cr_assert_eq(fifo_guard_tick(&g, fifo_guard_due(&g), 100 * MS), 0);
	cr_assert_eq(g.sum_ns, 0);
}
