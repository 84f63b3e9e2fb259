/*
 * drawcmd.h — what `analyze plot` and `analyze html` share on the command
 * line: the trace ids they take, and the set-up and tear-down around the
 * drawing (database opened read-only, output written all or nothing).
 */
#ifndef BLKPEAK_DRAWCMD_H
#define BLKPEAK_DRAWCMD_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

#include "outfile.h"
#include "progress.h"

/* Parse the trace ids args[0..n-1] (positive numbers, traces.id) into a
 * new array *out (caller frees). Prints "blkpeak: analyze CMD: 'x': not a
 * trace id" and returns -EINVAL on a bad one, -ENOMEM without memory. */
int parse_trace_ids(const char *cmd, char **args, int n, int64_t **out);

/*
 * Trace or run files paths[0..n) read into a database of their own, for a
 * command that reads the database's tables (plot, html, export): a
 * temporary file in $TMPDIR (its name in tmpdb), each file imported as
 * `analyze import` would, with a progress line on a terminal (prog, or
 * one of its own when NULL; from 2 s on); ids[i] is
 * paths[i]'s traces.id there. The user's database is not touched.
 * Prints what went wrong and returns EXIT_FAIL (nothing left), or 0; then
 * files_db_close() closes and removes it.
 */
int files_db_open(const char *cmd, char **paths, int n, sqlite3 **db, int64_t *ids,
		  char tmpdb[PATH_MAX], struct progress *prog);
void files_db_close(sqlite3 *db, char tmpdb[PATH_MAX]);

/* One drawing command's resources. */
struct drawcmd {
	const char *cmd;     /* "plot", "html": for messages */
	const char *db_path; /* the database used (the first file when files are given) */
	char db_name[512];   /* db_path of a PostgreSQL store: without its password */
	sqlite3 *db;
	char tmpdb[PATH_MAX]; /* files given: the temporary database they are read into */
	/* The command's progress line (terminal only, from 2 s after
	 * drawcmd_begin): reading the files, then the drawing's own. */
	struct progress prog;
	int64_t *ids;
	size_t n;
	struct outfile out;
};

/*
 * Parse the ids args[0..nargs-1] (at least min_ids), open the database (--db
 * value dbopt, or the default) read-only and the output `out`. When the
 * args are trace or run files instead (paths that exist; ids and files
 * are not mixed), they are imported into a temporary database of their
 * own, which drawcmd_end() removes; d->ids are then theirs. Prints
 * what went wrong and returns EXIT_USAGE or EXIT_FAIL, or 0 when d is
 * ready; on failure nothing is left open.
 */
int drawcmd_begin(struct drawcmd *d, const char *cmd, const char *dbopt, const char *out,
		  char **args, int nargs, int min_ids);

/*
 * Finish with the drawing's result rc (0 or -errno, already reported by
 * the caller): the output file is put in place when rc is 0, removed
 * otherwise; a failure to write it is reported. Frees everything and
 * returns the exit code.
 */
int drawcmd_end(struct drawcmd *d, int rc);

#endif
