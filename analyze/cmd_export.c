/*
 * cmd_export.c — `blkpeak analyze export ID --csv|--json [-o FILE]`:
 * one trace's I/Os, one row each, in file order, with the operation and
 * process names spelled out and both latencies computed. The rows go
 * through the same writer as `query`.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze_commands.h"
#include "cliutil.h"
#include "db.h"
#include "drawcmd.h"
#include "outfile.h"
#include "query.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: blkpeak analyze export ID|FILE [--csv|--json] [-o FILE] [--db PATH]\n\n"
		"Write the I/Os of trace ID, or of the trace or run FILE (one row each:\n"
		"idx, queue/issue/complete ns, device, sector, bytes, op, flags, pid, comm,\n"
		"cgroup, error, service and total latency, and the replay columns a run\n"
		"has).\n\n"
		"  --csv          CSV with a header line (RFC 4180)\n"
		"  --json         a JSON array of objects\n"
		"                 (without either, -o FILE's suffix: .csv or .json)\n"
		"  -o, --output FILE  write to FILE (replaced only when complete) instead of stdout\n"
		"  --db PATH      database (default $BLKPEAK_DB, else ./blkpeak.db)\n"
		"  -h, --help     this text\n");
}

/* The trace's optional columns (traces.columns), or -ENOENT. */
static int trace_columns(sqlite3 *db, int64_t id, struct bpt_error *err)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT columns FROM traces WHERE id = ?", -1, &st, NULL))
		return adb_fail(db, err, "cannot read the trace");
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) & BPT_COL__KNOWN
		: bpt_error_set(err, -ENOENT, "no trace with id %lld in the database", (long long)id);
	sqlite3_finalize(st);
	return rc;
}

static int export_rows(sqlite3 *db, int64_t id, enum q_format fmt, FILE *out,
		       struct bpt_error *err)
{
	char sql[2048];
	sqlite3_stmt *st;
	long long n;
	int cols = trace_columns(db, id, err);

	if (cols < 0)
		return cols;
	if ((n = adb_need_ios(db, id, err)))
		return (int)n;
	snprintf(sql, sizeof(sql),
		 "SELECT " ADB_IOS_ROW_COLUMNS("idx, queue_ns, issue_ns, complete_ns, dev, sector,"
		 " bytes, (SELECT name FROM ops WHERE ops.op = io.op) AS op, flags, pid,"
		 " (SELECT comm FROM processes WHERE trace_id = ?1 AND processes.comm_id = io.comm_id)"
		 " AS comm, cgroup_id, error, complete_ns - issue_ns AS service_ns,"
		 " complete_ns - queue_ns AS total_ns%s%s%s"),
		 cols & BPT_COL_SCHED ? ", sched_ns" : "",
		 cols & BPT_COL_SOURCE ? ", source_index" : "",
		 cols & BPT_COL_MEMBER ? ", member" : "");
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL))
		return adb_fail(db, err, "cannot read the I/Os");
	sqlite3_bind_int64(st, 1, id);
	n = query_print(db, st, fmt, out, err);
	sqlite3_finalize(st);
	return n < 0 ? (int)n : 0;
}

int analyze_export(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "csv", no_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "db", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dbopt = NULL, *outpath = "-";
	struct bpt_error err = { 0 };
	struct outfile out;
	int fmt = -1, c, rc;
	sqlite3 *db;
	uint64_t id;
	struct stat st;
	char tmpdb[PATH_MAX] = "";
	struct opt_loop ol = { .cmd = "analyze export", .usage = usage };

	while ((c = opt_next(&ol, argc, argv, ":o:h", longopts)) != -1) {
		switch (c) {
		case 'c': fmt = Q_CSV; break;
		case 'j': fmt = Q_JSON; break;
		case 'o': outpath = optarg; break;
		case 'd': dbopt = optarg; break;
		}
	}
	if (ol.ret >= 0)
		return ol.ret;
	if (fmt < 0 && strcmp(outpath, "-")) {
		/* the format from the output's suffix, as the user named it */
		const char *dot = strrchr(outpath, '.');

		if (dot && !strcasecmp(dot, ".csv"))
			fmt = Q_CSV;
		else if (dot && !strcasecmp(dot, ".json"))
			fmt = Q_JSON;
		else {
			pr_err("analyze export: -o %s: the suffix is not .csv or .json; give --csv or --json",
			       outpath);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1 || fmt < 0) {
		pr_err("analyze export: give one trace id and --csv or --json (or -o FILE.csv or "
		       "FILE.json); see 'blkpeak analyze export --help'");
		return EXIT_USAGE;
	}
	if (stat(argv[optind], &st) == 0) {
		/* a trace or run file: read into a database of its own */
		int64_t fid;

		if (files_db_open("export", &argv[optind], 1, &db, &fid, tmpdb, NULL))
			return EXIT_FAIL;
		id = (uint64_t)fid;
	} else if (parse_u64(argv[optind], &id) || id == 0 || id > INT64_MAX) {
		pr_err("analyze export: '%s': neither a trace id nor a trace file", argv[optind]);
		return EXIT_USAGE;
	} else if (adb_open(&db, adb_default_path(dbopt), ADB_READONLY, &err)) {
		pr_err("analyze export: %s", err.msg);
		return EXIT_FAIL;
	}
	const char *inputs[] = { tmpdb[0] ? argv[optind] : adb_default_path(dbopt), NULL };

	rc = outfile_open(&out, outpath, &(struct outfile_opts){
		.what = fmt == Q_CSV ? "a CSV export" : "a JSON export",
		.inputs = inputs, .allow_stdout = 1 });
	if (rc) {
		pr_err("analyze export: %s", out.err.msg);
		files_db_close(db, tmpdb);
		return EXIT_FAIL;
	}
	rc = export_rows(db, (int64_t)id, (enum q_format)fmt, out.f, &err);
	files_db_close(db, tmpdb);
	if (rc) {
		outfile_close(&out, rc);
		pr_err("analyze export: %s", err.msg);
		return EXIT_FAIL;
	}
	rc = outfile_close(&out, 0);
	if (rc) {
		pr_err("analyze export: %s", out.err.msg);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}
