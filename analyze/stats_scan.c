/*
 * stats_scan.c — one pass over a report's rows, from any source
 * (stats_int.h), batch by batch: nothing per I/O is kept.
 *
 * The pass runs as two threads when the trace is large: a reader fills
 * one of two batches from the source (decoding SQLite rows or trace
 * blocks: about half of a report's CPU time) while the caller's fn works
 * on the other. Memory: two batches of SCAN_BATCH rows, whatever the
 * trace's size.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats_int.h"

#define SCAN_BATCH 8192
#define SCAN_THREADED_FROM 65536

struct scan_pipe {
	struct st_source *src;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct st_row *batch[2];
	size_t len[2];
	int full[2];
	int done;    /* the reader has finished; rc holds how */
	int stop;    /* the consumer gave up */
	long rc;     /* 0 when every row was read, else the source's error */
	struct bpt_error err;
	uint64_t got;
};

static void *reader(void *arg)
{
	struct scan_pipe *p = arg;
	long n = 1;

	for (unsigned b = 0; n > 0; b ^= 1) {
		pthread_mutex_lock(&p->lock);
		while (p->full[b] && !p->stop)
			pthread_cond_wait(&p->changed, &p->lock);
		pthread_mutex_unlock(&p->lock);
		if (p->stop)
			break;
		n = p->src->ops->scan_fill(p->src, p->batch[b], SCAN_BATCH, &p->err);
		pthread_mutex_lock(&p->lock);
		p->len[b] = n > 0 ? (size_t)n : 0;
		p->full[b] = n > 0;
		p->got += p->len[b];
		if (n < SCAN_BATCH) { /* a short batch is the last */
			p->done = 1;
			p->rc = n < 0 ? n : 0;
			n = 0;
		}
		pthread_cond_broadcast(&p->changed);
		pthread_mutex_unlock(&p->lock);
	}
	return NULL;
}

static void show(struct st_source *src, int pass, uint64_t done, uint64_t n)
{
	if (src->progress)
		progress_update(src->progress, done + (uint64_t)(pass - 1) * n, n * 2);
}

/* Run fn over the rows through the reader thread; fn's first non-zero
 * return, or 0. p->rc and p->got tell how reading ended. */
static int scan_threaded(struct scan_pipe *p, int pass, uint64_t n,
			 int (*fn)(void *ctx, const struct st_row *r), void *ctx)
{
	pthread_t thread;
	uint64_t seen = 0;
	int frc = 0;

	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->changed, NULL);
	if (pthread_create(&thread, NULL, reader, p)) {
		pthread_mutex_destroy(&p->lock);
		pthread_cond_destroy(&p->changed);
		return -EAGAIN;
	}
	for (unsigned b = 0;; b ^= 1) {
		pthread_mutex_lock(&p->lock);
		while (!p->full[b] && !p->done)
			pthread_cond_wait(&p->changed, &p->lock);
		if (!p->full[b]) { /* done, and this batch was never filled */
			pthread_mutex_unlock(&p->lock);
			break;
		}
		pthread_mutex_unlock(&p->lock);
		for (size_t i = 0; i < p->len[b] && !frc; i++)
			if (st_row_kept(p->src, &p->batch[b][i]))
				frc = fn(ctx, &p->batch[b][i]);
		seen += p->len[b];
		show(p->src, pass, seen, n);
		pthread_mutex_lock(&p->lock);
		p->full[b] = 0;
		if (frc)
			p->stop = 1;
		pthread_cond_broadcast(&p->changed);
		pthread_mutex_unlock(&p->lock);
		if (frc)
			break;
	}
	pthread_join(thread, NULL);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->changed);
	return frc;
}

int stats_scan(struct st_source *src, uint64_t n, int pass,
	       int (*fn)(void *ctx, const struct st_row *r), void *ctx, struct bpt_error *err)
{
	struct scan_pipe p = { .src = src };
	struct st_row *mem = NULL;
	int frc = -EAGAIN, rc;

	if ((rc = src->ops->scan_begin(src, err)))
		return rc;
	if (n >= SCAN_THREADED_FROM && (mem = malloc(2 * SCAN_BATCH * sizeof(*mem)))) {
		p.batch[0] = mem;
		p.batch[1] = mem + SCAN_BATCH;
		frc = scan_threaded(&p, pass, n, fn, ctx);
	}
	if (frc == -EAGAIN) { /* small, or no thread: a batch at a time here */
		struct st_row rows[64];
		long got;

		frc = 0;
		do {
			got = src->ops->scan_fill(src, rows, 64, &p.err);
			for (long i = 0; i < got && !frc; i++)
				if (st_row_kept(src, &rows[i]))
					frc = fn(ctx, &rows[i]);
			p.got += got > 0 ? (uint64_t)got : 0;
		} while (!frc && got == 64); /* a short batch is the last */
		p.rc = frc || got > 0 ? 0 : got;
	}
	free(mem);
	src->ops->scan_end(src);
	if (frc)
		return bpt_error_set(err, frc, "%s: %s", src->name,
			       frc == -ENOMEM ? "out of memory" : "the rows changed while read");
	if (p.rc < 0) {
		*err = p.err;
		return (int)p.rc;
	}
	if (p.got != n)
		return bpt_error_set(err, -EIO, "%s: %llu I/Os expected, %llu read",
			       src->name, (unsigned long long)n, (unsigned long long)p.got);
	return 0;
}
