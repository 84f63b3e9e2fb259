/*
 * engine_libaio_discard.c — the libaio engine's helper thread for
 * discards and write-zeroes (see engine_libaio_discard.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/ioctl.h>

#include "bpt.h"
#include "engine_libaio_discard.h"

/* Run one discard or write-zeroes synchronously; bytes done or -errno. */
static int64_t helper_do(const struct eng_io *io)
{
	uint64_t range[2] = { io->offset, io->len };
	int rc;

	if (io->is_blkdev)
		rc = ioctl(io->fd, io->op == BPT_OP_DISCARD ? BLKDISCARD : BLKZEROOUT, range);
	else
		rc = fallocate(io->fd, io->op == BPT_OP_DISCARD ?
				       FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE :
				       FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
			       (off_t)io->offset, (off_t)io->len);
	return rc < 0 ? -errno : (int64_t)io->len;
}

static void *helper_main(void *arg)
{
	struct discard_helper *h = arg;

	pthread_mutex_lock(&h->lock);
	for (;;) {
		while (!h->ntodo && !h->stop)
			pthread_cond_wait(&h->wake, &h->lock);
		if (!h->ntodo && h->stop)
			break;
		struct eng_io *io = h->todo[h->todo_head];

		h->todo_head = (h->todo_head + 1) % h->cap;
		h->ntodo--;
		pthread_mutex_unlock(&h->lock);
		io->result = helper_do(io);
		pthread_mutex_lock(&h->lock);
		h->done[h->ndone++] = io;
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

int discard_helper_alloc(struct discard_helper *h, unsigned cap)
{
	h->cap = cap;
	h->todo = calloc(cap, sizeof(*h->todo));
	h->done = calloc(cap, sizeof(*h->done));
	return h->todo && h->done ? 0 : -ENOMEM;
}

int discard_helper_start(struct discard_helper *h, const cpu_set_t *cpus)
{
	struct sched_param sp = { 0 };
	pthread_attr_t attr;
	int rc;

	/* Not the issuer's class or CPU, which a new thread would inherit:
	 * a SCHED_FIFO helper on the issuer's CPU would wait behind it. */
	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
	pthread_attr_setschedparam(&attr, &sp);
	if (cpus)
		pthread_attr_setaffinity_np(&attr, sizeof(*cpus), cpus);
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->wake, NULL);
	rc = -pthread_create(&h->thread, &attr, helper_main, h);
	pthread_attr_destroy(&attr);
	if (rc) {
		pthread_mutex_destroy(&h->lock);
		pthread_cond_destroy(&h->wake);
		return rc;
	}
	h->started = 1;
	return 0;
}

void discard_helper_free(struct discard_helper *h)
{
	if (h->started) {
		pthread_mutex_lock(&h->lock);
		h->stop = 1;
		pthread_cond_signal(&h->wake);
		pthread_mutex_unlock(&h->lock);
		pthread_join(h->thread, NULL);
		pthread_mutex_destroy(&h->lock);
		pthread_cond_destroy(&h->wake);
		h->started = 0;
	}
	free(h->todo);
	free(h->done);
	h->todo = h->done = NULL;
}

void discard_helper_submit(struct discard_helper *h, struct eng_io *const *ios, unsigned n)
{
	pthread_mutex_lock(&h->lock);
	for (unsigned i = 0; i < n; i++) {
		h->todo[(h->todo_head + h->ntodo) % h->cap] = ios[i];
		h->ntodo++;
	}
	h->outstanding += n;
	pthread_cond_signal(&h->wake);
	pthread_mutex_unlock(&h->lock);
}

void discard_helper_post(struct discard_helper *h, struct eng_io *io)
{
	pthread_mutex_lock(&h->lock);
	h->done[h->ndone++] = io; /* picked up by the next take */
	h->outstanding++;
	pthread_mutex_unlock(&h->lock);
}

unsigned discard_helper_take(struct discard_helper *h, struct eng_io **ready,
			     unsigned *nready, unsigned max)
{
	unsigned n = 0;

	pthread_mutex_lock(&h->lock);
	while (h->ndone && *nready < max) {
		ready[(*nready)++] = h->done[--h->ndone];
		h->outstanding--;
		n++;
	}
	pthread_mutex_unlock(&h->lock);
	return n;
}
