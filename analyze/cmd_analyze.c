/*
 * cmd_analyze.c — `blkpeak analyze SUBCOMMAND`: the dispatcher one level
 * down (bpftool style). Each subcommand lives in its own cmd_*.c.
 */
#include <stdio.h>
#include <string.h>

#include "cliutil.h"
#include "commands.h"
#include "analyze_commands.h"

struct analyze_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct analyze_command analyze_commands[] = {
	{ "import", analyze_import, "load traces and runs into the database" },
	{ "report", analyze_report, "summary of one trace or run" },
	{ "compare", analyze_compare, "runs of the same trace side by side" },
	{ "query", analyze_query, "run read-only SQL on the database" },
	{ "export", analyze_export, "write a trace's I/Os as CSV or JSON" },
	{ "plot", analyze_plot, "draw a chart as SVG" },
	{ "html", analyze_html, "write a self-contained HTML report" },
};

static void analyze_usage(FILE *f)
{
	fprintf(f, "usage: blkpeak analyze COMMAND [ARGS]\n\n"
		   "The database is --db PATH, else $BLKPEAK_DB, else ./blkpeak.db.\n\n"
		   "commands:\n");
	for (size_t i = 0; i < sizeof(analyze_commands) / sizeof(analyze_commands[0]); i++)
		fprintf(f, "  %-8s %s\n", analyze_commands[i].name, analyze_commands[i].summary);
}

int cmd_analyze(int argc, char **argv)
{
	if (argc < 2) {
		analyze_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		analyze_usage(stdout);
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(analyze_commands) / sizeof(analyze_commands[0]); i++)
		if (!strcmp(argv[1], analyze_commands[i].name))
			return analyze_commands[i].fn(argc - 1, argv + 1);
	pr_err("analyze: '%s' is not an analyze command; see 'blkpeak analyze --help'", argv[1]);
	return EXIT_USAGE;
}
