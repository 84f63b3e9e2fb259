/*
 * window.c — the bounded reorder window (source_int.h, struct ff_window).
 * Records that arrive in time order go to a FIFO; one that arrives
 * before the FIFO's last goes to a min-heap. The earliest of the two
 * heads leaves first, so a sorted input costs O(1) per record and an
 * unsorted one O(log window). Both grow on demand up to `cap` records.
 * The heap orders small keys; its records wait in a slab (a completion-
 * ordered input sends most records through the heap, and sifting whole
 * records cost a quarter of reading one).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "source_int.h"

int ff_window_init(struct ff_window *w, uint32_t cap)
{
	memset(w, 0, sizeof(*w));
	w->cap = cap ? cap : 1;
	return 0;
}

void ff_window_free(struct ff_window *w)
{
	free(w->ring);
	free(w->heap);
	free(w->slab);
	free(w->free_slot);
	memset(w, 0, sizeof(*w));
}

void ff_window_clear(struct ff_window *w)
{
	w->ring_head = w->ring_len = w->heap_len = 0;
	w->nfree = 0;
	for (uint32_t i = w->heap_cap; i-- > 0;)
		w->free_slot[w->nfree++] = i;
	w->seq = 0;
}

static int key_before(const struct ff_hkey *a, const struct ff_hkey *b)
{
	return a->issue_ns < b->issue_ns || (a->issue_ns == b->issue_ns && a->seq < b->seq);
}

static int grow_ring(struct ff_window *w)
{
	uint32_t n = w->ring_cap ? w->ring_cap * 2 : 1024;
	struct ff_held *p;

	/* a power of two (indexes are masked), at most the first one >= cap */
	if (w->ring_cap && w->ring_cap >= w->cap)
		return 0;
	p = malloc(sizeof(*p) * n);
	if (!p)
		return -ENOMEM;
	for (uint32_t i = 0; i < w->ring_len; i++)
		p[i] = w->ring[(w->ring_head + i) & (w->ring_cap - 1)];
	free(w->ring);
	w->ring = p;
	w->ring_cap = n;
	w->ring_head = 0;
	return 0;
}

/* Grow the heap, its slab and the free slots to n entries: 0 or -ENOMEM
 * (what was grown already stays usable). */
static int heap_grow(struct ff_window *w, uint32_t n)
{
	struct ff_hkey *h = realloc(w->heap, sizeof(*h) * n);

	if (!h)
		return -ENOMEM;
	w->heap = h;
	struct bpt_record *r = realloc(w->slab, sizeof(*r) * n);

	if (!r)
		return -ENOMEM;
	w->slab = r;
	uint32_t *f = realloc(w->free_slot, sizeof(*f) * n);

	if (!f)
		return -ENOMEM;
	w->free_slot = f;
	for (uint32_t i = n; i-- > w->heap_cap;)
		w->free_slot[w->nfree++] = i;
	w->heap_cap = n;
	return 0;
}

static int heap_push(struct ff_window *w, const struct bpt_record *rec, uint64_t seq)
{
	if (w->heap_len == w->heap_cap) {
		uint32_t n = w->heap_cap ? w->heap_cap * 2 : 1024;

		if (n > w->cap)
			n = w->cap;
		if (heap_grow(w, n))
			return -ENOMEM;
	}
	struct ff_hkey k = { rec->issue_ns, seq, w->free_slot[--w->nfree] };
	uint32_t i = w->heap_len++;

	w->slab[k.slot] = *rec;
	while (i) {
		uint32_t parent = (i - 1) / 2;

		if (!key_before(&k, &w->heap[parent]))
			break;
		w->heap[i] = w->heap[parent];
		i = parent;
	}
	w->heap[i] = k;
	return 0;
}

static void heap_pop(struct ff_window *w, struct bpt_record *out)
{
	struct ff_hkey last = w->heap[--w->heap_len];
	uint32_t i = 0, n = w->heap_len, slot = w->heap[0].slot;

	*out = w->slab[slot];
	w->free_slot[w->nfree++] = slot;
	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && key_before(&w->heap[c + 1], &w->heap[c]))
			c++;
		if (!key_before(&w->heap[c], &last))
			break;
		w->heap[i] = w->heap[c];
		i = c;
	}
	if (n)
		w->heap[i] = last;
}

int ff_window_push(struct ff_window *w, const struct bpt_record *rec)
{
	uint64_t seq = w->seq++;

	if (w->ring_len &&
	    rec->issue_ns < w->ring[(w->ring_head + w->ring_len - 1) & (w->ring_cap - 1)].rec.issue_ns)
		return heap_push(w, rec, seq);
	if (w->ring_len == w->ring_cap) {
		int rc = grow_ring(w);

		if (rc)
			return rc;
		if (w->ring_len == w->ring_cap) /* at cap: the heap takes it */
			return heap_push(w, rec, seq);
	}
	struct ff_held *h = &w->ring[(w->ring_head + w->ring_len) & (w->ring_cap - 1)];

	h->rec = *rec;
	h->seq = seq;
	w->ring_len++;
	return 0;
}

int ff_window_pop(struct ff_window *w, struct bpt_record *rec)
{
	if (!w->ring_len && !w->heap_len)
		return 0;
	if (w->ring_len) {
		const struct ff_held *h = &w->ring[w->ring_head];

		if (!w->heap_len || h->rec.issue_ns < w->heap[0].issue_ns ||
		    (h->rec.issue_ns == w->heap[0].issue_ns && h->seq < w->heap[0].seq)) {
			*rec = h->rec;
			w->ring_head = (w->ring_head + 1) & (w->ring_cap - 1);
			w->ring_len--;
			return 1;
		}
	}
	heap_pop(w, rec);
	return 1;
}

int ff_window_peek(const struct ff_window *w, uint64_t *issue_ns)
{
	uint64_t t = UINT64_MAX;

	if (!w->ring_len && !w->heap_len)
		return 0;
	if (w->ring_len)
		t = w->ring[w->ring_head].rec.issue_ns;
	if (w->heap_len && w->heap[0].issue_ns < t)
		t = w->heap[0].issue_ns;
	*issue_ns = t;
	return 1;
}

/* ------------------------------------------------ the scan's key window */

int ff_keywin_init(struct ff_keywin *w, uint32_t cap)
{
	memset(w, 0, sizeof(*w));
	w->cap = cap ? cap : 1;
	return 0;
}

void ff_keywin_free(struct ff_keywin *w)
{
	free(w->ring);
	free(w->heap);
	memset(w, 0, sizeof(*w));
}

static int key_heap_push(struct ff_keywin *w, uint64_t key)
{
	if (w->heap_len == w->heap_cap) {
		uint32_t n = w->heap_cap ? w->heap_cap * 2 : 1024;
		uint64_t *p;

		if (n > w->cap)
			n = w->cap;
		p = realloc(w->heap, sizeof(*p) * n);
		if (!p)
			return -ENOMEM;
		w->heap = p;
		w->heap_cap = n;
	}
	uint32_t i = w->heap_len++;

	while (i && key < w->heap[(i - 1) / 2]) {
		w->heap[i] = w->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	w->heap[i] = key;
	return 0;
}

static uint64_t key_heap_pop(struct ff_keywin *w)
{
	uint64_t top = w->heap[0], last = w->heap[--w->heap_len];
	uint32_t i = 0, n = w->heap_len;

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && w->heap[c + 1] < w->heap[c])
			c++;
		if (w->heap[c] >= last)
			break;
		w->heap[i] = w->heap[c];
		i = c;
	}
	if (n)
		w->heap[i] = last;
	return top;
}

int ff_keywin_push(struct ff_keywin *w, uint64_t key)
{
	if (w->ring_len && key < w->ring[(w->ring_head + w->ring_len - 1) & (w->ring_cap - 1)])
		return key_heap_push(w, key);
	if (w->ring_len == w->ring_cap) {
		if (w->ring_cap >= w->cap)
			return key_heap_push(w, key);
		uint32_t n = w->ring_cap ? w->ring_cap * 2 : 1024;
		uint64_t *p = malloc(sizeof(*p) * n);

		if (!p)
			return -ENOMEM;
		for (uint32_t i = 0; i < w->ring_len; i++)
			p[i] = w->ring[(w->ring_head + i) & (w->ring_cap - 1)];
		free(w->ring);
		w->ring = p;
		w->ring_cap = n;
		w->ring_head = 0;
	}
	w->ring[(w->ring_head + w->ring_len) & (w->ring_cap - 1)] = key;
	w->ring_len++;
	return 0;
}

int ff_keywin_pop(struct ff_keywin *w, uint64_t *key)
{
	if (!w->ring_len && !w->heap_len)
		return 0;
	if (w->ring_len && (!w->heap_len || w->ring[w->ring_head] <= w->heap[0])) {
		*key = w->ring[w->ring_head];
		w->ring_head = (w->ring_head + 1) & (w->ring_cap - 1);
		w->ring_len--;
	} else {
		*key = key_heap_pop(w);
	}
	return 1;
}
