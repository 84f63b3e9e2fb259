/*
 * svg.h — a small SVG chart writer: line, scatter and grouped-bar charts
 * with axes, ticks, axis labels with units, a title and a legend, several
 * series in distinct colours. It knows nothing of traces or databases:
 * the caller hands it arrays of numbers (analyze/plot.c does that for
 * `blkpeak analyze plot` and `analyze html`).
 *
 * The output is meant to be read by programs too (tests, scripts): the
 * plot area is <rect class="plot-area">, each series is one
 * <g class="series" data-label="..." data-points="N"> holding a
 * <polyline> (lines), markers (points: <circle>, <rect> or <path>, by
 * series) or <rect>s (bars), every drawn point lies inside the plot area,
 * and the legend is <g class="legend"> under the plot, one
 * <g class="legend-item"> per series.
 */
#ifndef BLKPEAK_SVG_H
#define BLKPEAK_SVG_H

#include <stddef.h>
#include <stdio.h>

enum svg_kind {
	SVG_LINES,   /* one polyline per series, points in the given order */
	SVG_POINTS,  /* one dot per (x, y): scatter plots, access maps */
	SVG_BARS,    /* y[i] of every series for category i, side by side */
};

enum svg_scale {
	SVG_LINEAR,
	SVG_LOG10,   /* values <= 0 are left out */
};

struct svg_axis {
	const char *label;      /* with the unit: "latency (µs)" */
	enum svg_scale scale;
	/* Range. When min >= max the writer takes it from the data (and a
	 * linear y axis of a bar chart always starts at 0). */
	double min, max;
};

/* One series. For SVG_BARS only y[0..n-1] is used, one value per category. */
struct svg_series {
	const char *label;
	const double *x;
	const double *y;
	size_t n;
};

struct svg_chart {
	const char *title;
	enum svg_kind kind;
	struct svg_axis x, y;
	const char *const *categories; /* SVG_BARS: names of the x categories */
	size_t ncategories;
	int width, height;             /* pixels; 0 gives 960 x 400, plus the
					  legend's rows under the plot */
	int standalone;                /* 1: XML prolog and xmlns (an .svg file);
					  0: an <svg> element to inline in HTML */
};

/* The fill colour of series i (cycles through a palette of 8). */
const char *svg_color(size_t i);
/* The stroke-dasharray of series i's line ("" for the first: solid). */
const char *svg_dash(size_t i);

/*
 * Write the chart to f. Returns 0, -EINVAL when there is nothing to draw
 * on an axis (no series, a log axis with no positive value, bars without
 * categories) or -EIO when writing failed. Points outside a fixed range
 * are left out, never drawn outside the axes.
 */
int svg_write(FILE *f, const struct svg_chart *c, const struct svg_series *s, size_t nseries);

/*
 * "Nice" tick positions for a linear axis over [lo, hi]: steps of 1, 2 or
 * 5 times a power of ten, about `want` of them, written to ticks (at most
 * max). Returns how many, and widens *lo / *hi to the outer ticks.
 */
size_t svg_nice_ticks(double *lo, double *hi, int want, double *ticks, size_t max);

/* Format a tick value compactly ("0.5", "20", "1.5k", "2M") into buf. */
void svg_fmt_tick(double v, char *buf, size_t len);

#endif
