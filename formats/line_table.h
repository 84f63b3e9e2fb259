/*
 * line_table.h — the line loop shared by the readers of text formats with
 * one I/O a line in fixed columns (alibaba, systor17, tencent, fiu, spc):
 * read a line, split it, parse each column into a number, report a bad
 * one as "PATH:LINE: COLUMN: why", and let the format's build() make the
 * record from the numbers. A reader is then its table of columns and the
 * few things that are truly its own (header lines, device names, units).
 */
#ifndef FORMATS_LINE_TABLE_H
#define FORMATS_LINE_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "foreign.h"

/* The most columns a table has (the values build() receives), and the
 * most fields a line is split into. */
#define FF_TABLE_MAX_COLS 8
#define FF_TABLE_MAX_FIELDS 64

enum ff_col_kind {
	FF_COL_U64,     /* unsigned decimal (ff_u64) */
	FF_COL_SECONDS, /* decimal seconds scaled to ns (ff_decimal_scaled, 1e9) */
	FF_COL_OP,      /* one letter: letters[0] a read, letters[1] a write -> BPT_OP_* */
	FF_COL_OP_ANYCASE, /* the same, either case */
};

struct ff_column {
	const char *name;  /* in messages: "Offset" */
	int index;         /* field number; negative counts from the end (-1 the last) */
	enum ff_col_kind kind;
	uint64_t max;      /* a larger value is bad (0: any) */
	uint64_t multiple; /* a value not a multiple of it is bad (0: any) */
	const char *letters; /* FF_COL_OP*: "RW" */
	/* A check across columns (e.g. a sum that must not overflow): 1 when
	 * v is good given the columns before it (vals), else 0. May be NULL. */
	int (*check)(uint64_t v, const uint64_t *vals);
	const char *why;   /* what the bad line says: "not a number" */
};

struct ff_line_table {
	char sep;           /* ff_split's separator */
	size_t split;       /* fields ff_split makes at most (<= FF_TABLE_MAX_FIELDS) */
	size_t min_fields, max_fields; /* a line with another count is bad: */
	const char *shape_why; /* "line": why ("not A,B,C") */
	int hash_comments;  /* lines starting with '#' are comments */
	const struct ff_column *cols;
	size_t ncols;
	/* 1 when the split line f[0..n) is to be skipped silently (a header
	 * line), else 0. May be NULL. */
	int (*skip)(struct ff_ctx *cx, const struct ff_field *f, size_t n);
	/* The record from the columns' values (vals[i] for cols[i]) and the
	 * fields: 0 or a negative errno (message set). */
	int (*build)(struct ff_ctx *cx, const uint64_t *vals, const struct ff_field *f, size_t n,
		     struct bpt_record *rec);
};

/* ff_reader_ops.next for a table: 1 (a record), 0 at the end, or <0. */
int ff_table_next(const struct ff_line_table *t, struct ff_ctx *cx, struct bpt_record *rec);

#endif
