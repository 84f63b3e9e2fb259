/*
 * suite_store.h — the results of `blkpeak suite run` in the store
 * (schemas/analyze.sql, table suite_results; schemas/analyze-db.md).
 *
 * `suite run` stores each result with `analyze import FILE --suite ...`:
 * the run or measurement is imported as any other, then tagged with the
 * suite's digest and name, the workload, its kind and the repeat. The
 * label and host are the result's own (traces.label or
 * measurements.label; runs.host, or this machine's for a measurement).
 *
 * Two versions of one suite (its digest changed: the manifest or a
 * recording was edited) are never mixed under one label and host: tagging
 * a result of a new digest where the label already has results of
 * another digest of the same suite name is refused unless new_version.
 * Tagging the same (digest, workload, label, host, repeat) again replaces
 * the row: a resumed run redoes the repeat it was cut in.
 *
 * The SQL here is portable (standard SQL and INSERT ... ON CONFLICT),
 * for the PostgreSQL store as for SQLite.
 */
#ifndef BLKPEAK_ANALYZE_SUITE_STORE_H
#define BLKPEAK_ANALYZE_SUITE_STORE_H

#include <sqlite3.h>
#include <stdint.h>

#include "bpt.h"

struct suite_tag {
	const char *digest;    /* 16 lowercase hex digits */
	const char *name;      /* the suite's name */
	const char *workload;  /* "photo-edit causal", "fileserver" */
	const char *kind;      /* replay, mix, qd-sweep */
	unsigned repeat;       /* 1.. */
	int new_version;       /* allow a new digest beside an old one */
	const char *label;     /* ranked under this label; NULL: the result's own */
};

/* Check a tag's fields (digest form, names, kind, repeat): 0 or -EINVAL
 * with err saying which. No database needed. */
int suite_tag_check(const struct suite_tag *t, struct bpt_error *err);

/* Tag the stored run trace_id (> 0) or measurement measurement_id (> 0,
 * trace_id 0). Returns 0, -EEXIST (another version of the suite under
 * this label and host, err says which), -EINVAL (the result has no
 * label), or -EIO. */
int suite_tag_store(sqlite3 *db, const struct suite_tag *t, int64_t trace_id,
		    int64_t measurement_id, struct bpt_error *err);

#endif
