/*
 * leaderboard_html.c — the Leaderboard section of `analyze html
 * --leaderboard SUITE`: the rule of the score, the ranking, and per
 * workload a table row per configuration and one bar chart (the medians;
 * the table gives the ranges).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "fmt.h"
#include "leaderboard.h"
#include "svg.h"

int lb_print_html(FILE *f, const struct leaderboard *lb, struct bpt_error *err)
{
	const char **names = calloc(lb->nc ? lb->nc : 1, sizeof(*names));
	double *y = calloc(lb->nc ? lb->nc : 1, sizeof(*y));
	int rc = 0;

	if (!names || !y) {
		free(names);
		free(y);
		return bpt_error_set(err, -ENOMEM, "out of memory");
	}
	fputs("<h2 id=\"leaderboard\">Leaderboard</h2>\n<p>Suite <strong>", f);
	html_str(f, lb->name);
	fprintf(f, "</strong>, version <code>%s</code>. Score: the geometric mean over the workloads"
		   " of the ratio to the baseline, <strong>", lb->digest);
	html_str(f, lb->c[lb->baseline].shown);
	fputs("</strong> (its time / the time of a replay or mix; IOPS / its IOPS for a qd-sweep):"
	      " above 1 beats the baseline.</p>\n", f);
	fputs("<table>\n<tr><th>rank</th><th>configuration</th><th>score</th><th>workloads</th></tr>\n", f);
	for (int i = 0; i < lb->nc; i++) {
		fprintf(f, "<tr><td>%d</td><td>", lb->c[i].rank);
		html_str(f, lb->c[i].shown);
		fprintf(f, "%s</td><td>%.3f</td><td>%d of %d</td></tr>\n",
			i == lb->baseline ? " (baseline)" : "", lb->c[i].score, lb->c[i].nscore, lb->nw);
	}
	fputs("</table>\n", f);
	for (int w = 0; w < lb->nw && !rc; w++) {
		const struct lb_workload *wl = &lb->w[w];
		struct svg_series s = { "median", NULL, y, 0 };
		struct svg_chart c = {
			.title = wl->name, .kind = SVG_BARS,
			.x = { "configuration", SVG_LINEAR, 0, 0 },
			.y = { wl->iops ? "weighted IOPS (I/Os per second)" : "time (s)", SVG_LINEAR, 0, 0 },
			.categories = names,
		};

		fprintf(f, "<h3 class=\"workload\">");
		html_str(f, wl->name);
		fprintf(f, "</h3>\n<table>\n<tr><th>configuration</th><th>%s median</th><th>min</th>"
			   "<th>max</th><th>repeats</th><th>%s</th></tr>\n",
			wl->iops ? "weighted IOPS" : "time (s)", wl->iops ? "against the baseline" : "time saved");
		for (int i = 0; i < lb->nc; i++) {
			const struct lb_cell *x = &wl->cell[i];

			if (!x->n)
				continue;
			fputs("<tr><td>", f);
			html_str(f, lb->c[i].shown);
			fprintf(f, "</td><td>%.3f</td><td>%.3f</td><td>%.3f</td><td>%d</td><td>", x->v.med,
				x->v.min, x->v.max, x->n);
			if (i == lb->baseline)
				fputs("baseline", f);
			else if (!(x->ratio > 0))
				fputs("-", f);
			else if (wl->iops)
				fprintf(f, "%+.1f%%", (x->ratio - 1) * 100);
			else
				fprintf(f, "%.1f%%", x->saved_pct);
			fputs("</td></tr>\n", f);
			names[s.n] = lb->c[i].shown;
			y[s.n++] = x->v.med;
		}
		fputs("</table>\n<figure class=\"leaderboard-chart\">\n", f);
		c.ncategories = s.n;
		rc = s.n ? svg_write(f, &c, &s, 1) : 0;
		fputs("</figure>\n", f);
	}
	free(names);
	free(y);
	if (rc)
		return bpt_error_set(err, rc, "cannot draw the leaderboard's charts");
	return ferror(f) ? bpt_error_set(err, -EIO, "write error") : 0;
}
