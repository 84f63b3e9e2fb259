/*
 * svg.c — the SVG chart writer declared in svg.h.
 *
 * Layout: title on top, the plot area framed by its axes, x ticks and
 * label below, y ticks and label on the left, the legend under the x
 * label in as many rows as its labels need: the plot keeps the chart's
 * whole width, and a label is cut only when one alone is wider than the
 * chart. Each series has its colour and, so that one line never hides
 * another and the chart reads in grey too, its own dash pattern (lines)
 * or marker shape (points); the legend shows both.
 * Data coordinates go through one mapping per axis (linear or log10), so
 * a point is either inside the plot area or not drawn at all.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "svg.h"

#define MARGIN_L   72
#define MARGIN_T   40
#define MARGIN_B   52
#define MARGIN_R   28
#define MAX_TICKS  24
#define LEGEND_ROW 18   /* pixels per legend row */
#define LEGEND_SW  34   /* swatch and gap before the text */
#define LEGEND_GAP 22   /* between two items of a row */
/* Width of a legend character at font-size 11 (DejaVu Sans averages
 * 0.6 em for letters and digits; bold is not used): generous, so that an
 * item's box never runs into the next one. */
#define LEGEND_CH  7.0

/* Okabe–Ito colours, readable by colour-blind people, then two greys. */
static const char *const palette[] = {
	"#0072b2", "#d55e00", "#009e73", "#cc79a7",
	"#e69f00", "#56b4e9", "#555555", "#f0e442",
};

/* Dash patterns of the lines, so that each series differs by more than
 * its colour; the first is solid. */
static const char *const dashes[] = {
	"", "7 3", "2 2.5", "10 3 2 3", "4 4", "12 4", "1 3", "6 2 2 2 2 2",
};
#define NDASHES (sizeof(dashes) / sizeof(dashes[0]))

const char *svg_color(size_t i)
{
	return palette[i % (sizeof(palette) / sizeof(palette[0]))];
}

const char *svg_dash(size_t i)
{
	/* colours and dashes cycle at the same length: a colour comes back
	 * with another dash (9th series: blue, dashed) */
	return dashes[(i + i / NDASHES) % NDASHES];
}

/* Marker shapes of the points: circle, square, triangle, diamond. A
 * shape other than the circle is a <path> that starts with "M cx cy" at
 * its centre and draws itself with relative steps, so a reader finds the
 * point as it finds a circle's. */
enum { NMARKERS = 4 };

static void put_marker(FILE *f, size_t i, double x, double y, double r, const char *extra)
{
	const char *col = svg_color(i);

	switch (i % NMARKERS) {
	case 0:
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"%s/>\n", x, y, r, col,
			extra);
		break;
	case 1:
		fprintf(f, "<path d=\"M%.1f %.1fm%.1f %.1fh%.1fv%.1fh%.1fz\" fill=\"%s\"%s/>\n", x, y, -r, -r,
			2 * r, 2 * r, -2 * r, col, extra);
		break;
	case 2:
		fprintf(f, "<path d=\"M%.1f %.1fm0 %.1fl%.1f %.1fl%.1f 0z\" fill=\"%s\"%s/>\n", x, y,
			-1.3 * r, 1.2 * r, 2.2 * r, -2.4 * r, col, extra);
		break;
	default:
		fprintf(f, "<path d=\"M%.1f %.1fm0 %.1fl%.1f %.1fl%.1f %.1fl%.1f %.1fz\" fill=\"%s\"%s/>\n",
			x, y, -1.3 * r, 1.3 * r, 1.3 * r, -1.3 * r, 1.3 * r, -1.3 * r, -1.3 * r, col, extra);
	}
}

/* The frame of the plot area and how data maps into it. */
struct frame {
	double x0, y0, w, h;      /* pixels: top-left corner and size */
	double xlo, xhi, ylo, yhi; /* data range (log10 of it on a log axis) */
	enum svg_scale xs, ys;
};

/* s escaped for XML (html_str, common/fmt.h: no control character
 * either), at most max_chars characters of it (UTF-8 sequences counted
 * once and never split), then "…" when it was longer. */
static void put_escaped(FILE *f, const char *s, size_t max_chars)
{
	size_t n = 0, chars = 0;
	int cut = 0;

	while (s[n]) {
		if (((unsigned char)s[n] & 0xc0) != 0x80 && chars++ == max_chars) {
			cut = 1;
			break;
		}
		n++;
	}
	if (!cut) {
		html_str(f, s);
		return;
	}
	char *head = strndup(s, n);

	html_str(f, head ? head : "");
	free(head);
	fputs("…", f);
}

void svg_fmt_tick(double v, char *buf, size_t len)
{
	static const struct { double div; const char *sfx; } units[] = {
		{ 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" },
	};
	double a = fabs(v);

	if (a < 1e-12) {
		snprintf(buf, len, "0");
		return;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (a >= units[i].div) {
			snprintf(buf, len, "%.3g%s", v / units[i].div, units[i].sfx);
			return;
		}
	}
	snprintf(buf, len, "%.3g", v);
}

size_t svg_nice_ticks(double *lo, double *hi, int want, double *ticks, size_t max)
{
	double range = *hi - *lo, raw, mag, step, t;
	size_t n = 0;

	if (want < 2)
		want = 2;
	if (!(range > 0)) {
		*hi = *lo + 1;
		range = 1;
	}
	raw = range / (want - 1);
	mag = pow(10, floor(log10(raw)));
	step = raw / mag <= 1 ? mag : raw / mag <= 2 ? 2 * mag : raw / mag <= 5 ? 5 * mag : 10 * mag;
	*lo = floor(*lo / step + 1e-9) * step;
	*hi = ceil(*hi / step - 1e-9) * step;
	for (t = *lo; t <= *hi + step * 1e-6 && n < max; t += step)
		ticks[n++] = fabs(t) < step * 1e-9 ? 0 : t;
	return n;
}

static double tr(enum svg_scale s, double v)
{
	return s == SVG_LOG10 ? log10(v) : v;
}

/* Pixel position of data (x, y); returns 0 when it falls outside. */
static int map(const struct frame *fr, double x, double y, double *px, double *py)
{
	double tx, ty;

	if ((fr->xs == SVG_LOG10 && !(x > 0)) || (fr->ys == SVG_LOG10 && !(y > 0)))
		return 0;
	tx = (tr(fr->xs, x) - fr->xlo) / (fr->xhi - fr->xlo);
	ty = (tr(fr->ys, y) - fr->ylo) / (fr->yhi - fr->ylo);
	if (!(tx >= -1e-9 && tx <= 1 + 1e-9 && ty >= -1e-9 && ty <= 1 + 1e-9))
		return 0;
	*px = fr->x0 + fmin(fmax(tx, 0), 1) * fr->w;
	*py = fr->y0 + fr->h - fmin(fmax(ty, 0), 1) * fr->h;
	return 1;
}

/* The data range of one axis over every series, as (lo, hi) with lo <= hi;
 * returns -EINVAL when no usable value exists. */
static int data_range(const struct svg_series *s, size_t ns, int use_x, enum svg_scale sc,
		      double *lo, double *hi)
{
	int any = 0;

	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t i = 0; i < ns; i++) {
		const double *v = use_x ? s[i].x : s[i].y;

		for (size_t j = 0; v && j < s[i].n; j++) {
			if (!isfinite(v[j]) || (sc == SVG_LOG10 && !(v[j] > 0)))
				continue;
			*lo = fmin(*lo, v[j]);
			*hi = fmax(*hi, v[j]);
			any = 1;
		}
	}
	return any ? 0 : -EINVAL;
}

/*
 * Settle one axis: range (given or from data), ticks (tick values in
 * data units), and the transformed range stored in the frame.
 */
static int settle_axis(const struct svg_axis *ax, const struct svg_series *s, size_t ns,
		       int use_x, int zero_based, double *tlo, double *thi,
		       double *ticks, size_t *nticks)
{
	double lo = ax->min, hi = ax->max;

	if (!(lo < hi)) {
		if (data_range(s, ns, use_x, ax->scale, &lo, &hi))
			return -EINVAL;
		if (ax->scale == SVG_LINEAR && zero_based && lo > 0)
			lo = 0;
	}
	if (ax->scale == SVG_LOG10) {
		double a, b, step;

		if (!(lo > 0))
			return -EINVAL;
		a = floor(log10(lo) + 1e-9);
		b = ceil(log10(hi) - 1e-9);
		if (b <= a)
			b = a + 1;
		step = ceil((b - a) / 8);
		*nticks = 0;
		for (double d = a; d <= b + 1e-9 && *nticks < MAX_TICKS; d += step)
			ticks[(*nticks)++] = pow(10, d);
		*tlo = a;
		*thi = b;
		return 0;
	}
	if (lo == hi) {
		lo = lo > 0 ? 0 : lo - 1;
		hi = hi + (hi > 0 ? hi * 0.1 : 1);
	}
	*nticks = svg_nice_ticks(&lo, &hi, 6, ticks, MAX_TICKS);
	*tlo = lo;
	*thi = hi;
	return 0;
}

/* Characters of a bar chart's category name that fit its share of the axis. */
static size_t category_chars(double plot_w, size_t ncat)
{
	return (size_t)fmax(4, plot_w / (double)ncat / LEGEND_CH) - 1;
}

static size_t utf8_chars(const char *s, size_t bytes)
{
	size_t n = 0;

	for (size_t i = 0; i < bytes && s[i]; i++)
		n += ((unsigned char)s[i] & 0xc0) != 0x80;
	return n;
}

/* Where to split name into two lines of at most fit characters: the byte
 * offset of the space, or 0 when it fits on one line (or has no space). */
static size_t wrap_at(const char *name, size_t fit)
{
	size_t best = 0;

	if (utf8_chars(name, strlen(name)) <= fit)
		return 0;
	for (size_t i = 0; name[i]; i++)
		if (name[i] == ' ' && utf8_chars(name, i) <= fit)
			best = i;
	return best;
}

/* Does any category name of a bar chart take two lines? */
static int categories_wrap(const struct svg_chart *c, double plot_w)
{
	size_t fit;

	if (c->kind != SVG_BARS || !c->ncategories)
		return 0;
	fit = category_chars(plot_w, c->ncategories);
	for (size_t i = 0; i < c->ncategories; i++)
		if (c->categories[i] && wrap_at(c->categories[i], fit))
			return 1;
	return 0;
}

static void write_axes(FILE *f, const struct svg_chart *c, const struct frame *fr,
		       const double *xt, size_t nx, const double *yt, size_t ny)
{
	char buf[32];
	double px, py;

	fprintf(f, "<g class=\"axes\" font-size=\"11\" fill=\"#333\">\n");
	/* grid and y ticks */
	for (size_t i = 0; i < ny; i++) {
		double anyx = fr->xs == SVG_LOG10 ? pow(10, fr->xlo) : fr->xlo;

		if (!map(fr, anyx, yt[i], &px, &py))
			continue;
		svg_fmt_tick(yt[i], buf, sizeof(buf));
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>"
			   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			fr->x0, py, fr->x0 + fr->w, py, fr->x0 - 6, py + 4, buf);
	}
	if (c->kind != SVG_BARS) {
		for (size_t i = 0; i < nx; i++) {
			double anyy = fr->ys == SVG_LOG10 ? pow(10, fr->ylo) : fr->ylo;

			if (!map(fr, xt[i], anyy, &px, &py))
				continue;
			svg_fmt_tick(xt[i], buf, sizeof(buf));
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>"
				   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
				px, fr->y0, px, fr->y0 + fr->h, px, fr->y0 + fr->h + 16, buf);
		}
	} else {
		double gw = fr->w / (double)c->ncategories;

		size_t fit = category_chars(fr->w, c->ncategories);

		for (size_t i = 0; i < c->ncategories; i++) {
			const char *name = c->categories[i] ? c->categories[i] : "";
			size_t cut = wrap_at(name, fit);
			double x = fr->x0 + gw * (i + 0.5);

			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x, fr->y0 + fr->h + 16);
			if (cut) { /* two lines, split at a space */
				char first[256];

				snprintf(first, sizeof(first), "%.*s", (int)(cut < sizeof(first) ? cut : sizeof(first) - 1),
					 name);
				put_escaped(f, first, fit);
				fprintf(f, "<tspan x=\"%.1f\" dy=\"13\">", x);
				put_escaped(f, name + cut + 1, fit);
				fputs("</tspan>", f);
			} else {
				put_escaped(f, name, fit);
			}
			fputs("</text>\n", f);
		}
	}
	fprintf(f, "<rect class=\"plot-area\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		   "fill=\"none\" stroke=\"#888\"/>\n", fr->x0, fr->y0, fr->w, fr->h);
	fprintf(f, "<text class=\"x-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\">",
		fr->x0 + fr->w / 2, fr->y0 + fr->h + 38 + (categories_wrap(c, fr->w) ? 13 : 0));
	put_escaped(f, c->x.label ? c->x.label : "", 80);
	fprintf(f, "</text>\n<text class=\"y-label\" transform=\"translate(16 %.1f) rotate(-90)\" "
		   "text-anchor=\"middle\" font-size=\"12\">", fr->y0 + fr->h / 2);
	put_escaped(f, c->y.label ? c->y.label : "", 80);
	fputs("</text>\n</g>\n", f);
}

static void series_open(FILE *f, size_t i, const char *label, size_t points)
{
	fprintf(f, "<g class=\"series\" data-series=\"%zu\" data-points=\"%zu\" data-label=\"", i, points);
	put_escaped(f, label ? label : "", 4096);
	fputs("\">\n", f);
}

/* How many points of series s map inside the frame. */
static size_t count_inside(const struct frame *fr, const struct svg_series *s)
{
	size_t n = 0;
	double px, py;

	for (size_t j = 0; j < s->n; j++)
		n += s->x && s->y && map(fr, s->x[j], s->y[j], &px, &py);
	return n;
}

static void write_series(FILE *f, const struct svg_chart *c, const struct frame *fr,
			 const struct svg_series *s, size_t ns)
{
	double px, py;

	for (size_t i = 0; i < ns; i++) {
		const char *col = svg_color(i);

		if (c->kind == SVG_BARS) {
			double gw = fr->w / (double)c->ncategories;
			double bw = gw * 0.8 / (double)ns;
			size_t n = s[i].n < c->ncategories ? s[i].n : c->ncategories;
			double base;

			series_open(f, i, s[i].label, n);
			for (size_t j = 0; j < n; j++) {
				double y = s[i].y[j];
				double bx = fr->x0 + gw * j + gw * 0.1 + bw * i;

				if (!map(fr, fr->xs == SVG_LOG10 ? 1 : 0, y, &px, &py) ||
				    !map(fr, 0, fr->ys == SVG_LOG10 ? pow(10, fr->ylo) : fmax(fr->ylo, 0),
					 &px, &base))
					continue;
				fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
					   "<title>%g</title></rect>\n",
					bx, fmin(py, base), bw, fabs(base - py), col, y);
			}
		} else if (c->kind == SVG_LINES) {
			series_open(f, i, s[i].label, count_inside(fr, &s[i]));
			fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\" "
				   "stroke-opacity=\"0.9\" stroke-linejoin=\"round\"%s%s%s points=\"", col,
				svg_dash(i)[0] ? " stroke-dasharray=\"" : "", svg_dash(i),
				svg_dash(i)[0] ? "\"" : "");
			for (size_t j = 0; j < s[i].n; j++)
				if (map(fr, s[i].x[j], s[i].y[j], &px, &py))
					fprintf(f, "%.1f,%.1f ", px, py);
			fputs("\"/>\n", f);
		} else {
			series_open(f, i, s[i].label, count_inside(fr, &s[i]));
			for (size_t j = 0; j < s[i].n; j++)
				if (map(fr, s[i].x[j], s[i].y[j], &px, &py))
					put_marker(f, i, px, py, 1.8, " fill-opacity=\"0.7\"");
		}
		fputs("</g>\n", f);
	}
}

/* The legend: rows under the x label, items left to right, a new row
 * when the next one would pass the right margin; a label is cut only
 * when it alone is wider than the chart. */
static size_t utf8_len(const char *s)
{
	size_t n = 0;

	for (; s && *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static double item_width(const char *label, size_t max_chars)
{
	size_t n = utf8_len(label);

	return LEGEND_SW + (double)(n < max_chars ? n : max_chars) * LEGEND_CH;
}

/* Lay the legend out for a chart W pixels wide from y = top, and draw it
 * when `draw`. Returns the rows used. */
static size_t legend_flow(FILE *f, int W, double top, const struct svg_chart *c,
			  const struct svg_series *s, size_t ns, int draw)
{
	double x0 = MARGIN_L, right = W - MARGIN_R, x = x0, y = top;
	size_t rows = ns ? 1 : 0, max_chars = (size_t)((right - x0 - LEGEND_SW) / LEGEND_CH);

	for (size_t i = 0; i < ns; i++) {
		const char *label = s[i].label ? s[i].label : "";
		double w = item_width(label, max_chars);

		if (x > x0 && x + w > right) {
			x = x0;
			y += LEGEND_ROW;
			rows++;
		}
		if (draw) {
			double my = y + 6;

			fprintf(f, "<g class=\"legend-item\" data-series=\"%zu\">", i);
			if (c->kind == SVG_LINES)
				fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
					   "stroke-width=\"2.4\"%s%s%s/>", x, my, x + 26, my, svg_color(i),
					svg_dash(i)[0] ? " stroke-dasharray=\"" : "", svg_dash(i),
					svg_dash(i)[0] ? "\"" : "");
			else if (c->kind == SVG_POINTS)
				put_marker(f, i, x + 13, my, 4.5, "");
			else
				fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"26\" height=\"12\" fill=\"%s\"/>",
					x, y, svg_color(i));
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", x + LEGEND_SW, y + 10);
			put_escaped(f, label, max_chars);
			fputs("<title>", f);
			put_escaped(f, label, 4096);
			fputs("</title></text></g>\n", f);
		}
		x += w + LEGEND_GAP;
	}
	return rows;
}

static void write_legend(FILE *f, int W, double top, const struct svg_chart *c,
			 const struct svg_series *s, size_t ns)
{
	fputs("<g class=\"legend\" font-size=\"11\">\n", f);
	legend_flow(f, W, top, c, s, ns, 1);
	fputs("</g>\n", f);
}

int svg_write(FILE *f, const struct svg_chart *c, const struct svg_series *s, size_t ns)
{
	int W = c->width > 0 ? c->width : 960, H = c->height > 0 ? c->height : 400;
	double xt[MAX_TICKS], yt[MAX_TICKS];
	size_t nx = 0, ny = 0, rows;
	struct frame fr = {
		.x0 = MARGIN_L, .y0 = MARGIN_T,
		.w = W - MARGIN_L - MARGIN_R, .h = H - MARGIN_T - MARGIN_B,
		.xs = c->x.scale, .ys = c->y.scale,
	};
	double legend_top;

	if (ns == 0 || fr.w < 50 || fr.h < 50)
		return -EINVAL;
	if (categories_wrap(c, fr.w))
		H += 13; /* a second line of category names: below the plot, not in it */
	legend_top = H - 4;
	if (c->kind == SVG_BARS) {
		if (c->ncategories == 0)
			return -EINVAL;
		fr.xs = SVG_LINEAR;
		fr.xlo = 0;
		fr.xhi = 1;
	} else if (settle_axis(&c->x, s, ns, 1, 0, &fr.xlo, &fr.xhi, xt, &nx)) {
		return -EINVAL;
	}
	if (settle_axis(&c->y, s, ns, 0, 1, &fr.ylo, &fr.yhi, yt, &ny))
		return -EINVAL;
	/* the legend's rows make the chart taller, never the plot smaller */
	rows = legend_flow(f, W, legend_top, c, s, ns, 0);
	H += (int)(rows * LEGEND_ROW) + 6;

	if (c->standalone)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f, "<svg %swidth=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		   "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" class=\"blkpeak-chart\">\n",
		c->standalone ? "xmlns=\"http://www.w3.org/2000/svg\" " : "", W, H, W, H);
	fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", W, H);
	fprintf(f, "<text class=\"title\" x=\"%.1f\" y=\"24\" text-anchor=\"middle\" font-size=\"15\" "
		   "font-weight=\"bold\">", fr.x0 + fr.w / 2);
	put_escaped(f, c->title ? c->title : "", 120);
	fputs("</text>\n", f);
	write_axes(f, c, &fr, xt, nx, yt, ny);
	write_series(f, c, &fr, s, ns);
	write_legend(f, W, legend_top, c, s, ns);
	fputs("</svg>\n", f);
	return ferror(f) ? -EIO : 0;
}
