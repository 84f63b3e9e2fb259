/*
 * measure_store.c — analyze_store_measurement() (common/commands.h):
 * what `blkpeak measure` calls to keep its results, in place of running
 * `analyze import` through its command entry. The same store as that
 * command (SQLite or PostgreSQL, by the --db value), the same checks
 * (measure_import.c), nothing printed: the caller says what failed.
 */
#include <sqlite3.h>

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
