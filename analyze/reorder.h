/*
 * reorder.h — put a stream that is nearly in order into order in bounded
 * memory: entries are held back until more than `window` wait, then the
 * smallest is handed out. Entries that arrive in order go to a ring (one
 * copy), the others to a heap. When some entry arrives more than `window`
 * places late, the output is out of order: reorder_broken() says so and
 * the caller computes its figures from a sorted SQL query instead. The
 * window is common/window.h's (ring, insertion a few places back, heap).
 *
 * Used by the report for issue order (seeks) and time order of issues
 * and completions (queue depth): rows come in file order, which is
 * completion order for a capture and issue order for a generated trace.
 */
#ifndef BLKPEAK_ANALYZE_REORDER_H
#define BLKPEAK_ANALYZE_REORDER_H

#include <stdint.h>

#include "window.h"

/* Ordered by (k1, k2); the rest is carried along. */
struct rentry {
	uint64_t k1, k2;
	uint64_t sector;
	uint32_t bytes;
	uint16_t dev;
};

static inline int rentry_before(const void *ctx, const struct rentry *a, const struct rentry *b)
{
	(void)ctx;
	return a->k1 < b->k1 || (a->k1 == b->k1 && a->k2 < b->k2);
}

/* common/window.h's window of entries */
WINDOW_DEFINE(rwindow, struct rentry, rentry_before)

typedef void (*reorder_emit)(void *ctx, const struct rentry *e);

struct reorder {
	struct rwindow win;
	struct rentry last_out;  /* last handed out */
	int out_any, broken;
	reorder_emit emit;
	void *ctx;
};

/* 0 or -ENOMEM. window is rounded up to a power of two; memory grows on
 * demand up to 2 * window * 32 bytes. */
int reorder_init(struct reorder *r, uint64_t window, reorder_emit emit, void *ctx);
void reorder_push(struct reorder *r, const struct rentry *e);
/* Hand out what is held back. */
void reorder_flush(struct reorder *r);
/* Whether the output was out of order (then it is to be thrown away). */
int reorder_broken(const struct reorder *r);
void reorder_free(struct reorder *r);

#endif
