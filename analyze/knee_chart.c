/* knee_chart.c — the charts of knee searches (measure knee), knee-latency
 * and knee-iops (measure_view.h, mview_knee_chart). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure_view.h"
#include "svg.h"

static int cmp_factor(const void *a, const void *b)
{
	const struct mview_point *x = a, *y = b;

	return (x->factor > y->factor) - (x->factor < y->factor);
}

/*
 * A knee chart: per search its steps in the order of the speed factor
 * (the bisection ran them out of order), on knee-latency the target's
 * limit as a level line over the factors tried, and the knee as an
 * upright line from 0 to the top of the search's values. The lines are
 * series of two points ("ID target p99 <= 5.000 ms", "ID knee x4.8").
 * Returns svg_write's result, or -ENODATA (no step), -ENOMEM.
 */
int mview_knee_chart(FILE *f, const struct mview *v, int iops, int standalone)
{
	size_t ns = 0, total = 0;
	struct svg_series *s = calloc(3 * v->n, sizeof(*s));
	char (*labels)[640] = calloc(3 * v->n, sizeof(*labels));
	struct mview_point *sorted = NULL;
	double *xy = NULL;
	const char *fig = v->m[0].slo_fig;
	char ylabel[96];
	struct svg_chart ch = { .standalone = standalone, .kind = SVG_LINES };
	int rc = 0;

	for (size_t i = 0; i < v->n; i++)
		total += v->m[i].n;
	if (!s || !labels || !(sorted = calloc(total + 1, sizeof(*sorted))) ||
	    !(xy = calloc(2 * total + 8 * v->n, sizeof(*xy)))) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->m[i].slo_fig, fig))
			fig = NULL; /* searches with targets on different figures */
	if (!total) {
		rc = -ENODATA;
		goto out;
	}
	total = 0;
	for (size_t i = 0; i < v->n; i++) {
		const struct mview_meas *m = &v->m[i];
		struct mview_point *p = sorted + total;
		double *x = xy + 2 * total + 8 * i, *y = x + m->n, top = 0, lo, hi;

		memcpy(p, m->p, m->n * sizeof(*p));
		qsort(p, m->n, sizeof(*p), cmp_factor);
		total += m->n;
		for (size_t k = 0; k < m->n; k++) {
			x[k] = p[k].factor;
			y[k] = iops ? p[k].iops : p[k].slo_ns / 1e6;
			top = y[k] > top ? y[k] : top;
		}
		snprintf(labels[ns], sizeof(labels[ns]), "%" PRId64 " %s", m->id, m->label);
		s[ns] = (struct svg_series){ labels[ns], x, y, m->n };
		ns++;
		if (!m->n)
			continue;
		lo = x[0], hi = x[m->n - 1];
		x += 2 * m->n, y = x + 2; /* the two lines: x[0..1] y[0..1], x[4..5] y[6..7] */
		if (!iops && m->slo_fig[0]) {
			x[0] = lo, x[1] = hi, y[0] = y[1] = m->slo_limit_ns / 1e6;
			top = y[0] > top ? y[0] : top;
			snprintf(labels[ns], sizeof(labels[ns]), "%" PRId64 " target %s", m->id, m->slo);
			s[ns] = (struct svg_series){ labels[ns], x, y, 2 };
			ns++;
		}
		x += 4, y = x + 2;
		if (!isnan(m->knee_factor)) {
			x[0] = x[1] = m->knee_factor, y[0] = 0, y[1] = top;
			snprintf(labels[ns], sizeof(labels[ns]), "%" PRId64 " knee x%.4g", m->id,
				 m->knee_factor);
			s[ns] = (struct svg_series){ labels[ns], x, y, 2 };
			ns++;
		}
	}
	if (iops) {
		ch.title = "IOPS against the replay's speed (knee search)";
		ch.y = (struct svg_axis){ "IOPS", SVG_LINEAR, 0, 0 };
	} else {
		if (fig)
			snprintf(ylabel, sizeof(ylabel), "%s latency (ms)", fig);
		else
			snprintf(ylabel, sizeof(ylabel), "latency of each search's target figure (ms)");
		ch.title = "latency against the replay's speed (knee search)";
		ch.y = (struct svg_axis){ ylabel, SVG_LINEAR, 0, 0 };
	}
	ch.x = (struct svg_axis){ "speed factor", SVG_LOG10, 0, 0 };
	rc = svg_write(f, &ch, s, ns);
out:
	free(s);
	free(labels);
	free(sorted);
	free(xy);
	return rc;
}
