/*
 * mktrace_rng.h — the seeded generator the e2e trace makers share
 * (select_mktrace.c, import_mktrace.c): xorshift64*, so the same seed
 * gives the same file on every machine.
 */
#ifndef MKTRACE_RNG_H
#define MKTRACE_RNG_H
#include <stdint.h>

static uint64_t mktrace_rng;

static inline void mktrace_seed(uint64_t seed)
{
	mktrace_rng = seed * 0x9E3779B97F4A7C15ULL + 1;
}

static inline uint64_t mktrace_next(void)
{
	mktrace_rng ^= mktrace_rng >> 12;
	mktrace_rng ^= mktrace_rng << 25;
	mktrace_rng ^= mktrace_rng >> 27;
	return mktrace_rng * 2685821657736338717ULL;
}
#endif
