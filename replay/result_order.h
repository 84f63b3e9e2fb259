/*
 * result_order.h — replay results back in issue order, through a bounded
 * ring. Requests complete out of order; the run file and the summary
 * take them in trace (issue) order, as soon as every earlier one is in.
 * The ring holds `capacity` results (about 100 bytes each); when the
 * oldest outstanding request is so far behind that the newest result
 * would not fit, the ring moves past it and that straggler's result is
 * handed on when it arrives, after later ones (the only case where the
 * order differs from issue order; replay never waits for the ring).
 */
#ifndef BLKPEAK_RESULT_ORDER_H
#define BLKPEAK_RESULT_ORDER_H

#include <stdint.h>

#include "sched.h"

struct result_slot;

struct result_order {
	struct result_slot *ring;
	uint64_t mask;           /* capacity - 1 */
	uint64_t head;           /* seq of the oldest result not handed on */
	uint64_t end;            /* one past the largest seq held */
	uint64_t stragglers;     /* results handed on after later ones */
	void (*emit)(void *ctx, const struct rp_result *r);
	void *ctx;
};

/* A ring of at least `capacity` results (rounded up to a power of two);
 * emit gets each result once. 0 or -ENOMEM. */
int result_order_init(struct result_order *o, uint64_t capacity,
		      void (*emit)(void *ctx, const struct rp_result *r), void *ctx);
/* One result (r->seq says its place); emits what is complete. */
void result_order_add(struct result_order *o, const struct rp_result *r);
/* Emit what is held, in order (after the replay: the gaps never came). */
void result_order_flush(struct result_order *o);
void result_order_free(struct result_order *o);

#endif
