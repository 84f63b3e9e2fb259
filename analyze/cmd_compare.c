/*
 * cmd_compare.c — `blkpeak analyze compare ID|FILE ID|FILE... [--json]
 * [--force]`: runs of the same trace side by side (compare.c), from the
 * database or from trace files read in place; a comparison of database
 * traces only is stored in the database unless --no-store.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "analyze_commands.h"
#include "cliutil.h"
#include "compare.h"
#include "db.h"
#include "files_filter.h"
#include "measure_view.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: blkpeak analyze compare ID|FILE ID|FILE... [--files PATTERN]... [--json]\n"
		"                                [--force] [--allow-partial] [--no-store] [--db PATH]\n"
		"       blkpeak analyze compare TRACE_ID   (the trace and all its runs)\n"
		"       blkpeak analyze compare --measurements ID ID... [--json]\n\n"
		"Put traces and replay runs of the same I/O side by side, against the\n"
		"first: total time, time saved and speedup in percent, IOPS, MB/s, queue\n"
		"depth, latency percentiles, and for runs their lateness and the\n"
		"kernel's view of them (replay's verify option). An ID is a trace of\n"
		"the database, a FILE a trace or run file read in place (no import).\n"
		"A comparison of database traces only is stored in the database\n"
		"(tables comparisons, comparison_entries); one with files is not.\n"
		"Entries of the same label, target and timing are repeats of one\n"
		"configuration (repeated replays): their median and min-max are shown, a\n"
		"headline says who won, by how much and how sure, and \"within noise\"\n"
		"when the ranges of total time overlap.\n\n"
		"  --measurements  the IDs are measurements of one kind (blkpeak measure;\n"
		"               measurements.id): each step (depth, zone, span) side by\n"
		"               side against the first's of the same depth, zone or\n"
		"               span (\"-\" where one lacks it), in percent, and the\n"
		"               qd-sweep score; read from the database, nothing stored\n"
		"  --files PATTERN  compare only the I/Os of files whose recorded path\n"
		"               matches the glob (fnmatch, '*' also matches '/'), or of a\n"
		"               class (:data, :metadata, :journal, :swap, :raw, :unknown);\n"
		"               again for more; a run's I/Os by the files of the trace it\n"
		"               replayed, which must be imported (or, for a run file, where\n"
		"               its meta says); a request of two files counts whole if either\n"
		"               matches\n"
		"  --json       one JSON object\n"
		"  --force      compare entries that do not come from the same trace\n"
		"  --allow-partial  compare runs that stopped before their last I/O\n"
		"               (interrupted, stopped on an error, killed; refused\n"
		"               without it); each is marked \"PARTIAL: DONE of TOTAL\n"
		"               I/Os (WHY)\"\n"
		"  --no-store   do not store the comparison (database opened read-only)\n"
		"  --db PATH    database (default $BLKPEAK_DB, else ./blkpeak.db)\n"
		"  -h, --help   this text\n");
}

/* --measurements: measurements of one kind side by side (measure_view.h). */
static int compare_measurements(const char *dbopt, const int64_t *ids, size_t n, int json)
{
	struct bpt_error err = { 0 };
	struct mview v = { 0 };
	sqlite3 *db = NULL;
	int rc = EXIT_FAIL;

	if (adb_open(&db, adb_default_path(dbopt), ADB_READONLY, &err) ||
	    mview_load(db, ids, n, &v, &err) || mview_same_kind(&v, &err)) {
		pr_err("analyze compare: %s", err.msg);
		goto out;
	}
	if (json)
		mview_print_json(stdout, &v);
	else
		mview_print_text(stdout, &v);
	rc = fflush(stdout) ? EXIT_FAIL : EXIT_OK;
out:
	mview_free(&v);
	sqlite3_close(db);
	return rc;
}

/* cmp_compute of ids, restricted to files. */
static int compute_ids(sqlite3 *db, const int64_t *ids, int n, int flags,
		       const struct files_filter *ff, struct cmp *c, struct bpt_error *err)
{
	struct cmp_arg *a = calloc(n ? n : 1, sizeof(*a));
	int rc;

	if (!a)
		return bpt_error_set(err, -ENOMEM, "out of memory");
	for (int i = 0; i < n; i++)
		a[i].id = ids[i];
	rc = cmp_compute_args(db, a, n, flags, ff, c, err);
	free(a);
	return rc;
}

int analyze_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "measurements", no_argument, NULL, 'm' },
		{ "force", no_argument, NULL, 'f' },
		{ "allow-partial", no_argument, NULL, 'p' },
		{ "no-store", no_argument, NULL, 'n' },
		{ "db", required_argument, NULL, 'd' },
		{ "files", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dbopt = NULL;
	int json = 0, flags = 0, store = 1, c, n, nids, rc = EXIT_FAIL, measurements = 0;
	struct bpt_error err = { 0 };
	int64_t *args, *ids = NULL;
	struct cmp_arg *cargs = NULL;
	int files = 0;
	struct cmp cmp = { 0 };
	struct files_filter ff = { 0 };
	sqlite3 *db = NULL;
	struct opt_loop ol = { .cmd = "analyze compare", .usage = usage };

	while ((c = opt_next(&ol, argc, argv, ":h", longopts)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'm': measurements = 1; break;
		case 'f': flags |= CMP_FORCE; break;
		case 'p': flags |= CMP_ALLOW_PARTIAL; break;
		case 'n': store = 0; break;
		case 'd': dbopt = optarg; break;
		case 'F':
			if (files_filter_add(&ff, optarg, &err)) {
				pr_err("analyze compare: %s", err.msg);
				return EXIT_USAGE;
			}
			break;
		}
	}
	if (ol.ret >= 0)
		return ol.ret;
	n = argc - optind;
	if (n < 1) {
		pr_err("analyze compare: give two or more trace ids, or one trace id with runs; see 'blkpeak analyze compare --help'");
		return EXIT_USAGE;
	}
	if (!(args = calloc(n, sizeof(*args)))) {
		pr_err("analyze compare: out of memory");
		return EXIT_FAIL;
	}
	if (!(cargs = calloc(n, sizeof(*cargs)))) {
		pr_err("analyze compare: out of memory");
		free(args);
		return EXIT_FAIL;
	}
	for (int i = 0; i < n; i++) {
		const char *a = argv[optind + i];
		struct stat st;
		uint64_t v;

		if (stat(a, &st) == 0) { /* a file, read in place */
			cargs[i].path = a;
			files++;
			continue;
		}
		if (parse_u64(a, &v) || v == 0 || v > INT64_MAX) {
			pr_err("analyze compare: '%s': neither a trace id nor a trace file", a);
			free(args);
			free(cargs);
			return EXIT_USAGE;
		}
		args[i] = cargs[i].id = (int64_t)v;
	}
	if (measurements) {
		if (files) {
			pr_err("analyze compare: --measurements takes measurement ids, not files");
			free(args);
			free(cargs);
			return EXIT_USAGE;
		}
		if (ff.n) {
			pr_err("analyze compare: --files restricts traces and runs, not measurements");
			free(args);
			free(cargs);
			return EXIT_USAGE;
		}
		rc = compare_measurements(dbopt, args, (size_t)n, json);
		free(args);
		free(cargs);
		return rc;
	}
	if (files) {
		/* files (and ids): no expansion, nothing stored */
		if (n < 2) {
			pr_err("analyze compare: give two or more traces to compare");
			rc = EXIT_USAGE;
			goto out;
		}
		if ((files < n && adb_open(&db, adb_default_path(dbopt), ADB_READONLY, &err)) ||
		    cmp_compute_args(db, cargs, n, flags, ff.n ? &ff : NULL, &cmp, &err)) {
			pr_err("analyze compare: %s", err.msg);
			goto out;
		}
	} else if (adb_open(&db, adb_default_path(dbopt), store ? ADB_READWRITE : ADB_READONLY, &err) ||
		   cmp_expand_ids(db, args, n, &ids, &nids, &err) ||
		   compute_ids(db, ids, nids, flags, ff.n ? &ff : NULL, &cmp, &err) ||
		   (store && cmp_store(db, &cmp, &err))) {
		pr_err("analyze compare: %s", err.msg);
		goto out;
	}
	if (json)
		cmp_print_json(stdout, &cmp);
	else
		cmp_print_text(stdout, &cmp);
	rc = fflush(stdout) ? EXIT_FAIL : EXIT_OK;
out:
	cmp_free(&cmp);
	free(ids);
	free(args);
	free(cargs);
	sqlite3_close(db);
	return rc;
}
