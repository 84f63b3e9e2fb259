/*
 * result_order.c — results back in issue order (result_order.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "result_order.h"

struct result_slot {
	struct rp_result res;
	struct rp_io io;
	uint8_t full;
};

int result_order_init(struct result_order *o, uint64_t capacity,
		      void (*emit)(void *ctx, const struct rp_result *r), void *ctx)
{
	uint64_t cap = 1;

	while (cap < capacity)
		cap <<= 1;
	memset(o, 0, sizeof(*o));
	o->ring = calloc(cap, sizeof(*o->ring));
	if (!o->ring)
		return -ENOMEM;
	o->mask = cap - 1;
	o->emit = emit;
	o->ctx = ctx;
	return 0;
}

/* Hand on the slot at head when it holds a result; head moves on. */
static void pop_head(struct result_order *o)
{
	struct result_slot *s = &o->ring[o->head & o->mask];

	if (s->full) {
		s->res.io = &s->io;
		o->emit(o->ctx, &s->res);
		s->full = 0;
	}
	o->head++;
}

void result_order_add(struct result_order *o, const struct rp_result *r)
{
	struct result_slot *s;

	if (r->seq < o->head) { /* the ring moved past it */
		o->stragglers++;
		o->emit(o->ctx, r);
		return;
	}
	if (r->seq == o->head) {
		/* the next one in order (every one at depth 1, most at any
		 * depth): handed on at once, not copied through the ring */
		o->emit(o->ctx, r);
		o->head++;
	} else {
		while (r->seq - o->head > o->mask)
			pop_head(o);
		s = &o->ring[r->seq & o->mask];
		s->res = *r;
		s->io = *r->io;
		s->full = 1;
	}
	if (r->seq + 1 > o->end)
		o->end = r->seq + 1;
	while (o->head < o->end && o->ring[o->head & o->mask].full)
		pop_head(o);
}

void result_order_flush(struct result_order *o)
{
	while (o->head < o->end)
		pop_head(o);
}

void result_order_free(struct result_order *o)
{
	free(o->ring);
	memset(o, 0, sizeof(*o));
}
