/*
 * cmd_plot.c — `blkpeak analyze plot ID... --kind KIND -o FILE.svg`: one
 * chart of traces and runs from the analysis database, as an SVG file
 * drawn by blkpeak itself (plot.c, svg.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_commands.h"
#include "cliutil.h"
#include "drawcmd.h"
#include "measure_view.h"
#include "plot.h"
#include "progress.h"

static void plot_usage(FILE *f)
{
	fprintf(f,
		"usage: blkpeak analyze plot ID...|FILE... --kind KIND [-o FILE.svg] [--db PATH]\n"
		"\n"
		"Draw one chart of the traces and runs ID... (traces.id, as listed by\n"
		"`blkpeak analyze report`), or of trace and run files (read as analyze\n"
		"import would, into a temporary database), overlaid in distinct colours\n"
		"and dash patterns.\n"
		"\n"
		"  -k, --kind KIND    latency-cdf  service latency CDF, one line per ID\n"
		"                     iops         I/Os completed per second over time\n"
		"                     lba          offset over time (access map)\n"
		"                     qd           I/Os in flight over time\n"
		"                     sizes        request-size histogram\n"
		"                     mbps         MB completed per second over time\n"
		"                     latency-time service latency of the I/Os over time\n"
		"                     seeks-time   seeks per second over time\n"
		"                     members      I/Os per member of a virtual array\n"
		"                     btt          mean queue wait (Q->D) and service\n"
		"                                  (D->C) per ID, as btt breaks them down\n"
		"                     btt-procs    the same per process (the busiest 8)\n"
		"                   of measurements (blkpeak measure): the IDs are\n"
		"                   measurements.id, all of the kind the chart draws:\n"
		"                     qd-iops      qd-sweep: IOPS against queue depth\n"
		"                     qd-p99       qd-sweep: p99 latency against depth\n"
		"                     zcav         zcav: MB/s against the zone's offset\n"
		"                     seeks        seeks: seeks/s against span\n"
		"                     commit       commit: commits/s per target\n"
		"                     knee-latency knee (measure knee): the target's\n"
		"                                  latency figure against the speed\n"
		"                                  factor, the target's line, the knee\n"
		"                     knee-iops    knee: IOPS against the speed factor\n"
		"  -o, --output FILE  write the SVG here (default: standard output)\n"
		"      --db PATH      the database (default $BLKPEAK_DB, else ./blkpeak.db)\n"
		"  -h, --help         this text\n");
}

/* A chart of measurements (measure_view.h): the IDs are measurements. */
static int plot_measurements(enum mview_chart mc, const char *dbopt, const char *out,
			     char **args, int nargs)
{
	struct bpt_error err = { 0 };
	struct mview v = { 0 };
	struct drawcmd d;
	int rc = drawcmd_begin(&d, "plot", dbopt, out, args, nargs, 1);

	if (rc)
		return rc;
	rc = mview_load(d.db, d.ids, d.n, &v, &err);
	if (!rc)
		rc = mview_chart_write(d.out.f, &v, mc, 1, &err);
	if (rc == -ENODATA)
		pr_err("analyze plot: %s: the measurements have no step to draw", d.db_path);
	else if (rc)
		pr_err("analyze plot: %s", err.msg);
	mview_free(&v);
	return drawcmd_end(&d, rc);
}

int analyze_plot(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "kind", required_argument, NULL, 'k' },
		{ "output", required_argument, NULL, 'o' },
		{ "db", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *out = "-", *dbopt = NULL, *kind_s = NULL;
	enum plot_kind kind;
	struct drawcmd d;
	int c, rc;
	struct opt_loop ol = { .cmd = "analyze plot", .usage = plot_usage };

	while ((c = opt_next(&ol, argc, argv, ":k:o:h", opts)) != -1) {
		switch (c) {
		case 'k': kind_s = optarg; break;
		case 'o': out = optarg; break;
		case 'D': dbopt = optarg; break;
		}
	}
	if (ol.ret >= 0)
		return ol.ret;
	if (!kind_s) {
		pr_err("analyze plot: --kind is required (latency-cdf, iops, lba, qd, sizes, mbps, "
		       "latency-time, seeks-time, members, btt or btt-procs; see --help)");
		return EXIT_USAGE;
	}
	if (plot_kind_parse(kind_s, &kind)) {
		enum mview_chart mc;

		if (!mview_chart_parse(kind_s, &mc))
			return plot_measurements(mc, dbopt, out, argv + optind, argc - optind);
		pr_err("analyze plot: --kind: '%s': not latency-cdf, iops, lba, qd, sizes, mbps,"
		       " latency-time, seeks-time, members, btt, btt-procs, qd-iops, qd-p99, zcav,"
		       " seeks, commit, knee-latency or knee-iops", kind_s);
		return EXIT_USAGE;
	}
	rc = drawcmd_begin(&d, "plot", dbopt, out, argv + optind, argc - optind, 1);
	if (rc)
		return rc;
	snprintf(d.prog.what, sizeof(d.prog.what), "plot");
	rc = plot_write_progress(d.db, kind, d.ids, d.n, 1, d.out.f, &d.prog);
	if (rc == -ENOENT)
		pr_err("analyze plot: %s: a trace id is not in the database", d.db_path);
	else if (rc == -ENODATA)
		pr_err("analyze plot: %s: the traces have no I/O a %s chart can show", d.db_path, kind_s);
	else if (rc)
		pr_err("analyze plot: %s: %s", d.db_path,
		       rc == -EIO ? sqlite3_errmsg(d.db) : strerror(-rc));
	return drawcmd_end(&d, rc);
}
