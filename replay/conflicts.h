/*
 * conflicts.h — overlapping requests: two I/Os of the trace that touch
 * the same bytes of one target while both are in flight in the recording
 * (the later one issued before the earlier one's recorded completion).
 * The kernel may have done them in either order, so a replay has to say
 * what it does (--conflicts):
 *
 *   keep   issue both as recorded (the default): the recorded concurrency
 *   order  the later one waits for the earlier one's completion in the
 *          replay (causal timing: its recorded issue time moves to the
 *          earlier one's recorded completion, which causal timing waits
 *          for; the I/Os after it keep the issue order, so they move with
 *          it)
 *   drop   the later one is left out
 *
 * Every rule counts them. Fed the I/Os in issue order (recorded times,
 * target offsets); holds the I/Os in flight in the recording (a min-heap
 * of their completions), and compares each new I/O with those on its
 * target, so memory and time per I/O follow the recording's concurrency.
 * Flushes and I/Os without bytes never conflict.
 */
#ifndef BLKPEAK_CONFLICTS_H
#define BLKPEAK_CONFLICTS_H

#include <stdint.h>

#include "minheap.h"
#include "sched.h"

enum conflict_rule { CONFLICT_KEEP, CONFLICT_ORDER, CONFLICT_DROP };

struct conflict_io {
	uint64_t offset, end;
	uint8_t target;
};

struct conflicts {
	enum conflict_rule rule;
	struct minheap inflight;   /* (recorded completion, index into io) */
	struct conflict_io *io;
	uint32_t *free_ix;
	uint64_t nio, cap, nfree;
	uint64_t count;            /* I/Os that overlapped an earlier one in flight */
	uint64_t dropped;          /* of those, left out (drop) */
	uint64_t moved_to;         /* order: the latest issue time given out */
	uint64_t shift;            /* order: how far the I/Os are moved now */
};

/* "keep", "order", "drop" → rule; -EINVAL otherwise. */
int conflicts_parse(const char *s, enum conflict_rule *rule);
const char *conflicts_name(enum conflict_rule rule);

/*
 * The next I/O in issue order: 1 to replay it (times moved by order), 0
 * when drop leaves it out, -ENOMEM.
 */
int conflicts_next(struct conflicts *c, struct rp_io *io);
void conflicts_free(struct conflicts *c);

#endif
