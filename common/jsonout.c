/*
 * jsonout.c — the streaming JSON writer (see jsonout.h).
 */
#include <assert.h>
#include <inttypes.h>
#include <math.h>

#include "jsonout.h"

void json_num(FILE *f, double v, int prec)
{
	if (!isfinite(v)) {
		fputs("null", f);
		return;
	}
	if (v == (double)(long long)v && fabs(v) < 9e15)
		fprintf(f, "%lld", (long long)v);
	else
		fprintf(f, "%.*f", prec, v);
}

void jw_init(struct jw *w, FILE *f, int indent)
{
	*w = (struct jw){ .f = f, .indent = indent };
}

static void newline(struct jw *w, int depth)
{
	if (!w->indent)
		return;
	fputc('\n', w->f);
	for (int i = 0; i < depth * w->indent; i++)
		fputc(' ', w->f);
}

/* Before any value or key: the comma and the line break it needs. */
static void before(struct jw *w)
{
	int d = w->depth < JW_MAX_DEPTH ? w->depth : JW_MAX_DEPTH;

	if (w->after_key) {
		w->after_key = 0;
		return;
	}
	if (w->depth) {
		if (w->has_items[d])
			fputc(',', w->f);
		newline(w, w->depth);
	}
	w->has_items[d] = 1;
}

static void jw_open(struct jw *w, char c)
{
	before(w);
	fputc(c, w->f);
	assert(w->depth < JW_MAX_DEPTH);
	w->depth++;
	if (w->depth <= JW_MAX_DEPTH)
		w->has_items[w->depth] = 0;
}

static void jw_close(struct jw *w, char c)
{
	int had = w->depth <= JW_MAX_DEPTH ? w->has_items[w->depth] : 1;

	assert(w->depth > 0 && !w->after_key);
	w->depth--;
	if (had)
		newline(w, w->depth);
	fputc(c, w->f);
}

void jw_obj(struct jw *w) { jw_open(w, '{'); }
void jw_obj_end(struct jw *w) { jw_close(w, '}'); }
void jw_arr(struct jw *w) { jw_open(w, '['); }
void jw_arr_end(struct jw *w) { jw_close(w, ']'); }

void jw_finish(struct jw *w)
{
	assert(w->depth == 0);
	fputc('\n', w->f);
}

void jw_key(struct jw *w, const char *k)
{
	before(w);
	json_str(w->f, k);
	fputs(w->indent ? ": " : ":", w->f);
	w->after_key = 1;
}

void jw_str(struct jw *w, const char *s)
{
	before(w);
	json_str(w->f, s);
}

void jw_str_or_null(struct jw *w, const char *s)
{
	if (s && *s)
		jw_str(w, s);
	else
		jw_null(w);
}

void jw_num(struct jw *w, double v, int prec)
{
	before(w);
	json_num(w->f, v, prec);
}

void jw_u64(struct jw *w, uint64_t v)
{
	before(w);
	fprintf(w->f, "%" PRIu64, v);
}

void jw_i64(struct jw *w, int64_t v)
{
	before(w);
	fprintf(w->f, "%" PRId64, v);
}

void jw_bool(struct jw *w, int v)
{
	before(w);
	fputs(v ? "true" : "false", w->f);
}

void jw_null(struct jw *w)
{
	before(w);
	fputs("null", w->f);
}

void jw_raw(struct jw *w, const char *number)
{
	before(w);
	fputs(number, w->f);
}

void jw_kstr(struct jw *w, const char *k, const char *s) { jw_key(w, k); jw_str(w, s); }
void jw_knum(struct jw *w, const char *k, double v, int prec) { jw_key(w, k); jw_num(w, v, prec); }
void jw_ku64(struct jw *w, const char *k, uint64_t v) { jw_key(w, k); jw_u64(w, v); }
void jw_ki64(struct jw *w, const char *k, int64_t v) { jw_key(w, k); jw_i64(w, v); }
void jw_kbool(struct jw *w, const char *k, int v) { jw_key(w, k); jw_bool(w, v); }
void jw_kraw(struct jw *w, const char *k, const char *number) { jw_key(w, k); jw_raw(w, number); }
