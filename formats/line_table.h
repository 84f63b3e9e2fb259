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

/* A good line: the value of every column (v[i] for cols[i]; an op
 * column's is its BPT_OP_*) and the fields f[0..n). */
struct ff_row {
	uint64_t v[FF_TABLE_MAX_COLS];
	const struct ff_field *f;
	size_t n;
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
	/* The device: named dev_prefix followed by the value of column
	 * dev_col (ff_device_num: "lun" 4 -> "lun4") and set in rec->dev
	 * before build(); NULL when build() sets it. */
	const char *dev_prefix;
	size_t dev_col;
	/* The rest of the record from the line: 0 or a negative errno
	 * (message set). */
	int (*build)(struct ff_ctx *cx, const struct ff_row *row, struct bpt_record *rec);
};

/* The op of a one-letter field, or -1. */
static inline __attribute__((always_inline)) int
ff_table_op_letter(const struct ff_field *f, const char *letters, int anycase)
{
	char c;

	if (f->len != 1)
		return -1;
	c = f->p[0];
	if (anycase)
		c = (char)(c | 0x20);
	return c == letters[0] ? BPT_OP_READ : c == letters[1] ? BPT_OP_WRITE : -1;
}

/* The value of column c in f[0..n) into *v: 0, or -1 when bad. */
static inline __attribute__((always_inline)) int
ff_table_column(const struct ff_column *c, const struct ff_field *f, size_t n, const uint64_t *vals,
		uint64_t *v)
{
	const struct ff_field *fl = &f[c->index < 0 ? (size_t)((long)n + c->index) : (size_t)c->index];
	int op;

	switch (c->kind) {
	case FF_COL_U64:
		if (ff_u64(fl, v))
			return -1;
		break;
	case FF_COL_SECONDS:
		if (ff_decimal_scaled(fl, 1000000000ull, v))
			return -1;
		break;
	case FF_COL_OP:
	case FF_COL_OP_ANYCASE:
		if ((op = ff_table_op_letter(fl, c->letters, c->kind == FF_COL_OP_ANYCASE)) < 0)
			return -1;
		*v = (uint64_t)op;
		return 0;
	}
	if (c->max && *v > c->max)
		return -1;
	if (c->multiple && *v % c->multiple)
		return -1;
	if (c->check && !c->check(*v, vals))
		return -1;
	return 0;
}

/*
 * ff_reader_ops.next for a table: 1 (a record), 0 at the end, or <0.
 * Inline on purpose: each reader calls it with its own constant table,
 * so the compiler unrolls the columns and folds their kinds and limits
 * away; one out-of-line loop over the table ran 6% more instructions
 * per convert (callgrind, 100k alibaba lines), this as many as the
 * hand-written loops it replaced.
 */
static inline __attribute__((always_inline)) int
ff_table_next(const struct ff_line_table *t, struct ff_ctx *cx, struct bpt_record *rec)
{
	struct ff_field f[FF_TABLE_MAX_FIELDS];
	struct ff_row row = { .f = f };
	char *line;
	size_t len, n, i;
	int rc, d;

	while ((rc = ff_line(cx, &line, &len)) == 1) {
		if (!len || (t->hash_comments && line[0] == '#'))
			continue;
		n = ff_split(line, len, t->sep, f, t->split);
		if (n < t->min_fields || n > t->max_fields) {
			if ((rc = ff_bad(cx, "line", "%s", t->shape_why)))
				return rc;
			continue;
		}
		if (t->skip && t->skip(cx, f, n))
			continue;
#pragma GCC unroll 8
		for (i = 0; i < t->ncols; i++)
			if (ff_table_column(&t->cols[i], f, n, row.v, &row.v[i]))
				break;
		if (i < t->ncols) {
			if ((rc = ff_bad(cx, t->cols[i].name, "%s", t->cols[i].why)))
				return rc;
			continue;
		}
		row.n = n;
		if (t->dev_prefix) {
			if ((d = ff_device_num(cx, t->dev_prefix, row.v[t->dev_col])) < 0)
				return d;
			rec->dev = (uint32_t)d;
		}
		if ((rc = t->build(cx, &row, rec)))
			return rc;
		return 1;
	}
	return rc;
}

#endif
