/*
 * cmd_html.c — `blkpeak analyze html ID... -o report.html`: the
 * self-contained HTML report (html.c) on traces and runs of the database.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_commands.h"
#include "cliutil.h"
#include "drawcmd.h"
#include "files_filter.h"
#include "html.h"

static void html_usage(FILE *f)
{
	fprintf(f,
		"usage: blkpeak analyze html [ID...|FILE...] -o FILE [--measurements LIST] [--title TEXT]\n"
		"                            [--leaderboard SUITE [--baseline LABEL]] [--note TEXT]\n"
		"                            [--files PATTERN]... [--db PATH]\n"
		"\n"
		"Write one self-contained HTML file (inline CSS and SVG, no script, no\n"
		"network) on the traces and runs ID... (or trace and run files, read as\n"
		"analyze import would, into a temporary database): a table of each, the\n"
		"runs' fidelity (lateness, the figures of replay's verify option), a\n"
		"comparison against the first (time saved in %%), and the charts of\n"
		"analyze plot (latency CDF and over time, IOPS, MB/s, seeks, access map,\n"
		"queue depth, sizes, array members, btt's queue wait and service).\n"
		"\n"
		"  -o, --output FILE  write the report here (\"-\" for standard output)\n"
		"      --measurements LIST  add a Measurements section (blkpeak measure):\n"
		"                     measurements.id,... or all; per kind a table against\n"
		"                     the first and its charts (IOPS and p99 against depth,\n"
		"                     MB/s against zone, seeks against span, commits);\n"
		"                     with it the trace IDs may be left out\n"
		"      --leaderboard SUITE  add a Leaderboard section (analyze leaderboard):\n"
		"                     a suite's folder, digest or name; the ranking and\n"
		"                     one bar chart per workload; the trace IDs may be\n"
		"                     left out\n"
		"      --baseline LABEL  the leaderboard's baseline (default: the one run first)\n"
		"      --title TEXT   the report's title (default \"blkpeak report\")\n"
		"      --note TEXT    a paragraph under the title (how the runs were made)\n"
		"      --files PATTERN  the tables, the Files section and the charts cover only\n"
		"                     the I/Os of files whose recorded path matches the glob,\n"
		"                     or of a class (:journal, ...), as analyze report --files;\n"
		"                     again for more\n"
		"      --db PATH      the database (default $BLKPEAK_DB, else ./blkpeak.db)\n"
		"  -h, --help         this text\n");
}

int analyze_html(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "title", required_argument, NULL, 'T' },
		{ "measurements", required_argument, NULL, 'M' },
		{ "leaderboard", required_argument, NULL, 'L' },
		{ "baseline", required_argument, NULL, 'B' },
		{ "note", required_argument, NULL, 'N' },
		{ "db", required_argument, NULL, 'D' },
		{ "files", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct html_options ho = { 0 };
	struct files_filter ff = { 0 };
	const char *out = NULL, *dbopt = NULL;
	struct bpt_error err = { 0 };
	struct drawcmd d;
	int c, rc;
	struct opt_loop ol = { .cmd = "analyze html", .usage = html_usage };

	while ((c = opt_next(&ol, argc, argv, ":o:h", opts)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'T': ho.title = optarg; break;
		case 'M': ho.measurements = optarg; break;
		case 'L': ho.leaderboard = optarg; break;
		case 'B': ho.baseline = optarg; break;
		case 'N': ho.note = optarg; break;
		case 'D': dbopt = optarg; break;
		case 'F':
			if (files_filter_add(&ff, optarg, &err)) {
				pr_err("analyze html: %s", err.msg);
				return EXIT_USAGE;
			}
			ho.files = &ff;
			break;
		}
	}
	if (ol.ret >= 0)
		return ol.ret;
	if (ho.baseline && !ho.leaderboard) {
		pr_err("analyze html: --baseline: only with --leaderboard");
		return EXIT_USAGE;
	}
	if (!out) {
		pr_err("analyze html: -o FILE is required (\"-\" for standard output)");
		return EXIT_USAGE;
	}
	rc = drawcmd_begin(&d, "html", dbopt, out, argv + optind, argc - optind,
			   ho.measurements || ho.leaderboard ? 0 : 1);
	if (rc)
		return rc;
	ho.db_path = d.db_path;
	ho.progress = &d.prog;
	rc = html_write(d.db, d.ids, d.n, &ho, d.out.f, &err);
	if (rc && err.msg[0])
		pr_err("analyze html: %s", err.msg);
	else if (rc == -ENOENT)
		pr_err("analyze html: %s: a trace id is not in the database", d.db_path);
	else if (rc)
		pr_err("analyze html: %s: %s", d.db_path,
		       rc == -EIO ? sqlite3_errmsg(d.db) : strerror(-rc));
	return drawcmd_end(&d, rc);
}
