/*
 * run_verify.h — what `replay --verify` found for a run, read back from
 * the run's end meta (BPT_META_VERIFY_* in bpt.h: in the run file's
 * footer, and in traces.meta once imported), for report, compare and
 * html. One reader of those keys, so every command shows the same
 * figures and the same verdict.
 *
 * The meta is text anyone may have written (a hand-made file or
 * database): each figure is parsed alone, and one that is missing or not
 * a number is unknown (null in JSON, "?" in text), never guessed.
 */
#ifndef BLKPEAK_ANALYZE_RUN_VERIFY_H
#define BLKPEAK_ANALYZE_RUN_VERIFY_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "bpt.h"

/* The figures, in the order of run_verify_key(). */
enum rv_field {
	RV_IOS,       /* I/Os compared (failed ones left out) */
	RV_PRESENT,   /* seen as asked: member, offset, size, operation */
	RV_MISSING,   /* a part the kernel never saw */
	RV_MISPLACED, /* missing, but one of its size came elsewhere */
	RV_EXTRA,     /* kernel requests that were not the replay's */
	RV_LOST,      /* events the capture lost */
	RV_ERR_P50,   /* kernel issue - due, ns */
	RV_ERR_P99,
	RV_ERR_MAX,
	RV_DRIFT,     /* growth of that error per unit of schedule time */
	RV_NFIELDS
};

struct run_verify {
	int verified;             /* the run has verify.* meta: it ran with --verify */
	unsigned known;           /* bit (1 << field): its value was read */
	uint64_t v[RV_NFIELDS];   /* the counts and times (RV_DRIFT unused) */
	double drift;
};

/* The meta key of a field ("verify.ios", ...). */
const char *run_verify_key(enum rv_field f);

/* Take one meta pair; keys that are not verify.* are ignored. */
void run_verify_meta(struct run_verify *v, const char *key, const char *value);

/* From a run file's header (end meta included, as the reader gives it). */
void run_verify_header(struct run_verify *v, const struct bpt_header *h);

/* From traces.meta of trace `trace_id` (zeroed when it has none, or the
 * JSON is not valid). 0, or -EIO with err filled. */
int run_verify_load(sqlite3 *db, int64_t trace_id, struct run_verify *v,
		    struct bpt_error *err);

/* Whether the replay was faithful to the trace as the kernel saw it:
 * 1 every I/O present and no event lost, 0 some missing, misplaced or
 * lost, -1 not verified or not known (a figure unreadable). */
int run_verify_faithful(const struct run_verify *v);

/* Why it was not faithful ("3 I/Os missing, 1 misplaced, 12 events lost
 * by the capture") into buf; "" when it was or is not known. */
char *run_verify_why(const struct run_verify *v, char *buf, size_t len);

/* A figure as text: the count, a time (fmt_ns), the drift in percent,
 * "?" when unknown, "-" when not verified. Returns buf. */
char *run_verify_cell(const struct run_verify *v, enum rv_field f, char *buf, size_t len);

/* The JSON object (schemas/analyze-report.schema.json, "fidelity"), or
 * null when not verified. */
struct jw;
void run_verify_json(struct jw *w, const struct run_verify *v);

#endif
