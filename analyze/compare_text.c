/*
 * compare_text.c — a comparison as text (cmp_print_text, compare.h): the
 * headline first, then the configurations and their runs, then the
 * table: one column per configuration (its median; under each figure
 * with a spread its min–max) while four or fewer fit 100 columns, else
 * one row per configuration. Labels are short (run_label.h); the full
 * target spec is in `analyze report`.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cliutil.h"
#include "compare.h"
#include "fmt.h"
#include "report.h"

#define TEXT_WIDTH 100   /* the widest line of the table */
#define NAME_W 16        /* the row names */
#define ESC_LABEL (sizeof(((struct cmp_group *)0)->label) * 4 + 4)

/* Columns text takes on a terminal: UTF-8 continuation bytes take none. */
static size_t columns(const char *t)
{
	size_t n = 0;

	for (; *t; t++)
		n += ((unsigned char)*t & 0xc0) != 0x80;
	return n;
}

/* Cut t to w columns (in place), ending in '~' when cut. */
static char *cut(char *t, size_t w)
{
	size_t n = 0;

	for (char *p = t; *p; p++) {
		if (((unsigned char)*p & 0xc0) == 0x80)
			continue;
		if (++n > w) {
			if (w) {
				/* back to the start of the w-th character */
				char *q = p - 1;

				while (q > t && ((unsigned char)*q & 0xc0) == 0x80)
					q--;
				*q++ = '~';
				*q = 0;
			} else {
				*t = 0;
			}
			break;
		}
	}
	return t;
}

/* s right-aligned in w columns, after two spaces. */
static void put_cell(FILE *f, const char *s, int w)
{
	fprintf(f, "  %*s", w + (int)(strlen(s) - columns(s)), s);
}

/* How a figure is written: a time, a percentage, a count, a rate. */
enum style { S_TIME, S_PCT, S_COUNT, S_RATE1, S_RATE2 };

static void put_value(double v, enum style st, char *b, size_t l)
{
	switch (st) {
	case S_TIME: fmt_ns(v, b, (int)l); break;
	case S_PCT: snprintf(b, l, "%+.1f%%", v); break;
	case S_COUNT: snprintf(b, l, "%.0f", v); break;
	case S_RATE1: snprintf(b, l, "%.1f", v); break;
	case S_RATE2: snprintf(b, l, "%.2f", v); break;
	}
}

static void put_range(const struct cmp_spread *s, enum style st, char *b, size_t l)
{
	char lo[24], hi[24], t[64];

	if (st == S_PCT) {
		snprintf(b, l, "%+.1f\u2013%+.1f%%", s->min, s->max);
		return;
	}
	put_value(s->min, st, lo, sizeof(lo));
	put_value(s->max, st, hi, sizeof(hi));
	snprintf(t, sizeof(t), "%s\u2013%s", lo, hi);
	snprintf(b, l, "%s", t);
}

/* A line of text; past 100 columns its last " (...)" goes on a line of
 * its own, indented. */
static void put_line(FILE *f, const char *t)
{
	const char *p = strstr(t, " (");
	const char *last = NULL;

	while (p) {
		last = p;
		p = strstr(p + 1, " (");
	}
	if (columns(t) <= TEXT_WIDTH || !last || last == t)
		fprintf(f, "%s\n", t);
	else
		fprintf(f, "%.*s\n    %s\n", (int)(last - t), t, last + 1);
}

struct layout {
	int spread;   /* a configuration has two or more runs: ranges shown */
	int w[8];     /* column widths (at most four columns) */
};

/* A row of medians and, with spread, one of ranges under it. */
static void fig_row(FILE *f, const struct cmp *c, const struct layout *L, const char *name,
		    int fig, enum style st, int ranges)
{
	char b[96];

	fprintf(f, "%-*s", NAME_W, name);
	for (int k = 0; k < c->ng; k++) {
		if (fig >= CF_LATE && !c->g[k].has_late)
			snprintf(b, sizeof(b), "-"); /* no due times: not a run */
		else
			put_value(fig == CF_ERRORS ? c->g[k].fig[fig].max : c->g[k].fig[fig].med, st, b,
				  sizeof(b));
		put_cell(f, b, L->w[k]);
	}
	fputc('\n', f);
	if (!ranges || !L->spread)
		return;
	fprintf(f, "%-*s", NAME_W, "  min\u2013max");
	fprintf(f, "%*s", 2, ""); /* the dash takes one column of three bytes */
	for (int k = 0; k < c->ng; k++) {
		if (c->g[k].n < 2 || (fig >= CF_LATE && !c->g[k].has_late))
			snprintf(b, sizeof(b), "-");
		else
			put_range(&c->g[k].fig[fig], st, b, sizeof(b));
		put_cell(f, b, L->w[k]);
	}
	fputc('\n', f);
}

/* A row of the first run of each configuration (fidelity: replay
 * --verify's findings are per run). */
typedef void run_cell_fn(const struct cmp_entry *e, int arg, char *b, size_t l);

static void run_row(FILE *f, const struct cmp *c, const struct layout *L, const char *name,
		    run_cell_fn *fn, int arg)
{
	char b[96];

	fprintf(f, "%-*s", NAME_W, name);
	for (int k = 0; k < c->ng; k++) {
		fn(&c->e[c->g[k].entry[0]], arg, b, sizeof(b));
		put_cell(f, b, L->w[k]);
	}
	fputc('\n', f);
}

static void c_fidelity(const struct cmp_entry *e, int arg, char *b, size_t l)
{
	run_verify_cell(&e->rep.verify, (enum rv_field)arg, b, l);
}

static void c_faithful(const struct cmp_entry *e, int arg __attribute__((unused)), char *b, size_t l)
{
	int v = run_verify_faithful(&e->rep.verify);

	snprintf(b, l, "%s", !e->rep.verify.verified ? "-" : v > 0 ? "yes" : v == 0 ? "NO" : "?");
}

/* The rows of a run's timing: its own clock, then the kernel's view
 * (replay --verify), "-" where an entry has neither. */
static void fidelity_rows(FILE *f, const struct cmp *c, const struct layout *L)
{
	static const struct { const char *name; enum rv_field field; } rows[] = {
		{ "  I/Os compared", RV_IOS }, { "  present", RV_PRESENT },
		{ "  missing", RV_MISSING }, { "  misplaced", RV_MISPLACED },
		{ "  lost events", RV_LOST }, { "  issue err p50", RV_ERR_P50 },
		{ "  issue err p99", RV_ERR_P99 }, { "  issue err max", RV_ERR_MAX },
		{ "  drift", RV_DRIFT },
	};
	static const struct { const char *name; int pct; } late[] = {
		{ "  lateness p50", 0 }, { "  lateness p99", 2 }, { "  lateness max", 5 },
	};
	int any = 0, verified = 0;

	for (int i = 0; i < c->n; i++) {
		any |= c->e[i].rep.is_run || c->e[i].rep.verify.verified;
		verified |= c->e[i].rep.verify.verified;
	}
	if (!any)
		return;
	fprintf(f, "replayer's clock (issue - due)\n");
	for (unsigned k = 0; k < sizeof(late) / sizeof(late[0]); k++)
		fig_row(f, c, L, late[k].name, CF_LATE + late[k].pct, S_TIME, 0);
	fprintf(f, "fidelity (replay --verify: the kernel's view, issue - due%s)\n",
		L->spread ? "; the first run of each" : "");
	if (!verified) { /* ten rows of dashes say less than this */
		fprintf(f, "  (no entry ran with replay --verify)\n");
		return;
	}
	for (unsigned k = 0; k < sizeof(rows) / sizeof(rows[0]); k++)
		run_row(f, c, L, rows[k].name, c_fidelity, rows[k].field);
	run_row(f, c, L, "  faithful", c_faithful, 0);
}

/* The configurations and the runs of each: trace ids or file names. */
static void legend(FILE *f, const struct cmp *c)
{
	char label[ESC_LABEL], name[4096 * 4 + 4];

	for (int k = 0; k < c->ng; k++) {
		const struct cmp_group *g = &c->g[k];
		char line[512];
		size_t o;

		fmt_text(g->label, label, sizeof(label));
		o = (size_t)snprintf(line, sizeof(line), "  %s%s: %d run%s,", k ? "" : "(base) ",
				      cut(label, 40), g->n, g->n > 1 ? "s" : "");
		for (int j = 0; j < g->n && o < sizeof(line); j++) {
			const struct cmp_entry *e = &c->e[g->entry[j]];
			const char *base = strrchr(e->rep.path, '/');

			if (e->trace_id)
				snprintf(name, sizeof(name), "%s%" PRId64, j ? "" : "trace ", e->trace_id);
			else
				fmt_text(base ? base + 1 : e->rep.path, name, sizeof(name));
			o += (size_t)snprintf(line + o, sizeof(line) - o, "%s %s", j ? "," : "", name);
		}
		fprintf(f, "%s\n", cut(line, TEXT_WIDTH));
		if (c->e[g->entry[0]].transform[0]) {
			char tx[512 * 4 + 4], tl[sizeof(tx) + 32];

			fmt_text(c->e[g->entry[0]].transform, tx, sizeof(tx));
			snprintf(tl, sizeof(tl), "    transformed: %s", tx);
			fprintf(f, "%s\n", cut(tl, TEXT_WIDTH));
		}
	}
}

/* More configurations than four columns hold: one row each. */
static void print_rows(FILE *f, const struct cmp *c, int spread)
{
	char label[ESC_LABEL], a[48], b[48], d[48], e[48];

	const char *mm = spread ? "min\u2013max" : "";
	int pad = (int)(strlen(mm) - columns(mm));

	fprintf(f, "%-24s %4s  %9s  %-*s %7s  %-*s %s\n", "configuration", "runs", "total time",
		19 + pad, mm, "saved", 15 + pad, mm, spread ? "noise" : "");
	for (int k = 0; k < c->ng; k++) {
		const struct cmp_group *g = &c->g[k];

		fmt_text(g->label, label, sizeof(label));
		put_value(g->fig[CF_TIME].med, S_TIME, a, sizeof(a));
		put_value(g->fig[CF_SAVED].med, S_PCT, d, sizeof(d));
		if (g->n > 1) {
			put_range(&g->fig[CF_TIME], S_TIME, b, sizeof(b));
			put_range(&g->fig[CF_SAVED], S_PCT, e, sizeof(e));
		} else {
			snprintf(b, sizeof(b), "%s", spread ? "-" : "");
			snprintf(e, sizeof(e), "%s", spread ? "-" : "");
		}
		fprintf(f, "%-24s %4d  %9s  %-*s %7s  %-*s %s\n", cut(label, 24), g->n, a,
			19 + (int)(strlen(b) - columns(b)), b, d, 15 + (int)(strlen(e) - columns(e)), e,
			!spread ? "" : !k ? "base" : g->within_noise == 1 ? "within" :
			g->within_noise == 0 ? "beyond" : "-");
	}
	fprintf(f, "\n%-24s  %12s  %12s  %12s  %12s\n", "latency (medians)", "service p50",
		"service p99", "total p50", "total p99");
	for (int k = 0; k < c->ng; k++) {
		const struct cmp_group *g = &c->g[k];

		fmt_text(g->label, label, sizeof(label));
		fprintf(f, "%-24s  %12s  %12s  %12s  %12s\n", cut(label, 24),
			fmt_ns(g->fig[CF_SVC].med, a, sizeof(a)), fmt_ns(g->fig[CF_SVC + 2].med, b, sizeof(b)),
			fmt_ns(g->fig[CF_TOT].med, d, sizeof(d)), fmt_ns(g->fig[CF_TOT + 2].med, e, sizeof(e)));
	}
}

static void print_columns(FILE *f, const struct cmp *c, struct layout *L)
{
	int wmax = (TEXT_WIDTH - NAME_W) / c->ng - 2;
	char name[32], label[ESC_LABEL];

	for (int k = 0; k < c->ng; k++) {
		fmt_text(c->g[k].label, label, sizeof(label));
		L->w[k] = (int)columns(label) > 12 ? (int)columns(label) : 12;
		if (L->spread && L->w[k] < 19) /* "307.92 ms–326.60 ms" */
			L->w[k] = 19;
		if (L->w[k] > wmax)
			L->w[k] = wmax;
	}
	fprintf(f, "%-*s", NAME_W, "");
	for (int k = 0; k < c->ng; k++) {
		fmt_text(c->g[k].label, label, sizeof(label));
		put_cell(f, cut(label, (size_t)L->w[k]), L->w[k]);
	}
	fputc('\n', f);
	fprintf(f, "%-*s", NAME_W, "runs");
	for (int k = 0; k < c->ng; k++) {
		snprintf(name, sizeof(name), "%d", c->g[k].n);
		put_cell(f, name, L->w[k]);
	}
	fputc('\n', f);
	fig_row(f, c, L, "total time", CF_TIME, S_TIME, 1);
	fig_row(f, c, L, "time saved", CF_SAVED, S_PCT, 1);
	if (L->spread) {
		fprintf(f, "%-*s", NAME_W, "  noise");
		for (int k = 0; k < c->ng; k++)
			put_cell(f, !k ? "base" : c->g[k].within_noise == 1 ? "within" :
				 c->g[k].within_noise == 0 ? "beyond" : "-", L->w[k]);
		fputc('\n', f);
	}
	fig_row(f, c, L, "speedup", CF_SPEEDUP, S_PCT, 0);
	fig_row(f, c, L, "IOPS", CF_IOPS, S_RATE1, 0);
	fig_row(f, c, L, "MB/s", CF_MBPS, S_RATE2, 0);
	fig_row(f, c, L, "mean queue depth", CF_DEPTH, S_RATE2, 0);
	for (int p = 0; p < STATS_NPCT; p++) {
		snprintf(name, sizeof(name), "service %s", stats_pct_label[p]);
		fig_row(f, c, L, name, CF_SVC + p, S_TIME, 1);
	}
	for (int p = 0; p < STATS_NPCT; p++) {
		snprintf(name, sizeof(name), "total %s", stats_pct_label[p]);
		fig_row(f, c, L, name, CF_TOT + p, S_TIME, 1);
	}
	fig_row(f, c, L, "errors (most)", CF_ERRORS, S_COUNT, 0);
	fidelity_rows(f, c, L);
}

void cmp_print_text(FILE *f, const struct cmp *c)
{
	char head[2 * ESC_LABEL + 256], label[ESC_LABEL], first[ESC_LABEL], why[160], sure[160];
	struct layout L = { 0 };

	for (int k = 0; k < c->ng; k++)
		L.spread |= c->g[k].n > 1;
	put_line(f, cmp_headline(c, head, sizeof(head)));
	if (c->files && c->n) {
		char what[2048];

		fprintf(f, "%s, in each (a run by the files of the trace it replayed)\n",
			report_files_filter_text(&c->e[0].rep, what, sizeof(what)));
	}
	if (c->id)
		fprintf(f, "comparison %" PRId64 " (stored)%s\n", c->id,
			c->forced ? ", forced: the entries are not all the same I/O" : "");
	fprintf(f, "\nconfigurations (runs of the same label, target and timing are repeats;"
		" figures:\n%s):\n", L.spread ? "the median of the runs and their min\u2013max; within"
		" noise: the ranges of total time overlap" : "one run each");
	legend(f, c);
	fputc('\n', f);
	if (c->ng <= 4)
		print_columns(f, c, &L);
	else
		print_rows(f, c, L.spread);
	fputc('\n', f);
	for (int i = 0; i < c->n; i++) {
		const struct cmp_entry *e = &c->e[i];

		char id[40] = "";

		if (e->trace_id)
			snprintf(id, sizeof(id), " (trace %" PRId64 ")", e->trace_id);
		if (run_verify_faithful(&e->rep.verify) == 0)
			fprintf(f, "WARNING: %s%s is not a faithful replay of the trace: replay"
				" --verify found %s\n", fmt_text(e->label, label, sizeof(label)), id,
				run_verify_why(&e->rep.verify, why, sizeof(why)));
	}
	fmt_text(c->g[0].label, first, sizeof(first));
	for (int k = 1; k < c->ng; k++) {
		const struct cmp_group *g = &c->g[k];
		double s = g->fig[CF_SAVED].med;
		int unfaithful = 0;

		for (int j = 0; j < g->n; j++)
			unfaithful |= run_verify_faithful(&c->e[g->entry[j]].rep.verify) == 0;
		cmp_how_sure(c, k, sure, sizeof(sure));
		snprintf(head, sizeof(head), "%s finishes %.1f%% %s than %s%s%s",
			 fmt_text(g->label, label, sizeof(label)), s < 0 ? -s : s,
			 s < 0 ? "later" : "sooner", first, unfaithful ? " (not a faithful replay)" : "",
			 sure);
		put_line(f, head);
	}
}
