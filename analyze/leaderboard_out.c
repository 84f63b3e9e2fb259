/*
 * leaderboard_out.c — a ranked suite as text (100 columns), CSV and JSON
 * (schemas/analyze-leaderboard.schema.json). Labels, hosts and workload
 * names come from the store: they reach the output only through
 * common/fmt.h's escaping writers.
 */
#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "jsonout.h"
#include "leaderboard.h"

#define NAME_W 34

static const char score_rule[] =
	"geometric mean over the workloads of the ratio to the baseline: baseline time / time"
	" for a replay or mix, IOPS / baseline IOPS for a qd-sweep; above 1 beats the baseline";

/* A configuration's name, escaped, cut to NAME_W columns. */
static const char *name_cell(const struct lb_config *c, char *buf, size_t len)
{
	fmt_text(c->shown, buf, len < NAME_W + 1 ? len : NAME_W + 1);
	return buf;
}

void lb_print_text(FILE *f, const struct leaderboard *lb)
{
	char a[NAME_W + 8], b[LB_NAME_MAX * 4];

	fprintf(f, "Leaderboard of suite '%s', version %s: %d configuration%s, %d workload%s\n",
		fmt_text(lb->name, b, 64), lb->digest, lb->nc, lb->nc == 1 ? "" : "s", lb->nw,
		lb->nw == 1 ? "" : "s");
	fprintf(f, "Score: the geometric mean over the workloads of the ratio to the baseline,\n"
		   "'%s' (its time / the time of a replay or mix; IOPS / its IOPS for a\n"
		   "qd-sweep): above 1 beats the baseline.\n",
		fmt_text(lb->c[lb->baseline].shown, a, sizeof(a)));
	if (lb->other_versions[0])
		fprintf(f, "Other versions of the suite in the store (not ranked here): %s\n",
			lb->other_versions);
	fprintf(f, "\nrank  %-*s  score  workloads\n", NAME_W, "configuration");
	for (int i = 0; i < lb->nc; i++)
		fprintf(f, "%4d  %-*s  %5.3f  %d of %d%s\n", lb->c[i].rank, NAME_W,
			name_cell(&lb->c[i], a, sizeof(a)), lb->c[i].score, lb->c[i].nscore, lb->nw,
			i == lb->baseline ? "  (baseline)" : "");
	for (int w = 0; w < lb->nw; w++) {
		const struct lb_workload *wl = &lb->w[w];

		fprintf(f, "\n%s: %s, median (min-max) of the repeats\n", fmt_text(wl->name, b, 80),
			wl->iops ? "weighted IOPS of the qd-sweep" : "time in s");
		for (int i = 0; i < lb->nc; i++) {
			const struct lb_cell *c = &wl->cell[i];

			if (!c->n) {
				fprintf(f, "  %-*s  no result\n", NAME_W, name_cell(&lb->c[i], a, sizeof(a)));
				continue;
			}
			fprintf(f, "  %-*s  %10.3f (%.3f-%.3f) x%d", NAME_W,
				name_cell(&lb->c[i], a, sizeof(a)), c->v.med, c->v.min, c->v.max, c->n);
			if (i == lb->baseline)
				fprintf(f, "  baseline\n");
			else if (!(c->ratio > 0))
				fprintf(f, "  (baseline has none)\n");
			else if (wl->iops)
				fprintf(f, "  %+.1f%%\n", (c->ratio - 1) * 100);
			else
				fprintf(f, "  saved %.1f%%\n", c->saved_pct);
		}
	}
}

void lb_print_csv(FILE *f, const struct leaderboard *lb)
{
	fputs("workload,kind,unit,configuration,label,host,rank,repeats,median,min,max,ratio,"
	      "time_saved_pct\n", f);
	for (int i = 0; i < lb->nc; i++) {
		fputs("(score),score,geometric mean of ratios,", f);
		csv_str(f, lb->c[i].shown);
		fputc(',', f);
		csv_str(f, lb->c[i].label);
		fputc(',', f);
		csv_str(f, lb->c[i].host);
		fprintf(f, ",%d,%d,%.6g,%.6g,%.6g,%.6g,\n", lb->c[i].rank, lb->c[i].nscore,
			lb->c[i].score, lb->c[i].score, lb->c[i].score, lb->c[i].score);
	}
	for (int w = 0; w < lb->nw; w++)
		for (int i = 0; i < lb->nc; i++) {
			const struct lb_cell *c = &lb->w[w].cell[i];

			if (!c->n)
				continue;
			csv_str(f, lb->w[w].name);
			fprintf(f, ",%s,%s,", lb->w[w].kind, lb->w[w].iops ? "IOPS" : "s");
			csv_str(f, lb->c[i].shown);
			fputc(',', f);
			csv_str(f, lb->c[i].label);
			fputc(',', f);
			csv_str(f, lb->c[i].host);
			fprintf(f, ",%d,%d,%.9g,%.9g,%.9g,", lb->c[i].rank, c->n, c->v.med, c->v.min,
				c->v.max);
			if (c->ratio > 0)
				fprintf(f, "%.6g", c->ratio);
			fputc(',', f);
			if (c->ratio > 0 && !lb->w[w].iops)
				fprintf(f, "%.4f", c->saved_pct);
			fputc('\n', f);
		}
}

void lb_print_json(FILE *f, const struct leaderboard *lb)
{
	struct jw w;

	jw_init(&w, f, 2);
	jw_obj(&w);
	jw_kstr(&w, "suite", lb->name);
	jw_kstr(&w, "digest", lb->digest);
	jw_kstr(&w, "baseline", lb->c[lb->baseline].label);
	jw_kstr(&w, "baseline_host", lb->c[lb->baseline].host);
	jw_kstr(&w, "score", score_rule);
	jw_key(&w, "configurations");
	jw_arr(&w);
	for (int i = 0; i < lb->nc; i++) {
		jw_obj(&w);
		jw_ku64(&w, "rank", (uint64_t)lb->c[i].rank);
		jw_kstr(&w, "label", lb->c[i].label);
		jw_kstr(&w, "host", lb->c[i].host);
		jw_knum(&w, "score", lb->c[i].score, 9);
		jw_ku64(&w, "workloads_scored", (uint64_t)lb->c[i].nscore);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_key(&w, "workloads");
	jw_arr(&w);
	for (int k = 0; k < lb->nw; k++) {
		jw_obj(&w);
		jw_kstr(&w, "name", lb->w[k].name);
		jw_kstr(&w, "kind", lb->w[k].kind);
		jw_kstr(&w, "unit", lb->w[k].iops ? "ios_per_s" : "s");
		jw_key(&w, "results");
		jw_arr(&w);
		for (int i = 0; i < lb->nc; i++) {
			const struct lb_cell *c = &lb->w[k].cell[i];

			if (!c->n)
				continue;
			jw_obj(&w);
			jw_kstr(&w, "label", lb->c[i].label);
			jw_kstr(&w, "host", lb->c[i].host);
			jw_ku64(&w, "repeats", (uint64_t)c->n);
			jw_knum(&w, "median", c->v.med, 9);
			jw_knum(&w, "min", c->v.min, 9);
			jw_knum(&w, "max", c->v.max, 9);
			jw_key(&w, "ratio");
			if (c->ratio > 0)
				jw_num(&w, c->ratio, 9);
			else
				jw_null(&w);
			jw_key(&w, "time_saved_pct");
			if (c->ratio > 0 && !lb->w[k].iops)
				jw_num(&w, c->saved_pct, 9);
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
