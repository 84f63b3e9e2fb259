/*
 * result_thread.h — results handed from the issuing thread to a thread of
 * their own, which sums them up and writes the run file (through
 * result_order.h), so that neither compressing a block nor a write that
 * blocks on a busy filesystem ever delays an issue. The hand-over is a
 * bounded single-producer ring: the issuer copies a result in and moves
 * on; the other thread drains it. While fewer than a quarter of the ring
 * wait, the thread sleeps (at most 20 ms): the issuer wakes it when a
 * quarter is there, so a result costs no system call and the thread
 * wakes about once per batch rather than once per result. When the ring
 * is full (results come faster than they can be written) the issuer
 * waits for room: memory stays bounded.
 */
#ifndef BLKPEAK_RESULT_THREAD_H
#define BLKPEAK_RESULT_THREAD_H

#include <stdint.h>

#include "sched.h"

struct result_thread;

/* Start the thread; `consume` gets every pushed result, in push order,
 * on that thread. 0, -ENOMEM or -EAGAIN. */
int result_thread_start(struct result_thread **out, uint64_t capacity,
			void (*consume)(void *ctx, const struct rp_result *r), void *ctx);
/* Hand one result over (copied, with its I/O). */
void result_thread_push(struct result_thread *t, const struct rp_result *r);
/* Wait until every pushed result was consumed, end the thread, free it. */
void result_thread_stop(struct result_thread *t);
/* Times the issuer had to wait for room so far. */
uint64_t result_thread_waits(const struct result_thread *t);

#endif
