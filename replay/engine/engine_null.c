/*
 * engine_null.c — an engine that does no I/O: every committed I/O
 * completes successfully `null_latency_ns` after its commit, in commit
 * order. It lets the scheduler's timing modes be tested (and measured for
 * their own overhead) without a device. It honours the depth like a real
 * engine: queue() says ENG_BUSY when depth I/Os are queued or in flight.
 */
#include <errno.h>
#include <stdlib.h>

#include "cliutil.h"
#include "engine.h"

struct engine {
	unsigned depth;
	uint64_t latency_ns;
	struct eng_io **queued;   /* waiting for commit */
	unsigned nqueued;
	struct eng_io **ring;     /* in flight, commit order (FIFO) */
	uint64_t *due_ns;         /* completion time of ring[i] */
	unsigned head, count;     /* ring position and fill */
	struct eng_io **ready;    /* handed out by event() */
	unsigned nready;
};

static void null_close(struct engine *e)
{
	if (!e)
		return;
	free(e->queued);
	free(e->ring);
	free(e->due_ns);
	free(e->ready);
	free(e);
}

static int null_open(struct engine **out, const struct engine_opts *opts)
{
	struct engine *e = calloc(1, sizeof(*e));

	if (!e)
		return -ENOMEM;
	e->depth = opts->depth ? opts->depth : 1;
	e->latency_ns = opts->null_latency_ns;
	e->queued = calloc(e->depth, sizeof(*e->queued));
	e->ring = calloc(e->depth, sizeof(*e->ring));
	e->due_ns = calloc(e->depth, sizeof(*e->due_ns));
	e->ready = calloc(e->depth, sizeof(*e->ready));
	if (!e->queued || !e->ring || !e->due_ns || !e->ready) {
		null_close(e);
		return -ENOMEM;
	}
	*out = e;
	return 0;
}

static enum eng_status null_queue(struct engine *e, struct eng_io *io)
{
	if (e->nqueued + e->count >= e->depth)
		return ENG_BUSY;
	e->queued[e->nqueued++] = io;
	return ENG_QUEUED;
}

static int null_commit(struct engine *e)
{
	uint64_t now = now_mono_ns();
	unsigned n = e->nqueued;

	for (unsigned i = 0; i < n; i++) {
		unsigned slot = (e->head + e->count) % e->depth;

		e->ring[slot] = e->queued[i];
		e->due_ns[slot] = now + e->latency_ns;
		e->count++;
	}
	e->nqueued = 0;
	return (int)n;
}

static int null_getevents(struct engine *e, unsigned min, unsigned max,
			  uint64_t timeout_ns)
{
	uint64_t start = now_mono_ns();
	uint64_t limit = timeout_ns == UINT64_MAX ? UINT64_MAX : start + timeout_ns;

	if (min > e->count)
		min = e->count;
	e->nready = 0;
	for (;;) {
		uint64_t now = now_mono_ns();

		while (e->count && e->nready < max && e->due_ns[e->head] <= now) {
			struct eng_io *io = e->ring[e->head];

			io->result = (int64_t)io->len;
			e->ready[e->nready++] = io;
			e->head = (e->head + 1) % e->depth;
			e->count--;
		}
		if (e->nready >= min || now >= limit || !e->count)
			return (int)e->nready;
		sleep_until_mono_ns(e->due_ns[e->head] < limit ? e->due_ns[e->head] : limit);
	}
}

static struct eng_io *null_event(struct engine *e, unsigned i)
{
	return i < e->nready ? e->ready[i] : NULL;
}

static unsigned null_pending(const struct engine *e)
{
	return e->nqueued;
}

const struct engine_ops engine_null_ops = {
	.name = "null",
	.summary = "no I/O: measures the scheduler (--null-latency T per I/O)",
	.flags = ENGINE_F_NO_IO,
	.open = null_open,
	.close = null_close,
	.queue = null_queue,
	.commit = null_commit,
	.getevents = null_getevents,
	.event = null_event,
	.pending = null_pending,
};
