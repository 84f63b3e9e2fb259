/*
 * gen_sizemix.h — a weighted mix of I/O sizes for `blkpeak generate`:
 * "4k" (one size) or "512:10,4k:60,64k:30" (size:weight pairs).
 *
 * Weights are relative (they need not sum to 100). Sizes are whole
 * 512-byte sectors, at most GEN_MAX_BS. Parsing never prints: it returns
 * -EINVAL and names the offending item in `error` for the caller's message.
 */
#ifndef BLKPEAK_GEN_SIZEMIX_H
#define BLKPEAK_GEN_SIZEMIX_H

#include <stdint.h>

#include "error.h"

#define GEN_MIX_MAX 32                 /* entries in one mix */
#define GEN_MAX_BS (64u * 1024 * 1024) /* largest I/O size accepted */

struct size_mix {
	unsigned n;                    /* entries, >= 1 once parsed */
	uint32_t size[GEN_MIX_MAX];    /* bytes, multiple of 512 */
	uint32_t weight[GEN_MIX_MAX];  /* relative weight, >= 1 */
	uint64_t total;                /* sum of weights */
};

/* Parse `s` into *mix. On -EINVAL, error (if not NULL) gives the reason,
 * such as "size must be a multiple of 512". */
int size_mix_parse(const char *s, struct size_mix *mix, struct bpt_error *error);

/* The size for a uniform random number r in [0, 1): entry i is chosen
 * with probability weight[i] / total. */
uint32_t size_mix_pick(const struct size_mix *mix, double r);

/* Largest size in the mix. */
uint32_t size_mix_max(const struct size_mix *mix);

/* Weighted mean size in bytes. */
double size_mix_mean(const struct size_mix *mix);

/* Write the mix back as "512:10,4k:60,64k:30" (or "8k" for one size)
 * into buf; returns buf. */
char *size_mix_format(const struct size_mix *mix, char *buf, int len);

/* A size as the short form the parser reads back: "512", "4k", "1m". */
char *size_short(uint64_t bytes, char *buf, int len);

#endif
