/*
 * minheap.h — a growable binary min-heap of (key, value) pairs: the
 * recorded completion times of the I/Os a replay still has to account
 * for (load.c's in-flight count, causal.c's dependencies). It holds what
 * is in flight, so it follows a trace's concurrency, not its length.
 */
#ifndef BLKPEAK_MINHEAP_H
#define BLKPEAK_MINHEAP_H

#include <stdint.h>

struct minheap_item {
	uint64_t key;
	uint64_t val;
};

struct minheap {
	struct minheap_item *v;
	uint64_t n, cap;
};

/* 0, or -ENOMEM (the heap is unchanged). */
int minheap_push(struct minheap *h, uint64_t key, uint64_t val);
/* The smallest item; the heap must not be empty. */
static inline const struct minheap_item *minheap_top(const struct minheap *h)
{
	return &h->v[0];
}
/* Remove the smallest item; the heap must not be empty. */
void minheap_pop(struct minheap *h);
void minheap_free(struct minheap *h);

#endif
