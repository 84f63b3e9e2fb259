/*
 * window.h — the one bounded reorder window, as typed inline functions.
 *
 * A stream that is nearly in order is put in order holding at most `cap`
 * items: an item that arrives in order (not before the last one held in
 * arrival order) goes to the tail of a FIFO ring (one copy, O(1)); one
 * that arrives early goes into the ring by insertion when it is at most
 * insert_max places from the tail (a few rows late each: cheaper than the
 * heap), else to a min-heap (heap.h). The earlier of the ring's head and
 * the heap's top leaves first (the ring's on a tie), so a sorted input
 * costs O(1) per item and an unsorted one O(log cap). Ring and heap grow
 * on demand (doubling from 1024), the ring up to the first power of two
 * >= cap (positions are masked), the heap up to cap.
 *
 * Used by convert's reading of foreign traces (formats/window.c: records
 * by issue time, and the scan's issue times alone) and by analyze's
 * report (analyze/reorder.c: rows by time, for queue depth and seeks).
 *
 * WINDOW_DEFINE(name, T, before) defines struct name and
 *
 *   name_init(w, cap, insert_max)  empty, nothing allocated (cap >= 1)
 *   name_free(w)                   free everything (a zeroed w too)
 *   name_clear(w)                  empty, memory kept
 *   name_len(w)                    items held
 *   name_push(w, x)                hold x: 0 or -ENOMEM (nothing held
 *                                  changed); the caller keeps len < cap
 *   name_first(w)                  the item pop would give, NULL if empty
 *   name_pop(w, &x)                take the first item: 1, or 0 when empty
 *
 * before(ctx, a, b) as in heap.h (ctx is NULL here). Typed and inline for
 * the reason heap.h gives: records pass through it by the million.
 */
#ifndef BLKPEAK_WINDOW_H
#define BLKPEAK_WINDOW_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"

#define WINDOW_FIRST_ALLOC 1024u

#define WINDOW_DEFINE(name, T, before)                                                  \
	HEAP_DEFINE(name##_heap, T, before)                                             \
                                                                                        \
	struct name {                                                                   \
		uint64_t cap;        /* most items held */                              \
		unsigned insert_max; /* ring insertion reaches this far back */         \
		T *ring;             /* FIFO, ring_cap (a power of two) */              \
		uint64_t ring_cap, ring_head, ring_len;                                 \
		T *heap;                                                                \
		uint64_t heap_cap, heap_len;                                            \
	};                                                                              \
                                                                                        \
	static inline HEAP_UNUSED void name##_init(struct name *w, uint64_t cap, unsigned insert_max) \
	{                                                                               \
		memset(w, 0, sizeof(*w));                                               \
		w->cap = cap ? cap : 1;                                                 \
		w->insert_max = insert_max;                                             \
	}                                                                               \
                                                                                        \
	static inline HEAP_UNUSED void name##_free(struct name *w)                      \
	{                                                                               \
		free(w->ring);                                                          \
		free(w->heap);                                                          \
		w->ring = w->heap = NULL;                                               \
		w->ring_cap = w->ring_head = w->ring_len = 0;                           \
		w->heap_cap = w->heap_len = 0;                                          \
	}                                                                               \
                                                                                        \
	static inline HEAP_UNUSED void name##_clear(struct name *w)                     \
	{                                                                               \
		w->ring_head = w->ring_len = w->heap_len = 0;                           \
	}                                                                               \
                                                                                        \
	static inline HEAP_UNUSED uint64_t name##_len(const struct name *w)             \
	{                                                                               \
		return w->ring_len + w->heap_len;                                       \
	}                                                                               \
                                                                                        \
	/* Double the ring: 0, 1 when it is at its largest already, -ENOMEM. */         \
	static HEAP_UNUSED int name##_grow_ring(struct name *w)                         \
	{                                                                               \
		uint64_t n = w->ring_cap ? w->ring_cap * 2 : WINDOW_FIRST_ALLOC;        \
		T *p;                                                                   \
                                                                                        \
		if (w->ring_cap && w->ring_cap >= w->cap)                               \
			return 1;                                                       \
		if (!(p = malloc(sizeof(*p) * n)))                                      \
			return -ENOMEM;                                                 \
		for (uint64_t i = 0; i < w->ring_len; i++)                              \
			p[i] = w->ring[(w->ring_head + i) & (w->ring_cap - 1)];         \
		free(w->ring);                                                          \
		w->ring = p;                                                            \
		w->ring_cap = n;                                                        \
		w->ring_head = 0;                                                       \
		return 0;                                                               \
	}                                                                               \
                                                                                        \
	static HEAP_UNUSED int name##_heap_add(struct name *w, T x)                     \
	{                                                                               \
		if (w->heap_len == w->heap_cap) {                                       \
			uint64_t n = w->heap_cap ? w->heap_cap * 2 : WINDOW_FIRST_ALLOC; \
			T *p;                                                           \
                                                                                        \
			if (n > w->cap)                                                 \
				n = w->cap;                                             \
			if (n <= w->heap_cap || !(p = realloc(w->heap, sizeof(*p) * n))) \
				return -ENOMEM;                                         \
			w->heap = p;                                                    \
			w->heap_cap = n;                                                \
		}                                                                       \
		name##_heap_push(w->heap, w->heap_len++, x, NULL);                      \
		return 0;                                                               \
	}                                                                               \
                                                                                        \
	/* x is before the ring's tail: into the ring within insert_max places          \
	 * of the tail (the ring has room), else into the heap. */                      \
	static HEAP_UNUSED int name##_push_early(struct name *w, T x)                   \
	{                                                                               \
		uint64_t mask = w->ring_cap - 1, at = w->ring_len, back;                \
                                                                                        \
		if (!w->insert_max || w->ring_len == w->ring_cap)                       \
			return name##_heap_add(w, x);                                   \
		for (back = 0; at > 0 && back < w->insert_max; back++, at--)            \
			if (!before(NULL, &x, &w->ring[(w->ring_head + at - 1) & mask])) \
				break;                                                  \
		if (at > 0 && back == w->insert_max)                                    \
			return name##_heap_add(w, x);                                   \
		for (uint64_t i = w->ring_len; i > at; i--)                             \
			w->ring[(w->ring_head + i) & mask] =                            \
				w->ring[(w->ring_head + i - 1) & mask];                 \
		w->ring[(w->ring_head + at) & mask] = x;                                \
		w->ring_len++;                                                          \
		return 0;                                                               \
	}                                                                               \
                                                                                        \
	static inline HEAP_UNUSED int name##_push(struct name *w, T x)                  \
	{                                                                               \
		if (w->ring_len &&                                                      \
		    before(NULL, &x,                                                    \
			   &w->ring[(w->ring_head + w->ring_len - 1) & (w->ring_cap - 1)])) \
			return name##_push_early(w, x);                                 \
		if (w->ring_len == w->ring_cap) {                                       \
			int rc = name##_grow_ring(w);                                   \
                                                                                        \
			if (rc < 0)                                                     \
				return rc;                                              \
			if (rc) /* at its largest: the heap takes it */                 \
				return name##_heap_add(w, x);                           \
		}                                                                       \
		w->ring[(w->ring_head + w->ring_len) & (w->ring_cap - 1)] = x;          \
		w->ring_len++;                                                          \
		return 0;                                                               \
	}                                                                               \
                                                                                        \
	/* Whether the ring's head leaves before the heap's top. */                     \
	static inline HEAP_UNUSED int name##_ring_first(const struct name *w)           \
	{                                                                               \
		return w->ring_len &&                                                   \
		       (!w->heap_len || !before(NULL, &w->heap[0], &w->ring[w->ring_head])); \
	}                                                                               \
                                                                                        \
	static inline const T *name##_first(const struct name *w)                       \
	{                                                                               \
		if (name##_ring_first(w))                                               \
			return &w->ring[w->ring_head];                                  \
		return w->heap_len ? &w->heap[0] : NULL;                                \
	}                                                                               \
                                                                                        \
	static inline HEAP_UNUSED int name##_pop(struct name *w, T *out)                \
	{                                                                               \
		if (name##_ring_first(w)) {                                             \
			*out = w->ring[w->ring_head];                                   \
			w->ring_head = (w->ring_head + 1) & (w->ring_cap - 1);          \
			w->ring_len--;                                                  \
			return 1;                                                       \
		}                                                                       \
		if (!w->heap_len)                                                       \
			return 0;                                                       \
		*out = name##_heap_pop(w->heap, w->heap_len--, NULL);                   \
		return 1;                                                               \
	}

#endif
