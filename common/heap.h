/*
 * heap.h — the one binary min-heap, as typed inline functions.
 *
 * HEAP_DEFINE(name, T, before) defines static inline functions over an
 * array of T that the caller owns and sizes (every heap in blkpeak keeps
 * its own count and grows its array its own way: a slab beside it, a
 * fixed depth, a doubling). before(ctx, a, b) is nonzero when *a must
 * leave before *b; ctx is handed through untouched (a merge whose order
 * reads the streams' current events; NULL elsewhere).
 *
 * Typed and inline, not one function with a compare callback and
 * memcpy of elements: the codec, convert and replay benches pass millions
 * of records through these heaps, and a call per comparison would cost
 * them (bench/RESULTS.md, "one heap").
 *
 *   name_push(h, n, x, ctx)   h holds n items and room for one more: add x
 *                             (the caller then counts n + 1)
 *   name_pop(h, n, ctx)       h holds n >= 1 items: remove and return the
 *                             first (the caller then counts n - 1)
 *   name_down(h, n, i, x, ctx) put x at hole i of the n items and sift it
 *                             down (the top changed its key: i = 0, x = h[0])
 *   name_build(h, n, ctx)     order n unordered items
 *
 * Ties: an item goes up only past one it is strictly before, and a child
 * replaces its parent only when strictly before the sifted item, so equal
 * keys leave in no promised order; a caller that needs one puts a
 * sequence number in its key.
 */
#ifndef BLKPEAK_HEAP_H
#define BLKPEAK_HEAP_H

#include <stddef.h>

#define HEAP_UNUSED __attribute__((unused)) /* a heap need not use every function */

#define HEAP_DEFINE(name, T, before)                                                    \
	static inline HEAP_UNUSED void name##_push(T *h, size_t n, T x, const void *ctx) \
	{                                                                               \
		size_t i = n;                                                           \
                                                                                        \
		(void)ctx;                                                              \
		while (i) {                                                             \
			size_t up = (i - 1) / 2;                                        \
                                                                                        \
			if (!before(ctx, &x, &h[up]))                                   \
				break;                                                  \
			h[i] = h[up];                                                   \
			i = up;                                                         \
		}                                                                       \
		h[i] = x;                                                               \
	}                                                                               \
                                                                                        \
	static inline HEAP_UNUSED void name##_down(T *h, size_t n, size_t i, T x, const void *ctx) \
	{                                                                               \
		(void)ctx;                                                              \
		for (;;) {                                                              \
			size_t c = 2 * i + 1;                                           \
                                                                                        \
			if (c >= n)                                                     \
				break;                                                  \
			if (c + 1 < n && before(ctx, &h[c + 1], &h[c]))                 \
				c++;                                                    \
			if (!before(ctx, &h[c], &x))                                    \
				break;                                                  \
			h[i] = h[c];                                                    \
			i = c;                                                          \
		}                                                                       \
		if (i < n)                                                              \
			h[i] = x;                                                       \
	}                                                                               \
                                                                                        \
	static inline HEAP_UNUSED T name##_pop(T *h, size_t n, const void *ctx)         \
	{                                                                               \
		T top = h[0];                                                           \
                                                                                        \
		if (n > 1)                                                              \
			name##_down(h, n - 1, 0, h[n - 1], ctx);                        \
		return top;                                                             \
	}                                                                               \
                                                                                        \
	static inline HEAP_UNUSED void name##_build(T *h, size_t n, const void *ctx)    \
	{                                                                               \
		for (size_t i = n / 2; i-- > 0;)                                        \
			name##_down(h, n, i, h[i], ctx);                                \
	}

#endif
