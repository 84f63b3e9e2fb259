/*
 * cmd_suite.c — `blkpeak suite SUBCOMMAND`: the dispatcher one level
 * down, run by common/dispatch.c. Each subcommand lives in its own
 * cmd_*.c.
 */
#include <stdio.h>

#include "commands.h"
#include "dispatch.h"
#include "suite_commands.h"

static const struct command suite_commands[] = {
	{ "init", suite_init, "write a manifest for the recordings in a folder" },
	{ "record", suite_record, "record workload recipes (workloads/) into a suite folder" },
	{ "run", suite_run, "run a suite on one configuration, resumably; results to the store" },
	{ "digest", suite_digest, "print a suite's version (digest) and name" },
};

static const struct command_table table = {
	.prog = "blkpeak suite",
	.what = "a suite command",
	.intro = "usage: blkpeak suite COMMAND [ARGS]\n\n"
		 "A suite is a folder of recordings and a manifest (suite.ini,\n"
		 "schemas/suite-manifest.md), run on every configuration a reviewer tests;\n"
		 "'blkpeak analyze leaderboard' ranks the configurations.\n\n",
	.outro = "\n  -h, --help  this text\n\n'blkpeak suite COMMAND --help' shows a command's options.\n",
	.name_width = 7,
	.cmds = suite_commands,
	.n = sizeof(suite_commands) / sizeof(suite_commands[0]),
};

int cmd_suite(int argc, char **argv)
{
	return command_dispatch(&table, argc, argv);
}
