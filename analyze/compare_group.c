/*
 * compare_group.c — the repeats of one configuration summed up (see
 * compare.h): entries of the same label, target and timing form a group;
 * per figure its median and range over the group's runs; whether a
 * group's total times overlap the baseline's ("within noise"); and the
 * headline that says who won, by how much and how sure.
 *
 * Time saved and speedup of every run are taken against the baseline
 * group's median total time, so their range shows the spread of that
 * configuration's runs; "within noise" then asks whether the two ranges
 * of total time overlap, which takes the baseline's own spread in.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cliutil.h"
#include "compare.h"
#include "fmt.h"
#include "stats.h"

/* Entry e's figure f. */
static double entry_fig(const struct cmp_entry *e, int f)
{
	const struct st_report *r = &e->rep;

	switch (f) {
	case CF_TIME: return (double)r->duration_ns;
	case CF_SAVED: return e->time_saved_pct;
	case CF_SPEEDUP: return e->speedup_pct;
	case CF_IOPS: return r->iops;
	case CF_MBPS: return r->mbps;
	case CF_DEPTH: return r->mean_depth;
	case CF_ERRORS: return (double)r->errors;
	}
	if (f >= CF_SVC && f < CF_TOT)
		return (double)r->all_service.pct[f - CF_SVC];
	if (f >= CF_TOT && f < CF_LATE)
		return (double)r->all_total.pct[f - CF_TOT];
	return (double)r->lateness.pct[f - CF_LATE];
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct cmp_spread cmp_spread_of(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return (struct cmp_spread){ v[stats_rank(n, STATS_PPM / 2) - 1], v[0], v[n - 1] };
}

static void group_figures(const struct cmp *c, struct cmp_group *g, double *v, int first, int last)
{
	for (int f = first; f < last; f++) {
		for (int k = 0; k < g->n; k++)
			v[k] = entry_fig(&c->e[g->entry[k]], f);
		g->fig[f] = cmp_spread_of(v, g->n);
	}
}

int cmp_group(struct cmp *c)
{
	int *of = calloc(c->n ? c->n : 1, sizeof(*of)); /* entry -> group */
	double *v = calloc(c->n ? c->n : 1, sizeof(*v));
	struct cmp_group *g = calloc(c->n ? c->n : 1, sizeof(*g));
	int ng = 0;

	if (!of || !v || !g)
		goto nomem;
	for (int i = 0; i < c->n; i++) {
		int k = 0;

		while (k < ng && strcmp(c->e[g[k].entry[0]].group, c->e[i].group))
			k++;
		if (k == ng) {
			if (!(g[ng].entry = calloc(c->n, sizeof(int))))
				goto nomem;
			snprintf(g[ng].label, sizeof(g[ng].label), "%s", c->e[i].label);
			for (int j = 0; j < ng; j++)
				if (!strcmp(g[j].label, g[ng].label)) { /* same label, other target */
					size_t l = strlen(g[ng].label);

					snprintf(g[ng].label + l, sizeof(g[ng].label) - l, " #%d", ng + 1);
					break;
				}
			ng++;
		}
		g[k].entry[g[k].n++] = i;
		of[i] = k;
	}
	/* times against the baseline's median */
	for (int k = 0; k < g[0].n; k++)
		v[k] = (double)c->e[g[0].entry[k]].rep.duration_ns;
	double t0 = cmp_spread_of(v, g[0].n).med;

	for (int i = 0; i < c->n; i++) {
		double t = (double)c->e[i].rep.duration_ns;

		c->e[i].time_saved_pct = t0 > 0 ? (t0 - t) / t0 * 100 : 0;
		c->e[i].speedup_pct = t > 0 ? (t0 / t - 1) * 100 : 0;
	}
	for (int k = 0; k < ng; k++) {
		g[k].has_late = 1;
		for (int j = 0; j < g[k].n; j++)
			g[k].has_late &= c->e[g[k].entry[j]].rep.lateness.count > 0;
		group_figures(c, &g[k], v, 0, g[k].has_late ? CF__COUNT : CF_LATE);
		/* saved and speedup fall as the time grows: from the times' own
		 * median, so the median run is the same one for all three */
		const struct cmp_spread *t = &g[k].fig[CF_TIME];

		if (t0 > 0)
			g[k].fig[CF_SAVED] = (struct cmp_spread){ (t0 - t->med) / t0 * 100,
								  (t0 - t->max) / t0 * 100,
								  (t0 - t->min) / t0 * 100 };
		if (t->min > 0)
			g[k].fig[CF_SPEEDUP] = (struct cmp_spread){ (t0 / t->med - 1) * 100,
								    (t0 / t->max - 1) * 100,
								    (t0 / t->min - 1) * 100 };
		g[k].within_noise = -1;
		if (k && (g[k].n > 1 || g[0].n > 1))
			g[k].within_noise = g[k].fig[CF_TIME].min <= g[0].fig[CF_TIME].max &&
					    g[0].fig[CF_TIME].min <= g[k].fig[CF_TIME].max;
	}
	free(of);
	free(v);
	c->g = g;
	c->ng = ng;
	return 0;
nomem:
	for (int k = 0; g && k < ng; k++)
		free(g[k].entry);
	free(g);
	free(of);
	free(v);
	return -ENOMEM;
}

char *cmp_how_sure(const struct cmp *c, int k, char *buf, size_t len)
{
	const struct cmp_group *b = &c->g[0], *g = &c->g[k];
	double lo = g->fig[CF_SAVED].min, hi = g->fig[CF_SAVED].max;
	const char *noise = g->within_noise == 1 ? ", within noise" : "";
	char runs[48];

	if (g->fig[CF_SAVED].med < 0) { /* "finishes 5% later": the range of the time lost */
		double t = lo;

		lo = -hi, hi = -t;
	}
	if (g->n == 1 && b->n == 1) {
		snprintf(buf, len, " (one run each, no range: use replay --repeat)");
		return buf;
	}
	if (g->n == 1) {
		snprintf(buf, len, " (one run against the median of %d%s)", b->n, noise);
		return buf;
	}
	if (g->n == b->n)
		snprintf(runs, sizeof(runs), "median of %d", g->n);
	else
		snprintf(runs, sizeof(runs), "median of %d vs %d runs", g->n, b->n);
	snprintf(buf, len, " (%s, range %.1f\u2013%.1f%%%s)", runs, lo, hi, noise);
	return buf;
}

char *cmp_headline(const struct cmp *c, char *buf, size_t len)
{
	char a[4 * sizeof(c->g[0].label) + 4], b[4 * sizeof(c->g[0].label) + 4], sure[160];
	int best = 1;

	if (!c->ng) {
		snprintf(buf, len, "nothing compared");
		return buf;
	}
	fmt_text(c->g[0].label, b, sizeof(b));
	if (c->ng == 1) {
		const struct cmp_spread *t = &c->g[0].fig[CF_TIME];
		char m[32], lo[32], hi[32];

		snprintf(buf, len, "%s: %d run%s, total time median %s, range %s\u2013%s", b, c->g[0].n,
			 c->g[0].n > 1 ? "s" : "", fmt_ns(t->med, m, sizeof(m)),
			 fmt_ns(t->min, lo, sizeof(lo)), fmt_ns(t->max, hi, sizeof(hi)));
		return buf;
	}
	/* runs against a run: a trace beside them (the recording) is no
	 * contender, unless no group is of the baseline's kind */
	int kind0 = c->e[c->g[0].entry[0]].is_run, any = 0;

	for (int k = 1; k < c->ng; k++)
		any |= c->e[c->g[k].entry[0]].is_run == kind0;
	best = 0;
	for (int k = 1; k < c->ng; k++)
		if ((!any || c->e[c->g[k].entry[0]].is_run == kind0) &&
		    (!best || c->g[k].fig[CF_TIME].med < c->g[best].fig[CF_TIME].med))
			best = k;
	const struct cmp_group *g = &c->g[best];
	double s = g->fig[CF_SAVED].med;

	fmt_text(g->label, a, sizeof(a));
	cmp_how_sure(c, best, sure, sizeof(sure));
	if (s < 0)
		snprintf(buf, len, "%s is the fastest: %s%s finishes %.1f%% later%s", b, a,
			 c->ng > 2 ? ", the next," : "", -s, sure);
	else
		snprintf(buf, len, "%s finishes %.1f%% sooner than %s%s", a, s, b, sure);
	return buf;
}
