/* measure_view.c — measurements side by side: tables and charts (measure_view.h). */
#include "measure_view.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cliutil.h"
#include "db.h"
#include "fmt.h"
#include "jsonout.h"
#include "run_label.h"
#include "svg.h"

static void col_text(sqlite3_stmt *st, int i, char *buf, size_t len)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	snprintf(buf, len, "%s", t ? (const char *)t : "");
}

static int load_points(sqlite3 *db, struct mview_meas *m, struct bpt_error *err)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	/* a knee's step also gives the value of its target's first figure */
	if (sqlite3_prepare_v2(db, "SELECT depth, coalesce(zone, -1), offset_bytes, span_bytes,"
			       " coalesce(span_pct, 0), coalesce(weight, 0), ios_per_s, mb_per_s,"
			       " p50_ns, p99_ns, p999_ns, max_ns, coalesce(speed_factor, 0),"
			       " coalesce(met, -1), coalesce(CASE (SELECT key FROM"
			       " json_each((SELECT knee_slo FROM measurements WHERE id = ?1)) LIMIT 1)"
			       " WHEN 'mean_ns' THEN mean_ns WHEN 'p50_ns' THEN p50_ns"
			       " WHEN 'p90_ns' THEN p90_ns WHEN 'p99_ns' THEN p99_ns"
			       " WHEN 'p99_9_ns' THEN p999_ns WHEN 'p99_99_ns' THEN p9999_ns"
			       " WHEN 'max_ns' THEN max_ns END, 0) FROM measurement_points"
			       " WHERE measurement_id = ?1 ORDER BY step", -1, &st, NULL) != SQLITE_OK)
		return adb_fail(db, err, "cannot read measurement_points");
	sqlite3_bind_int64(st, 1, m->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct mview_point *p;

		if (m->n == cap) {
			size_t nc = cap ? 2 * cap : 16;
			struct mview_point *np = realloc(m->p, nc * sizeof(*np));

			if (!np) {
				sqlite3_finalize(st);
				return bpt_error_set(err, -ENOMEM, "out of memory");
			}
			m->p = np;
			cap = nc;
		}
		p = &m->p[m->n++];
		p->depth = sqlite3_column_int64(st, 0);
		p->zone = sqlite3_column_int64(st, 1);
		p->offset_bytes = sqlite3_column_int64(st, 2);
		p->span_bytes = sqlite3_column_int64(st, 3);
		p->span_pct = sqlite3_column_double(st, 4);
		p->weight = sqlite3_column_double(st, 5);
		p->iops = sqlite3_column_double(st, 6);
		p->mbps = sqlite3_column_double(st, 7);
		p->p50_ns = sqlite3_column_double(st, 8);
		p->p99_ns = sqlite3_column_double(st, 9);
		p->p999_ns = sqlite3_column_double(st, 10);
		p->max_ns = sqlite3_column_double(st, 11);
		p->factor = sqlite3_column_double(st, 12);
		p->met = sqlite3_column_int(st, 13);
		p->slo_ns = sqlite3_column_double(st, 14);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : adb_fail(db, err, "cannot read measurement_points");
}

/* A knee's target in words ("p99 <= 5.00 ms, max <= 50.00 ms") and its
 * first figure, from measurements.knee_slo ({"p99_ns": 5000000, ...}). */
static int load_slo(sqlite3 *db, struct mview_meas *m, struct bpt_error *err)
{
	sqlite3_stmt *st;
	size_t o = 0;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT key, value FROM json_each((SELECT knee_slo FROM"
			       " measurements WHERE id = ?1))", -1, &st, NULL) != SQLITE_OK)
		return adb_fail(db, err, "cannot read a knee's target");
	sqlite3_bind_int64(st, 1, m->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char fig[16], t[32];
		const char *key = (const char *)sqlite3_column_text(st, 0);
		double ns = sqlite3_column_double(st, 1);

		snprintf(fig, sizeof(fig), "%.*s", key && strlen(key) > 3 ? (int)strlen(key) - 3 : 0,
			 key ? key : "");
		for (char *c = fig; *c; c++)
			*c = *c == '_' ? '.' : *c; /* p99_9 -> p99.9 */
		if (!o) {
			snprintf(m->slo_fig, sizeof(m->slo_fig), "%s", fig);
			m->slo_limit_ns = ns;
		}
		if (o < sizeof(m->slo))
			o += (size_t)snprintf(m->slo + o, sizeof(m->slo) - o, "%s%s <= %s", o ? ", " : "",
					      fig, fmt_ns(ns, t, sizeof(t)));
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : adb_fail(db, err, "cannot read a knee's target");
}

int mview_load(sqlite3 *db, const int64_t *ids, size_t n, struct mview *v,
	       struct bpt_error *err)
{
	sqlite3_stmt *st;
	int64_t *all = NULL;
	int rc = 0;

	memset(v, 0, sizeof(*v));
	if (!n) {
		size_t cap = 0;

		if (sqlite3_prepare_v2(db, "SELECT id FROM measurements ORDER BY id", -1, &st,
				       NULL) != SQLITE_OK)
			return adb_fail(db, err, "cannot read measurements");
		while (sqlite3_step(st) == SQLITE_ROW) {
			if (n == cap) {
				int64_t *na = realloc(all, (cap = cap ? 2 * cap : 16) * sizeof(*na));

				if (!na) {
					sqlite3_finalize(st);
					free(all);
					return bpt_error_set(err, -ENOMEM, "out of memory");
				}
				all = na;
			}
			all[n++] = sqlite3_column_int64(st, 0);
		}
		sqlite3_finalize(st);
		ids = all;
	}
	if (n && !(v->m = calloc(n, sizeof(*v->m)))) {
		free(all);
		return bpt_error_set(err, -ENOMEM, "out of memory");
	}
	if (sqlite3_prepare_v2(db, "SELECT kind, target, access, coalesce(write_cache, ''),"
			       " coalesce(score_ios_per_s, 0), label, knee_factor FROM measurements WHERE id = ?1",
			       -1, &st, NULL) != SQLITE_OK) {
		free(all);
		return adb_fail(db, err, "cannot read measurements");
	}
	for (size_t i = 0; i < n && !rc; i++) {
		struct mview_meas *m = &v->m[v->n];

		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, ids[i]);
		if (sqlite3_step(st) != SQLITE_ROW) {
			rc = bpt_error_set(err, -ENOENT, "%s: no measurement %" PRId64,
					   sqlite3_db_filename(db, "main"), ids[i]);
			break;
		}
		m->id = ids[i];
		col_text(st, 0, m->kind, sizeof(m->kind));
		col_text(st, 1, m->target, sizeof(m->target));
		col_text(st, 2, m->access, sizeof(m->access));
		col_text(st, 3, m->write_cache, sizeof(m->write_cache));
		m->score = sqlite3_column_double(st, 4);
		run_label_make((const char *)sqlite3_column_text(st, 5), m->target, NULL, m->label,
			       sizeof(m->label));
		m->knee_factor = sqlite3_column_type(st, 6) == SQLITE_NULL ? NAN
									    : sqlite3_column_double(st, 6);
		v->n++;
		rc = load_points(db, m, err);
		if (!rc && !strcmp(m->kind, "knee"))
			rc = load_slo(db, m, err);
	}
	sqlite3_finalize(st);
	free(all);
	if (rc)
		mview_free(v);
	return rc;
}

void mview_free(struct mview *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->m[i].p);
	free(v->m);
	memset(v, 0, sizeof(*v));
}

int mview_same_kind(const struct mview *v, struct bpt_error *err)
{
	if (!v->n)
		return bpt_error_set(err, -EINVAL, "no measurement");
	for (size_t i = 1; i < v->n; i++)
		if (strcmp(v->m[i].kind, v->m[0].kind))
			return bpt_error_set(err, -EINVAL, "measurement %" PRId64 " is a %s,"
					     " measurement %" PRId64 " a %s: compare one kind",
					     v->m[0].id, v->m[0].kind, v->m[i].id, v->m[i].kind);
	return 0;
}

/* The figures a table shows per kind: name, unit and the value. */
struct figure {
	const char *name;
	double (*get)(const struct mview_point *p);
	int prec;
};

static double get_iops(const struct mview_point *p) { return p->iops; }
static double get_mbps(const struct mview_point *p) { return p->mbps; }
static double get_p99_ms(const struct mview_point *p) { return p->p99_ns / 1e6; }

static const struct figure qd_figs[] = { { "IOPS", get_iops, 1 }, { "p99 (ms)", get_p99_ms, 3 } };
static const struct figure zcav_figs[] = { { "MB/s", get_mbps, 2 } };
static const struct figure seek_figs[] = { { "seeks/s", get_iops, 1 }, { "p99 (ms)", get_p99_ms, 3 } };
static const struct figure commit_figs[] = { { "commits/s", get_iops, 1 },
					     { "p99 (ms)", get_p99_ms, 3 } };
static const struct figure knee_figs[] = { { "IOPS", get_iops, 1 }, { "p99 (ms)", get_p99_ms, 3 } };

static const struct figure *figures_of(const char *kind, size_t *n)
{
#define RET(a) do { *n = sizeof(a) / sizeof(a[0]); return a; } while (0)
	if (!strcmp(kind, "qd-sweep"))
		RET(qd_figs);
	if (!strcmp(kind, "zcav"))
		RET(zcav_figs);
	if (!strcmp(kind, "seeks"))
		RET(seek_figs);
	if (!strcmp(kind, "knee"))
		RET(knee_figs);
	RET(commit_figs);
#undef RET
}

/* The key a step is paired by: the queue depth (qd-sweep), the zone
 * (zcav), the span in percent (seeks), the speed factor (knee); a commit
 * has its one step. */
static double step_key(const struct mview_meas *m, const struct mview_point *p)
{
	if (!strcmp(m->kind, "qd-sweep"))
		return (double)p->depth;
	if (!strcmp(m->kind, "zcav"))
		return (double)p->zone;
	if (!strcmp(m->kind, "seeks"))
		return p->span_pct;
	if (!strcmp(m->kind, "knee"))
		return p->factor;
	return 0;
}

const struct mview_point *mview_step(const struct mview_meas *m, double key)
{
	for (size_t s = 0; s < m->n; s++)
		if (step_key(m, &m->p[s]) == key)
			return &m->p[s];
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The rows of the table: every step key of any measurement, once, in
 * increasing order, into *keys (malloc'ed); their number, or 0 (none, or
 * out of memory). */
static size_t row_keys(const struct mview *v, double **keys)
{
	size_t total = 0, n = 0;
	double *k;

	for (size_t i = 0; i < v->n; i++)
		total += v->m[i].n;
	if (!total || !(k = malloc(total * sizeof(*k)))) {
		*keys = NULL;
		return 0;
	}
	for (size_t i = 0; i < v->n; i++)
		for (size_t s = 0; s < v->m[i].n; s++)
			k[n++] = step_key(&v->m[i], &v->m[i].p[s]);
	qsort(k, n, sizeof(*k), cmp_double);
	total = n, n = 0;
	for (size_t i = 0; i < total; i++)
		if (!n || k[i] != k[n - 1])
			k[n++] = k[i];
	*keys = k;
	return n;
}

/* The row label of the step with this key (from the first measurement
 * that has it). */
static void row_label(const struct mview *v, double key, char *buf, size_t len)
{
	char b[32];

	for (size_t i = 0; i < v->n; i++) {
		const struct mview_meas *m = &v->m[i];
		const struct mview_point *p = mview_step(m, key);

		if (!p)
			continue;
		if (!strcmp(m->kind, "qd-sweep"))
			snprintf(buf, len, "QD %" PRId64, p->depth);
		else if (!strcmp(m->kind, "zcav"))
			snprintf(buf, len, "zone %" PRId64 " @ %s", p->zone,
				 fmt_bytes((uint64_t)p->offset_bytes, b, sizeof(b)));
		else if (!strcmp(m->kind, "seeks"))
			snprintf(buf, len, "%g%% (%s)", p->span_pct,
				 fmt_bytes((uint64_t)p->span_bytes, b, sizeof(b)));
		else if (!strcmp(m->kind, "knee"))
			snprintf(buf, len, "speed x%.4g", p->factor);
		else
			snprintf(buf, len, "commit");
		return;
	}
	snprintf(buf, len, "-");
}

/* A value and its change against the baseline: "412.3 (+97.8%)". */
static void cell(char *buf, size_t len, double v, double base, int prec, int first)
{
	if (first || !(base > 0))
		snprintf(buf, len, "%.*f", prec, v);
	else
		snprintf(buf, len, "%.*f (%+.1f%%)", prec, v, (v / base - 1) * 100);
}

/*
 * How a table of measurements is drawn: a heading per figure, then rows
 * of a label and one cell per measurement. The text and HTML tables share
 * their rows (table_body) and differ only here.
 */
struct table_style {
	void (*figure)(FILE *f, const char *name, const struct mview *v);
	/* summary: a row of the whole measurement (score, write cache) */
	void (*row_start)(FILE *f, const char *label, int summary);
	void (*cell)(FILE *f, const char *text);
	const char *row_end;
};

/* Every row of the table: per figure of the kind, its value at each step
 * against the first measurement's; then the qd-sweep score, or the
 * commit's write cache. */
static void table_body(FILE *f, const struct mview *v, const struct table_style *ts)
{
	size_t nf;
	double *keys;
	size_t rows = row_keys(v, &keys);
	const struct figure *fig = figures_of(v->m[0].kind, &nf);
	char buf[64], label[96];

	for (size_t k = 0; k < nf; k++) {
		ts->figure(f, fig[k].name, v);
		for (size_t r = 0; r < rows; r++) {
			const struct mview_point *base = mview_step(&v->m[0], keys[r]);

			row_label(v, keys[r], label, sizeof(label));
			ts->row_start(f, label, 0);
			for (size_t i = 0; i < v->n; i++) {
				const struct mview_point *p = mview_step(&v->m[i], keys[r]);

				if (!p)
					snprintf(buf, sizeof(buf), "\u2013");
				else
					cell(buf, sizeof(buf), fig[k].get(p),
					     base ? fig[k].get(base) : 0, fig[k].prec, i == 0);
				if (p && p->met == 0) /* knee: a step that missed the target */
					snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), " missed");
				ts->cell(f, buf);
			}
			fputs(ts->row_end, f);
		}
	}
	free(keys);
	if (!strcmp(v->m[0].kind, "qd-sweep")) {
		ts->row_start(f, "score (IOPS)", 1);
		for (size_t i = 0; i < v->n; i++) {
			cell(buf, sizeof(buf), v->m[i].score, v->m[0].score, 1, i == 0);
			ts->cell(f, buf);
		}
		fputs(ts->row_end, f);
	}
	if (!strcmp(v->m[0].kind, "knee")) {
		ts->row_start(f, "target", 1);
		for (size_t i = 0; i < v->n; i++)
			ts->cell(f, v->m[i].slo);
		fputs(ts->row_end, f);
		ts->row_start(f, "knee (speed)", 1);
		for (size_t i = 0; i < v->n; i++) {
			if (isnan(v->m[i].knee_factor))
				snprintf(buf, sizeof(buf), "none met");
			else
				cell(buf, sizeof(buf), v->m[i].knee_factor, v->m[0].knee_factor, 3,
				     i == 0 || isnan(v->m[0].knee_factor));
			ts->cell(f, buf);
		}
		fputs(ts->row_end, f);
	}
	if (!strcmp(v->m[0].kind, "commit")) {
		ts->row_start(f, "write cache", 1);
		for (size_t i = 0; i < v->n; i++)
			ts->cell(f, v->m[i].write_cache);
		fputs(ts->row_end, f);
	}
}

/* The text table: a step column and up to four measurements fit 100
 * columns (16 + 4 x 21). */
#define TEXT_NAME_W 16
#define TEXT_CELL_W 20

/* Columns text takes on a terminal: UTF-8 continuation bytes take none. */
static size_t text_columns(const char *t)
{
	size_t n = 0;

	for (; *t; t++)
		n += ((unsigned char)*t & 0xc0) != 0x80;
	return n;
}

static void text_cell(FILE *f, const char *text)
{
	fprintf(f, " %*s", TEXT_CELL_W + (int)(strlen(text) - text_columns(text)), text);
}

static void text_figure(FILE *f, const char *name, const struct mview *v)
{
	char head[TEXT_CELL_W + 1], esc[4 * sizeof(v->m[0].label) + 24];

	fprintf(f, "%-*s", TEXT_NAME_W, name);
	for (size_t i = 0; i < v->n; i++) {
		char l[sizeof(v->m[0].label) + 24];

		snprintf(l, sizeof(l), "%" PRId64 " %s", v->m[i].id, v->m[i].label);
		fmt_text(l, esc, sizeof(esc));
		snprintf(head, sizeof(head), "%.*s", TEXT_CELL_W, esc); /* cut to the column */
		text_cell(f, head);
	}
	fputc('\n', f);
}

static void text_row_start(FILE *f, const char *label, int summary)
{
	(void)summary;
	fprintf(f, "%-*s", TEXT_NAME_W, label);
}

static const struct table_style text_style = { text_figure, text_row_start, text_cell, "\n" };

void mview_print_text(FILE *f, const struct mview *v)
{
	fprintf(f, "%s, against measurement %" PRId64 ":\n", v->m[0].kind, v->m[0].id);
	for (size_t i = 0; i < v->n; i++) {
		fprintf(f, "  %" PRId64 ": ", v->m[i].id);
		text_str(f, v->m[i].label);
		fprintf(f, " (");
		text_str(f, v->m[i].access);
		fprintf(f, ")\n");
	}
	table_body(f, v, &text_style);
}

void mview_print_report(FILE *f, const struct mview_meas *m)
{
	char a[32], b[32], c[32], d[32], label[96];
	struct mview one = { 1, (struct mview_meas *)m };

	fprintf(f, "measurement %" PRId64 ": %s on ", m->id, m->kind);
	text_str(f, m->target);
	fprintf(f, " (");
	text_str(f, m->label);
	fprintf(f, ")\n  ");
	text_str(f, m->access);
	fputc('\n', f);
	if (!strcmp(m->kind, "knee"))
		fprintf(f, "  target: %s\n", m->slo);
	fprintf(f, "  %-20s %10s %9s %10s %10s %10s %10s%s\n", "step", "IOPS", "MB/s", "p50", "p99",
		"p99.9", "max", strcmp(m->kind, "knee") ? "" : "  target");
	for (size_t i = 0; i < m->n; i++) {
		const struct mview_point *p = &m->p[i];

		row_label(&one, step_key(m, p), label, sizeof(label));
		fprintf(f, "  %-20s %10.1f %9.2f %10s %10s %10s %10s%s\n", label, p->iops, p->mbps,
			fmt_ns(p->p50_ns, a, sizeof(a)), fmt_ns(p->p99_ns, b, sizeof(b)),
			fmt_ns(p->p999_ns, c, sizeof(c)), fmt_ns(p->max_ns, d, sizeof(d)),
			p->met < 0 ? "" : p->met ? "  met" : "  missed");
	}
	if (!strcmp(m->kind, "qd-sweep"))
		fprintf(f, "score: %.1f IOPS\n", m->score);
	if (!strcmp(m->kind, "commit"))
		fprintf(f, "write cache: %s\n", m->write_cache);
	if (!strcmp(m->kind, "knee") && isnan(m->knee_factor))
		fprintf(f, "knee: no speed factor met the target\n");
	else if (!strcmp(m->kind, "knee"))
		fprintf(f, "knee: speed x%.4g is the largest that met the target\n", m->knee_factor);
}

void mview_print_json(FILE *f, const struct mview *v)
{
	struct jw w;

	jw_init(&w, f, 0);
	jw_obj(&w);
	jw_kstr(&w, "kind", v->m[0].kind);
	jw_key(&w, "measurements");
	jw_arr(&w);
	for (size_t i = 0; i < v->n; i++) {
		const struct mview_meas *m = &v->m[i];

		jw_obj(&w);
		jw_ki64(&w, "measurement_id", m->id);
		jw_kstr(&w, "target", m->target);
		jw_kstr(&w, "label", m->label);
		jw_kstr(&w, "access", m->access);
		jw_key(&w, "score_ios_per_s");
		if (!strcmp(m->kind, "qd-sweep"))
			jw_num(&w, m->score, 3);
		else
			jw_null(&w);
		jw_key(&w, "score_vs_first_pct");
		if (!strcmp(m->kind, "qd-sweep") && v->m[0].score > 0)
			jw_num(&w, (m->score / v->m[0].score - 1) * 100, 3);
		else
			jw_null(&w);
		jw_key(&w, "knee_factor");
		if (!isnan(m->knee_factor))
			jw_num(&w, m->knee_factor, 6);
		else
			jw_null(&w);
		jw_key(&w, "points");
		jw_arr(&w);
		for (size_t s = 0; s < m->n; s++) {
			const struct mview_point *p = &m->p[s];
			const struct mview_point *b = mview_step(&v->m[0], step_key(m, p));

			jw_obj(&w);
			jw_ki64(&w, "depth", p->depth);
			jw_ki64(&w, "offset_bytes", p->offset_bytes);
			jw_ki64(&w, "span_bytes", p->span_bytes);
			jw_knum(&w, "ios_per_s", p->iops, 3);
			jw_knum(&w, "mb_per_s", p->mbps, 3);
			jw_knum(&w, "p99_ns", p->p99_ns, 0);
			jw_key(&w, "speed_factor");
			if (p->met >= 0)
				jw_num(&w, p->factor, 6);
			else
				jw_null(&w);
			jw_key(&w, "met");
			if (p->met >= 0)
				jw_bool(&w, p->met);
			else
				jw_null(&w);
			jw_key(&w, "ios_per_s_vs_first_pct");
			if (b && b->iops > 0)
				jw_num(&w, (p->iops / b->iops - 1) * 100, 3);
			else
				jw_null(&w);
			jw_obj_end(&w);
		}
		jw_arr_end(&w);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_obj_end(&w);
	jw_finish(&w);
}

static void html_figure(FILE *f, const char *name, const struct mview *v)
{
	fprintf(f, "<tr><th colspan=\"%zu\">%s</th></tr>\n", v->n + 1, name);
}

static void html_row_start(FILE *f, const char *label, int summary)
{
	fputs(summary ? "<tr><th>" : "<tr><td>", f);
	html_str(f, label);
	fputs(summary ? "</th>" : "</td>", f);
}

static void html_cell(FILE *f, const char *text)
{
	fputs("<td>", f);
	html_str(f, text);
	fputs("</td>", f);
}

static const struct table_style html_style = { html_figure, html_row_start, html_cell,
					       "</tr>\n" };

void mview_print_html(FILE *f, const struct mview *v)
{
	fprintf(f, "<table class=\"measure\">\n<tr><th>%s</th>", v->m[0].kind);
	for (size_t i = 0; i < v->n; i++) {
		fprintf(f, "<th title=\"");
		html_str(f, v->m[i].target);
		fprintf(f, "\">%" PRId64 ": ", v->m[i].id);
		html_str(f, v->m[i].label);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	table_body(f, v, &html_style);
	fputs("</table>\n", f);
}

static const char *const chart_names[] = { "qd-iops", "qd-p99", "zcav", "seeks", "commit",
					   "knee-latency", "knee-iops" };
static const char *const chart_kinds[] = { "qd-sweep", "qd-sweep", "zcav", "seeks", "commit",
					   "knee", "knee" };

int mview_chart_parse(const char *name, enum mview_chart *c)
{
	for (int i = 0; i < MVIEW_CHART_COUNT; i++)
		if (!strcmp(name, chart_names[i])) {
			*c = (enum mview_chart)i;
			return 0;
		}
	return -EINVAL;
}

const char *mview_chart_name(enum mview_chart c)
{
	return chart_names[c];
}

const char *mview_chart_kind(enum mview_chart c)
{
	return chart_kinds[c];
}

/* svg_write's result as mview_chart_write's: nothing to draw -ENODATA. */
static int chart_result(int rc, struct bpt_error *err)
{
	if (rc == -EINVAL || rc == -ENODATA)
		return -ENODATA;
	if (rc == -ENOMEM)
		return bpt_error_set(err, rc, "out of memory");
	return rc ? bpt_error_set(err, rc, "cannot write the chart") : 0;
}

int mview_chart_write(FILE *f, const struct mview *v, enum mview_chart c, int standalone,
		      struct bpt_error *err)
{
	struct svg_series *s = calloc(v->n ? v->n : 1, sizeof(*s));
	double *xy = NULL, *bars = NULL;
	const char **cats = NULL;
	char (*labels)[600] = calloc(v->n ? v->n : 1, sizeof(*labels));
	struct svg_chart ch = { .standalone = standalone };
	size_t total = 0, o = 0;
	int rc;

	if (!s || !labels) {
		rc = bpt_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < v->n; i++) {
		if (strcmp(v->m[i].kind, chart_kinds[c])) {
			rc = bpt_error_set(err, -EINVAL, "measurement %" PRId64 " is a %s, not a %s:"
					   " the %s chart draws %s measurements", v->m[i].id,
					   v->m[i].kind, chart_kinds[c], chart_names[c], chart_kinds[c]);
			goto out;
		}
		total += v->m[i].n;
	}
	if (c == MVIEW_KNEE_LATENCY || c == MVIEW_KNEE_IOPS) {
		rc = v->n ? chart_result(mview_knee_chart(f, v, c == MVIEW_KNEE_IOPS, standalone),
					 err) : -ENODATA;
		goto out;
	}
	if (!total) {
		rc = -ENODATA;
		goto out;
	}
	xy = calloc(2 * total, sizeof(*xy));
	bars = calloc(v->n, sizeof(*bars));
	cats = calloc(v->n, sizeof(*cats));
	if (!xy || !bars || !cats) {
		rc = bpt_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < v->n; i++) {
		const struct mview_meas *m = &v->m[i];

		snprintf(labels[i], sizeof(labels[i]), "%" PRId64 " %s", m->id, m->label);
		s[i].label = labels[i];
		s[i].x = xy + o;
		s[i].y = xy + total + o;
		s[i].n = m->n;
		for (size_t k = 0; k < m->n; k++) {
			const struct mview_point *p = &m->p[k];
			double *x = xy + o + k, *y = xy + total + o + k;

			switch (c) {
			case MVIEW_QD_IOPS: *x = (double)p->depth; *y = p->iops; break;
			case MVIEW_QD_P99: *x = (double)p->depth; *y = p->p99_ns / 1e6; break;
			case MVIEW_ZCAV: *x = (double)p->offset_bytes / (1 << 30); *y = p->mbps; break;
			case MVIEW_SEEKS: *x = p->span_pct; *y = p->iops; break;
			case MVIEW_COMMIT: *x = 0; *y = p->iops; break;
			default: break;
			}
		}
		o += m->n;
		bars[i] = m->n ? m->p[0].iops : 0;
		cats[i] = labels[i];
	}
	ch.kind = SVG_LINES;
	switch (c) {
	case MVIEW_QD_IOPS:
		ch.title = "IOPS against queue depth";
		ch.x = (struct svg_axis){ "queue depth", SVG_LOG10, 0, 0 };
		ch.y = (struct svg_axis){ "IOPS", SVG_LINEAR, 0, 0 };
		break;
	case MVIEW_QD_P99:
		ch.title = "p99 latency against queue depth";
		ch.x = (struct svg_axis){ "queue depth", SVG_LOG10, 0, 0 };
		ch.y = (struct svg_axis){ "p99 latency (ms)", SVG_LINEAR, 0, 0 };
		break;
	case MVIEW_ZCAV:
		ch.title = "sequential read throughput against position (ZCAV)";
		ch.x = (struct svg_axis){ "zone start (GiB)", SVG_LINEAR, 0, 0 };
		ch.y = (struct svg_axis){ "MB/s", SVG_LINEAR, 0, 0 };
		break;
	case MVIEW_SEEKS:
		ch.title = "random reads at depth 1 against span";
		ch.x = (struct svg_axis){ "span (% of the target)", SVG_LOG10, 0, 0 };
		ch.y = (struct svg_axis){ "seeks/s", SVG_LINEAR, 0, 0 };
		break;
	case MVIEW_COMMIT: {
		/* one bar series, a category per measurement */
		struct svg_series one = { .label = "commits/s", .y = bars, .n = v->n };

		ch.title = "commits per second";
		ch.kind = SVG_BARS;
		ch.categories = cats;
		ch.ncategories = v->n;
		ch.x = (struct svg_axis){ "target", SVG_LINEAR, 0, 0 };
		ch.y = (struct svg_axis){ "commits/s", SVG_LINEAR, 0, 0 };
		rc = svg_write(f, &ch, &one, 1);
		goto written;
	}
	default:
		break;
	}
	rc = svg_write(f, &ch, s, v->n);
written:
	rc = chart_result(rc, err);
out:
	free(s);
	free(labels);
	free(xy);
	free(bars);
	free(cats);
	return rc;
}
