/* Unit tests of the radix sort of the replay summary (replay/sort_u64.c):
 * against qsort on random values of several widths, duplicates, sizes on
 * both sides of the qsort cut-over. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../../replay/sort_u64.h"

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void check(uint64_t n, unsigned bits, unsigned seed)
{
	uint64_t *v = malloc((n + 1) * sizeof(*v)), *w = malloc((n + 1) * sizeof(*w));

	srand(seed);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t x = ((uint64_t)rand() << 42) ^ ((uint64_t)rand() << 21) ^ (uint64_t)rand();

		v[i] = bits < 64 ? x & ((1ull << bits) - 1) : x;
		if (i % 7 == 3)
			v[i] = v[i / 2]; /* duplicates */
	}
	memcpy(w, v, n * sizeof(*v));
	sort_u64(v, n);
	qsort(w, n, sizeof(*w), cmp);
	cr_assert_arr_eq(v, w, n * sizeof(*v), "n %llu, %u bits", (unsigned long long)n, bits);
	free(v);
	free(w);
}

Test(sort_u64, matches_qsort)
{
	check(0, 64, 1);
	check(1, 64, 1);
	check(255, 64, 2);
	check(256, 64, 3);
	check(100000, 20, 4);
	check(100000, 40, 5);
	check(100000, 64, 6);
	check(3000, 1, 7); /* two values */
}

Test(sort_u64, constant_and_sorted_input)
{
	uint64_t v[1000];

	for (unsigned i = 0; i < 1000; i++)
		v[i] = 42;
	sort_u64(v, 1000);
	for (unsigned i = 0; i < 1000; i++)
		cr_assert_eq(v[i], 42);
	for (unsigned i = 0; i < 1000; i++)
		v[i] = 1000 - i;
	sort_u64(v, 1000);
	for (unsigned i = 0; i < 1000; i++)
		cr_assert_eq(v[i], i + 1);
}
