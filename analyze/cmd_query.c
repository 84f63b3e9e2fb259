/*
 * cmd_query.c — `blkpeak analyze query "SQL" [--csv|--json] [--db PATH]`:
 * run read-only SQL on the analysis database (query.c enforces it).
 */
#include <getopt.h>
#include <stdio.h>

#include "analyze_commands.h"
#include "cliutil.h"
#include "db.h"
#include "query.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: blkpeak analyze query \"SQL\" [--csv|--json] [--db PATH]\n\n"
		"Run SQL on the analysis database and print the rows. The database is\n"
		"opened read-only: a statement that would write (INSERT, DROP, ...),\n"
		"ATTACH and PRAGMAs that set something are refused before anything runs.\n"
		"Tables: traces, devices, processes, ops, ios, losses, runs, comparisons,\n"
		"comparison_entries; view io_detail (see schemas/analyze.sql).\n\n"
		"  --csv        CSV with a header line (RFC 4180)\n"
		"  --json       a JSON array of objects per statement\n"
		"  --db PATH    database (default $BLKPEAK_DB, else ./blkpeak.db)\n"
		"  -h, --help   this text\n");
}

int analyze_query(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "csv", no_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "db", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum q_format fmt = Q_TABLE;
	const char *dbopt = NULL;
	struct bpt_error err = { 0 };
	sqlite3 *db;
	int c, rc;
	struct opt_loop ol = { .cmd = "analyze query", .usage = usage };

	while ((c = opt_next(&ol, argc, argv, ":h", longopts)) != -1) {
		switch (c) {
		case 'c': fmt = Q_CSV; break;
		case 'j': fmt = Q_JSON; break;
		case 'd': dbopt = optarg; break;
		}
	}
	if (ol.ret >= 0)
		return ol.ret;
	if (optind != argc - 1) {
		pr_err("analyze query: give the SQL as one argument; see 'blkpeak analyze query --help'");
		return EXIT_USAGE;
	}
	if (adb_open(&db, adb_default_path(dbopt), ADB_READONLY, &err)) {
		pr_err("analyze query: %s", err.msg);
		return EXIT_FAIL;
	}
	if (query_guard(db, &err)) {
		pr_err("analyze query: %s", err.msg);
		sqlite3_close(db);
		return EXIT_FAIL;
	}
	rc = query_run(db, argv[optind], fmt, stdout, &err);
	sqlite3_close(db);
	if (rc) {
		pr_err("analyze query: %s", err.msg);
		return EXIT_FAIL;
	}
	if (fflush(stdout)) {
		pr_err("analyze query: cannot write the output");
		return EXIT_FAIL;
	}
	return EXIT_OK;
}
