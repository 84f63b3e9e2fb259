/*
 * cmd_digest.c — `blkpeak suite digest DIR`: print the suite's version
 * (schemas/suite-manifest.md, "The suite's digest") and name, as
 * `analyze leaderboard DIR` reads them.
 */
#include <getopt.h>
#include <stdio.h>

#include "cliutil.h"
#include "suite.h"
#include "suite_commands.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: blkpeak suite digest DIR\n\n"
		"Print the digest of the suite in DIR (of its suite.ini and every recording\n"
		"it names) and its name: \"DIGEST NAME\". A changed manifest or recording\n"
		"is a new digest: a new version of the suite.\n\n"
		"  -h, --help   this text\n");
}

int suite_digest(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opt_loop ol = { .cmd = "suite digest", .usage = usage };
	struct suite *s;
	char err[SUITE_ERR_MAX];
	int c;

	while ((c = opt_next(&ol, argc, argv, ":h", longopts)) != -1)
		;
	if (ol.ret >= 0)
		return ol.ret;
	if (argc - optind != 1) {
		pr_err("suite digest: %s; see 'blkpeak suite digest --help'",
		       optind >= argc ? "no suite folder given" : "one suite folder only");
		return EXIT_USAGE;
	}
	if (suite_open(argv[optind], &s, err, sizeof(err))) {
		pr_err("suite digest: %s", err);
		return EXIT_FAIL;
	}
	printf("%s %s\n", s->digest, s->name);
	suite_close(s);
	return EXIT_OK;
}
