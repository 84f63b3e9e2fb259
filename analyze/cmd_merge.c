/*
 * cmd_merge.c — `blkpeak analyze merge SRC.db... [--db DEST]`: other
 * machines' SQLite databases into the one in use (merge.c does the work).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze_commands.h"
#include "cliutil.h"
#include "db.h"
#include "jsonout.h"
#include "merge.h"
#include "pg.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: blkpeak analyze merge SRC.db... [--db DEST] [--json] [-q]\n\n"
		"Copy the traces and runs (with their I/Os), comparisons and measurements\n"
		"of SQLite analysis databases - other machines' blkpeak.db - into the\n"
		"database in use: a SQLite file or a PostgreSQL store. Nothing is copied\n"
		"twice: a trace the destination has (same content digest), a comparison\n"
		"of the same time and baseline, a measurement of the same kind, target\n"
		"and start are kept as they are, so merging again is a no-op. Each trace\n"
		"keeps its host; each is one transaction. The sources are only read.\n\n"
		"  --db DEST    destination (default $BLKPEAK_DB, else ./blkpeak.db), a file\n"
		"               (created if missing) or postgresql://... / libpq key=value\n"
		"  --json       one JSON object per source: path, traces, traces_there,\n"
		"               ios, comparisons, comparisons_there, measurements,\n"
		"               measurements_there\n"
		"  -q, --quiet  no summary lines\n"
		"  -h, --help   this text\n");
}

static void print_counts(const char *path, const struct merge_counts *n, int json, int quiet)
{
	if (json) {
		struct jw w;

		jw_init(&w, stdout, 0);
		jw_obj(&w);
		jw_kstr(&w, "path", path);
		jw_ku64(&w, "traces", n->traces);
		jw_ku64(&w, "traces_there", n->traces_had);
		jw_ku64(&w, "ios", n->ios);
		jw_ku64(&w, "comparisons", n->comparisons);
		jw_ku64(&w, "comparisons_there", n->comparisons_had);
		jw_ku64(&w, "measurements", n->measurements);
		jw_ku64(&w, "measurements_there", n->measurements_had);
		jw_obj_end(&w);
		jw_finish(&w);
	} else if (!quiet) {
		printf("%s: %u traces (%" PRIu64 " I/Os) copied, %u there already; %u comparisons"
		       " copied, %u there; %u measurements copied, %u there\n", path, n->traces,
		       n->ios, n->traces_had, n->comparisons, n->comparisons_had, n->measurements,
		       n->measurements_had);
	}
}

/* 1 when a and b are the same file. */
static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int analyze_merge(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dbopt = NULL, *dest;
	int json = 0, quiet = 0, c, failed = 0;
	struct bpt_error err = { 0 };
	sqlite3 *db = NULL;
	PGconn *pg = NULL;
	struct opt_loop ol = { .cmd = "analyze merge", .usage = usage };

	while ((c = opt_next(&ol, argc, argv, ":qh", longopts)) != -1) {
		switch (c) {
		case 'd': dbopt = optarg; break;
		case 'j': json = 1; break;
		case 'q': quiet = 1; break;
		}
	}
	if (ol.ret >= 0)
		return ol.ret;
	if (optind >= argc) {
		pr_err("analyze merge: no source database given; see 'blkpeak analyze merge --help'");
		return EXIT_USAGE;
	}
	dest = adb_default_path(dbopt);
	/* every source opens before the destination is touched */
	for (int i = optind; i < argc; i++) {
		sqlite3 *src;

		if (pg_is_pg(argv[i])) {
			pr_err("analyze merge: %s: a source is a SQLite file (PostgreSQL is a"
			       " destination: --db)", adb_display_name(argv[i], (char[512]){ 0 }, 512));
			return EXIT_USAGE;
		}
		if (!pg_is_pg(dest) && same_file(argv[i], dest)) {
			pr_err("analyze merge: %s: is the destination itself", argv[i]);
			return EXIT_USAGE;
		}
		if (adb_open(&src, argv[i], ADB_READONLY, &err)) {
			pr_err("analyze merge: %s", err.msg);
			return EXIT_FAIL;
		}
		sqlite3_close(src);
	}
	if (pg_is_pg(dest) ? pg_open(&pg, dest, ADB_CREATE, &err)
			   : adb_open(&db, dest, ADB_CREATE, &err)) {
		pr_err("analyze merge: %s", err.msg);
		return EXIT_FAIL;
	}
	for (int i = optind; i < argc; i++) {
		struct merge_counts n;
		sqlite3 *src;

		if (adb_open(&src, argv[i], ADB_READONLY, &err) ||
		    merge_from(src, db, pg, &n, &err)) {
			pr_err("analyze merge: %s: %s", argv[i], err.msg);
			failed = 1;
		} else {
			print_counts(argv[i], &n, json, quiet);
		}
		sqlite3_close(src);
	}
	sqlite3_close(db);
	PQfinish(pg);
	return failed ? EXIT_FAIL : EXIT_OK;
}
