/*
 * Unit tests of the statistics module (common/stats.c, stats_exact.c):
 * the nearest-rank rule on small arrays worked out by hand (ties, one
 * value, none, p99.99 of ten), the sort against qsort, and the exact
 * two-pass percentiles against a full sort on random data of several
 * distributions, including ones that need a third pass.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jsonout.h"
#include "stats.h"

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

Test(stats, rank_rule_by_hand)
{
	const uint64_t v[10] = { 10, 20, 30, 40, 50, 60, 70, 80, 90, 100 };
	const uint64_t ties[7] = { 1, 1, 2, 4, 5, 5, 9 };
	const uint64_t one[1] = { 42 };

	/* rank ceil(p/100 * n) */
	cr_expect_eq(stats_rank(10, 500000), 5);
	cr_expect_eq(stats_percentile(v, 10, 500000), 50);   /* not 55: no interpolation */
	cr_expect_eq(stats_percentile(v, 10, 510000), 60);   /* ceil(5.1) = 6 */
	cr_expect_eq(stats_percentile(v, 10, 900000), 90);
	cr_expect_eq(stats_percentile(v, 10, 990000), 100);  /* ceil(9.9) = 10 */
	cr_expect_eq(stats_percentile(v, 10, 999900), 100);  /* p99.99 of ten is the maximum */
	cr_expect_eq(stats_percentile(v, 10, STATS_PPM), 100);
	cr_expect_eq(stats_percentile(v, 10, 0), 10, "p0: rank 1");
	cr_expect_eq(stats_percentile(v, 10, 1), 10, "ceil(0.00001) = 1");
	cr_expect_eq(stats_percentile(ties, 7, 500000), 4);   /* ceil(3.5) = 4 */
	cr_expect_eq(stats_percentile(ties, 7, 250000), 1);   /* ceil(1.75) = 2: a tie */
	cr_expect_eq(stats_percentile(ties, 7, 800000), 5);   /* ceil(5.6) = 6 */
	cr_expect_eq(stats_percentile(one, 1, 500000), 42);
	cr_expect_eq(stats_percentile(one, 1, 999900), 42);
	cr_expect_eq(stats_percentile(NULL, 0, 500000), 0, "empty");
	cr_expect_eq(stats_rank(0, 500000), 0);
	/* no overflow for huge n */
	cr_expect_eq(stats_rank(UINT64_MAX, STATS_PPM), UINT64_MAX);
	cr_expect_eq(stats_rank(UINT64_MAX, 500000), UINT64_MAX / 2 + 1);
}

Test(stats, sort_stable_with_payload)
{
	uint64_t v[7] = { 5, 1, 4, 1, 5, 9, 2 }, tmp[7];
	uint32_t p[7] = { 0, 1, 2, 3, 4, 5, 6 }, pt[7];
	const uint64_t sv[7] = { 1, 1, 2, 4, 5, 5, 9 };
	const uint32_t sp[7] = { 1, 3, 6, 2, 0, 4, 5 };

	stats_sort_u64(v, tmp, p, pt, 7);
	for (int i = 0; i < 7; i++) {
		cr_assert_eq(v[i], sv[i]);
		cr_assert_eq(p[i], sp[i]);
	}
	uint64_t big[3] = { UINT64_MAX, 1ull << 40, 0 };
	stats_sort_u64(big, tmp, NULL, NULL, 3);
	cr_assert_eq(big[0], 0);
	cr_assert_eq(big[2], UINT64_MAX);
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double unit(void)
{
	return (double)(next() >> 11) / 9007199254740992.0;
}

/* Values of distribution `kind`. */
static uint64_t draw(int kind)
{
	switch (kind) {
	case 0: return next();                                   /* uniform over 2^64 */
	case 1: return 50000 + next() % 1000;                    /* narrow: one log bucket */
	case 2: return (uint64_t)(100000 * exp(1.5 * sqrt(-2 * log(unit() + 1e-300)) *
					       cos(6.283185307 * unit())));  /* log-normal */
	case 3: return unit() < 0.999 ? 80000 + next() % 20 : 5000000000ull + next() % 1000; /* spike + tail */
	case 4: return 123456789;                                /* all equal */
	case 5: return next() % 8;                               /* tiny, many ties */
	default: return (uint64_t)(-log(unit() + 1e-300) * 200000); /* exponential */
	}
}

static void check_exact(int kind, uint64_t n)
{
	uint64_t *v = malloc((n ? n : 1) * sizeof(*v)), *w = malloc((n ? n : 1) * sizeof(*w));
	struct stats_exact *e = stats_exact_new(stats_pct_ppm, STATS_NPCT);
	unsigned __int128 sum = 0;
	int rc, passes = 0;

	cr_assert(v && w && e);
	for (uint64_t i = 0; i < n; i++)
		v[i] = draw(kind);
	do {
		/* each pass in another order: the result must not depend on it */
		for (uint64_t i = 0; i < n; i++)
			stats_exact_add(e, v[passes % 2 ? n - 1 - i : i]);
		rc = stats_exact_end_pass(e);
		passes++;
	} while (rc == 1);
	cr_assert_eq(rc, 0, "kind %d n %llu: %d", kind, (unsigned long long)n, rc);
	memcpy(w, v, n * sizeof(*v));
	qsort(w, n, sizeof(*w), cmp);
	for (uint64_t i = 0; i < n; i++)
		sum += w[i];
	cr_assert_eq(stats_exact_count(e), n);
	for (unsigned p = 0; p < STATS_NPCT; p++)
		cr_assert_eq(stats_exact_value(e, p), stats_percentile(w, n, stats_pct_ppm[p]),
			     "kind %d n %llu %s: %llu against %llu", kind, (unsigned long long)n,
			     stats_pct_label[p], (unsigned long long)stats_exact_value(e, p),
			     (unsigned long long)stats_percentile(w, n, stats_pct_ppm[p]));
	cr_assert_eq(stats_exact_max(e), n ? w[n - 1] : 0);
	cr_assert_eq(stats_exact_min(e), n ? w[0] : 0);
	cr_assert_float_eq(stats_exact_mean(e), n ? (double)sum / (double)n : 0, 1e-6 * (double)(sum / (n ? n : 1)) + 1e-9);
	cr_assert_leq(passes, 7, "kind %d: %d passes", kind, passes);
	stats_exact_free(e);
	free(v);
	free(w);
}

Test(stats, exact_equals_full_sort)
{
	const uint64_t sizes[] = { 0, 1, 2, 10, 1000, 100003 };

	for (int kind = 0; kind < 7; kind++)
		for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
			check_exact(kind, sizes[s]);
}

/* More values in one first-pass bucket than STATS_EXACT_KEEP: the bucket
 * is split and a third pass finds the values. */
Test(stats, exact_full_bucket_takes_a_third_pass)
{
	const uint64_t n = STATS_EXACT_KEEP + (STATS_EXACT_KEEP >> 2);
	const uint32_t ppm[2] = { 500000, 999000 };
	struct stats_exact *e = stats_exact_new(ppm, 2);
	int passes = 0, rc;

	/* v = 2^40 + (i * 7919) mod n: a permutation of n consecutive values
	 * inside one first-pass bucket (2^30 wide at 2^40) */
	do {
		for (uint64_t i = 0; i < n; i++)
			stats_exact_add(e, (1ull << 40) + (i * 7919) % n);
		rc = stats_exact_end_pass(e);
		passes++;
	} while (rc == 1);
	cr_assert_eq(rc, 0);
	cr_assert_geq(passes, 3);
	cr_assert_eq(stats_exact_value(e, 0), (1ull << 40) + stats_rank(n, 500000) - 1);
	cr_assert_eq(stats_exact_value(e, 1), (1ull << 40) + stats_rank(n, 999000) - 1);
	stats_exact_free(e);
}

/* A pass that does not see the first pass's values is refused. */
Test(stats, exact_changed_data_is_an_error)
{
	const uint32_t ppm[1] = { 500000 };
	struct stats_exact *e = stats_exact_new(ppm, 1);

	for (uint64_t i = 0; i < 100; i++)
		stats_exact_add(e, 1000 + i * 1000);
	cr_assert_eq(stats_exact_end_pass(e), 1);
	for (uint64_t i = 0; i < 99; i++)
		stats_exact_add(e, 1000 + i * 1000);
	cr_assert_eq(stats_exact_end_pass(e), -EINVAL);
	stats_exact_free(e);
	cr_assert_null(stats_exact_new(ppm, STATS_EXACT_MAX_PCT + 1));
}

Test(stats, latency_json_object)
{
	struct stats_latency l = { .count = 3, .mean_ns = 1234.56, .pct = { 1, 2, 3, 4, 5, 6 } };
	char *buf;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	struct jw w;

	jw_init(&w, f, 0);
	stats_latency_json(&w, &l);
	fclose(f);
	cr_assert_str_eq(buf, "{\"count\":3,\"mean_ns\":1234.6,\"p50_ns\":1,\"p90_ns\":2,\"p99_ns\":3,"
			      "\"p99_9_ns\":4,\"p99_99_ns\":5,\"max_ns\":6}");
	free(buf);
}
