/*
 * dispatch.h — a table of subcommands and the one loop that runs them,
 * used by `blkpeak` (cli/main.c) and `blkpeak analyze`
 * (analyze/cmd_analyze.c).
 */
#ifndef BLKPEAK_DISPATCH_H
#define BLKPEAK_DISPATCH_H

#include <stddef.h>
#include <stdio.h>

struct command {
	const char *name;
	int (*fn)(int argc, char **argv); /* called with argv[0] == name */
	const char *summary;		   /* one line for the usage */
};

struct command_table {
	const char *prog;	  /* "blkpeak", "blkpeak analyze" */
	const char *what;	  /* in the unknown-command error: "a blkpeak command" */
	const char *intro;	  /* the usage above the list of commands */
	const char *outro;	  /* below it, or NULL */
	int name_width;		  /* column width of the names in the list */
	const struct command *cmds;
	size_t n;
};

/* The usage: intro, "commands:", one line per command, outro. */
void command_usage(const struct command_table *t, FILE *f);

/*
 * Run argv[1] of t with argv + 1. No argument: the usage on stderr,
 * EXIT_USAGE. "--help", "-h" or "help": the usage on stdout, EXIT_OK.
 * An unknown name: one error line naming it, EXIT_USAGE. Else the
 * command's own exit code.
 */
int command_dispatch(const struct command_table *t, int argc, char **argv);

#endif
