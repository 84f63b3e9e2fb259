/*
 * minheap.c — binary min-heap (minheap.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "minheap.h"

int minheap_push(struct minheap *h, uint64_t key, uint64_t val)
{
	uint64_t i;

	if (h->n == h->cap) {
		uint64_t ncap = h->cap ? h->cap * 2 : 256;
		struct minheap_item *p = realloc(h->v, ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		h->v = p;
		h->cap = ncap;
	}
	i = h->n++;
	while (i) {
		uint64_t up = (i - 1) / 2;

		if (h->v[up].key <= key)
			break;
		h->v[i] = h->v[up];
		i = up;
	}
	h->v[i] = (struct minheap_item){ .key = key, .val = val };
	return 0;
}

void minheap_pop(struct minheap *h)
{
	struct minheap_item last = h->v[--h->n];
	uint64_t i = 0;

	for (;;) {
		uint64_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->v[c + 1].key < h->v[c].key)
			c++;
		if (last.key <= h->v[c].key)
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = last;
}

void minheap_free(struct minheap *h)
{
	free(h->v);
	h->v = NULL;
	h->n = h->cap = 0;
}
