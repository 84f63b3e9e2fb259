/*
 * minheap.c — the replay's growable heap of (key, value) pairs
 * (minheap.h), over common/heap.h's one heap.
 */
#include <errno.h>
#include <stdlib.h>

#include "heap.h"
#include "minheap.h"

static inline int item_before(const void *ctx, const struct minheap_item *a,
			      const struct minheap_item *b)
{
	(void)ctx;
	return a->key < b->key;
}

HEAP_DEFINE(items, struct minheap_item, item_before)

int minheap_push(struct minheap *h, uint64_t key, uint64_t val)
{
	if (h->n == h->cap) {
		uint64_t ncap = h->cap ? h->cap * 2 : 256;
		struct minheap_item *p = realloc(h->v, ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		h->v = p;
		h->cap = ncap;
	}
	items_push(h->v, h->n++, (struct minheap_item){ .key = key, .val = val }, NULL);
	return 0;
}

void minheap_pop(struct minheap *h)
{
	items_pop(h->v, h->n--, NULL);
}

void minheap_free(struct minheap *h)
{
	free(h->v);
	h->v = NULL;
	h->n = h->cap = 0;
}
