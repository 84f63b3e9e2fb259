/*
 * cmd_label.c — `blkpeak analyze label ID NAME [--measurement] [--db
 * PATH]`: give a trace, run or measurement of the database the display
 * name every table, chart and legend then shows (run_label.h); an empty
 * NAME takes the label away (the default from the target comes back).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "analyze_commands.h"
#include "cliutil.h"
#include "db.h"
#include "fmt.h"
#include "run_label.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: blkpeak analyze label ID NAME [--measurement] [--db PATH]\n\n"
		"Name trace or run ID (traces.label) for every table, chart and legend\n"
		"(compare, plot, html); without a name they show one made from a run's\n"
		"target (\"single hdd:7200\", \"raid0 x2 64k\", \"dual\") or the file's name.\n"
		"An empty NAME takes the label away. Runs given the same label and\n"
		"target are repeats of one configuration in compare.\n\n"
		"  --measurement  ID is a measurement (measurements.id)\n"
		"  --db PATH    database (default $BLKPEAK_DB, else ./blkpeak.db)\n"
		"  -h, --help   this text\n");
}

int analyze_label(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "measurement", no_argument, NULL, 'm' },
		{ "db", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dbopt = NULL, *name;
	struct bpt_error err = { 0 };
	struct opt_loop ol = { .cmd = "analyze label", .usage = usage };
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int c, meas = 0, rc = EXIT_FAIL;
	uint64_t id;
	char shown[RUN_LABEL_MAX * 4 + 4], lab[RUN_LABEL_MAX], idtext[24];
	int64_t changes;

	while ((c = opt_next(&ol, argc, argv, ":h", longopts)) != -1) {
		switch (c) {
		case 'm': meas = 1; break;
		case 'd': dbopt = optarg; break;
		}
	}
	if (ol.ret >= 0)
		return ol.ret;
	if (optind != argc - 2) {
		pr_err("analyze label: give an ID and a NAME; see 'blkpeak analyze label --help'");
		return EXIT_USAGE;
	}
	if (parse_u64(argv[optind], &id) || id == 0 || id > INT64_MAX) {
		pr_err("analyze label: '%s': not an id", argv[optind]);
		return EXIT_USAGE;
	}
	name = argv[optind + 1];
	if (strlen(name) >= RUN_LABEL_MAX) {
		pr_err("analyze label: '%s': longer than %d bytes", name, RUN_LABEL_MAX - 1);
		return EXIT_USAGE;
	}
	if (adb_open(&db, adb_default_path(dbopt), ADB_READWRITE, &err)) {
		pr_err("analyze label: %s", err.msg);
		goto out;
	}
	if (sqlite3_prepare_v2(db, meas ? "UPDATE measurements SET label = ? WHERE id = ?"
				        : "UPDATE traces SET label = ? WHERE id = ?",
			       -1, &st, NULL) != SQLITE_OK) {
		pr_err("analyze label: %s", sqlite3_errmsg(db));
		goto out;
	}
	if (*name)
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 1);
	sqlite3_bind_int64(st, 2, (int64_t)id);
	if (sqlite3_step(st) != SQLITE_DONE) {
		pr_err("analyze label: cannot store the label: %s", sqlite3_errmsg(db));
		goto out;
	}
	if (sqlite3_changes(db) == 0) {
		pr_err("analyze label: no %s with id %llu in the database",
		       meas ? "measurement" : "trace", (unsigned long long)id);
		goto out;
	}
	/* a PostgreSQL store: the same change there */
	snprintf(idtext, sizeof(idtext), "%llu", (unsigned long long)id);
	if (adb_publish(db, meas ? "UPDATE measurements SET label = $1 WHERE id = $2"
				 : "UPDATE traces SET label = $1 WHERE id = $2",
			2, (const char *const[]){ *name ? name : NULL, idtext }, &changes, &err)) {
		pr_err("analyze label: %s", err.msg);
		goto out;
	}
	if (changes == 0) {
		pr_err("analyze label: no %s with id %llu in the database any more",
		       meas ? "measurement" : "trace", (unsigned long long)id);
		goto out;
	}
	if ((meas ? run_label_measurement_db : run_label_db)(db, (int64_t)id, lab, sizeof(lab))) {
		pr_err("analyze label: cannot read the label back");
		goto out;
	}
	printf("%s %llu: %s\n", meas ? "measurement" : "trace", (unsigned long long)id,
	       fmt_text(lab, shown, sizeof(shown)));
	rc = fflush(stdout) ? EXIT_FAIL : EXIT_OK;
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}
