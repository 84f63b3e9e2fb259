/*
 * html.c — the HTML report (html.h). Sections, in order: header, traces
 * and runs, comparison (two or more), charts. Everything is inline so the
 * file can be mailed or opened offline; the page has no script. The
 * figures come from the analyze reports and comparisons (stats_report.h,
 * compare.h), so the page and `analyze compare` always agree.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cliutil.h"
#include "db.h"
#include "files_filter.h"
#include "fmt.h"
#include "html.h"
#include "leaderboard.h"
#include "html_files.h"
#include "measure_view.h"
#include "plot.h"
#include "progress.h"
#include "compare.h"
#include "run_verify.h"
#include "stats_report.h"
#include "version.h"

static const char css[] =
	"body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;margin:2em auto;"
	"max-width:1500px;color:#222;padding:0 1.5em}"
	"h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.25em;margin-top:1.8em;"
	"border-bottom:1px solid #ccc;padding-bottom:.2em}"
	".meta{color:#666;font-size:.9em}"
	"table{border-collapse:collapse;font-size:.85em;margin:.6em 0;max-width:100%}"
	"th,td{padding:.3em .45em;border-bottom:1px solid #e4e4e4;text-align:right;white-space:nowrap}"
	"th{background:#f4f4f4;white-space:normal}"
	"td.l,th.l{text-align:left;white-space:normal;overflow-wrap:anywhere}"
	"td.good{color:#0a6e31;font-weight:bold}td.bad{color:#b00020;font-weight:bold}"
	".bar{display:inline-block;height:.8em;background:#0072b2;vertical-align:middle}"
	".bar.neg{background:#d55e00}"
	"figure{margin:1.2em 0}figcaption{color:#555;font-size:.9em;margin-top:.3em}"
	".note{background:#f7f7e8;border-left:4px solid #e6c200;padding:.5em .8em}"
	"svg.blkpeak-chart{width:100%;height:auto}";

/* A latency in the unit that keeps it short: "85 µs", "12.3 ms"; a dash
 * when the trace has no I/O that carries data. */
static void put_lat(FILE *f, const struct stats_latency *l, int pct)
{
	uint64_t ns = l->pct[pct];

	if (l->count == 0)
		fputs("–", f);
	else if (ns < 1000000)
		fprintf(f, "%.0f µs", ns / 1e3);
	else if (ns < 1000000000)
		fprintf(f, "%.1f ms", ns / 1e6);
	else
		fprintf(f, "%.2f s", ns / 1e9);
}

static void put_duration(FILE *f, uint64_t ns)
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
	html_str(f, title);
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", css);
	html_str(f, title);
	if (n)
		fprintf(f, "</h1>\n<p class=\"meta\">%zu trace%s and run%s from <code>", n,
			n == 1 ? "" : "s", n == 1 ? "" : "s");
	else
		fputs("</h1>\n<p class=\"meta\">Measurements from <code>", f);
	html_str(f, o->db_path ? o->db_path : "?");
	fprintf(f, "</code>, written %s by blkpeak %s.</p>\n", when, BLKPEAK_VERSION);
	if (o->note) {
		fputs("<p class=\"note\">", f);
		html_str(f, o->note);
		fputs("</p>\n", f);
	}
}

/* An entry's name in the tables: the charts' short label (chart_label.h,
 * through plot_trace_label) with its PARTIAL text, in a cell whose
 * tooltip is the full name (the target spec); the full name alone when
 * the entry is not in the database. */
static void put_entry_label(FILE *f, sqlite3 *db, const struct cmp_entry *e, int with_id)
{
	char label[256];

	fputs("<td class=\"l\" title=\"", f);
	html_str(f, e->label);
	fputs("\">", f);
	if (db && e->trace_id > 0 && !plot_trace_label(db, e->trace_id, label, sizeof(label))) {
		/* "3 raid0 x2 64k": without the id where a column has it */
		html_str(f, with_id || !strchr(label, ' ') ? label : strchr(label, ' ') + 1);
		if (e->rep.partial.partial) {
			fputc(' ', f);
			html_str(f, e->rep.partial.text);
		}
	} else {
		html_str(f, e->label);
	}
	fputs("</td>", f);
}

/* Percentile slots of stats_latency.pct shown in the tables. */
enum { P50 = 0, P99 = 2, P999 = 3 };

static void write_runs_table(FILE *f, sqlite3 *db, const struct cmp *c)
{
	fputs("<h2 id=\"runs\">Traces and runs</h2>\n<table class=\"runs\">\n<tr><th>id</th>"
	      "<th class=\"l\">trace or run</th><th class=\"l\">kind</th><th>I/Os</th><th>MB</th>"
	      "<th>duration</th><th>IOPS</th><th>MB/s</th><th>mean QD</th><th>p50</th><th>p99</th>"
	      "<th>p99.9</th><th>errors</th></tr>\n", f);
	for (int i = 0; i < c->n; i++) {
		const struct st_report *r = &c->e[i].rep;

		fprintf(f, "<tr><td>%lld</td>", (long long)c->e[i].trace_id);
		put_entry_label(f, db, &c->e[i], 0);
		fputs("<td class=\"l\">", f);
		html_str(f, r->kind);
		fprintf(f, "</td><td>%llu</td><td>%.1f</td><td>", (unsigned long long)r->ios,
			r->bytes / 1e6);
		put_duration(f, r->duration_ns);
		fprintf(f, "</td><td>%.0f</td><td>%.1f</td><td>%.2f</td><td>", r->iops, r->mbps,
			r->mean_depth);
		put_lat(f, &r->all_service, P50);
		fputs("</td><td>", f);
		put_lat(f, &r->all_service, P99);
		fputs("</td><td>", f);
		put_lat(f, &r->all_service, P999);
		fprintf(f, "</td><td%s>%llu</td></tr>\n", r->errors ? " class=\"bad\"" : "",
			(unsigned long long)r->errors);
	}
	fputs("</table>\n<p class=\"meta\">Duration is first issue to last completion; mean QD "
	      "the I/Os in flight averaged over it. Latencies are service times (issue to "
	      "completion).</p>\n", f);
}

/* A run's own clock and the kernel's view of it (replay --verify), as
 * `analyze compare` shows them; only when an entry is a run. */
static void write_fidelity(FILE *f, sqlite3 *db, const struct cmp *c)
{
	static const enum rv_field cols[] = { RV_IOS, RV_PRESENT, RV_MISSING, RV_MISPLACED,
					      RV_LOST, RV_ERR_P50, RV_ERR_P99, RV_ERR_MAX, RV_DRIFT };
	static const int late_pct[] = { P50, P99, 5 /* max */ };
	int any = 0;
	char b[64], why[160];

	for (int i = 0; i < c->n; i++)
		any |= c->e[i].rep.is_run || c->e[i].rep.verify.verified;
	if (!any)
		return;
	fputs("<h2 id=\"fidelity\">Fidelity</h2>\n<table class=\"fidelity\">\n<tr><th></th>"
	      "<th colspan=\"3\">the replayer's clock: lateness</th>"
	      "<th colspan=\"10\">the kernel's view (replay --verify)</th></tr>\n"
	      "<tr><th class=\"l\">trace or run</th><th>p50</th><th>p99</th><th>max</th>"
	      "<th>I/Os</th><th>present</th><th>missing</th><th>misplaced</th><th>lost events</th>"
	      "<th>issue error p50</th><th>p99</th><th>max</th><th>drift</th><th>faithful</th></tr>\n",
	      f);
	for (int i = 0; i < c->n; i++) {
		const struct st_report *r = &c->e[i].rep;
		const struct run_verify *v = &r->verify;
		int faithful = run_verify_faithful(v);

		fputs("<tr>", f);
		put_entry_label(f, db, &c->e[i], 1);
		for (unsigned k = 0; k < sizeof(late_pct) / sizeof(late_pct[0]); k++) {
			if (r->lateness.count)
				fmt_ns((double)r->lateness.pct[late_pct[k]], b, sizeof(b));
			else
				snprintf(b, sizeof(b), "–");
			fprintf(f, "<td>%s</td>", b);
		}
		for (unsigned k = 0; k < sizeof(cols) / sizeof(cols[0]); k++) {
			int bad = (cols[k] == RV_MISSING || cols[k] == RV_MISPLACED || cols[k] == RV_LOST) &&
				  faithful == 0 && v->v[cols[k]];

			fprintf(f, "<td%s>", bad ? " class=\"bad\"" : "");
			html_str(f, v->verified ? run_verify_cell(v, cols[k], b, sizeof(b)) : "–");
			fputs("</td>", f);
		}
		if (!v->verified)
			fputs("<td>–</td></tr>\n", f);
		else if (faithful > 0)
			fputs("<td class=\"good\">yes</td></tr>\n", f);
		else if (faithful == 0)
			fprintf(f, "<td class=\"bad l\">no: %s</td></tr>\n",
				run_verify_why(v, why, sizeof(why)));
		else
			fputs("<td>?</td></tr>\n", f);
	}
	fputs("</table>\n<p class=\"meta\">Lateness is the replayer's own measure: its "
	      "submission of each I/O minus the time the schedule meant. The kernel's view comes "
	      "from <code>replay --verify</code>, which records the replay with blkpeak's eBPF "
	      "capture: every I/O present on the right member, offset, size and operation; the "
	      "issue error is the kernel's issue minus the due time. A run with I/Os missing or "
	      "misplaced, or events the capture lost, is not a faithful replay of the trace; "
	      "– marks a run without --verify.</p>\n", f);
}

static void write_comparison(FILE *f, sqlite3 *db, const struct cmp *c)
{
	double maxabs = 1;

	for (int i = 1; i < c->n; i++)
		if (isfinite(c->e[i].time_saved_pct) && fabs(c->e[i].time_saved_pct) > maxabs)
			maxabs = fabs(c->e[i].time_saved_pct);
	char first[256];

	fputs("<h2 id=\"comparison\">Comparison</h2>\n<p>Against the first, <b>", f);
	html_str(f, c->e[0].trace_id > 0 && !plot_trace_label(db, c->e[0].trace_id, first, sizeof(first))
			       ? first : c->e[0].label);
	fputs("</b>: time saved = (T<sub>base</sub> − T) / T<sub>base</sub>; speed-up = "
	      "T<sub>base</sub> / T − 1.", f);
	if (c->forced)
		fputs(" <i>Not all of these replay the same trace.</i>", f);
	fputs("</p>\n<table class=\"comparison\">\n<tr><th class=\"l\">trace or run</th>"
	      "<th>duration</th><th>time saved</th><th class=\"l\"></th><th>speed-up</th>"
	      "<th>IOPS</th><th>p99</th></tr>\n", f);
	for (int i = 0; i < c->n; i++) {
		const struct cmp_entry *e = &c->e[i];
		double saved = e->time_saved_pct;

		fputs("<tr>", f);
		put_entry_label(f, db, e, 1);
		fputs("<td>", f);
		put_duration(f, e->rep.duration_ns);
		if (i == 0)
			fputs("</td><td>baseline</td><td class=\"l\"></td><td></td>", f);
		else if (c->e[0].is_run && !e->is_run)
			/* a recording next to replays: its time is not the same kind of thing */
			fputs("</td><td>the recording</td><td class=\"l\"></td><td></td>", f);
		else if (!isfinite(saved))
			fputs("</td><td>–</td><td class=\"l\"></td><td>–</td>", f);
		else
			fprintf(f, "</td><td class=\"%s\">%+.1f %%</td><td class=\"l\">"
				   "<span class=\"bar%s\" style=\"width:%.0fpx\"></span></td><td>%+.1f %%</td>",
				saved >= 0 ? "good" : "bad", saved, saved < 0 ? " neg" : "",
				fabs(saved) / maxabs * 160, isfinite(e->speedup_pct) ? e->speedup_pct : 0);
		fprintf(f, "<td>%.0f</td><td>", e->rep.iops);
		put_lat(f, &e->rep.all_service, P99);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static int write_charts(sqlite3 *db, const int64_t *ids, size_t n, FILE *f,
			struct progress *cmd_prog)
{
	struct progress own, *prog = cmd_prog ? cmd_prog : &own;
	double ran0;

	/* on a terminal, from 2 s on: which chart of how many, the time left */
	if (!cmd_prog) {
		progress_init(&own, "html", "charts", 1);
		own.delay_ns = PROGRESS_DELAY_NS;
	}
	ran0 = progress_elapsed(prog); /* reading files and the tables came first */
	fputs("<h2 id=\"charts\">Charts</h2>\n", f);
	for (int k = 0; k < PLOT_KIND_COUNT; k++) {
		char line[160], eta[40];
		double ran = progress_elapsed(prog), charts = ran - ran0;
		int rc;

		if (k)
			progress_eta(charts / k * (PLOT_KIND_COUNT - k), eta, sizeof(eta));
		else
			snprintf(eta, sizeof(eta), "ETA after the first");
		snprintf(line, sizeof(line), "html: chart %d of %d (%s), %.0f s so far, %s", k + 1,
			 PLOT_KIND_COUNT, plot_kind_name(k), ran, eta);
		progress_text(prog, line);
		fprintf(f, "<figure id=\"chart-%s\">\n", plot_kind_name(k));
		snprintf(prog->what, sizeof(prog->what), "html: chart %d of %d", k + 1, PLOT_KIND_COUNT);
		rc = plot_write_progress(db, (enum plot_kind)k, ids, n, 0, f, prog);
		if (rc == -ENODATA && k == PLOT_MEMBERS)
			fputs("<p>No run here replays onto a virtual array: no I/Os per member.</p>\n", f);
		else if (rc == -ENODATA)
			fprintf(f, "<p>No I/O to show in the %s chart.</p>\n", plot_kind_name(k));
		else if (rc) {
			progress_end(prog);
			return rc;
		}
		if (!rc || k != PLOT_MEMBERS)
			fprintf(f, "<figcaption>%s</figcaption>\n", plot_kind_caption(k));
		fputs("</figure>\n", f);
	}
	progress_end(prog);
	return 0;
}

/* The figures of one trace as a one-entry comparison, so that one code
 * path prints the table for one id and for several. */
static int single_entry(sqlite3 *db, int64_t id, const struct files_filter *files, struct cmp *c,
			struct bpt_error *err)
{
	char label[sizeof(c->e[0].label)];
	int rc;

	memset(c, 0, sizeof(*c));
	if (!(c->e = calloc(1, sizeof(*c->e))))
		return -ENOMEM;
	c->n = 1;
	c->e[0].trace_id = id;
	c->files = files;
	rc = st_report_compute_files(db, id, files, &c->e[0].rep, err);
	if (!rc)
		rc = run_partial_load(db, id, &c->e[0].rep.partial, err);
	if (!rc && !plot_trace_label(db, id, label, sizeof(label)))
		snprintf(c->e[0].label, sizeof(c->e[0].label), "%s",
			 strchr(label, ' ') ? strchr(label, ' ') + 1 : label);
	if (!rc && c->e[0].rep.partial.partial) {
		size_t l = strlen(c->e[0].label);

		snprintf(c->e[0].label + l, sizeof(c->e[0].label) - l, " %s",
			 c->e[0].rep.partial.text);
	}
	return rc;
}

/* "all" or "1,2,3" into ids (malloc'ed; *n 0 for all). -EINVAL with err. */
static int parse_measurement_list(const char *s, int64_t **ids, size_t *n, struct bpt_error *err)
{
	char buf[1024], *save = NULL, *tok;

	*ids = NULL;
	*n = 0;
	if (!strcmp(s, "all"))
		return 0;
	if (strlen(s) >= sizeof(buf) || !(*ids = calloc(strlen(s) / 2 + 1, sizeof(**ids))))
		return bpt_error_set(err, -EINVAL, "--measurements: too long");
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;

		if (parse_u64(tok, &v) || !v || v > INT64_MAX) {
			free(*ids);
			*ids = NULL;
			return bpt_error_set(err, -EINVAL, "--measurements: '%s': not a measurement id",
					     tok);
		}
		(*ids)[(*n)++] = (int64_t)v;
	}
	if (!*n) {
		free(*ids);
		*ids = NULL;
		return bpt_error_set(err, -EINVAL, "--measurements: '%s': no id", s);
	}
	return 0;
}

/* The Measurements section: per kind a table against the first of that
 * kind and its charts (measure_view.h). */
static int write_measurements(sqlite3 *db, const char *list, FILE *f, struct bpt_error *err)
{
	static const char *const kinds[] = { "qd-sweep", "zcav", "seeks", "commit", "knee" };
	struct mview all = { 0 };
	int64_t *ids;
	size_t n;
	int rc;

	if ((rc = parse_measurement_list(list, &ids, &n, err)))
		return rc;
	rc = mview_load(db, ids, n, &all, err);
	free(ids);
	if (rc)
		return rc;
	fputs("<h2 id=\"measurements\">Measurements</h2>\n", f);
	if (!all.n)
		fputs("<p>No measurement in the database (blkpeak measure --db).</p>\n", f);
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]) && !rc; k++) {
		struct mview one = { 0 };

		if (!(one.m = calloc(all.n ? all.n : 1, sizeof(*one.m)))) {
			rc = -ENOMEM;
			break;
		}
		for (size_t i = 0; i < all.n; i++)
			if (!strcmp(all.m[i].kind, kinds[k]))
				one.m[one.n++] = all.m[i]; /* shallow: all owns the points */
		if (one.n) {
			fprintf(f, "<h3 id=\"measure-%s\">%s</h3>\n", kinds[k], kinds[k]);
			mview_print_html(f, &one);
			for (int c = 0; c < MVIEW_CHART_COUNT && !rc; c++) {
				if (strcmp(mview_chart_kind((enum mview_chart)c), kinds[k]))
					continue;
				fprintf(f, "<figure id=\"chart-%s\">\n", mview_chart_name((enum mview_chart)c));
				rc = mview_chart_write(f, &one, (enum mview_chart)c, 0, err);
				if (rc == -ENODATA) {
					fputs("<p>No step to show.</p>\n", f);
					rc = 0;
				}
				fputs("</figure>\n", f);
			}
		}
		free(one.m);
	}
	mview_free(&all);
	return rc;
}

/* The charts under --files: plot.c reads the rows through the view `ios`;
 * a temporary view of that name, which SQLite finds before the
 * database's, keeps only the I/Os the reports kept (one bitmap per trace,
 * st_keep_trace), through the SQL function blkpeak_kept(). */
struct kept {
	const int64_t *ids;
	struct st_keep *k;
	size_t n;
};

static void kept_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const struct kept *kp = sqlite3_user_data(ctx);
	int64_t id = sqlite3_value_int64(argv[0]);

	(void)argc;
	for (size_t i = 0; i < kp->n; i++)
		if (kp->ids[i] == id) {
			sqlite3_result_int(ctx, st_keep_has(&kp->k[i],
							    (uint64_t)sqlite3_value_int64(argv[1]),
							    (uint64_t)sqlite3_value_int64(argv[2])));
			return;
		}
	sqlite3_result_int(ctx, 0);
}

static int charts_of_files(sqlite3 *db, const int64_t *ids, size_t n, FILE *f,
			   const struct html_options *o, struct bpt_error *err)
{
	struct kept kp = { ids, calloc(n, sizeof(*kp.k)), n };
	int rc = 0;

	if (!kp.k)
		return -ENOMEM;
	for (size_t i = 0; i < n && !rc; i++)
		rc = st_keep_trace(db, ids[i], o->files, &kp.k[i], err);
	if (!rc && (sqlite3_create_function(db, "blkpeak_kept", 3, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
					    &kp, kept_fn, NULL, NULL) != SQLITE_OK ||
		    sqlite3_exec(db, "CREATE TEMP VIEW ios AS SELECT * FROM main.ios"
				 " WHERE blkpeak_kept(trace_id, idx, source_index)", NULL, NULL,
				 NULL) != SQLITE_OK))
		rc = adb_fail(db, err, "cannot narrow the charts to the files");
	if (!rc)
		rc = write_charts(db, ids, n, f, o->progress);
	sqlite3_exec(db, "DROP VIEW IF EXISTS temp.ios", NULL, NULL, NULL);
	sqlite3_create_function(db, "blkpeak_kept", 3, SQLITE_UTF8, NULL, NULL, NULL, NULL);
	for (size_t i = 0; i < n; i++)
		free(kp.k[i].bits);
	free(kp.k);
	return rc;
}

/* The comparison of ids, of every I/O or of files' only. */
static int compute_ids(sqlite3 *db, const int64_t *ids, size_t n, const struct files_filter *files,
		       struct cmp *c, struct bpt_error *err)
{
	struct cmp_arg *a = calloc(n, sizeof(*a));
	int rc;

	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		a[i].id = ids[i];
	rc = cmp_compute_args(db, a, (int)n, CMP_FORCE | CMP_ALLOW_PARTIAL, files, c, err);
	free(a);
	return rc;
}

/* The Leaderboard section: a suite's configurations ranked (leaderboard.h). */
static int write_leaderboard(sqlite3 *db, const struct html_options *o, FILE *f,
			     struct bpt_error *err)
{
	struct leaderboard lb;
	char digest[17], others[256];
	int rc = lb_resolve(db, o->leaderboard, digest, others, sizeof(others), err);

	if (rc || (rc = lb_load(db, digest, o->baseline, &lb, err)))
		return rc;
	rc = lb_print_html(f, &lb, err);
	lb_free(&lb);
	return rc;
}

int html_write(sqlite3 *db, const int64_t *ids, size_t n, const struct html_options *o, FILE *f,
	       struct bpt_error *err)
{
	struct cmp c = { 0 };
	int rc = 0;

	if (n == 0 && !o->measurements && !o->leaderboard)
		return -EINVAL;
	if (n)
		rc = n == 1 ? single_entry(db, ids[0], o->files, &c, err)
			    : compute_ids(db, ids, n, o->files, &c, err);
	if (rc)
		goto out;
	write_header(f, o, n);
	if (n >= 2) { /* who won, by how much, how sure: compare's first line */
		char head[4 * 2 * sizeof(c.e[0].label) + 256];

		fputs("<p class=\"headline\"><strong>", f);
		html_str(f, cmp_headline(&c, head, sizeof(head)));
		fputs("</strong></p>\n", f);
	}
	if (n && o->files) {
		fputs("<p class=\"note\">Only the I/Os of files matching ", f);
		for (int i = 0; i < o->files->n; i++) {
			fputs(i ? " or <code>" : "<code>", f);
			html_str(f, o->files->pattern[i]);
			fputs("</code>", f);
		}
		fputs(": the tables, the Files section and the charts cover only those I/Os of"
		      " each trace (a run's by the files of the trace it replayed).</p>\n", f);
	}
	if (n) {
		write_runs_table(f, db, &c);
		write_fidelity(f, db, &c);
		if (n >= 2)
			write_comparison(f, db, &c);
		html_files_section(f, &c);
		rc = o->files ? charts_of_files(db, ids, n, f, o, err)
			      : write_charts(db, ids, n, f, o->progress);
	}
	if (!rc && o->leaderboard)
		rc = write_leaderboard(db, o, f, err);
	if (!rc && o->measurements)
		rc = write_measurements(db, o->measurements, f, err);
	if (rc)
		goto out;
	fputs("<p class=\"meta\">Made with blkpeak: <code>blkpeak analyze html</code>. "
	      "Charts are drawn by blkpeak itself (no script, no network).</p>\n</body>\n</html>\n", f);
	if (ferror(f))
		rc = -EIO;
out:
	cmp_free(&c);
	return rc;
}
