/*
 * measure_import.h — importing a `blkpeak measure` results document
 * (schemas/measure-results.schema.json) into the measurements and
 * measurement_points tables (schemas/analyze.sql).
 *
 * The document is parsed by SQLite's own JSON functions, in one
 * transaction: a document that lacks a required key, has a key of the
 * wrong type or a kind blkpeak does not know is refused and the database
 * is left as it was.
 */
#ifndef BLKPEAK_ANALYZE_MEASURE_IMPORT_H
#define BLKPEAK_ANALYZE_MEASURE_IMPORT_H

#include <sqlite3.h>
#include <stdint.h>

#include "error.h"

#define MEASURE_RESULTS_MAX (16u << 20) /* bytes a results document may have */

/* 1 when the file at path starts (after white space) with '{': a results
 * document rather than a trace; 0 otherwise or when it cannot be read. */
int measure_results_is(const char *path);

struct measure_import_result {
	int64_t id;       /* measurements.id, new or existing */
	int already;      /* 1: the same measurement was there, nothing done */
	char kind[16];
	unsigned points;
};

/* Read and check the document (no database needed): 0 or -errno with err. */
int measure_results_check(const char *path, struct bpt_error *err);

/* Import it: 0 with *res filled, or -errno with err. */
int measure_import(sqlite3 *db, const char *path, struct measure_import_result *res,
		   struct bpt_error *err);

#endif
