/*
 * progress.c — the terminal progress line (progress.h).
 */
#include <math.h>
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
	p->start_ns = mono_ns();
	p->last_ns = 0;
}

double progress_elapsed(const struct progress *p)
{
	return (double)(mono_ns() - p->start_ns) / 1e9;
}

char *progress_eta(double secs, char *buf, size_t len)
{
	if (!(secs >= 0) || secs > 1e7)
		snprintf(buf, len, "ETA ?");
	else if (secs < 90)
		snprintf(buf, len, "ETA %.0f s", secs);
	else if (secs < 5400)
		snprintf(buf, len, "ETA %.0f min %02.0f s", floor(secs / 60), fmod(secs, 60));
	else
		snprintf(buf, len, "ETA %.0f h %02.0f min", floor(secs / 3600), fmod(secs / 60, 60));
	return buf;
}

/* Is it time to draw? Updates last_ns when it is. */
static int due(struct progress *p, uint64_t *now)
{
	uint64_t period = p->period_ns ? p->period_ns : REDRAW_NS;

	if (!p->on)
		return 0;
	*now = mono_ns();
	if (*now - p->start_ns < p->delay_ns)
		return 0;
	if (*now - (p->last_ns ? p->last_ns : p->start_ns) < period)
		return 0;
	p->last_ns = *now;
	return 1;
}

int progress_text(struct progress *p, const char *text)
{
	uint64_t now;

	if (!due(p, &now))
		return 0;
	p->shown = 1;
	fprintf(stderr, "\r\033[K%s", text);
	fflush(stderr);
	return 1;
}

void progress_update(struct progress *p, uint64_t done, uint64_t total)
{
	uint64_t now;
	double secs, rate;
	char eta[32];

	if (!due(p, &now))
		return;
	p->shown = 1;
	secs = (double)(now - p->start_ns) / 1e9;
	rate = secs > 0 ? (double)done / secs : 0;
	if (total && done <= total && rate > 0)
		fprintf(stderr, "\r\033[K%s: %.1f of %.1f M %s (%.0f%%), %.2f M/s, %s",
			p->what, (double)done / 1e6, (double)total / 1e6, p->unit,
			100.0 * (double)done / (double)total, rate / 1e6,
			progress_eta((double)(total - done) / rate, eta, sizeof(eta)));
	else
		fprintf(stderr, "\r\033[K%s: %.1f M %s, %.2f M/s", p->what, (double)done / 1e6,
			p->unit, rate / 1e6);
	fflush(stderr);
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
