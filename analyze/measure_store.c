/*
 * measure_store.c — analyze_store_measurement() (common/commands.h):
 * what `blkpeak measure` calls to keep its results (and
 * analyze_store_ready(), which it calls before measuring), in place of running
 * `analyze import` through its command entry. The same store as that
 * command (SQLite or PostgreSQL, by the --db value), the same checks
 * (measure_import.c), nothing printed: the caller says what failed.
 */
#include <errno.h>
#include <libgen.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "db.h"
#include "measure_import.h"
#include "pg.h"
#include "pg_measure.h"

int analyze_store_measurement(const char *db, const char *path, int64_t *id,
			      struct bpt_error *err)
{
	const char *where = adb_default_path(db);
	struct measure_import_result res;
	sqlite3 *lite = NULL;
	PGconn *pg = NULL;
	int rc;

	rc = pg_is_pg(where) ? pg_open(&pg, where, ADB_CREATE, err)
			     : adb_open(&lite, where, ADB_CREATE, err);
	if (rc)
		return rc;
	rc = pg ? pg_measure_import(pg, path, &res, err) : measure_import(lite, path, &res, err);
	if (!rc && id)
		*id = res.id;
	sqlite3_close(lite);
	PQfinish(pg);
	return rc;
}

int analyze_store_ready(const char *db, struct bpt_error *err)
{
	const char *where = adb_default_path(db);
	sqlite3 *lite = NULL;
	PGconn *pg = NULL;
	struct stat st;
	char dir[4096];
	int rc;

	if (pg_is_pg(where)) {
		rc = pg_open(&pg, where, ADB_CREATE, err);
		PQfinish(pg);
		return rc;
	}
	if (!stat(where, &st) || errno != ENOENT) {
		/* there: a blkpeak database, migrated if older (as the store
		 * would), or an error naming what it is */
		rc = adb_open(&lite, where, ADB_READWRITE, err);
		sqlite3_close(lite);
		return rc;
	}
	/* missing: made by the store, so its folder must take a new file;
	 * not made now, so a measurement that fails leaves nothing */
	if (snprintf(dir, sizeof(dir), "%s", where) >= (int)sizeof(dir))
		return bpt_error_set(err, -ENAMETOOLONG, "%s: %s", where, strerror(ENAMETOOLONG));
	const char *d = dirname(dir);

	if (access(d, W_OK | X_OK))
		return bpt_error_set(err, -errno, "%s: cannot be created: %s: %s", where, d,
				     strerror(errno));
	return 0;
}
