/*
 * gen_options.h — the command line of `blkpeak generate`, parsed into the
 * model's parameters (gen_model.h) plus what only the file needs. Kept
 * apart from the command so it can be tested without writing files.
 */
#ifndef BLKPEAK_GEN_OPTIONS_H
#define BLKPEAK_GEN_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gen_model.h"

#define GEN_DEFAULT_COUNT 100000
/* The lowest --iops above 0: one arrival in 1000 s. */
#define GEN_MIN_IOPS 0.001

struct gen_options {
	struct gen_params p;
	const char *output;        /* -o FILE */
	const char *pattern;       /* "random", "sequential" or a preset name */
	uint64_t device_size;      /* bytes; default offset + span */
	const char *device_name;   /* default "gen0" */
	int quiet;                 /* no summary line */
};

enum { GEN_OPT_RUN = 0, GEN_OPT_HELP = 1, GEN_OPT_BAD_OPTION = 2 };

/*
 * Parse argv (argv[0] is "generate"), through the option loop every
 * command shares (opt_next of common/cliutil.h). Returns GEN_OPT_RUN with
 * *o filled and checked, GEN_OPT_HELP when --help was given (the usage is
 * printed on stdout), GEN_OPT_BAD_OPTION for an unknown option or one
 * missing its value (named on stderr), or -EINVAL with a one-line reason
 * in error->msg ("--bs: '4q': not a size").
 * Presets set the size mix and read/random shares first; explicit
 * --bs/--read-pct/--random-pct then override them, in any order.
 */
int gen_options_parse(int argc, char **argv, struct gen_options *o,
		      struct bpt_error *error);

void gen_options_usage(FILE *f);

/* The options but the size mix as one canonical line ("pattern=fileserver
 * read-pct=80 ... seed=1"), stored in the header's "generator" meta entry
 * (the mix goes to "generator.bs": it can be long). Returns buf. */
char *gen_options_describe(const struct gen_options *o, char *buf, size_t len);

#endif
