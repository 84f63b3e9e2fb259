/*
 * stats.c — sorting, the nearest-rank percentile and the latency JSON
 * object (stats.h). The bounded-memory exact percentiles are in
 * stats_exact.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "jsonout.h"
#include "stats.h"

const uint32_t stats_pct_ppm[STATS_NPCT] = { 500000, 900000, 990000, 999000, 999900, STATS_PPM };
const char *const stats_pct_label[STATS_NPCT] = { "p50", "p90", "p99", "p99.9", "p99.99", "max" };
const char *const stats_pct_key[STATS_NPCT] = { "p50_ns", "p90_ns", "p99_ns", "p99_9_ns",
						"p99_99_ns", "max_ns" };

uint64_t stats_rank(uint64_t n, uint32_t ppm)
{
	uint64_t rank;

	if (!n)
		return 0;
	if (ppm > STATS_PPM)
		ppm = STATS_PPM;
	rank = (uint64_t)(((unsigned __int128)ppm * n + STATS_PPM - 1) / STATS_PPM);
	return rank < 1 ? 1 : rank;
}

uint64_t stats_percentile(const uint64_t *sorted, uint64_t n, uint32_t ppm)
{
	return n ? sorted[stats_rank(n, ppm) - 1] : 0;
}

#define RADIX_BITS 11
#define RADIX_PASSES 6 /* 66 bits >= 64 */
#define RADIX_SIZE (1u << RADIX_BITS)

/*
 * Insertion sort of keys nearly in order (a capture's issue times, a
 * generated trace's completion times: each key a few places from its
 * own), stable, moving p with k. Gives up after `budget` moves, or when
 * a key is NEARLY_MAX_SHIFT places from its own (keys in no order), and
 * returns 0, the pairs then still a permutation of what they were (for
 * the radix sort to finish); 1 when sorted. Measured in bench/RESULTS.md
 * ("Report, new code").
 */
#define NEARLY_MAX_SHIFT 256

static int sort_nearly(uint64_t *k, uint32_t *p, uint64_t n, uint64_t budget)
{
	for (uint64_t i = 1; i < n; i++) {
		uint64_t key = k[i], j = i;
		uint32_t pay = p ? p[i] : 0;

		if (k[i - 1] <= key)
			continue;
		for (; j > 0 && k[j - 1] > key; j--) {
			if (!budget-- || i - j >= NEARLY_MAX_SHIFT) {
				budget = UINT64_MAX;
				break;
			}
			k[j] = k[j - 1];
			if (p)
				p[j] = p[j - 1];
		}
		k[j] = key;
		if (p)
			p[j] = pay;
		if (budget == UINT64_MAX)
			return 0;
	}
	return 1;
}

void stats_sort_u64(uint64_t *k, uint64_t *kt, uint32_t *p, uint32_t *pt, uint64_t n)
{
	uint64_t (*count)[RADIX_SIZE];
	uint64_t *ks = k, *kd = kt, i;
	uint32_t *ps = p, *pd = pt;

	for (i = 1; i < n && k[i - 1] <= k[i]; i++)
		;
	if (i >= n || sort_nearly(k, p, n, 4 * n))
		return;
	count = calloc(RADIX_PASSES, sizeof(*count)); /* 96 KiB */
	if (!count) { /* finish by insertion sort: slow, but sorted */
		sort_nearly(k, p, n, UINT64_MAX - 1);
		return;
	}
	for (i = 0; i < n; i++)
		for (int d = 0; d < RADIX_PASSES; d++)
			count[d][(k[i] >> (d * RADIX_BITS)) & (RADIX_SIZE - 1)]++;
	for (int d = 0; d < RADIX_PASSES; d++) {
		uint64_t sum = 0, *c = count[d];
		int shift = d * RADIX_BITS, skip = 0;

		for (uint32_t b = 0; b < RADIX_SIZE; b++) {
			uint64_t t = c[b];

			if (t == n)
				skip = 1; /* every key has this digit: the pass changes nothing */
			c[b] = sum;
			sum += t;
		}
		if (skip)
			continue;
		for (i = 0; i < n; i++) {
			uint64_t at = c[(ks[i] >> shift) & (RADIX_SIZE - 1)]++;

			kd[at] = ks[i];
			if (p)
				pd[at] = ps[i];
		}
		uint64_t *kx = ks; ks = kd; kd = kx;
		uint32_t *px = ps; ps = pd; pd = px;
	}
	if (ks != k) {
		memcpy(k, ks, n * sizeof(*k));
		if (p)
			memcpy(p, ps, n * sizeof(*p));
	}
	free(count);
}

int stats_sort_u64_alloc(uint64_t *v, uint64_t n)
{
	uint64_t *tmp;

	if (n < 2)
		return 0;
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	stats_sort_u64(v, tmp, NULL, NULL, n);
	free(tmp);
	return 0;
}

void stats_latency_from(struct stats_latency *l, const struct stats_exact *e)
{
	memset(l, 0, sizeof(*l));
	if (!e)
		return;
	l->count = stats_exact_count(e);
	l->mean_ns = stats_exact_mean(e);
	for (unsigned i = 0; i < STATS_NPCT; i++)
		l->pct[i] = stats_exact_value(e, i);
}

void stats_latency_json(struct jw *w, const struct stats_latency *l)
{
	jw_obj(w);
	jw_ku64(w, "count", l->count);
	jw_knum(w, "mean_ns", l->mean_ns, 1);
	for (unsigned i = 0; i < STATS_NPCT; i++)
		jw_ku64(w, stats_pct_key[i], l->pct[i]);
	jw_obj_end(w);
}
