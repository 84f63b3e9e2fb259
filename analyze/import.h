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

struct import_result;

/* Another store (the PostgreSQL one, pg_import.c) takes the I/Os: the
 * SQLite database given to import_file() then gets only the trace's
 * other rows. before() is called once the file is checked and its digest
 * known (res->digest), before anything is written: > 0 the trace is
 * there already (res->trace_id, res->records filled), 0 go on, < 0 an
 * error. io() gets every I/O in file order. */
struct import_hooks {
	int (*before)(void *arg, struct import_result *res, const struct bpt_header *h,
		      struct bpt_error *err);
	int (*io)(void *arg, const struct bpt_record *rec, struct bpt_error *err);
	void *arg;
};

struct import_opts {
	/* Accept a file without a valid footer (a capture that was killed):
	 * import the records of its complete blocks. Otherwise such a file
	 * is refused before the database is touched. */
	int partial;
	/* Called about every 64k records with the records done so far and
	 * the total (0 when unknown); may be NULL. */
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	void *progress_arg;
	const struct import_hooks *hooks; /* NULL: the I/Os go to db */
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

/*
 * Append I/Os to the I/O tables of db for trace `id` (a row of traces
 * already, its `columns` given) from next() (1 and a record, 0 at the
 * end, < 0 an error), in the caller's transaction; sets traces.io_base.
 * The PostgreSQL store fills its local working copy this way.
 */
int import_ios(sqlite3 *db, int64_t id, uint32_t columns,
	       int (*next)(void *arg, struct bpt_record *rec, struct bpt_error *err),
	       void *arg, struct bpt_error *err);

/* Format a digest as 16 lowercase hex digits into buf[17]. */
char *import_digest_hex(uint64_t digest, char buf[17]);

/* A digest written in a header meta ("source.digest") in the form
 * traces.digest uses; copied unchanged when it is not hex. */
void import_normalise_digest(const char *in, char out[17]);

#endif
