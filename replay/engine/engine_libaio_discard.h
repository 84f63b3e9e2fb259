/*
 * engine_libaio_discard.h — the helper thread of the libaio engine:
 * discards and write-zeroes, which Linux AIO cannot submit, run on it
 * synchronously (BLKDISCARD / BLKZEROOUT on a block device, fallocate
 * PUNCH_HOLE / ZERO_RANGE on a file) and come back as completions the
 * issuing thread takes, so that thread never blocks on them.
 *
 * Used by the issuing thread only (submit, post, take, the counters);
 * `todo` is a ring of `cap` entries the thread takes from in order;
 * `done` is a stack of `cap` entries finished I/Os are pushed on and
 * taken from (the order of completions carries no meaning).
 */
#ifndef BLKPEAK_ENGINE_LIBAIO_DISCARD_H
#define BLKPEAK_ENGINE_LIBAIO_DISCARD_H

#include <pthread.h>

#include "engine.h"

struct discard_helper {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct eng_io **todo, **done;
	unsigned todo_head, ntodo, ndone, cap;
	unsigned outstanding;  /* handed over (submit, post), not yet taken */
	int stop, started;
};

/* Room for `cap` I/Os at once; 0 or -ENOMEM. */
int discard_helper_alloc(struct discard_helper *h, unsigned cap);
/* Start the thread; 0 or a negative errno. */
/* Start the helper thread: SCHED_OTHER, and on `cpus` when not NULL
 * (off the issuer's CPU: engine_opts.worker_cpus). */
int discard_helper_start(struct discard_helper *h, const cpu_set_t *cpus);
/* Let the thread finish what it holds, join it, free everything; accepts
 * a helper that was only allocated, or not even that. */
void discard_helper_free(struct discard_helper *h);
/* Hand n discards or write-zeroes to the thread. */
void discard_helper_submit(struct discard_helper *h, struct eng_io *const *ios, unsigned n);
/* Post an I/O that is already complete (io->result set): it comes back
 * through discard_helper_take like the thread's. */
void discard_helper_post(struct discard_helper *h, struct eng_io *io);
/* Move finished I/Os to ready[*nready...] while *nready < max; returns
 * how many moved. */
unsigned discard_helper_take(struct discard_helper *h, struct eng_io **ready,
			     unsigned *nready, unsigned max);

#endif
