/*
 * main.c — the `blkpeak` dispatcher: the table of subcommands (run by
 * common/dispatch.c) and --version. Each subcommand returns its exit
 * code; this is the one place that turns it into the process's status.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cliutil.h"
#include "commands.h"
#include "dispatch.h"
#include "sigunlink.h"
#include "bpt.h"
#include "version.h"

static const struct command commands[] = {
	{ "capture", cmd_capture, "record the block I/O of this machine with eBPF" },
	{ "replay", cmd_replay, "replay a trace on a device, file or virtual array" },
	{ "analyze", cmd_analyze, "import, report, compare, query and chart traces" },
	{ "measure", cmd_measure, "QD sweep and score, ZCAV, seeks by span, commit rate" },
	{ "suite", cmd_suite, "run a benchmark suite on a configuration, resumably" },
	{ "info", cmd_info, "show a trace file's header, devices and totals" },
	{ "dump", cmd_dump, "print a trace's I/Os as text, CSV or JSON" },
	{ "generate", cmd_generate, "write a synthetic trace" },
	{ "convert", cmd_convert, "convert blktrace, fio, MSR and other traces to .bpt and back" },
};

static const struct command_table table = {
	.prog = "blkpeak",
	.what = "a blkpeak command",
	.intro = "usage: blkpeak [--version] [--help] COMMAND [ARGS]\n\n"
		 "Record block I/O with eBPF, replay it elsewhere, compare the results.\n\n",
	.outro = "\n'blkpeak COMMAND --help' shows a command's options.\n",
	.name_width = 10,
	.cmds = commands,
	.n = sizeof(commands) / sizeof(commands[0]),
};

/* A command's text lost on the way out (`blkpeak info t.bpt > /dev/full`,
 * a full disk, a closed pipe's EIO) fails the command, as coreutils' do:
 * exit 0 must mean the output is there. */
static int stdout_checked(int rc)
{
	if (rc)
		return rc; /* failed already, and said why (maybe this) */
	/* errno only when this flush failed: an earlier failed write left
	 * just the error flag, and its errno is long gone */
	errno = 0;
	if (fflush(stdout) || ferror(stdout)) {
		int err = errno;

		fprintf(stderr, "blkpeak: standard output: %s\n", err ? strerror(err) : "write error");
		return EXIT_FAIL;
	}
	return rc;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))) {
		printf("blkpeak %s (trace format %d.%d)\n", BLKPEAK_VERSION,
		       BPT_FORMAT_MAJOR, BPT_FORMAT_MINOR);
		return stdout_checked(EXIT_OK);
	}
	bpt_reader_set_foreign_opener(formats_reader_open);
	/* Ctrl-C leaves no half-written output behind (common/outfile.h) */
	sigunlink_catch_signals();
	return stdout_checked(command_dispatch(&table, argc, argv));
}
