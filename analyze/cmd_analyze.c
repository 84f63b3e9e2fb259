/*
 * cmd_analyze.c — `blkpeak analyze SUBCOMMAND`: the dispatcher one level
 * down (bpftool style), run by common/dispatch.c. Each subcommand lives
 * in its own cmd_*.c.
 */
#include <stdio.h>
#include <string.h>

#include "cliutil.h"
#include "commands.h"
#include "dispatch.h"
#include "analyze_commands.h"

static const struct command analyze_commands[] = {
	{ "import", analyze_import, "load traces and runs into the database" },
	{ "report", analyze_report, "summary of one trace or run" },
	{ "compare", analyze_compare, "runs of the same trace side by side" },
	{ "query", analyze_query, "run read-only SQL on the database" },
	{ "export", analyze_export, "write a trace's I/Os as CSV or JSON" },
	{ "plot", analyze_plot, "draw a chart as SVG" },
	{ "html", analyze_html, "write a self-contained HTML report" },
	{ "label", analyze_label, "name a trace, run or measurement for tables and charts" },
	{ "merge", analyze_merge, "copy other machines' databases into this one" },
	{ "leaderboard", analyze_leaderboard, "rank the configurations a suite ran on" },
};

static const struct command_table table = {
	.prog = "blkpeak analyze",
	.what = "an analyze command",
	.intro = "usage: blkpeak analyze COMMAND [ARGS]\n\n"
		 "The database is --db PATH, else $BLKPEAK_DB, else ./blkpeak.db; a\n"
		 "postgresql://... URI or libpq key=value string is a PostgreSQL store.\n\n",
	.name_width = 11,
	.cmds = analyze_commands,
	.n = sizeof(analyze_commands) / sizeof(analyze_commands[0]),
};

int cmd_analyze(int argc, char **argv)
{
	return command_dispatch(&table, argc, argv);
}
