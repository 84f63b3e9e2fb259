/*
 * result_thread.c — the results' own thread (result_thread.h).
 *
 * The thread sleeps on a futex while fewer than a batch of results wait:
 * the issuer wakes it when a batch is there (one system call per batch,
 * none per result), and a timeout wakes it when results come slowly.
 * It used to nap 200 µs at a time whatever came; at depth 1 those naps
 * took much of a replay's CPU time (bench/RESULTS.md, "measure at
 * depth 1: where the CPU goes").
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "result_thread.h"
#include "thread_slice.h"

/* How long the issuer naps when the ring is full, and the longest the
 * thread sleeps while fewer than a batch of results wait. */
#define FULL_NS 20000L
#define IDLE_NS 20000000L

struct result_qslot {
	struct rp_result res;
	struct rp_io io;
};

struct result_thread {
	struct result_qslot *q;
	uint64_t mask;
	uint64_t batch;          /* results that make the issuer wake the thread */
	_Atomic uint64_t head;   /* next slot the issuer fills */
	_Atomic uint64_t tail;   /* next slot the thread reads */
	_Atomic int stop;
	_Atomic uint32_t sleeping; /* the futex word: 1 while the thread sleeps */
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

/* Wake the thread if it sleeps: only the caller that turns `sleeping`
 * from 1 to 0 makes the system call. */
static void wake(struct result_thread *t)
{
	if (atomic_load(&t->sleeping) && atomic_exchange(&t->sleeping, 0))
		syscall(SYS_futex, &t->sleeping, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Sleep until the issuer or result_thread_stop wakes us, or the timeout.
 * `sleeping` is set before the ring is looked at again, and the issuer
 * stores head before it looks at `sleeping` (both sequentially
 * consistent), so a batch pushed meanwhile is either seen here or wakes
 * us: FUTEX_WAIT returns at once when the word is no longer 1. */
static void sleep_for_batch(struct result_thread *t)
{
	struct timespec ts = { .tv_nsec = IDLE_NS };

	atomic_store(&t->sleeping, 1);
	if (atomic_load(&t->head) - atomic_load(&t->tail) < t->batch && !atomic_load(&t->stop))
		syscall(SYS_futex, &t->sleeping, FUTEX_WAIT_PRIVATE, 1, &ts, NULL, 0);
	atomic_store(&t->sleeping, 0);
}

static void *drain(void *arg)
{
	struct result_thread *t = arg;
	uint64_t tail = 0;

	/* a batch of results is many microseconds of work: any thread of the
	 * I/O path that wakes on this CPU meanwhile (a loop device's worker,
	 * the block softirq, the issuer) runs first instead of after it;
	 * at depth 1 on a RAM-backed loop device the batches had stalled the
	 * I/O chain (bench/RESULTS.md, "measure at depth 1 against fio:
	 * where the 5% went") */
	thread_slice_long();

	for (;;) {
		/* stop is read first: once it is set, head is final */
		int stop = atomic_load(&t->stop);
		uint64_t head = atomic_load(&t->head);

		for (; tail != head; tail++) {
			struct result_qslot *s = &t->q[tail & t->mask];

			s->res.io = &s->io;
			t->consume(t->ctx, &s->res);
			atomic_store_explicit(&t->tail, tail + 1, memory_order_release);
		}
		if (stop)
			return NULL;
		/* fewer than a batch waiting: sleep rather than take them one
		 * by one as they come */
		if (atomic_load(&t->head) - tail < t->batch)
			sleep_for_batch(t);
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
	/* a quarter of the ring: the thread has three quarters' time to
	 * wake before the issuer waits for room */
	t->batch = cap / 4 ? cap / 4 : 1;
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
		wake(t);
		nap(FULL_NS);
	}
	s = &t->q[head & t->mask];
	s->res = *r;
	s->io = *r->io;
	atomic_store(&t->head, head + 1);
	if (head + 1 - atomic_load_explicit(&t->tail, memory_order_relaxed) >= t->batch)
		wake(t);
}

void result_thread_stop(struct result_thread *t)
{
	if (!t)
		return;
	atomic_store(&t->stop, 1);
	wake(t);
	pthread_join(t->thread, NULL);
	free(t->q);
	free(t);
}

uint64_t result_thread_waits(const struct result_thread *t)
{
	return t->waits;
}
