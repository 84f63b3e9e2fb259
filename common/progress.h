/*
 * progress.h — the progress line of a long step (import, report, query
 * scans) on a terminal: what, how far, the rate and the time left,
 * redrawn at most 5 times a second on stderr. Silent when stderr is not
 * a terminal (scripts, pipes, tests) or when not enabled.
 *
 *	struct progress p;
 *	progress_init(&p, "report big.bpt", "I/Os", enabled);
 *	... progress_update(&p, done, total);   (total 0: unknown)
 *	progress_end(&p);                       (erases the line)
 */
#ifndef BLKPEAK_COMMON_PROGRESS_H
#define BLKPEAK_COMMON_PROGRESS_H

#include <stdint.h>

struct progress {
	char what[96];        /* "importing x.bpt" */
	const char *unit;     /* "I/Os", "rows" */
	int on;               /* stderr is a terminal and the caller wants it */
	int shown;            /* a line is on the screen */
	uint64_t start_ns, last_ns;
	uint64_t base;        /* done at the start of this pass (several passes) */
};

/* on: the caller's wish (0 for --quiet); the line shows only when stderr
 * is also a terminal. */
void progress_init(struct progress *p, const char *what, const char *unit, int on);

/* done of total so far (total 0 when unknown). */
void progress_update(struct progress *p, uint64_t done, uint64_t total);

/* The same as a callback: arg is a struct progress. */
void progress_cb(void *arg, uint64_t done, uint64_t total);

/* Erase the line, if one was drawn. */
void progress_end(struct progress *p);

#endif
