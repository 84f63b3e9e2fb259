/* Unit tests of the shared progress line (common/progress.c): the time
 * left as a person reads it, the 2 s delay and the redraw period, and
 * silence when stderr is not a terminal. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "progress.h"

Test(progress, eta_words)
{
	char b[40];

	cr_assert_str_eq(progress_eta(0, b, sizeof(b)), "ETA 0 s");
	cr_assert_str_eq(progress_eta(42.4, b, sizeof(b)), "ETA 42 s");
	cr_assert_str_eq(progress_eta(125, b, sizeof(b)), "ETA 2 min 05 s");
	cr_assert_str_eq(progress_eta(2 * 3600 + 10 * 60, b, sizeof(b)), "ETA 2 h 10 min");
	cr_assert_str_eq(progress_eta(-1, b, sizeof(b)), "ETA ?");
	cr_assert_str_eq(progress_eta(1.0 / 0.0, b, sizeof(b)), "ETA ?");
}

/* stderr on a pipe (as under make check or a redirect): never a line. */
Test(progress, silent_without_a_terminal)
{
	struct progress p;
	int fds[2];

	cr_assert_eq(pipe(fds), 0);
	cr_assert_neq(dup2(fds[1], STDERR_FILENO), -1);
	progress_init(&p, "x", "I/Os", 1);
	cr_assert_eq(p.on, 0);
	cr_assert_eq(progress_text(&p, "text"), 0);
	progress_update(&p, 1, 2);
	cr_assert_eq(p.shown, 0);
}

/* Drawing rules, with the line forced on: nothing before the delay, at
 * most one redraw per period. */
Test(progress, delay_and_period)
{
	struct progress p;
	FILE *null = freopen("/dev/null", "w", stderr);

	cr_assert_not_null(null);
	progress_init(&p, "x", "I/Os", 1);
	p.on = 1; /* as on a terminal */
	p.delay_ns = 3600ull * 1000000000ull;
	cr_assert_eq(progress_text(&p, "early"), 0, "drawn before its delay");
	p.delay_ns = 0;
	p.period_ns = 1;
	usleep(1000);
	cr_assert_eq(progress_text(&p, "now"), 1);
	p.period_ns = 3600ull * 1000000000ull;
	cr_assert_eq(progress_text(&p, "again"), 0, "drawn twice within a period");
	progress_end(&p);
	cr_assert_eq(p.shown, 0);
}
