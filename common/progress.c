/*
 * progress.c — the terminal progress line (progress.h).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fmt.h"
#include "progress.h"

#define REDRAW_NS 200000000ull /* 5 times a second at most */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void progress_init(struct progress *p, const char *what, const char *unit, int on)
{
	memset(p, 0, sizeof(*p));
	fmt_text(what, p->what, sizeof(p->what)); /* a path may hold control bytes */
	p->unit = unit;
	p->on = on && isatty(STDERR_FILENO);
	p->start_ns = p->last_ns = mono_ns();
}

void progress_update(struct progress *p, uint64_t done, uint64_t total)
{
	uint64_t now;
	double secs, rate;

	if (!p->on)
		return;
	now = mono_ns();
	if (now - p->last_ns < REDRAW_NS)
		return;
	p->last_ns = now;
	p->shown = 1;
	secs = (double)(now - p->start_ns) / 1e9;
	rate = secs > 0 ? (double)done / secs : 0;
	if (total && done <= total && rate > 0)
		fprintf(stderr, "\r\033[K%s: %.1f of %.1f M %s (%.0f%%), %.2f M/s, ETA %.0f s",
			p->what, (double)done / 1e6, (double)total / 1e6, p->unit,
			100.0 * (double)done / (double)total, rate / 1e6,
			(double)(total - done) / rate);
	else
		fprintf(stderr, "\r\033[K%s: %.1f M %s, %.2f M/s", p->what, (double)done / 1e6,
			p->unit, rate / 1e6);
}

void progress_cb(void *arg, uint64_t done, uint64_t total)
{
	progress_update(arg, done, total);
}

void progress_end(struct progress *p)
{
	if (p->shown)
		fprintf(stderr, "\r\033[K");
	p->shown = 0;
}
