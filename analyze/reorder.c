/* reorder.c — a bounded reorder window handing out to a callback and
 * telling when its output went out of order (reorder.h), over
 * common/window.h. */
#include <errno.h>
#include <stdlib.h>

#include "reorder.h"

/* An entry a few places out of order goes into the ring by insertion
 * (a capture's issue times, a generated trace's completion times: a few
 * rows late each) when it is at most this many places from the tail. */
#define RING_INSERT_MAX 64

int reorder_init(struct reorder *r, uint64_t window, reorder_emit emit, void *ctx)
{
	uint64_t w = 1;

	while (w < window) /* a power of two, as before the shared window */
		w *= 2;
	*r = (struct reorder){ .emit = emit, .ctx = ctx };
	rwindow_init(&r->win, w, RING_INSERT_MAX);
	return 0;
}

void reorder_free(struct reorder *r)
{
	rwindow_free(&r->win);
}

/* Hand out the smallest entry held. */
static void out_one(struct reorder *r)
{
	struct rentry e;

	if (!rwindow_pop(&r->win, &e))
		return;
	if (r->out_any && rentry_before(NULL, &e, &r->last_out))
		r->broken = 1;
	r->last_out = e;
	r->out_any = 1;
	if (!r->broken)
		r->emit(r->ctx, &e);
}

void reorder_push(struct reorder *r, const struct rentry *e)
{
	if (rwindow_len(&r->win) == r->win.cap)
		out_one(r);
	if (rwindow_push(&r->win, *e))
		r->broken = 1; /* out of memory: the caller's sorted query takes over */
}

void reorder_flush(struct reorder *r)
{
	while (rwindow_len(&r->win))
		out_one(r);
}

int reorder_broken(const struct reorder *r)
{
	return r->broken;
}
