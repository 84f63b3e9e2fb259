/*
 * dbread.c — open the analysis database for reading, for the commands
 * that only draw from it (plot, html): which file (--db, $BLKPEAK_DB,
 * ./blkpeak.db), opened read-only, and refused unless it carries
 * blkpeak's application id (schemas/analyze.sql), so a wrong file is
 * named in the error instead of giving "no such table".
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "cliutil.h"

#include "dbread.h"

const char *dbread_path(const char *opt)
{
	const char *env = getenv("BLKPEAK_DB");

	if (opt && *opt)
		return opt;
	return env && *env ? env : "blkpeak.db";
}

int dbread_open(const char *path, sqlite3 **out)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int rc;

	*out = NULL;
	rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
	if (rc != SQLITE_OK) {
		sqlite3_close(db);
		return rc == SQLITE_CANTOPEN ? -ENOENT : -EIO;
	}
	sqlite3_busy_timeout(db, 5000);
	rc = sqlite3_prepare_v2(db, "PRAGMA application_id", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc != SQLITE_ROW || sqlite3_column_int64(st, 0) != DBREAD_APPLICATION_ID) {
		sqlite3_finalize(st);
		sqlite3_close(db);
		return rc == SQLITE_ROW || rc == SQLITE_NOTADB ? -EPROTO : -EIO;
	}
	sqlite3_finalize(st);
	*out = db;
	return 0;
}

const char *dbread_strerror(int err)
{
	switch (err) {
	case -ENOENT: return "no such database (import traces first: blkpeak analyze import FILE...)";
	case -EPROTO: return "not a blkpeak analysis database";
	default: return "cannot read the database";
	}
}

int parse_trace_ids(const char *cmd, char **args, int n, int64_t **out)
{
	int64_t *ids = calloc(n ? n : 1, sizeof(*ids));

	if (!ids) {
		pr_err("analyze %s: out of memory", cmd);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		uint64_t v;

		if (parse_u64(args[i], &v) || v == 0 || v > INT64_MAX) {
			pr_err("analyze %s: '%s': not a trace id (a positive number)", cmd, args[i]);
			free(ids);
			return -EINVAL;
		}
		ids[i] = (int64_t)v;
	}
	*out = ids;
	return 0;
}
