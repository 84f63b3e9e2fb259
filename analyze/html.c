/*
 * html.c — the HTML report (html.h). Sections, in order: header, traces
 * and runs, comparison (two or more), charts. Everything is inline so the
 * file can be mailed or opened offline; the page has no script.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "html.h"
#include "plot.h"
#include "runstats.h"
#include "version.h"

static const char css[] =
	"body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;margin:2em auto;"
	"max-width:1040px;color:#222;padding:0 1em}"
	"h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.25em;margin-top:1.8em;"
	"border-bottom:1px solid #ccc;padding-bottom:.2em}"
	".meta{color:#666;font-size:.9em}"
	"table{border-collapse:collapse;font-size:.9em;margin:.6em 0}"
	"th,td{padding:.3em .7em;border-bottom:1px solid #e4e4e4;text-align:right;white-space:nowrap}"
	"th{background:#f4f4f4}td.l,th.l{text-align:left;white-space:normal}"
	"td.good{color:#0a6e31;font-weight:bold}td.bad{color:#b00020;font-weight:bold}"
	".bar{display:inline-block;height:.8em;background:#0072b2;vertical-align:middle}"
	".bar.neg{background:#d55e00}"
	"figure{margin:1.2em 0}figcaption{color:#555;font-size:.9em;margin-top:.3em}"
	".note{background:#f7f7e8;border-left:4px solid #e6c200;padding:.5em .8em}"
	"svg.blkpeak-chart{max-width:100%;height:auto}";

void html_escape(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* A latency in the unit that keeps it short: "85 µs", "12.3 ms". */
static void put_lat(FILE *f, int64_t ns)
{
	if (ns < 0)
		fputs("–", f);
	else if (ns < 1000000)
		fprintf(f, "%.0f µs", ns / 1e3);
	else if (ns < 1000000000)
		fprintf(f, "%.1f ms", ns / 1e6);
	else
		fprintf(f, "%.2f s", ns / 1e9);
}

static void put_duration(FILE *f, int64_t ns)
{
	if (ns >= 1000000000)
		fprintf(f, "%.3f s", ns / 1e9);
	else
		fprintf(f, "%.1f ms", ns / 1e6);
}

static void write_header(FILE *f, const struct html_options *o, size_t n)
{
	const char *title = o->title ? o->title : "blkpeak report";
	char when[64];
	time_t now = time(NULL);

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", gmtime(&now));
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>", f);
	html_escape(f, title);
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", css);
	html_escape(f, title);
	fprintf(f, "</h1>\n<p class=\"meta\">%zu trace%s and run%s from <code>", n,
		n == 1 ? "" : "s", n == 1 ? "" : "s");
	html_escape(f, o->db_path ? o->db_path : "?");
	fprintf(f, "</code>, written %s by blkpeak %s.</p>\n", when, BLKPEAK_VERSION);
	if (o->note) {
		fputs("<p class=\"note\">", f);
		html_escape(f, o->note);
		fputs("</p>\n", f);
	}
}

static void write_runs_table(FILE *f, const struct runstats *rs, size_t n)
{
	fputs("<h2 id=\"runs\">Traces and runs</h2>\n<table class=\"runs\">\n<tr><th>id</th>"
	      "<th class=\"l\">trace or run</th><th class=\"l\">kind</th><th>I/Os</th><th>MB</th>"
	      "<th>duration</th><th>IOPS</th><th>MB/s</th><th>p50</th><th>p99</th><th>p99.9</th>"
	      "<th>errors</th></tr>\n", f);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "<tr><td>%lld</td><td class=\"l\">", (long long)rs[i].id);
		html_escape(f, strchr(rs[i].label, ' ') ? strchr(rs[i].label, ' ') + 1 : rs[i].label);
		fputs("</td><td class=\"l\">", f);
		html_escape(f, rs[i].kind);
		if (rs[i].timing[0]) {
			fputs(", ", f);
			html_escape(f, rs[i].timing);
		}
		fprintf(f, "</td><td>%lld</td><td>%.1f</td><td>", (long long)rs[i].ios, rs[i].bytes / 1e6);
		put_duration(f, rs[i].duration_ns);
		fprintf(f, "</td><td>%.0f</td><td>%.1f</td><td>", rs[i].iops, rs[i].mbps);
		put_lat(f, rs[i].p50_ns);
		fputs("</td><td>", f);
		put_lat(f, rs[i].p99_ns);
		fputs("</td><td>", f);
		put_lat(f, rs[i].p999_ns);
		fprintf(f, "</td><td%s>%lld</td></tr>\n", rs[i].errors ? " class=\"bad\"" : "",
			(long long)rs[i].errors);
	}
	fputs("</table>\n<p class=\"meta\">Duration is first issue to last completion. Latencies "
	      "are service times (issue to completion) of the I/Os that carry data.</p>\n", f);
}

static void write_comparison(FILE *f, const struct runstats *rs, size_t n)
{
	double maxabs = 1;

	for (size_t i = 1; i < n; i++) {
		double t = runstats_time_saved_pct(&rs[0], &rs[i]);

		if (isfinite(t) && fabs(t) > maxabs)
			maxabs = fabs(t);
	}
	fputs("<h2 id=\"comparison\">Comparison</h2>\n<p>Against the first, <b>", f);
	html_escape(f, rs[0].label);
	fputs("</b>: time saved = (T<sub>base</sub> − T) / T<sub>base</sub>; speed-up = "
	      "T<sub>base</sub> / T − 1.</p>\n<table class=\"comparison\">\n<tr><th class=\"l\">"
	      "trace or run</th><th>duration</th><th>time saved</th><th class=\"l\"></th>"
	      "<th>speed-up</th><th>IOPS</th><th>p99</th></tr>\n", f);
	for (size_t i = 0; i < n; i++) {
		double saved = i ? runstats_time_saved_pct(&rs[0], &rs[i]) : 0;
		double up = i ? runstats_speedup_pct(&rs[0], &rs[i]) : 0;

		fputs("<tr><td class=\"l\">", f);
		html_escape(f, rs[i].label);
		fputs("</td><td>", f);
		put_duration(f, rs[i].duration_ns);
		if (i == 0) {
			fputs("</td><td>baseline</td><td class=\"l\"></td><td></td>", f);
		} else if (!isfinite(saved)) {
			fputs("</td><td>–</td><td class=\"l\"></td><td>–</td>", f);
		} else {
			fprintf(f, "</td><td class=\"%s\">%+.1f %%</td><td class=\"l\">"
				   "<span class=\"bar%s\" style=\"width:%.0fpx\"></span></td><td>%+.1f %%</td>",
				saved >= 0 ? "good" : "bad", saved, saved < 0 ? " neg" : "",
				fabs(saved) / maxabs * 160, isfinite(up) ? up : 0);
		}
		fprintf(f, "<td>%.0f</td><td>", rs[i].iops);
		put_lat(f, rs[i].p99_ns);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static int write_charts(sqlite3 *db, const int64_t *ids, size_t n, FILE *f)
{
	fputs("<h2 id=\"charts\">Charts</h2>\n", f);
	for (int k = 0; k < PLOT_KIND_COUNT; k++) {
		int rc;

		fprintf(f, "<figure id=\"chart-%s\">\n", plot_kind_name(k));
		rc = plot_write(db, (enum plot_kind)k, ids, n, 0, f);
		if (rc == -ENODATA)
			fprintf(f, "<p>No I/O to show in the %s chart.</p>\n", plot_kind_name(k));
		else if (rc)
			return rc;
		fprintf(f, "<figcaption>%s</figcaption>\n</figure>\n", plot_kind_caption(k));
	}
	return 0;
}

int html_write(sqlite3 *db, const int64_t *ids, size_t n, const struct html_options *o, FILE *f)
{
	struct runstats *rs = calloc(n ? n : 1, sizeof(*rs));
	int rc = 0;

	if (!rs)
		return -ENOMEM;
	for (size_t i = 0; i < n && !rc; i++)
		rc = runstats_load(db, ids[i], &rs[i]);
	if (rc)
		goto out;
	write_header(f, o, n);
	write_runs_table(f, rs, n);
	if (n >= 2)
		write_comparison(f, rs, n);
	rc = write_charts(db, ids, n, f);
	if (rc)
		goto out;
	fputs("<p class=\"meta\">Made with blkpeak: <code>blkpeak analyze html</code>. "
	      "Charts are drawn by blkpeak itself (no script, no network).</p>\n</body>\n</html>\n", f);
	if (ferror(f))
		rc = -EIO;
out:
	free(rs);
	return rc;
}
