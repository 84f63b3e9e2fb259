/*
 * cmd_report.c — `blkpeak analyze report ID|FILE [--json] [--db PATH]`:
 * the summary of one trace or run (stats.c computes, report_*.c print),
 * of the database (ID) or of a trace file read in place (FILE: nothing is
 * imported, no database is needed).
 */
#include <getopt.h>
#include <stdio.h>
#include <sys/stat.h>

#include "analyze_commands.h"
#include "cliutil.h"
#include "db.h"
#include "files_filter.h"
#include "measure_view.h"
#include "report.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: blkpeak analyze report ID|FILE [--files PATTERN]... [--recording NAME]\n"
		"                              [--json] [--db PATH]\n"
		"       blkpeak analyze report --measurement ID [--json] [--db PATH]\n\n"
		"Summarise one trace or replay run: IOPS, MB/s, mix, request sizes,\n"
		"seek distances, queue depth, busy and idle time, latency percentiles\n"
		"per operation, top processes; for a replay run its lateness (the\n"
		"replayer's own clock) and the kernel's view that replay's verify\n"
		"option recorded (I/Os present, missing, misplaced, issue error). ID\n"
		"is a trace id of the database; a FILE is read in place, in bounded\n"
		"memory, without an import (the figures are those of its imported\n"
		"copy).\n\n"
		"  --files PATTERN  only the I/Os of files whose recorded path matches the\n"
		"               glob (fnmatch, '*' also matches '/'), or of a class of I/O\n"
		"               (:data, :metadata, :journal, :swap, :raw, :unknown); again\n"
		"               for more (an I/O matching any); a run by its source trace's files\n"
		"  --measurement  ID is a measurement (blkpeak measure; measurements.id):\n"
		"               what ran, its steps (a knee search's speed factors, each\n"
		"               met or missed) and its result; with --json the object\n"
		"               of analyze compare of that one measurement\n"
		"  --recording NAME  of a mixed replay's run (replay A.bpt B.bpt), only the\n"
		"               I/Os of recording NAME (its file name without folder and\n"
		"               extension, the comm of its I/Os in the run); not with --files\n"
		"  --json       one JSON object, with the per-second IOPS and MB/s series\n"
		"  --db PATH    database (default $BLKPEAK_DB, else ./blkpeak.db)\n"
		"  -h, --help   this text\n");
}

/* A path that exists is a file to read in place; else a trace id. */
static int is_file(const char *arg)
{
	struct stat st;

	return stat(arg, &st) == 0;
}

/* --measurement: one measurement on its own (measure_view.h). */
static int report_measurement(const char *dbopt, int64_t id, int json)
{
	struct bpt_error err = { 0 };
	struct mview v = { 0 };
	sqlite3 *db = NULL;
	int rc = EXIT_FAIL;

	if (adb_open(&db, adb_default_path(dbopt), ADB_READONLY, &err) ||
	    mview_load(db, &id, 1, &v, &err)) {
		pr_err("analyze report: %s", err.msg);
		goto out;
	}
	if (json)
		mview_print_json(stdout, &v);
	else
		mview_print_report(stdout, &v.m[0]);
	rc = fflush(stdout) ? EXIT_FAIL : EXIT_OK;
	if (rc)
		pr_err("analyze report: cannot write the output");
out:
	mview_free(&v);
	sqlite3_close(db);
	return rc;
}

int analyze_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "db", required_argument, NULL, 'd' },
		{ "files", required_argument, NULL, 'f' },
		{ "measurement", no_argument, NULL, 'm' },
		{ "recording", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dbopt = NULL;
	struct bpt_error err = { 0 };
	struct st_report rep;
	struct files_filter files = { 0 };
	sqlite3 *db = NULL;
	int json = 0, measurement = 0, c, rc;
	uint64_t v;
	struct opt_loop ol = { .cmd = "analyze report", .usage = usage };

	while ((c = opt_next(&ol, argc, argv, ":h", longopts)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'd': dbopt = optarg; break;
		case 'm': measurement = 1; break;
		case 'f':
			if (files_filter_add(&files, optarg, &err)) {
				pr_err("analyze report: %s", err.msg);
				return EXIT_USAGE;
			}
			break;
		case 'r':
			if (files.recording) {
				pr_err("analyze report: --recording given twice");
				return EXIT_USAGE;
			}
			if (!*optarg) {
				pr_err("analyze report: --recording: empty name");
				return EXIT_USAGE;
			}
			files.recording = optarg;
			break;
		}
	}
	if (ol.ret >= 0)
		return ol.ret;
	if (files.recording && files.n) {
		pr_err("analyze report: --recording and --files together are not supported: "
		       "report the recording's own run file (RUN.NAME.bpt) with --files instead");
		return EXIT_USAGE;
	}
	if (optind != argc - 1) {
		pr_err("analyze report: give exactly one trace id or file; see 'blkpeak analyze report --help'");
		return EXIT_USAGE;
	}
	if (measurement) {
		if (files.n || files.recording) {
			pr_err("analyze report: --files and --recording restrict traces and runs, "
			       "not measurements");
			return EXIT_USAGE;
		}
		if (parse_u64(argv[optind], &v) || v == 0 || v > INT64_MAX) {
			pr_err("analyze report: '%s': not a measurement id", argv[optind]);
			return EXIT_USAGE;
		}
		return report_measurement(dbopt, (int64_t)v, json);
	}
	if (is_file(argv[optind])) {
		rc = st_report_compute_file_files(argv[optind], files.n || files.recording ? &files : NULL, &rep, 1, &err);
	} else {
		if (parse_u64(argv[optind], &v) || v == 0 || v > INT64_MAX) {
			pr_err("analyze report: '%s': neither a trace id nor a trace file", argv[optind]);
			return EXIT_USAGE;
		}
		rc = adb_open(&db, adb_default_path(dbopt), ADB_READONLY, &err);
		if (!rc)
			rc = st_report_compute_files(db, (int64_t)v, files.n || files.recording ? &files : NULL, &rep, &err);
	}
	if (rc) {
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
