/*
 * result_thread.c — the results' own thread (result_thread.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "result_thread.h"

/* How long the thread sleeps when the ring is empty, and the issuer when
 * it is full. */
#define IDLE_NS 200000L
#define FULL_NS 20000L

struct result_qslot {
	struct rp_result res;
	struct rp_io io;
};

struct result_thread {
	struct result_qslot *q;
	uint64_t mask;
	_Atomic uint64_t head;   /* next slot the issuer fills */
	_Atomic uint64_t tail;   /* next slot the thread reads */
	_Atomic int stop;
	uint64_t waits;          /* issuer's */
	pthread_t thread;
	void (*consume)(void *ctx, const struct rp_result *r);
	void *ctx;
};

static void nap(long ns)
{
	struct timespec ts = { .tv_nsec = ns };

	nanosleep(&ts, NULL);
}

static void *drain(void *arg)
{
	struct result_thread *t = arg;

	for (;;) {
		uint64_t tail = atomic_load_explicit(&t->tail, memory_order_relaxed);
		uint64_t head = atomic_load_explicit(&t->head, memory_order_acquire);

		if (tail == head) {
			if (atomic_load_explicit(&t->stop, memory_order_acquire) &&
			    atomic_load_explicit(&t->head, memory_order_acquire) == tail)
				return NULL;
			nap(IDLE_NS);
			continue;
		}
		for (; tail != head; tail++) {
			struct result_qslot *s = &t->q[tail & t->mask];

			s->res.io = &s->io;
			t->consume(t->ctx, &s->res);
			atomic_store_explicit(&t->tail, tail + 1, memory_order_release);
		}
	}
}

int result_thread_start(struct result_thread **out, uint64_t capacity,
			void (*consume)(void *ctx, const struct rp_result *r), void *ctx)
{
	struct result_thread *t = calloc(1, sizeof(*t));
	uint64_t cap = 1;

	*out = NULL;
	while (cap < capacity)
		cap <<= 1;
	if (!t || !(t->q = calloc(cap, sizeof(*t->q)))) {
		free(t);
		return -ENOMEM;
	}
	t->mask = cap - 1;
	t->consume = consume;
	t->ctx = ctx;
	if (pthread_create(&t->thread, NULL, drain, t)) {
		free(t->q);
		free(t);
		return -EAGAIN;
	}
	*out = t;
	return 0;
}

void result_thread_push(struct result_thread *t, const struct rp_result *r)
{
	uint64_t head = atomic_load_explicit(&t->head, memory_order_relaxed);
	struct result_qslot *s;

	while (head - atomic_load_explicit(&t->tail, memory_order_acquire) > t->mask) {
		t->waits++;
		nap(FULL_NS);
	}
	s = &t->q[head & t->mask];
	s->res = *r;
	s->io = *r->io;
	atomic_store_explicit(&t->head, head + 1, memory_order_release);
}

void result_thread_stop(struct result_thread *t)
{
	if (!t)
		return;
	atomic_store_explicit(&t->stop, 1, memory_order_release);
	pthread_join(t->thread, NULL);
	free(t->q);
	free(t);
}

uint64_t result_thread_waits(const struct result_thread *t)
{
	return t->waits;
}
