#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>

#include "bpt_coltest.h"
#include "bpt_internal.h"

int tu_col_roundtrip(const uint64_t *v, uint32_t n, int time)
{
	struct bpt_tick_hint hint = { 0 };

	return tu_col_roundtrip_hint(v, n, time ? &hint : NULL);
}

int tu_col_roundtrip_hint(const uint64_t *v, uint32_t n, struct bpt_tick_hint *hint)
{
	struct bpt_buf b = { 0 };
	struct bpt_colview cv;
	uint64_t out[300], *tmp = malloc(sizeof(uint64_t) * (n ? n : 1));
	unsigned np;
	size_t at;

	cr_assert_not_null(tmp);
	if (hint)
		bpt_col_encode_time(&b, v, n, 12345, tmp, hint, &np, &at);
	else
		bpt_col_encode(&b, v, n, 12345, &np, &at);
	free(tmp);
	cr_assert_not(b.oom);
	cr_assert_eq(bpt_col_parse(b.p, b.len, n, &cv), 0);
	cr_assert_eq(cv.seed, 12345);
	for (uint32_t i = 0; i < n;) {
		uint32_t m = 1 + i % 300;

		m = m > n - i ? n - i : m;
		cr_assert_eq(bpt_col_decode(&cv, i, m, out), 0);
		for (uint32_t j = 0; j < m; j++)
			cr_assert_leq(out[j], bpt_col_bound(&cv), "value %u above the bound", i + j);
		for (uint32_t j = 0; j < m; j++)
			cr_assert_eq(out[j], v[i + j], "value %u: %llu, want %llu", i + j,
				     (unsigned long long)out[j], (unsigned long long)v[i + j]);
		i += m;
	}
	/* one byte more or less is refused */
	cr_assert_eq(bpt_col_parse(b.p, b.len - 1, n, &cv), -EBADMSG);
	buf_reserve(&b, 1);
	cr_assert_eq(bpt_col_parse(b.p, b.len + 1, n, &cv), -EBADMSG);
	int kind = b.p[0];

	buf_free(&b);
	return kind;
}
