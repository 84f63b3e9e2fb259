/*
 * line_table.c — the line loop of the column-table readers (line_table.h).
 */
#include "line_table.h"

/* The op of a one-letter field, or -1. */
static int op_letter(const struct ff_field *f, const char *letters, int anycase)
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
static int column(const struct ff_column *c, const struct ff_field *f, size_t n, const uint64_t *vals,
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
		if ((op = op_letter(fl, c->letters, c->kind == FF_COL_OP_ANYCASE)) < 0)
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

int ff_table_next(const struct ff_line_table *t, struct ff_ctx *cx, struct bpt_record *rec)
{
	struct ff_field f[FF_TABLE_MAX_FIELDS];
	uint64_t vals[FF_TABLE_MAX_COLS];
	char *line;
	size_t len, n, i;
	int rc;

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
		for (i = 0; i < t->ncols; i++)
			if (column(&t->cols[i], f, n, vals, &vals[i]))
				break;
		if (i < t->ncols) {
			if ((rc = ff_bad(cx, t->cols[i].name, "%s", t->cols[i].why)))
				return rc;
			continue;
		}
		if ((rc = t->build(cx, vals, f, n, rec)))
			return rc;
		return 1;
	}
	return rc;
}
