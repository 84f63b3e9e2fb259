/*
 * jsonout.h — the one JSON writer every --json output goes through
 * (capture, replay, info, dump, analyze import/report/compare/query).
 *
 * A struct jw streams one document to a FILE: the caller opens and
 * closes objects and arrays and names keys; the writer puts the commas,
 * the colons and (with indent > 0) the newlines and indentation. Strings
 * go through json_str() of common/fmt.h (every control byte escaped),
 * numbers through json_num(). Key names carry their unit (`_ns`,
 * `_bytes`, `_per_s`); the schemas in schemas/ list them.
 */
#ifndef BLKPEAK_JSONOUT_H
#define BLKPEAK_JSONOUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fmt.h"

/* Deeper nesting than any blkpeak document; past it the writer still
 * writes valid JSON but stops indenting and tracking commas correctly,
 * so a caller must stay below it (asserted in debug builds). */
#define JW_MAX_DEPTH 16

struct jw {
	FILE *f;
	int indent;	   /* spaces per level; 0 writes the document on one line */
	int depth;	   /* open objects and arrays */
	int after_key;	   /* a key was written; its value comes next */
	unsigned char has_items[JW_MAX_DEPTH + 1]; /* per level: a value was written */
};

void jw_init(struct jw *w, FILE *f, int indent);
/* Ends the document: a newline after the top-level value. */
void jw_finish(struct jw *w);

void jw_obj(struct jw *w);
void jw_obj_end(struct jw *w);
void jw_arr(struct jw *w);
void jw_arr_end(struct jw *w);
/* The next value belongs to key k (a JSON string, escaped). */
void jw_key(struct jw *w, const char *k);

void jw_str(struct jw *w, const char *s);
/* s, or null when s is NULL or empty. */
void jw_str_or_null(struct jw *w, const char *s);
void jw_num(struct jw *w, double v, int prec);
void jw_u64(struct jw *w, uint64_t v);
void jw_i64(struct jw *w, int64_t v);
void jw_bool(struct jw *w, int v);
void jw_null(struct jw *w);
/* n bytes as a string of lowercase hex digits. */
void jw_hex(struct jw *w, const void *p, size_t n);
/* A number the caller formatted already (fmt_us's "1234.567"), as is. */
void jw_raw(struct jw *w, const char *number);

/* Key and value in one call. */
void jw_kstr(struct jw *w, const char *k, const char *s);
void jw_knum(struct jw *w, const char *k, double v, int prec);
void jw_ku64(struct jw *w, const char *k, uint64_t v);
void jw_ki64(struct jw *w, const char *k, int64_t v);
void jw_kbool(struct jw *w, const char *k, int v);
void jw_kraw(struct jw *w, const char *k, const char *number);
/* KEY: V when HAVE, else KEY: null (a figure that may not exist). */
void jw_ku64_or_null(struct jw *w, const char *k, int have, uint64_t v);

/* Write a double as a JSON number (NaN and infinities -> null): whole
 * numbers without a fraction, others with `prec` digits after the point. */
void json_num(FILE *f, double v, int prec);

#endif
