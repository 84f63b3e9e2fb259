/*
 * bpt_testutil.h — helpers shared by the trace-library unit tests
 * (test_bpt_*.c): a seeded generator, random headers and records, writing
 * a trace to a temporary file, loading a file into memory, comparing
 * records.
 */
#ifndef BPT_TESTUTIL_H
#define BPT_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "bpt.h"

/* splitmix64: small, seedable, good enough for test data. */
uint64_t tu_rand(uint64_t *s);
/* Uniform in [0, n). */
uint64_t tu_below(uint64_t *s, uint64_t n);

/* A header with ndev devices, the given optional columns and some meta. */
void tu_header(struct bpt_header *h, unsigned ndev, uint32_t columns);

/* A random record: every field, op and flag; extremes now and then.
 * comm_id is below nstrs, dev below ndev. Optional fields are set only
 * for the columns given (0 otherwise, as a reader returns them). */
void tu_record(uint64_t *s, struct bpt_record *r, unsigned ndev,
	       uint32_t nstrs, uint32_t columns);

/* A temporary file path under /dev/shm (unlinked by tu_cleanup). */
const char *tu_tmpname(const char *tag);
void tu_cleanup(void);

/* Whole file into memory (malloc'd), length in *len; NULL on failure. */
uint8_t *tu_load(const char *path, size_t *len);
int tu_store(const char *path, const void *data, size_t len);

/* 1 when every field of two records is the same. */
int tu_rec_eq(const struct bpt_record *a, const struct bpt_record *b);

#endif
