/*
 * sort_u64.c — least-significant-digit radix sort of uint64_t arrays
 * (sort_u64.h): four passes of 16 bits, and a pass whose digit is the
 * same in every value (the high bits of nanosecond latencies) is skipped.
 */
#include <stdlib.h>
#include <string.h>

#include "sort_u64.h"

#define DIGIT_BITS 16
#define BUCKETS (1u << DIGIT_BITS)

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void sort_u64(uint64_t *v, uint64_t n)
{
	uint64_t *tmp, *src = v, *dst, *count;
	uint64_t all_or = 0, all_and = UINT64_MAX;

	if (n < 2)
		return;
	if (n < 256) { /* the counting passes do not pay off */
		qsort(v, n, sizeof(*v), cmp_u64);
		return;
	}
	tmp = malloc(n * sizeof(*tmp));
	count = malloc(BUCKETS * sizeof(*count));
	if (!tmp || !count) {
		free(tmp);
		free(count);
		qsort(v, n, sizeof(*v), cmp_u64);
		return;
	}
	for (uint64_t i = 0; i < n; i++) {
		all_or |= v[i];
		all_and &= v[i];
	}
	dst = tmp;
	for (unsigned shift = 0; shift < 64; shift += DIGIT_BITS) {
		uint64_t sum = 0;

		if ((((all_or ^ all_and) >> shift) & (BUCKETS - 1)) == 0)
			continue; /* every value has this digit */
		memset(count, 0, BUCKETS * sizeof(*count));
		for (uint64_t i = 0; i < n; i++)
			count[(src[i] >> shift) & (BUCKETS - 1)]++;
		for (unsigned b = 0; b < BUCKETS; b++) {
			uint64_t c = count[b];

			count[b] = sum;
			sum += c;
		}
		for (uint64_t i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & (BUCKETS - 1)]++] = src[i];
		uint64_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(tmp);
	free(count);
}
