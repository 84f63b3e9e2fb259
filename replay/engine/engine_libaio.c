/*
 * engine_libaio.c — the Linux AIO engine: reads, writes (FUA as
 * RWF_DSYNC) and flushes (IOCB_CMD_FDSYNC) go through io_submit on
 * O_DIRECT descriptors; discards and write-zeroes, which Linux AIO cannot
 * do, run on one helper thread (engine_libaio_discard.c) that posts its
 * completions back, so the issuing thread never blocks on them.
 *
 * libaio returns negative errnos and leaves errno alone; io_submit may
 * take fewer I/Os than offered or say -EAGAIN when the ring is full, in
 * which case commit() reports what it took and the caller reaps first.
 *
 * Completions are taken straight from the completion ring the kernel
 * shares with the process (the io_context_t is its address; the layout is
 * struct aio_ring in the kernel's fs/aio.c, stable since 2.6): when events
 * are there, no system call is made; io_getevents only sleeps for more.
 */
#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>

#include "bpt.h"
#include "cliutil.h"
#include "engine.h"
#include "engine_libaio_discard.h"

_Static_assert(sizeof(struct iocb) <= sizeof(((struct eng_io *)0)->engine_priv),
	       "an iocb must fit in eng_io.engine_priv");

/* The head of the completion ring mapped at the io_context_t's address. */
struct aio_ring {
	unsigned id, nr, head, tail;
	unsigned magic, compat_features, incompat_features, header_length;
	struct io_event events[];
};
#define AIO_RING_MAGIC 0xa10a10a1u

struct engine {
	io_context_t ctx;
	struct aio_ring *ring;      /* NULL: always use io_getevents */
	unsigned depth;
	unsigned inflight;          /* submitted to the kernel or the helper */
	struct iocb **queued;       /* waiting for commit (kernel I/Os) */
	unsigned nqueued;
	struct eng_io **hqueued;    /* waiting for commit (helper I/Os) */
	unsigned nhqueued;
	struct io_event *events;
	struct eng_io **ready;
	unsigned nready;
	struct discard_helper h;    /* discards and write-zeroes */
};

static struct iocb *iocb_of(struct eng_io *io)
{
	return (struct iocb *)io->engine_priv;
}

static void aio_close(struct engine *e)
{
	if (!e)
		return;
	if (e->ctx) {
		/* reap what is still in the kernel so its buffers can go */
		while (e->inflight > e->h.outstanding) {
			int n = io_getevents(e->ctx, 1, e->depth, e->events, NULL);

			if (n < 0 && n != -EINTR)
				break;
			if (n > 0)
				e->inflight -= (unsigned)n;
		}
		io_destroy(e->ctx);
	}
	discard_helper_free(&e->h);
	free(e->queued);
	free(e->hqueued);
	free(e->events);
	free(e->ready);
	free(e);
}

static int aio_open(struct engine **out, const struct engine_opts *opts)
{
	struct engine *e = calloc(1, sizeof(*e));
	int rc;

	if (!e)
		return -ENOMEM;
	e->depth = opts->depth ? opts->depth : 1;
	e->queued = calloc(e->depth, sizeof(*e->queued));
	e->hqueued = calloc(e->depth, sizeof(*e->hqueued));
	e->events = calloc(e->depth, sizeof(*e->events));
	e->ready = calloc(e->depth, sizeof(*e->ready));
	if (discard_helper_alloc(&e->h, e->depth) || !e->queued || !e->hqueued ||
	    !e->events || !e->ready) {
		aio_close(e);
		return -ENOMEM;
	}
	rc = io_setup((int)e->depth, &e->ctx);
	if (rc < 0) {
		e->ctx = 0;
		aio_close(e);
		return rc;
	}
	e->ring = (struct aio_ring *)e->ctx;
	if (e->ring->magic != AIO_RING_MAGIC || e->ring->incompat_features)
		e->ring = NULL; /* not the layout we know */
	/* Empty calls now, so the first real I/O does not pay for resolving
	 * the symbols and the first trip through the AIO code. */
	struct timespec zero = { 0, 0 };
	io_submit(e->ctx, 0, e->queued);
	io_getevents(e->ctx, 0, 1, e->events, &zero);
	rc = discard_helper_start(&e->h, opts->worker_cpus);
	if (rc) {
		aio_close(e);
		return rc;
	}
	*out = e;
	return 0;
}

static enum eng_status aio_queue(struct engine *e, struct eng_io *io)
{
	struct iocb *cb = iocb_of(io);

	if (e->inflight + e->nqueued + e->nhqueued >= e->depth)
		return ENG_BUSY;
	switch (io->op) {
	case BPT_OP_READ:
		io_prep_pread(cb, io->fd, io->buf, io->len, (long long)io->offset);
		break;
	case BPT_OP_WRITE:
		io_prep_pwrite(cb, io->fd, io->buf, io->len, (long long)io->offset);
		if (io->flags & BPT_F_FUA)
			cb->aio_rw_flags = RWF_DSYNC;
		break;
	case BPT_OP_FLUSH:
		io_prep_fdsync(cb, io->fd);
		break;
	case BPT_OP_DISCARD:
	case BPT_OP_WRITE_ZEROES:
		e->hqueued[e->nhqueued++] = io;
		return ENG_QUEUED;
	default:
		io->result = -EOPNOTSUPP;
		return ENG_COMPLETED;
	}
	cb->data = io;
	e->queued[e->nqueued++] = cb;
	return ENG_QUEUED;
}

/* An I/O the kernel refused at submission: complete it with `err`. */
static void complete_now(struct engine *e, struct iocb *cb, int err)
{
	struct eng_io *io = cb->data;

	io->result = err;
	discard_helper_post(&e->h, io); /* picked up by the next getevents */
	e->inflight++;
}

static int aio_commit(struct engine *e)
{
	int total = 0;

	if (e->nhqueued) {
		discard_helper_submit(&e->h, e->hqueued, e->nhqueued);
		e->inflight += e->nhqueued;
		total += (int)e->nhqueued;
		e->nhqueued = 0;
	}
	while (e->nqueued) {
		int n = io_submit(e->ctx, (long)e->nqueued, e->queued);

		if (n == -EAGAIN || n == 0)
			break; /* ring full: the caller reaps and commits again */
		if (n == -EINTR)
			continue;
		if (n < 0) {
			/* the first iocb is bad (EINVAL, EBADF...): fail it alone */
			complete_now(e, e->queued[0], n);
			n = 1;
		} else {
			e->inflight += (unsigned)n;
		}
		total += n;
		e->nqueued -= (unsigned)n;
		memmove(e->queued, e->queued + n, e->nqueued * sizeof(*e->queued));
	}
	return total;
}

/* Move the helper's completions to the ready list; returns how many. */
static unsigned take_helper_done(struct engine *e, unsigned max)
{
	unsigned n = discard_helper_take(&e->h, e->ready, &e->nready, max);

	e->inflight -= n;
	return n;
}

/* Move up to `max` completions from the shared ring to the ready list,
 * without a system call; returns how many. The kernel publishes tail
 * after writing the events (acquire here) and reads head to know which
 * slots are free again (release after copying them out). */
static unsigned ring_reap(struct engine *e, unsigned max)
{
	struct aio_ring *r = e->ring;
	unsigned head, tail, n = 0;

	if (!r)
		return 0;
	head = r->head;
	tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	while (head != tail && n < max) {
		struct io_event *ev = &r->events[head];
		struct eng_io *io = ev->data;

		io->result = (int64_t)(long)ev->res;
		e->ready[e->nready++] = io;
		head = head + 1 >= r->nr ? 0 : head + 1;
		n++;
	}
	__atomic_store_n(&r->head, head, __ATOMIC_RELEASE);
	e->inflight -= n;
	return n;
}

static int aio_getevents(struct engine *e, unsigned min, unsigned max,
			 uint64_t timeout_ns)
{
	uint64_t deadline = timeout_ns == UINT64_MAX ? UINT64_MAX : now_mono_ns() + timeout_ns;

	if (max > e->depth)
		max = e->depth;
	if (min > e->inflight)
		min = e->inflight;
	if (min > max)
		min = max;
	e->nready = 0;
	for (;;) {
		/* h.outstanding is only changed by this thread */
		unsigned helper_busy = e->h.outstanding, kernel_inflight;
		uint64_t wait_ns = UINT64_MAX, now = 0;
		struct timespec ts, *tsp = NULL;
		int n;

		if (helper_busy) {
			take_helper_done(e, max);
			helper_busy = e->h.outstanding;
		}
		kernel_inflight = e->inflight - helper_busy;
		if (kernel_inflight && e->nready < max) {
			kernel_inflight -= ring_reap(e, max - e->nready);
			if (e->nready >= min && (e->nready || (timeout_ns == 0 && e->ring)))
				return (int)e->nready; /* a poll needs no system call */
		}
		if (deadline != UINT64_MAX) {
			now = now_mono_ns();
			wait_ns = deadline > now ? deadline - now : 0;
		}
		/* The helper cannot wake io_getevents: poll it in short slices. */
		if (helper_busy && wait_ns > 100000)
			wait_ns = 100000;
		if (e->nready >= min && e->nready)
			wait_ns = 0; /* only take what is already there */
		if (!kernel_inflight) {
			if (e->nready >= min || !helper_busy || (deadline != UINT64_MAX && now >= deadline))
				return (int)e->nready;
			struct timespec nap = timespec_of_ns(wait_ns);
			nanosleep(&nap, NULL);
			continue;
		}
		if (wait_ns != UINT64_MAX) {
			ts = timespec_of_ns(wait_ns);
			tsp = &ts;
		}
		unsigned want = min > e->nready ? min - e->nready : 0;
		if (helper_busy)
			want = want ? 1 : 0;
		n = io_getevents(e->ctx, want, max - e->nready, e->events, tsp);
		if (n < 0 && n != -EINTR)
			return n;
		if (n == -EINTR)
			return (int)e->nready; /* a signal: let the caller look */
		for (int i = 0; i < n; i++) {
			struct eng_io *io = e->events[i].data;

			io->result = (int64_t)(long)e->events[i].res;
			e->ready[e->nready++] = io;
		}
		e->inflight -= (unsigned)n;
		if (e->nready >= min || (deadline != UINT64_MAX && now_mono_ns() >= deadline))
			return (int)e->nready;
	}
}

static struct eng_io *aio_event(struct engine *e, unsigned i)
{
	return i < e->nready ? e->ready[i] : NULL;
}

static unsigned aio_pending(const struct engine *e)
{
	return e->nqueued + e->nhqueued;
}

const struct engine_ops engine_libaio_ops = {
	.name = "libaio",
	.summary = "Linux native AIO (io_submit), the default",
	.open = aio_open,
	.close = aio_close,
	.queue = aio_queue,
	.commit = aio_commit,
	.getevents = aio_getevents,
	.event = aio_event,
	.pending = aio_pending,
};
