/* Unit tests of the SVG chart writer (analyze/svg.c): ticks, escaping,
 * series structure, and that every drawn point lies inside the axes. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"

/* Render a chart into a malloc'd string (caller frees); rc gets svg_write's result. */
static char *render(const struct svg_chart *c, const struct svg_series *s, size_t n, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	*rc = svg_write(f, c, s, n);
	fclose(f);
	return buf;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

struct area { double x, y, w, h; };

static struct area plot_area(const char *svg)
{
	struct area a;
	const char *p = strstr(svg, "class=\"plot-area\"");

	cr_assert_not_null(p, "no plot area");
	cr_assert_eq(sscanf(p, "class=\"plot-area\" x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\"",
			    &a.x, &a.y, &a.w, &a.h), 4);
	return a;
}

static int inside(struct area a, double x, double y)
{
	return x >= a.x - 0.05 && x <= a.x + a.w + 0.05 && y >= a.y - 0.05 && y <= a.y + a.h + 0.05;
}

Test(svg, nice_ticks)
{
	double t[16], lo = 0, hi = 97;
	size_t n = svg_nice_ticks(&lo, &hi, 6, t, 16);

	cr_assert_eq(n, 6);
	cr_assert_float_eq(lo, 0, 1e-9);
	cr_assert_float_eq(hi, 100, 1e-9);
	cr_assert_float_eq(t[1], 20, 1e-9);

	lo = 0.013; hi = 0.049;
	n = svg_nice_ticks(&lo, &hi, 6, t, 16);
	cr_assert(n >= 3 && n <= 9, "%zu ticks", n);
	cr_assert(lo <= 0.013 && hi >= 0.049);

	lo = 5; hi = 5;   /* empty range still gives an axis */
	n = svg_nice_ticks(&lo, &hi, 6, t, 16);
	cr_assert(n >= 2 && hi > lo);
}

Test(svg, tick_labels)
{
	char b[32];

	svg_fmt_tick(0, b, sizeof(b)); cr_assert_str_eq(b, "0");
	svg_fmt_tick(0.5, b, sizeof(b)); cr_assert_str_eq(b, "0.5");
	svg_fmt_tick(1500, b, sizeof(b)); cr_assert_str_eq(b, "1.5k");
	svg_fmt_tick(2e6, b, sizeof(b)); cr_assert_str_eq(b, "2M");
	svg_fmt_tick(-40, b, sizeof(b)); cr_assert_str_eq(b, "-40");
}

Test(svg, lines_two_series_inside_axes)
{
	double x1[] = { 0, 1, 2, 3, 4 }, y1[] = { 10, 30, 20, 50, 40 };
	double x2[] = { 0, 2, 4 }, y2[] = { 5, 5, 60 };
	struct svg_series s[] = {
		{ .label = "single <disk> & co", .x = x1, .y = y1, .n = 5 },
		{ .label = "raid0", .x = x2, .y = y2, .n = 3 },
	};
	struct svg_chart c = {
		.title = "IOPS over time", .kind = SVG_LINES, .standalone = 1,
		.x = { .label = "time (s)" }, .y = { .label = "IOPS" },
	};
	int rc;
	char *svg = render(&c, s, 2, &rc);
	struct area a;
	const char *p;
	size_t pts = 0;

	cr_assert_eq(rc, 0);
	cr_assert(strstr(svg, "<?xml") == svg);
	cr_assert_not_null(strstr(svg, "xmlns=\"http://www.w3.org/2000/svg\""));
	cr_assert_eq(count(svg, "<g class=\"series\""), 2);
	cr_assert_not_null(strstr(svg, "single &lt;disk&gt; &amp; co"));
	cr_assert_not_null(strstr(svg, "data-points=\"5\""));
	cr_assert_not_null(strstr(svg, "data-points=\"3\""));
	cr_assert_not_null(strstr(svg, svg_color(0)));
	cr_assert_not_null(strstr(svg, svg_color(1)));
	cr_assert_str_neq(svg_color(0), svg_color(1));
	a = plot_area(svg);
	for (p = strstr(svg, "points=\""); p; p = strstr(p + 1, "points=\"")) {
		double x, y;
		int used;

		p += 8;
		for (const char *q = p; sscanf(q, "%lf,%lf %n", &x, &y, &used) == 2; q += used) {
			cr_assert(inside(a, x, y), "point %.1f,%.1f outside", x, y);
			pts++;
		}
	}
	cr_assert_eq(pts, 8);
	free(svg);
}

Test(svg, points_fixed_range_drops_outside)
{
	double x[] = { 1, 2, 3, 100 }, y[] = { 1, 2, 3, 4 };
	struct svg_series s = { .label = "lba", .x = x, .y = y, .n = 4 };
	struct svg_chart c = {
		.kind = SVG_POINTS, .x = { .label = "t", .min = 0, .max = 10 },
		.y = { .label = "sector" },
	};
	int rc;
	char *svg = render(&c, &s, 1, &rc);
	struct area a = plot_area(svg);
	const char *p;
	size_t n = 0;

	cr_assert_eq(rc, 0);
	cr_assert(strstr(svg, "<?xml") == NULL, "inline form has no prolog");
	for (p = strstr(svg, "<circle"); p && p < strstr(svg, "<g class=\"legend\""); p = strstr(p + 1, "<circle")) {
		double cx, cy;

		cr_assert_eq(sscanf(p, "<circle cx=\"%lf\" cy=\"%lf\"", &cx, &cy), 2);
		cr_assert(inside(a, cx, cy));
		n++;
	}
	cr_assert_eq(n, 3, "the point at x=100 is outside the fixed range");
	cr_assert_not_null(strstr(svg, "data-points=\"3\""));
	free(svg);
}

Test(svg, log_axis)
{
	double x[] = { 0, 20e-6, 100e-6, 3e-3 }, y[] = { 0, 0.5, 0.9, 1 };
	struct svg_series s = { .label = "cdf", .x = x, .y = y, .n = 4 };
	struct svg_chart c = {
		.kind = SVG_LINES, .x = { .label = "latency (s)", .scale = SVG_LOG10 },
		.y = { .label = "fraction" },
	};
	int rc;
	char *svg = render(&c, &s, 1, &rc);

	cr_assert_eq(rc, 0);
	cr_assert_not_null(strstr(svg, "data-points=\"3\""), "x=0 cannot be on a log axis");
	free(svg);

	double bad[] = { 0, -1 };
	struct svg_series z = { .label = "z", .x = bad, .y = bad, .n = 2 };

	svg = render(&c, &z, 1, &rc);
	cr_assert_eq(rc, -EINVAL);
	free(svg);
}

Test(svg, bars)
{
	const char *cats[] = { "4k", "8k", "64k" };
	double a[] = { 50, 25, 25 }, b[] = { 10, 0, 90 };
	struct svg_series s[] = {
		{ .label = "capture", .y = a, .n = 3 },
		{ .label = "replay", .y = b, .n = 3 },
	};
	struct svg_chart c = {
		.kind = SVG_BARS, .categories = cats, .ncategories = 3,
		.x = { .label = "request size" }, .y = { .label = "share of I/Os (%)" },
	};
	int rc;
	char *svg = render(&c, s, 2, &rc);
	struct area ar = plot_area(svg);
	const char *p = strstr(svg, "<g class=\"series\"");
	const char *legend = strstr(svg, "<g class=\"legend\"");
	size_t n = 0;

	cr_assert_eq(rc, 0);
	cr_assert(p && legend && p < legend);
	/* every <rect> between the first series and the legend is a bar */
	for (p = strstr(p, "<rect "); p && p < legend; p = strstr(p + 1, "<rect ")) {
		double x, y, w, h;

		cr_assert_eq(sscanf(p, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\"",
				    &x, &y, &w, &h), 4);
		cr_assert(inside(ar, x, y) && inside(ar, x + w, y + h), "bar outside");
		n++;
	}
	cr_assert_eq(n, 6);
	cr_assert_not_null(strstr(svg, ">64k<"));
	free(svg);

	c.ncategories = 0;
	svg = render(&c, s, 2, &rc);
	cr_assert_eq(rc, -EINVAL);
	free(svg);
}

Test(svg, no_series_and_long_utf8_label)
{
	struct svg_chart c = { .kind = SVG_LINES };
	double x[] = { 1, 2 }, y[] = { 1, 2 };
	char longl[2 * 300 + 1] = "";
	struct svg_series s = {
		.label = "ééééééééééééééééééééééééééééééé", .x = x, .y = y, .n = 2,
	};
	int rc;
	char *svg = render(&c, NULL, 0, &rc);

	cr_assert_eq(rc, -EINVAL);
	free(svg);
	svg = render(&c, &s, 1, &rc);
	cr_assert_eq(rc, 0);
	/* a label that fits the chart's width is never cut */
	cr_assert_not_null(strstr(svg, ">ééééééééééééééééééééééééééééééé<title>"));
	cr_assert_null(strstr(svg, "…"));
	free(svg);
	/* a label is escaped as common/fmt.h's html_str: markup as entities,
	 * a control byte (an ESC, a bidi override) as visible text */
	s.label = "a<b & \x1b[31m\xe2\x80\xae";
	svg = render(&c, &s, 1, &rc);
	cr_assert_eq(rc, 0);
	cr_assert_not_null(strstr(svg, ">a&lt;b &amp; \\x1b[31m\\u202e<title>"));
	cr_assert_null(strchr(svg, '\x1b'));
	free(svg);
	/* one wider than the chart is cut on a character boundary, with an ellipsis */
	for (int i = 0; i < 300; i++)
		strcat(longl, "é");
	s.label = longl;
	svg = render(&c, &s, 1, &rc);
	cr_assert_eq(rc, 0);
	cr_assert_not_null(strstr(svg, "ééé…<title>"));
	free(svg);
}
