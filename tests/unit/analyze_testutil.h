/*
 * analyze_testutil.h — helpers for the analyze unit tests
 * (test_analyze_*.c): writing small traces with the bpt writer, temporary
 * databases, one-value SQL queries, file digests.
 */
#ifndef ANALYZE_TESTUTIL_H
#define ANALYZE_TESTUTIL_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "bpt.h"

/* A fresh temporary path under /dev/shm (removed by at_cleanup). */
const char *at_tmp(const char *tag);
void at_cleanup(void);

/*
 * Write a trace: `kind` ("capture", "replay", ...), ndev devices named
 * loop0.., the strings comms[0..ncomms) interned in that order (so
 * comm_id i is comms[i]), the records, the optional columns and meta
 * pairs (NULL-terminated list of key, value), at most block_records
 * records per block (0: the writer's default). Fails the test on error.
 */
void at_write(const char *path, const char *kind, unsigned ndev,
	      const char *const *comms, unsigned ncomms,
	      const struct bpt_record *recs, size_t n, uint32_t columns,
	      const char *const *meta, uint32_t block_records);

/* The digest of a trace file as 16 hex digits (static buffer). */
const char *at_digest(const char *path);

/* A record with the common fields. */
struct bpt_record at_rec(unsigned op, uint64_t q, uint64_t i, uint64_t c,
			 uint64_t sector, uint32_t bytes, uint32_t pid, uint32_t comm);

/* Open (creating) a database at path, failing the test on error. */
sqlite3 *at_open(const char *path);
/* Import path into db, failing the test on error; returns the trace id. */
int64_t at_import(sqlite3 *db, const char *path);

/* One integer / double / text from SQL (printf-style); fails the test
 * when there is no row. at_text returns a static buffer. */
int64_t at_int(sqlite3 *db, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
double at_dbl(sqlite3 *db, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A 64-bit FNV-1a hash of a file's bytes (0 if it cannot be read) and its
 * size; two calls agree iff the file did not change (for our purposes). */
uint64_t at_file_hash(const char *path);

#endif
