/*
 * cmd_query.c — `blkpeak analyze query "SQL" [--csv|--json] [--db PATH]`:
 * run read-only SQL on the analysis database (query.c enforces it), with
 * trace files as tables too (trace_ios('FILE'), vtab_trace.h). Without a
 * database file the SQL runs on an empty in-memory one, so trace files
 * can be queried before (or without) any import.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "analyze_commands.h"
#include "cliutil.h"
#include "db.h"
#include "pg.h"
#include "pg_query.h"
#include "progress.h"
#include "query.h"
#include "vtab_trace.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: blkpeak analyze query \"SQL\" [--csv|--json] [--db PATH]\n\n"
		"Run SQL on the analysis database and print the rows. The database is\n"
		"opened read-only: a statement that would write (INSERT, DROP, ...),\n"
		"ATTACH and PRAGMAs that set something are refused before anything runs.\n"
		"Tables: traces, devices, processes, ops, losses, runs, comparisons,\n"
		"comparison_entries; views ios (one row per I/O, stored compactly in\n"
		"io_rows, io_marks, io_kinds, io_replay) and io_detail (see schemas/analyze.sql).\n"
		"A trace file is a table too, read in place (no import): trace_ios('FILE')\n"
		"has the columns of io_detail but trace_id, e.g.\n"
		"  SELECT op_name, count(*) FROM trace_ios('big.bpt') GROUP BY op\n"
		"A range of issue_ns reads only the blocks it needs. Without a database\n"
		"file, the SQL runs on an empty one (trace_ios only).\n"
		"On PostgreSQL (--db postgresql://...) one statement runs, in a READ ONLY\n"
		"transaction with a 300 s statement timeout; ios is a table there, the\n"
		"compact SQLite tables do not exist, and trace_ios('FILE') is local only.\n\n"
		"  --csv        CSV with a header line (RFC 4180)\n"
		"  --json       a JSON array of objects per statement\n"
		"  --db PATH    database (default $BLKPEAK_DB, else ./blkpeak.db), or a\n"
		"               PostgreSQL URI / libpq key=value string\n"
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
	struct progress prog;
	sqlite3 *db = NULL;
	const char *path;
	int c, rc, no_db = 0;
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
	path = adb_default_path(dbopt);
	if (pg_is_pg(path)) {
		PGconn *pg = NULL;

		rc = pg_open(&pg, path, ADB_READONLY, &err);
		if (!rc)
			rc = pg_query_run(pg, argv[optind], fmt, stdout, &err);
		PQfinish(pg);
		if (rc) {
			pr_err("analyze query: %s", err.msg);
			return EXIT_FAIL;
		}
		goto flush;
	}
	rc = adb_open(&db, path, ADB_READONLY, &err);
	if (rc == -ENOENT) {
		/* no database: trace files are still tables */
		no_db = 1;
		rc = sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK ? 0
			: bpt_error_set(&err, -ENOMEM, "cannot open an in-memory database");
	}
	if (rc) {
		pr_err("analyze query: %s", err.msg);
		sqlite3_close(db);
		return EXIT_FAIL;
	}
	/* on a terminal the rows themselves show progress: the line would
	 * mix with them, so it is drawn only when the output goes elsewhere */
	progress_init(&prog, "query: scanning a trace", "I/Os", !isatty(STDOUT_FILENO));
	if (vtab_trace_register(db, progress_cb, &prog, &err) || query_guard(db, &err)) {
		pr_err("analyze query: %s", err.msg);
		sqlite3_close(db);
		return EXIT_FAIL;
	}
	rc = query_run(db, argv[optind], fmt, stdout, &err);
	progress_end(&prog);
	sqlite3_close(db);
	if (rc) {
		if (no_db && strstr(err.msg, "no such table"))
			pr_err("analyze query: %s (there is no database %s; trace_ios('FILE')"
			       " reads a trace file without one)", err.msg, path);
		else
			pr_err("analyze query: %s", err.msg);
		return EXIT_FAIL;
	}
flush:
	if (fflush(stdout)) {
		pr_err("analyze query: cannot write the output");
		return EXIT_FAIL;
	}
	return EXIT_OK;
}
