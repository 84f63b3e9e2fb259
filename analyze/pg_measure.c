/*
 * pg_measure.c — measurements into the PostgreSQL store (pg_measure.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "db.h"
#include "pg.h"
#include "pg_measure.h"
#include "store_tables.h"
#include "xfer.h"

struct idmap {
	const char *col;
	int64_t from, to;
};

static int map_id(void *arg, const char *col, int64_t v, int64_t *out)
{
	const struct idmap *m = arg;

	if (!strcmp(col, m->col) && v == m->from) {
		*out = m->to;
		return 1;
	}
	return 0;
}

int pg_measure_copy(sqlite3 *src, int64_t src_id, PGconn *c, int64_t *dst_id, int *already,
		    struct bpt_error *err)
{
	struct idmap im = { "id", src_id, 0 };
	const struct xfer_map m = { map_id, &im };
	sqlite3_stmt *st;
	uint64_t rows = 0;
	char started[24];
	const char *p[3];
	int rc, found;

	*already = 0;
	if ((rc = pg_query_int(c, "SELECT nextval(pg_get_serial_sequence('measurements', 'id'))",
			       0, NULL, &im.to, NULL, err)) ||
	    (rc = xfer_to_pg(src, c, "measurements", ST_MEASUREMENTS, "id = ?1", src_id, &m,
			     " ON CONFLICT (kind, target, started_wall_ns) DO NOTHING", &rows, err)))
		return rc;
	if (rows) {
		im.col = "measurement_id";
		*dst_id = im.to;
		return xfer_to_pg(src, c, "measurement_points", ST_POINTS, "measurement_id = ?1",
				  src_id, &m, "", NULL, err);
	}
	*already = 1;
	if (sqlite3_prepare_v2(src, "SELECT kind, target, started_wall_ns FROM measurements"
			       " WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
		return adb_fail(src, err, "cannot read the measurement");
	sqlite3_bind_int64(st, 1, src_id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return adb_fail(src, err, "cannot read the measurement");
	}
	snprintf(started, sizeof(started), "%" PRId64, (int64_t)sqlite3_column_int64(st, 2));
	p[0] = (const char *)sqlite3_column_text(st, 0);
	p[1] = (const char *)sqlite3_column_text(st, 1);
	p[2] = started;
	rc = pg_query_int(c, "SELECT id FROM measurements WHERE kind = $1 AND target = $2"
			  " AND started_wall_ns = $3", 3, p, dst_id, &found, err);
	sqlite3_finalize(st);
	return rc;
}

int pg_measure_import(PGconn *c, const char *path, struct measure_import_result *res,
		      struct bpt_error *err)
{
	sqlite3 *staging = NULL;
	int64_t id = 0;
	int rc, already = 0;

	memset(res, 0, sizeof(*res));
	if ((rc = adb_open_memory(&staging, err)))
		return rc;
	if (!(rc = measure_import(staging, path, res, err)) && !(rc = pg_exec(c, "BEGIN", err))) {
		rc = pg_measure_copy(staging, res->id, c, &id, &already, err);
		if (!rc)
			rc = pg_exec(c, "COMMIT", err);
		else
			pg_exec(c, "ROLLBACK", NULL);
		res->id = id;
		res->already = already;
	}
	sqlite3_close(staging);
	return rc;
}
