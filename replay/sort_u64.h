/*
 * sort_u64.h — sorting arrays of 64-bit unsigned values (latencies,
 * completion times) in linear time: the replay summary and the trace
 * loader sort a million of them, which qsort took ~0.2 s to do.
 */
#ifndef BLKPEAK_SORT_U64_H
#define BLKPEAK_SORT_U64_H

#include <stdint.h>

/* Sort v[0..n) ascending. Uses n * 8 bytes of scratch memory, and falls
 * back to qsort when that cannot be had; never fails. */
void sort_u64(uint64_t *v, uint64_t n);

#endif
