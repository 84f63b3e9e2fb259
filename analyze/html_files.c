/*
 * html_files.c — the Files section of the HTML report: for each trace of
 * the page whose I/Os name files (trace format 1.3), a chart of its
 * busiest files and one of its busiest directories, from the report's own
 * figures (stats_files.c), so the page and `analyze report` agree.
 *
 * A chart is horizontal bars, one row per file: its share of the trace's
 * busy (service) time, of its I/Os and of its bytes, three bars in the
 * colours of svg.c with the value after each, the legend under the plot.
 * It follows svg.h's conventions for programs that read it (one
 * <g class="series" data-series="K"> per figure, one legend item each).
 * Paths are recorded data, not trusted: every one is escaped
 * (html_str, common/fmt.h); a long path is shown by its end ("…/dir/file", the part
 * that tells files apart) with the whole path as the row's tooltip. The
 * viewBox is fixed and the SVG scales to the page's width, so the chart
 * never makes the page scroll sideways.
 */
#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "html_files.h"
#include "svg.h"

#define W 960                 /* viewBox width */
#define LABEL_X 8             /* the paths, left-aligned */
#define LABEL_CHARS 44        /* at most, at 12 px: fits before BAR_X */
#define BAR_X 420             /* bars from here ... */
#define BAR_W 460             /* ... this long at 100% (the value after it) */
#define ROW_H 36              /* three bars of 7, 9 apart: their values do not touch */
#define TOP 50                /* the title and the names' heading above the rows */

static const char *const figure_name[3] = { "busy time", "I/Os", "bytes" };

/* The three shares of file k, 0..1. */
static void shares(const struct st_report *r, const struct st_file *fl, double v[3])
{
	v[0] = fl->busy_share;
	v[1] = r->ios ? (double)fl->ios / (double)r->ios : 0;
	v[2] = r->bytes ? (double)fl->bytes / (double)r->bytes : 0;
	for (int i = 0; i < 3; i++)
		v[i] = v[i] < 0 ? 0 : v[i] > 1 ? 1 : v[i];
}

/* The end of a long path, at most LABEL_CHARS characters (UTF-8 aware:
 * a cut never splits a character), "…" first when cut. */
static void short_name(const char *name, char *buf, size_t len)
{
	size_t n = strlen(name), chars = 0, at = n;

	while (at > 0) {
		size_t s = at - 1;

		while (s > 0 && ((unsigned char)name[s] & 0xC0) == 0x80)
			s--;
		if (chars + 1 > LABEL_CHARS - 1 && s > 0)
			break;
		chars++;
		at = s;
	}
	snprintf(buf, len, "%s%s", at ? "\xE2\x80\xA6" : "", name + at);
}

static void chart(FILE *f, const char *id, const char *title, const char *what,
		  const struct st_report *r, const struct st_file *top, uint32_t n)
{
	int plot_h = (int)n * ROW_H, H = TOP + plot_h + 58;

	fprintf(f, "<figure id=\"%s\">\n<svg class=\"blkpeak-chart\" viewBox=\"0 0 %d %d\""
		" role=\"img\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n", id, W, H);
	fputs("<text x=\"8\" y=\"20\" font-size=\"15\" font-weight=\"bold\">", f);
	html_str(f, title);
	fputs("</text>\n", f);
	fprintf(f, "<text class=\"y-label\" x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#555\">%s"
		"</text>\n", LABEL_X, TOP - 8, what);
	fprintf(f, "<rect class=\"plot-area\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\""
		" fill=\"none\" stroke=\"#ccc\"/>\n", BAR_X, TOP, BAR_W, plot_h);
	for (int q = 1; q < 4; q++) /* 25%, 50%, 75% */
		fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#eee\"/>\n",
			BAR_X + BAR_W * q / 4, TOP, BAR_X + BAR_W * q / 4, TOP + plot_h);
	for (uint32_t i = 0; i < n; i++) { /* the names, each with its whole path */
		char name[4 * LABEL_CHARS + 8];

		short_name(top[i].name, name, sizeof(name));
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\">", LABEL_X,
			TOP + (int)i * ROW_H + 22);
		html_str(f, name);
		fputs("<title>", f);
		html_str(f, top[i].name);
		fputs("</title></text>\n", f);
	}
	for (int s = 0; s < 3; s++) {
		fprintf(f, "<g class=\"series\" data-series=\"%d\" data-points=\"%u\""
			" data-label=\"%s\">\n", s, n, figure_name[s]);
		for (uint32_t i = 0; i < n; i++) {
			double v[3];
			int y = TOP + (int)i * ROW_H + 5 + s * 9;

			shares(r, &top[i], v);
			fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"7\" fill=\"%s\">"
				"<title>%s %.1f%%</title></rect>", BAR_X, y, v[s] * BAR_W,
				svg_color((size_t)s), figure_name[s], v[s] * 100);
			fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"9\" fill=\"#444\">%.1f%%</text>\n",
				BAR_X + v[s] * BAR_W + 3, y + 7, v[s] * 100);
		}
		fputs("</g>\n", f);
	}
	fprintf(f, "<text class=\"x-label\" x=\"%d\" y=\"%d\" font-size=\"11\""
		" text-anchor=\"middle\" fill=\"#555\">"
		"share of the trace's busy time, I/Os and bytes (%%; 0 to 100)</text>\n",
		BAR_X + BAR_W / 2, TOP + plot_h + 18);
	fprintf(f, "<g class=\"legend\">\n");
	for (int s = 0; s < 3; s++) {
		int x = BAR_X + s * 150, y = TOP + plot_h + 40;

		fprintf(f, "<g class=\"legend-item\" data-series=\"%d\"><rect x=\"%d\" y=\"%d\""
			" width=\"14\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"%d\""
			" font-size=\"12\">%s<title>%s</title></text></g>\n", s, x, y - 9,
			svg_color((size_t)s), x + 19, y, figure_name[s], figure_name[s]);
	}
	fputs("</g>\n</svg>\n", f);
}

void html_files_section(FILE *f, const struct cmp *c)
{
	int any = 0;

	for (int k = 0; k < c->n; k++) {
		const struct cmp_entry *e = &c->e[k];
		const struct st_report *r = &e->rep;
		char id[48], title[64];

		if (!r->ntop_files)
			continue;
		if (!any++)
			fputs("<h2 id=\"files\">Files</h2>\n<p>The busiest files and directories of"
			      " each trace whose I/Os name them (captures: trace format 1.3), by"
			      " their share of the trace's busy time (the service time of its I/Os),"
			      " of its I/Os and of its bytes. A request that holds two files' data"
			      " counts for both, each for its bytes and its byte share of the time."
			      " Paths are those the files had during the capture; hover a name for"
			      " the whole path.</p>\n", f);
		snprintf(title, sizeof(title), "Busiest files (%u of %u)", r->ntop_files,
			 r->nfile_total);
		snprintf(id, sizeof(id), "chart-files-%d", k);
		chart(f, id, title, "file (its path during the capture)", r, r->top_files,
		      r->ntop_files);
		fputs("<figcaption>", f);
		html_str(f, e->label);
		fputs(": its busiest files by share of the busy time.</figcaption>\n</figure>\n", f);
		if (!r->ntop_dirs)
			continue;
		snprintf(title, sizeof(title), "Busiest directories");
		snprintf(id, sizeof(id), "chart-dirs-%d", k);
		chart(f, id, title, "directory", r, r->top_dirs, r->ntop_dirs);
		fputs("<figcaption>", f);
		html_str(f, e->label);
		fputs(": the files' figures summed by the directory that holds them.</figcaption>\n"
		      "</figure>\n", f);
	}
}
