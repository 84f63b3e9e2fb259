/* reorder.c — a bounded reorder window: a ring of in-order arrivals (and
 * of those a few places late, inserted), a heap of the others, the
 * smaller head handed out first (reorder.h). */
#include <errno.h>
#include <stdlib.h>

#include "reorder.h"

static int less(const struct rentry *a, const struct rentry *b)
{
	return a->k1 < b->k1 || (a->k1 == b->k1 && a->k2 < b->k2);
}

int reorder_init(struct reorder *r, uint64_t window, reorder_emit emit, void *ctx)
{
	uint64_t w = 1;

	while (w < window) /* a power of two: ring positions by mask */
		w *= 2;
	*r = (struct reorder){ .window = w, .mask = w - 1, .emit = emit, .ctx = ctx };
	r->ring = malloc(r->window * sizeof(*r->ring));
	r->heap = malloc(r->window * sizeof(*r->heap));
	if (!r->ring || !r->heap) {
		reorder_free(r);
		return -ENOMEM;
	}
	return 0;
}

void reorder_free(struct reorder *r)
{
	free(r->ring);
	free(r->heap);
	r->ring = r->heap = NULL;
}

static void heap_push(struct reorder *r, const struct rentry *e)
{
	uint64_t i = r->hcount++;

	while (i && less(e, &r->heap[(i - 1) / 2])) {
		r->heap[i] = r->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	r->heap[i] = *e;
}

static struct rentry heap_pop(struct reorder *r)
{
	struct rentry top = r->heap[0], x = r->heap[--r->hcount];
	uint64_t i = 0, n = r->hcount;

	for (;;) {
		uint64_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && less(&r->heap[c + 1], &r->heap[c]))
			c++;
		if (!less(&r->heap[c], &x))
			break;
		r->heap[i] = r->heap[c];
		i = c;
	}
	if (n)
		r->heap[i] = x;
	return top;
}

/* Hand out the smallest entry held. */
static void out_one(struct reorder *r)
{
	struct rentry e;

	if (r->rcount && (!r->hcount || !less(&r->heap[0], &r->ring[r->rhead]))) {
		e = r->ring[r->rhead];
		r->rhead = (r->rhead + 1) & r->mask;
		r->rcount--;
	} else {
		e = heap_pop(r);
	}
	if (r->out_any && less(&e, &r->last_out))
		r->broken = 1;
	r->last_out = e;
	r->out_any = 1;
	if (!r->broken)
		r->emit(r->ctx, &e);
}

/* An entry a few places out of order goes into the ring by insertion
 * (a capture's issue times, a generated trace's completion times: a few
 * rows late each) when it is at most this many places from the tail. */
#define RING_INSERT_MAX 64

static int ring_insert(struct reorder *r, const struct rentry *e)
{
	uint64_t at = r->rcount, back;

	for (back = 0; at > 0 && back < RING_INSERT_MAX; back++, at--)
		if (!less(e, &r->ring[(r->rhead + at - 1) & r->mask]))
			break;
	if (at > 0 && back == RING_INSERT_MAX)
		return 0;
	for (uint64_t i = r->rcount; i > at; i--)
		r->ring[(r->rhead + i) & r->mask] = r->ring[(r->rhead + i - 1) & r->mask];
	r->ring[(r->rhead + at) & r->mask] = *e;
	r->rcount++;
	return 1;
}

void reorder_push(struct reorder *r, const struct rentry *e)
{
	if (r->rcount + r->hcount == r->window)
		out_one(r);
	if (!r->rcount || !less(e, &r->last_in)) {
		r->ring[(r->rhead + r->rcount++) & r->mask] = *e;
		r->last_in = *e;
	} else if (!ring_insert(r, e)) {
		heap_push(r, e);
	}
}

void reorder_flush(struct reorder *r)
{
	while (r->rcount + r->hcount)
		out_one(r);
}

int reorder_broken(const struct reorder *r)
{
	return r->broken;
}
