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
#include "db.h"
#include "idargs.h"
#include "outfile.h"
#include "plot.h"

static void plot_usage(FILE *f)
{
	fprintf(f,
		"usage: blkpeak analyze plot [--db PATH] --kind KIND [-o FILE.svg] ID...\n"
		"\n"
		"Draw one chart of the traces and runs ID... (traces.id, as listed by\n"
		"`blkpeak analyze report`), overlaid in distinct colours.\n"
		"\n"
		"  -k, --kind KIND    latency-cdf  service latency CDF, one line per ID\n"
		"                     iops         I/Os completed per second over time\n"
		"                     lba          offset over time (access map)\n"
		"                     qd           I/Os in flight over time\n"
		"                     sizes        request-size histogram\n"
		"  -o, --output FILE  write the SVG here (default: standard output)\n"
		"      --db PATH      the database (default $BLKPEAK_DB, else ./blkpeak.db)\n"
		"  -h, --help         this help\n");
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
	const char *out = "-", *dbopt = NULL, *kind_s = NULL, *path;
	enum plot_kind kind;
	struct outfile of;
	struct bpt_error err = { 0 };
	int64_t *ids = NULL;
	sqlite3 *db = NULL;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "k:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'k': kind_s = optarg; break;
		case 'o': out = optarg; break;
		case 'D': dbopt = optarg; break;
		case 'h': plot_usage(stdout); return EXIT_OK;
		default: plot_usage(stderr); return EXIT_USAGE;
		}
	}
	if (!kind_s) {
		pr_err("analyze plot: --kind is required (latency-cdf, iops, lba, qd or sizes)");
		return EXIT_USAGE;
	}
	if (plot_kind_parse(kind_s, &kind)) {
		pr_err("analyze plot: --kind: '%s': not latency-cdf, iops, lba, qd or sizes", kind_s);
		return EXIT_USAGE;
	}
	if (optind >= argc) {
		pr_err("analyze plot: no trace id given; see --help");
		return EXIT_USAGE;
	}
	if (parse_trace_ids("plot", argv + optind, argc - optind, &ids))
		return EXIT_USAGE;

	path = adb_default_path(dbopt);
	rc = adb_open(&db, path, ADB_READONLY, &err);
	if (rc) {
		pr_err("analyze plot: %s", err.msg);
		free(ids);
		return EXIT_FAIL;
	}
	rc = outfile_open(&of, out);
	if (rc) {
		pr_err("analyze plot: %s: %s", out, strerror(-rc));
		goto done;
	}
	rc = plot_write(db, kind, ids, (size_t)(argc - optind), 1, of.f);
	if (rc == -ENOENT)
		pr_err("analyze plot: %s: a trace id is not in the database", path);
	else if (rc == -ENODATA)
		pr_err("analyze plot: %s: the traces have no I/O a %s chart can show", path, kind_s);
	else if (rc)
		pr_err("analyze plot: %s: %s", path, rc == -EIO ? sqlite3_errmsg(db) : strerror(-rc));
	c = outfile_close(&of, rc);
	if (c && !rc) {
		pr_err("analyze plot: %s: cannot write: %s", out, strerror(-c));
		rc = c;
	}
done:
	sqlite3_close(db);
	free(ids);
	return rc ? EXIT_FAIL : EXIT_OK;
}
