/*
 * jsonout.c — the streaming JSON writer (see jsonout.h).
 */
#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "jsonout.h"

/* Room for any double in %.*f with prec <= 20: 309 digits, sign, point. */
#define NUM_BUF 336

/* v as json_num writes it, into buf[NUM_BUF]; returns its length. */
static size_t num_fmt(char *buf, double v, int prec)
{
	int n;

	if (prec > 20)
		prec = 20;
	if (!isfinite(v))
		n = snprintf(buf, NUM_BUF, "null");
	else if (v == (double)(long long)v && fabs(v) < 9e15)
		n = snprintf(buf, NUM_BUF, "%lld", (long long)v);
	else
		n = snprintf(buf, NUM_BUF, "%.*f", prec, v);
	return (size_t)n;
}

void json_num(FILE *f, double v, int prec)
{
	char buf[NUM_BUF];

	fwrite(buf, 1, num_fmt(buf, v, prec), f);
}

/* v in decimal, with a '-' when neg, into the end of buf[24]; returns
 * where it starts. */
static char *dec_fmt(char buf[24], uint64_t v, int neg)
{
	char *p = buf + 24;

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (neg)
		*--p = '-';
	return p;
}

/* Printable ASCII with nothing to escape in JSON. */
static int plain(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
			return 0;
	}
	return 1;
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
	char buf[24], *p = dec_fmt(buf, v, 0);

	before(w);
	fwrite(p, 1, (size_t)(buf + 24 - p), w->f);
}

void jw_i64(struct jw *w, int64_t v)
{
	char buf[24], *p = dec_fmt(buf, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0);

	before(w);
	fwrite(p, 1, (size_t)(buf + 24 - p), w->f);
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

void jw_hex(struct jw *w, const void *p, size_t n)
{
	const unsigned char *b = p;

	before(w);
	fputc('"', w->f);
	for (size_t i = 0; i < n; i++)
		fprintf(w->f, "%02x", b[i]);
	fputc('"', w->f);
}

void jw_raw(struct jw *w, const char *number)
{
	before(w);
	fputs(number, w->f);
}

/*
 * Key and value (already formatted, quoted when `quote`) in one write:
 * dump writes a dozen of them a record, millions of records, and each
 * stdio call takes the stream's lock. Only on one line and when neither
 * needs escaping; else through jw_key and the value's own writer.
 */
static void key_value(struct jw *w, const char *k, const char *v, size_t vlen, int quote)
{
	char buf[160];
	size_t klen = strlen(k), n = 0;
	int d = w->depth < JW_MAX_DEPTH ? w->depth : JW_MAX_DEPTH;

	if (w->indent || w->after_key || !w->depth || klen > 64 || vlen > 64 ||
	    !plain(k, klen) || (quote && !plain(v, vlen))) {
		jw_key(w, k);
		before(w);
		if (quote)
			json_str(w->f, v);
		else
			fwrite(v, 1, vlen, w->f);
		return;
	}
	if (w->has_items[d])
		buf[n++] = ',';
	w->has_items[d] = 1;
	buf[n++] = '"';
	memcpy(buf + n, k, klen);
	n += klen;
	buf[n++] = '"';
	buf[n++] = ':';
	if (quote)
		buf[n++] = '"';
	memcpy(buf + n, v, vlen);
	n += vlen;
	if (quote)
		buf[n++] = '"';
	fwrite(buf, 1, n, w->f);
}

void jw_kstr(struct jw *w, const char *k, const char *s)
{
	key_value(w, k, s, strlen(s), 1);
}

void jw_knum(struct jw *w, const char *k, double v, int prec)
{
	char buf[NUM_BUF];

	key_value(w, k, buf, num_fmt(buf, v, prec), 0);
}

void jw_ku64(struct jw *w, const char *k, uint64_t v)
{
	char buf[24], *p = dec_fmt(buf, v, 0);

	key_value(w, k, p, (size_t)(buf + 24 - p), 0);
}

void jw_ki64(struct jw *w, const char *k, int64_t v)
{
	char buf[24], *p = dec_fmt(buf, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0);

	key_value(w, k, p, (size_t)(buf + 24 - p), 0);
}

void jw_kbool(struct jw *w, const char *k, int v)
{
	key_value(w, k, v ? "true" : "false", v ? 4 : 5, 0);
}

void jw_kraw(struct jw *w, const char *k, const char *number)
{
	key_value(w, k, number, strlen(number), 0);
}

void jw_ku64_or_null(struct jw *w, const char *k, int have, uint64_t v)
{
	if (have)
		jw_ku64(w, k, v);
	else
		key_value(w, k, "null", 4, 0);
}
