/*
 * import.h — loading one .bpt file into the analysis database.
 *
 * An import is one transaction: either the whole trace (its header,
 * devices, strings, losses, run facts and every I/O) is in the database
 * afterwards, or nothing changed. A trace already in the database (same
 * content digest) is recognised and not imported again.
 */
#ifndef BLKPEAK_ANALYZE_IMPORT_H
#define BLKPEAK_ANALYZE_IMPORT_H

#include <sqlite3.h>
#include <stdint.h>

#include "bpt.h"

struct import_opts {
	/* Accept a file without a valid footer (a capture that was killed):
	 * import the records of its complete blocks. Otherwise such a file
	 * is refused before the database is touched. */
	int partial;
	/* Called about every 64k records with the records done so far and
	 * the total (0 when unknown); may be NULL. */
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	void *progress_arg;
};

struct import_result {
	int64_t trace_id;    /* traces.id, new or existing */
	int already;         /* 1: the digest was in the database, nothing done */
	uint64_t records;    /* I/Os imported (or in the existing trace) */
	int truncated;       /* 1: a partial file was imported up to its last good block */
	char digest[17];     /* hex */
};

/*
 * Import `path` into `db` (opened read-write by adb_open()). Returns 0
 * with *res filled, or a negative errno with err naming the file and the
 * reason; on any error the database is as it was before the call.
 */
int import_file(sqlite3 *db, const char *path, const struct import_opts *opts,
		struct import_result *res, struct bpt_error *err);

/* Format a digest as 16 lowercase hex digits into buf[17]. */
char *import_digest_hex(uint64_t digest, char buf[17]);

/* A digest written in a header meta ("source.digest") in the form
 * traces.digest uses; copied unchanged when it is not hex. */
void import_normalise_digest(const char *in, char out[17]);

#endif
