/*
 * stats.h — the one statistics module of blkpeak: sorting 64-bit keys,
 * the percentile rule, exact percentiles of a stream in bounded memory,
 * and the JSON latency object that replay and analyze both print.
 *
 * Percentile rule (nearest rank): the p-th percentile of n values is the
 * value of rank ceil(p/100 * n) in ascending order, ranks counted from 1
 * (rank 1 when that is 0), and 0 when there are no values. p is given in
 * parts per million (p99.9 = 999000) so that the rank is computed in
 * integers. p = 100% is the maximum.
 */
#ifndef BLKPEAK_COMMON_STATS_H
#define BLKPEAK_COMMON_STATS_H

#include <stdint.h>
#include <stdio.h>

#define STATS_PPM 1000000u /* 100% in parts per million */

/* The rank (1..n) of the ppm-th percentile of n values; 0 when n is 0. */
uint64_t stats_rank(uint64_t n, uint32_t ppm);

/* The ppm-th percentile of n values sorted ascending; 0 when n is 0. */
uint64_t stats_percentile(const uint64_t *sorted, uint64_t n, uint32_t ppm);

/*
 * Sort n keys ascending, stably. `kt` is scratch for n keys. When `p` is
 * not NULL it is a payload moved with the keys and `pt` its scratch.
 * Keys already in order cost one look; keys nearly in order (each a few
 * places from its own: a capture's issue times) are finished by an
 * insertion sort; others by an LSD radix sort of 11-bit digits that skips
 * a digit every key shares (the high bits of nanosecond latencies).
 */
void stats_sort_u64(uint64_t *k, uint64_t *kt, uint32_t *p, uint32_t *pt, uint64_t n);

/* The same with scratch allocated here: 0 or -ENOMEM (v untouched). */
int stats_sort_u64_alloc(uint64_t *v, uint64_t n);

/*
 * Exact percentiles of a stream of values in bounded memory. The caller
 * hands every value once per pass, in any order, the same values in
 * every pass:
 *
 *	do {
 *		for each value v: stats_exact_add(e, v);
 *		rc = stats_exact_end_pass(e);
 *	} while (rc == 1);
 *
 * Pass 1 counts the values in 56320 log-linear buckets (exact below 1024,
 * then 1024 buckets per power of two: each < 0.1% wide) and finds the
 * bucket of each wanted rank. Pass 2 keeps only the values inside those
 * buckets (at most STATS_EXACT_KEEP of them in all) and picks the wanted
 * ranks exactly. A bucket too full to keep is split into 4096 narrower
 * ones instead, and one more pass follows: in practice two passes, at
 * worst seven (every value in one bucket). Memory: ~0.45 MiB plus 16
 * bytes per kept value (<= 16 MiB).
 */
#define STATS_EXACT_KEEP (1u << 20)
#define STATS_EXACT_MAX_PCT 4096

struct stats_exact;

/* A stream wanting the percentiles ppm[0..nppm) (nppm <= 4096); NULL
 * when out of memory or nppm is out of range. */
struct stats_exact *stats_exact_new(const uint32_t *ppm, unsigned nppm);
void stats_exact_free(struct stats_exact *e);

/* One value of the current pass (ignored once every percentile is known). */
void stats_exact_add(struct stats_exact *e, uint64_t v);

/*
 * End the current pass: 1 when another pass over the same values is
 * needed, 0 when the percentiles are known, -ENOMEM, or -EINVAL when
 * this pass did not see the values of the first (the data changed).
 */
int stats_exact_end_pass(struct stats_exact *e);

/* After the first pass: count, sum, mean (sum / count), minimum and
 * maximum (0 when empty). After the last: the i-th wanted percentile. */
uint64_t stats_exact_count(const struct stats_exact *e);
double stats_exact_mean(const struct stats_exact *e);
uint64_t stats_exact_min(const struct stats_exact *e);
uint64_t stats_exact_max(const struct stats_exact *e);
uint64_t stats_exact_value(const struct stats_exact *e, unsigned i);

/*
 * The latency figures every command reports, and their JSON object.
 * Percentiles reported: p50 p90 p99 p99.9 p99.99, then the maximum.
 */
#define STATS_NPCT 6
extern const uint32_t stats_pct_ppm[STATS_NPCT];  /* the last is 100% */
extern const char *const stats_pct_label[STATS_NPCT]; /* "p50" ... "max" (text output) */
extern const char *const stats_pct_key[STATS_NPCT];   /* "p50_ns" ... "max_ns" (JSON) */

struct stats_latency {
	uint64_t count;
	double mean_ns;
	uint64_t pct[STATS_NPCT]; /* p50 ... p99.99, max */
};

/* Fill l from a finished stream wanting stats_pct_ppm (or zeros for NULL). */
void stats_latency_from(struct stats_latency *l, const struct stats_exact *e);

/*
 * Write {"count":N,"mean_ns":M,"p50_ns":...,"max_ns":...}. mean_ns has
 * one digit after the point. The one writer of this object, so replay and
 * analyze print the same keys and the same digits.
 */
struct jw;
void stats_latency_json(struct jw *w, const struct stats_latency *l);

#endif
