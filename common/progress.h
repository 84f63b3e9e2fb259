/*
 * progress.h — the one progress and status line of blkpeak's commands on
 * a terminal (import, report, query scans, plot, html, convert, measure,
 * capture's status): what, how far, the rate and the time left, redrawn
 * in place on stderr. Silent when stderr is not a terminal (scripts,
 * pipes, tests) or when not enabled (--quiet).
 *
 *	struct progress p;
 *	progress_init(&p, "report big.bpt", "I/Os", enabled);
 *	p.delay_ns = PROGRESS_DELAY_NS;         (optional: nothing for 2 s)
 *	... progress_update(&p, done, total);   (total 0: unknown)
 *	progress_end(&p);                       (erases the line)
 *
 * A step whose line is its own text (capture's status, a measurement's
 * steps) draws it with progress_text(), under the same rules.
 */
#ifndef BLKPEAK_COMMON_PROGRESS_H
#define BLKPEAK_COMMON_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

struct progress {
	char what[96];        /* "importing x.bpt" */
	const char *unit;     /* "I/Os", "rows" */
	int on;               /* stderr is a terminal and the caller wants it */
	int shown;            /* a line is on the screen */
	uint64_t start_ns, last_ns;
	uint64_t base;        /* done at the start of this pass (several passes) */
	/* Set after progress_init when wanted: */
	uint64_t delay_ns;    /* no line before this long after init (0: at once) */
	uint64_t period_ns;   /* at most one redraw per period (0: 200 ms) */
};

/* The delay of commands whose step is usually short (plot, html, convert,
 * measure): a line shows only when it has run this long. */
#define PROGRESS_DELAY_NS 2000000000ull

/* on: the caller's wish (0 for --quiet); the line shows only when stderr
 * is also a terminal. */
void progress_init(struct progress *p, const char *what, const char *unit, int on);

/* done of total so far (total 0 when unknown). */
void progress_update(struct progress *p, uint64_t done, uint64_t total);

/* The same as a callback: arg is a struct progress. */
void progress_cb(void *arg, uint64_t done, uint64_t total);

/* Draw `text` as the line (time permitting, as progress_update); returns
 * 1 when it was drawn. */
int progress_text(struct progress *p, const char *text);

/* Seconds since progress_init. */
double progress_elapsed(const struct progress *p);

/* "ETA 12 s", "ETA 3 min 5 s", "ETA 2 h 10 min" for secs left, into buf. */
char *progress_eta(double secs, char *buf, size_t len);

/* Erase the line, if one was drawn. */
void progress_end(struct progress *p);

#endif
