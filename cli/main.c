/*
 * main.c — the `blkpeak` dispatcher: one table of subcommands, --help and
 * --version. Each subcommand returns its exit code; this is the one place
 * that turns it into the process's status.
 */
#include <stdio.h>
#include <string.h>

#include "cliutil.h"
#include "commands.h"
#include "bpt.h"
#include "version.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "capture", cmd_capture, "record the block I/O of this machine with eBPF" },
	{ "replay", cmd_replay, "replay a trace on a device, file or virtual array" },
	{ "analyze", cmd_analyze, "import, report, compare, query and chart traces" },
	{ "info", cmd_info, "show a trace file's header, devices and totals" },
	{ "dump", cmd_dump, "print a trace's I/Os as text, CSV or JSON" },
	{ "generate", cmd_generate, "write a synthetic trace" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: blkpeak [--version] [--help] COMMAND [ARGS]\n\n"
		   "Record block I/O with eBPF, replay it elsewhere, compare the results.\n\n"
		   "commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'blkpeak COMMAND --help' shows a command's options.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("blkpeak %s (trace format %d.%d)\n", BLKPEAK_VERSION,
		       BPT_FORMAT_MAJOR, BPT_FORMAT_MINOR);
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	pr_err("'%s' is not a blkpeak command; see 'blkpeak --help'", argv[1]);
	return EXIT_USAGE;
}
