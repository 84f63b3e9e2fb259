/*
 * cmd_report.c — `blkpeak analyze report ID|FILE [--json] [--db PATH]`:
 * the summary of one trace or run (stats.c computes, report_*.c print).
 * A FILE is imported first (or found by its digest when already there).
 */
#include <getopt.h>
#include <stdio.h>
#include <sys/stat.h>

#include "analyze_commands.h"
#include "cliutil.h"
#include "db.h"
#include "import.h"
#include "report.h"
#include "run_partial.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: blkpeak analyze report ID|FILE [--json] [--db PATH]\n\n"
		"Summarise one trace or replay run: IOPS, MB/s, mix, request sizes,\n"
		"seek distances, queue depth, busy and idle time, latency percentiles\n"
		"per operation, top processes. ID is a trace id of the database; a\n"
		"FILE (.bpt) is imported first.\n\n"
		"  --json       one JSON object, with the per-second IOPS and MB/s series\n"
		"  --db PATH    database (default $BLKPEAK_DB, else ./blkpeak.db)\n"
		"  -h, --help   this text\n");
}

/*
 * Find the trace `arg` names: an existing file is imported (quietly) and
 * its id returned; otherwise arg must be a trace id. Opens *db in the
 * mode needed. Returns an exit code.
 */
static int resolve(const char *arg, const char *dbpath, sqlite3 **db, int64_t *id)
{
	struct bpt_error err = { 0 };
	struct import_result res;
	struct stat st;
	uint64_t v;

	if (stat(arg, &st) == 0 && S_ISREG(st.st_mode)) {
		if (adb_open(db, dbpath, ADB_CREATE, &err) ||
		    import_file(*db, arg, NULL, &res, &err)) {
			pr_err("analyze report: %s", err.msg);
			return EXIT_FAIL;
		}
		if (!res.already)
			fprintf(stderr, "%s: imported as trace %lld\n", arg, (long long)res.trace_id);
		*id = res.trace_id;
		return EXIT_OK;
	}
	if (parse_u64(arg, &v) || v == 0 || v > INT64_MAX) {
		pr_err("analyze report: '%s': neither a trace id nor a trace file", arg);
		return EXIT_USAGE;
	}
	if (adb_open(db, dbpath, ADB_READONLY, &err)) {
		pr_err("analyze report: %s", err.msg);
		return EXIT_FAIL;
	}
	*id = (int64_t)v;
	return EXIT_OK;
}

int analyze_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "db", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dbopt = NULL;
	struct bpt_error err = { 0 };
	struct st_report rep;
	sqlite3 *db = NULL;
	int json = 0, c, rc;
	int64_t id;
	struct opt_loop ol = { .cmd = "analyze report", .usage = usage };

	while ((c = opt_next(&ol, argc, argv, ":h", longopts)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'd': dbopt = optarg; break;
		}
	}
	if (ol.ret >= 0)
		return ol.ret;
	if (optind != argc - 1) {
		pr_err("analyze report: give exactly one trace id or file; see 'blkpeak analyze report --help'");
		return EXIT_USAGE;
	}
	rc = resolve(argv[optind], adb_default_path(dbopt), &db, &id);
	if (rc) {
		sqlite3_close(db);
		return rc;
	}
	if (st_report_compute(db, id, &rep, &err) ||
	    run_partial_load(db, id, &rep.partial, &err)) {
		pr_err("analyze report: %s", err.msg);
		sqlite3_close(db);
		return EXIT_FAIL;
	}
	if (json)
		report_print_json(stdout, &rep);
	else
		report_print_text(stdout, &rep);
	st_report_free(&rep);
	sqlite3_close(db);
	if (fflush(stdout)) {
		pr_err("analyze report: cannot write the output");
		return EXIT_FAIL;
	}
	return EXIT_OK;
}
