/*
 * dispatch.c — the subcommand loop (dispatch.h).
 */
#include <string.h>

#include "cliutil.h"
#include "dispatch.h"

void command_usage(const struct command_table *t, FILE *f)
{
	fputs(t->intro, f);
	fputs("commands:\n", f);
	for (size_t i = 0; i < t->n; i++)
		fprintf(f, "  %-*s %s\n", t->name_width, t->cmds[i].name, t->cmds[i].summary);
	if (t->outro)
		fputs(t->outro, f);
}

int command_dispatch(const struct command_table *t, int argc, char **argv)
{
	/* "blkpeak: analyze: 'x' is not ...": a command's errors name it */
	const char *sub = strchr(t->prog, ' ');

	if (argc < 2) {
		command_usage(t, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		command_usage(t, stdout);
		return EXIT_OK;
	}
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(argv[1], t->cmds[i].name))
			return t->cmds[i].fn(argc - 1, argv + 1);
	pr_err("%s%s'%s' is not %s; see '%s --help'", sub ? sub + 1 : "", sub ? ": " : "",
	       argv[1], t->what, t->prog);
	return EXIT_USAGE;
}
