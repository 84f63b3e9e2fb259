/*
 * cmd_import.c — `blkpeak analyze import FILE... [--db PATH]`: load
 * traces and replay runs into the analysis database (import.c does the
 * work; this file parses options, shows progress and prints results).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "analyze_commands.h"
#include "cliutil.h"
#include "db.h"
#include "import.h"
#include "jsonout.h"
#include "measure_import.h"
#include "pg.h"
#include "pg_import.h"
#include "pg_measure.h"
#include "progress.h"
#include "store_tables.h"
#include "suite_store.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: blkpeak analyze import FILE... [--db PATH] [--partial] [--json] [-q]\n"
		"       blkpeak analyze import FILE --suite DIGEST --suite-name NAME --workload NAME\n"
		"                               --workload-kind KIND --repeat-no N [--new-version]\n"
		"                               [--suite-label LABEL]\n\n"
		"Load traces and replay runs (.bpt) into the analysis database, one\n"
		"transaction per file. A file already in the database (same content\n"
		"digest) is recognised and skipped. A results document of 'blkpeak\n"
		"measure' (JSON) goes to the measurements tables; the same measurement\n"
		"twice is skipped too.\n\n"
		"  --db PATH    database (default $BLKPEAK_DB, else ./blkpeak.db); created if missing;\n"
		"               postgresql://... or a libpq key=value string: a PostgreSQL\n"
		"               database (it must exist; the schema is created in it)\n"
		"  --partial    import the complete blocks of a truncated trace (a killed\n"
		"               capture) instead of refusing it\n"
		"  --json       print one JSON object per file: path, trace_id, already, ios,\n"
		"               digest, truncated, duration_ns\n"
		"  -q, --quiet  no progress and no summary lines\n"
		"  -h, --help   this text\n\n"
		"a result of a suite (what 'blkpeak suite run' passes; one FILE, labelled):\n"
		"  --suite DIGEST         the suite's digest (schemas/suite-manifest.md)\n"
		"  --suite-name NAME      the suite's name\n"
		"  --workload NAME        the workload (\"photo-edit causal\", \"fileserver\")\n"
		"  --workload-kind KIND   replay, mix or qd-sweep\n"
		"  --repeat-no N          which repeat (1..)\n"
		"  --new-version          store it although the label has results of another\n"
		"                         version of the suite (refused without)\n"
		"  --suite-label LABEL    rank it under LABEL, not the run's own label (a mix\n"
		"                         timed by one recording: that recording's own run)\n");
}

/* Check every file opens as a trace before the database is touched, so a
 * typo in a name does not leave a new, empty database behind. */
static int check_files(int n, char **paths)
{
	int bad = 0;

	for (int i = 0; i < n; i++) {
		struct bpt_reader *r;
		struct bpt_error err = { 0 };

		if (measure_results_is(paths[i])) {
			if (measure_results_check(paths[i], &err)) {
				pr_err("analyze import: %s", err.msg);
				bad = 1;
			}
			continue;
		}
		if (bpt_reader_open(&r, paths[i], &err)) {
			pr_err("analyze import: %s", err.msg);
			bad = 1;
		}
		bpt_reader_close(r);
	}
	return bad;
}

static void print_result(const char *path, const struct import_result *res,
			 double secs, int json, int quiet)
{
	if (json) {
		struct jw w;

		jw_init(&w, stdout, 0);
		jw_obj(&w);
		jw_kstr(&w, "path", path);
		jw_ki64(&w, "trace_id", res->trace_id);
		jw_kbool(&w, "already", res->already);
		jw_ku64(&w, "ios", res->records);
		jw_kstr(&w, "digest", res->digest);
		jw_kbool(&w, "truncated", res->truncated);
		jw_ku64(&w, "duration_ns", (uint64_t)(secs * 1e9));
		jw_obj_end(&w);
		jw_finish(&w);
	} else if (quiet) {
		return;
	} else if (res->already) {
		printf("%s: already imported as trace %" PRId64 " (%" PRIu64 " I/Os), nothing to do\n",
		       path, res->trace_id, res->records);
	} else {
		printf("%s: imported as trace %" PRId64 ": %" PRIu64 " I/Os in %.2f s (%.2f M I/Os/s)%s\n",
		       path, res->trace_id, res->records, secs,
		       secs > 0 ? res->records / secs / 1e6 : 0,
		       res->truncated ? ", truncated file: complete blocks only" : "");
	}
}

/* Tag what was just stored with its suite (tag NULL: not a suite's). On
 * a PostgreSQL store (db NULL, dbval its --db value) the tag is made in a
 * working copy opened now, with the same checks, and its row published. */
static int tag_result(sqlite3 *db, const char *dbval, const struct suite_tag *tag,
		      int64_t trace_id, int64_t measurement_id)
{
	struct bpt_error err = { 0 };
	sqlite3 *copy = NULL;
	int64_t n;

	if (!tag)
		return 0;
	if (!db && adb_open(&copy, dbval, ADB_READWRITE, &err)) {
		pr_err("analyze import: %s", err.msg);
		return 1;
	}
	if (suite_tag_store(db ? db : copy, tag, trace_id, measurement_id, &err) ||
	    (copy && adb_publish_rows(copy, "suite_results", ST_SUITE_RESULTS,
				      trace_id > 0 ? "trace_id = ?1" : "measurement_id = ?1",
				      trace_id > 0 ? trace_id : measurement_id, ST_SUITE_UPSERT,
				      &n, &err))) {
		pr_err("analyze import: %s", err.msg);
		adb_close(copy);
		return 1;
	}
	adb_close(copy);
	return 0;
}

/* A `blkpeak measure` results document: 0, or 1 after printing why not. */
static int import_measurement(sqlite3 *db, PGconn *pg, const char *dbval, const char *path,
			      int json, int quiet, const struct suite_tag *tag)
{
	struct measure_import_result res;
	struct bpt_error err = { 0 };

	if (pg ? pg_measure_import(pg, path, &res, &err) : measure_import(db, path, &res, &err)) {
		pr_err("analyze import: %s", err.msg);
		return 1;
	}
	if (tag_result(db, dbval, tag, 0, res.id))
		return 1;
	if (json) {
		struct jw w;

		jw_init(&w, stdout, 0);
		jw_obj(&w);
		jw_kstr(&w, "path", path);
		jw_ki64(&w, "measurement_id", res.id);
		jw_kbool(&w, "already", res.already);
		jw_kstr(&w, "kind", res.kind);
		jw_ku64(&w, "points", res.points);
		jw_obj_end(&w);
		jw_finish(&w);
	} else if (!quiet) {
		printf("%s: %s as measurement %" PRId64 " (%s, %u steps)\n", path,
		       res.already ? "already imported" : "imported", res.id, res.kind, res.points);
	}
	return 0;
}

int analyze_import(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "partial", no_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "suite", required_argument, NULL, 'S' },
		{ "suite-name", required_argument, NULL, 'N' },
		{ "workload", required_argument, NULL, 'W' },
		{ "workload-kind", required_argument, NULL, 'K' },
		{ "repeat-no", required_argument, NULL, 'R' },
		{ "new-version", no_argument, NULL, 'V' },
		{ "suite-label", required_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct suite_tag tag = { 0 };
	int tagged = 0;
	uint64_t u;
	const char *dbopt = NULL;
	int json = 0, quiet = 0, c, failed = 0;
	struct import_opts opts = { 0, NULL, NULL, NULL };
	struct bpt_error err = { 0 };
	sqlite3 *db = NULL;
	PGconn *pg = NULL;
	struct opt_loop ol = { .cmd = "analyze import", .usage = usage };

	while ((c = opt_next(&ol, argc, argv, ":qh", longopts)) != -1) {
		switch (c) {
		case 'd': dbopt = optarg; break;
		case 'p': opts.partial = 1; break;
		case 'j': json = 1; break;
		case 'q': quiet = 1; break;
		case 'S': tag.digest = optarg; tagged = 1; break;
		case 'N': tag.name = optarg; tagged = 1; break;
		case 'W': tag.workload = optarg; tagged = 1; break;
		case 'K': tag.kind = optarg; tagged = 1; break;
		case 'R':
			if (parse_u64(optarg, &u) || !u || u > 1000) {
				pr_err("analyze import: --repeat-no: '%s': not a whole number from 1 to 1000", optarg);
				return EXIT_USAGE;
			}
			tag.repeat = (unsigned)u;
			tagged = 1;
			break;
		case 'V': tag.new_version = 1; break;
		case 'L': tag.label = optarg; break;
		}
	}
	if (ol.ret >= 0)
		return ol.ret;
	if (tagged) {
		if (suite_tag_check(&tag, &err)) {
			pr_err("analyze import: %s (--suite, --suite-name, --workload, --workload-kind"
			       " and --repeat-no go together)", err.msg);
			return EXIT_USAGE;
		}
		if (argc - optind != 1) {
			pr_err("analyze import: --suite: one file at a time");
			return EXIT_USAGE;
		}
	} else if (tag.new_version || tag.label) {
		pr_err("analyze import: --%s: only with --suite",
		       tag.label ? "suite-label" : "new-version");
		return EXIT_USAGE;
	}
	if (optind >= argc) {
		pr_err("analyze import: no trace file given; see 'blkpeak analyze import --help'");
		return EXIT_USAGE;
	}
	if (check_files(argc - optind, argv + optind))
		return EXIT_FAIL;
	if (pg_is_pg(adb_default_path(dbopt)) ? pg_open(&pg, adb_default_path(dbopt), ADB_CREATE, &err)
					       : adb_open(&db, adb_default_path(dbopt), ADB_CREATE, &err)) {
		pr_err("analyze import: %s", err.msg);
		return EXIT_FAIL;
	}
	for (int i = optind; i < argc; i++) {
		uint64_t start = now_mono_ns();
		struct progress prog;
		struct import_result res;
		char what[64];
		double secs;

		if (measure_results_is(argv[i])) {
			if (import_measurement(db, pg, adb_default_path(dbopt), argv[i], json, quiet,
					       tagged ? &tag : NULL))
				failed = 1;
			continue;
		}
		snprintf(what, sizeof(what), "importing %s", argv[i]);
		progress_init(&prog, what, "I/Os", !quiet);
		opts.progress = progress_cb;
		opts.progress_arg = &prog;
		c = pg ? pg_import_file(pg, argv[i], &opts, &res, &err)
		       : import_file(db, argv[i], &opts, &res, &err);
		secs = (double)(now_mono_ns() - start) / 1e9;
		progress_end(&prog);
		if (c) {
			pr_err("analyze import: %s", err.msg);
			failed = 1;
			continue;
		}
		if (tag_result(db, adb_default_path(dbopt), tagged ? &tag : NULL, res.trace_id, 0)) {
			failed = 1;
			continue;
		}
		print_result(argv[i], &res, secs, json, quiet);
	}
	sqlite3_close(db);
	PQfinish(pg);
	return failed ? EXIT_FAIL : EXIT_OK;
}
