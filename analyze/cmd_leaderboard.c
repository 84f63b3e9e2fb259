/*
 * cmd_leaderboard.c — `blkpeak analyze leaderboard SUITE [--baseline
 * LABEL] [--csv|--json] [--db PATH]`: rank the configurations a suite ran
 * on (leaderboard.h does the work).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_commands.h"
#include "cliutil.h"
#include "db.h"
#include "leaderboard.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: blkpeak analyze leaderboard SUITE [--baseline LABEL] [--csv|--json] [--db PATH]\n\n"
		"Rank the configurations a suite ran on ('blkpeak suite run'): per workload the\n"
		"time of a replay or mix (median and min-max of its repeats) and the time saved\n"
		"against the baseline, the weighted IOPS of a qd-sweep, and an overall score:\n"
		"the geometric mean over the workloads of the ratio to the baseline (its time /\n"
		"the time; IOPS / its IOPS), above 1 better than the baseline. Results from\n"
		"several machines in one store are ranked together, each as label @ host.\n\n"
		"  SUITE            the suite folder (its current version), a suite's digest\n"
		"                   (16 hex digits), or its name (its latest version stored)\n"
		"  --baseline LABEL the configuration the others are measured against (default:\n"
		"                   the one run first)\n"
		"  --csv            one row per workload and configuration, and a row of the\n"
		"                   score per configuration (workload \"(score)\")\n"
		"  --json           schemas/analyze-leaderboard.schema.json\n"
		"  --db PATH        database (default $BLKPEAK_DB, else ./blkpeak.db)\n"
		"  -h, --help       this text\n");
}

int analyze_leaderboard(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "baseline", required_argument, NULL, 'b' },
		{ "csv", no_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "db", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opt_loop ol = { .cmd = "analyze leaderboard", .usage = usage };
	const char *dbopt = NULL, *baseline = NULL, *suite;
	struct bpt_error err = { 0 };
	struct leaderboard lb;
	char digest[17];
	int csv = 0, json = 0, c;
	sqlite3 *db;

	while ((c = opt_next(&ol, argc, argv, ":h", longopts)) != -1)
		switch (c) {
		case 'b': baseline = optarg; break;
		case 'c': csv = 1; break;
		case 'j': json = 1; break;
		case 'd': dbopt = optarg; break;
		}
	if (ol.ret >= 0)
		return ol.ret;
	if (csv && json) {
		pr_err("analyze leaderboard: --csv and --json exclude each other");
		return EXIT_USAGE;
	}
	if (argc - optind != 1) {
		pr_err("analyze leaderboard: %s; see 'blkpeak analyze leaderboard --help'",
		       optind >= argc ? "no suite given" : "one suite only");
		return EXIT_USAGE;
	}
	suite = argv[optind];
	if (adb_open(&db, adb_default_path(dbopt), ADB_READONLY, &err)) {
		pr_err("analyze leaderboard: %s", err.msg);
		return EXIT_FAIL;
	}
	memset(&lb, 0, sizeof(lb));
	if (lb_resolve(db, suite, digest, lb.other_versions, sizeof(lb.other_versions), &err)) {
		pr_err("analyze leaderboard: %s", err.msg);
		sqlite3_close(db);
		return EXIT_FAIL;
	}
	{
		char others[sizeof(lb.other_versions)];

		memcpy(others, lb.other_versions, sizeof(others));
		if (lb_load(db, digest, baseline, &lb, &err)) {
			pr_err("analyze leaderboard: %s", err.msg);
			sqlite3_close(db);
			return EXIT_FAIL;
		}
		memcpy(lb.other_versions, others, sizeof(others));
	}
	sqlite3_close(db);
	if (csv)
		lb_print_csv(stdout, &lb);
	else if (json)
		lb_print_json(stdout, &lb);
	else
		lb_print_text(stdout, &lb);
	lb_free(&lb);
	return fflush(stdout) ? EXIT_FAIL : EXIT_OK;
}
