/*
 * stats_util.c — the constants of the report's classes and the helpers
 * its figures are built with: a stable sort of 64-bit keys (insertion
 * sort when nearly in order, else LSD radix),
 * nearest-rank percentiles, request-size classes (see stats.h).
 */
#include <stdio.h>
#include <string.h>

#include "stats.h"

const uint32_t st_pct_ppm[ST_NPCT - 1] = { 500000, 900000, 990000, 999000, 999900 };
const char *const st_pct_name[ST_NPCT] = { "p50", "p90", "p99", "p99.9", "p99.99", "max" };
const uint32_t st_seek_bound[ST_SEEK_CLASSES - 1][2] = {
	{ 1, 1000 }, { 1, 100 }, { 1, 10 }, { 1, 4 }, { 1, 2 }, { 1, 1 },
};
const char *const st_seek_name[ST_SEEK_CLASSES] = {
	"0 (sequential)", "<= 0.1%", "<= 1%", "<= 10%", "<= 25%", "<= 50%", "<= 100%",
};
const uint32_t st_depth_bound[ST_DEPTH_CLASSES - 1] = { 0, 1, 2, 4, 8, 16, 32, 64, 128, 256 };
const uint64_t st_idle_bound[ST_IDLE_CLASSES - 1] = {
	10000, 100000, 1000000, 10000000, 100000000, 1000000000,
};

#define RADIX_BITS 11
#define RADIX_PASSES 6 /* 66 bits >= 64 */
#define RADIX_SIZE (1u << RADIX_BITS)

/*
 * Insertion sort of keys nearly in order (a capture's issue times, a
 * generated trace's completion times: each key a few places from its
 * own), stable, moving p with k. Gives up after `budget` moves, or when
 * a key is NEARLY_MAX_SHIFT places from its own (keys in no order), and
 * returns 0, the pairs then still a permutation of what they were (for
 * the radix sort to finish); 1 when sorted.
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

void st_sort_u64(uint64_t *k, uint64_t *kt, uint32_t *p, uint32_t *pt, uint64_t n)
{
	uint64_t count[RADIX_PASSES][RADIX_SIZE]; /* 96 KiB: fine on any stack here */
	uint64_t *ks = k, *kd = kt, i;
	uint32_t *ps = p, *pd = pt;

	/* Often there is nothing to do: a capture is written in completion
	 * order, a generated trace in issue order. */
	for (i = 1; i < n && k[i - 1] <= k[i]; i++)
		;
	if (i >= n || sort_nearly(k, p, n, 4 * n))
		return;
	memset(count, 0, sizeof(count));
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
}

uint64_t st_percentile(const uint64_t *sorted, uint64_t n, uint32_t ppm)
{
	uint64_t rank;

	if (!n)
		return 0;
	rank = (uint64_t)(((unsigned __int128)ppm * n + 999999) / 1000000);
	if (rank < 1)
		rank = 1;
	return sorted[rank - 1];
}

unsigned st_size_class(uint64_t bytes)
{
	unsigned k;

	if (bytes == 0)
		return 0;
	k = bytes == 1 ? 1 : 1 + (64 - __builtin_clzll(bytes - 1));
	return k < ST_SIZE_CLASSES - 1 ? k : ST_SIZE_CLASSES - 1;
}

const char *st_size_label(unsigned k, char *buf, size_t len)
{
	static const char *unit[] = { "B", "KiB", "MiB" };
	uint64_t hi;
	int u = 0;

	if (k == 0)
		return snprintf(buf, len, "0"), buf;
	if (k >= ST_SIZE_CLASSES - 1)
		return snprintf(buf, len, "> 16 MiB"), buf;
	hi = 1ull << (k - 1);
	while (hi >= 1024 && u < 2) {
		hi /= 1024;
		u++;
	}
	snprintf(buf, len, "%llu %s", (unsigned long long)hi, unit[u]);
	return buf;
}
