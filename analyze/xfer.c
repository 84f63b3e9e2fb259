/*
 * xfer.c — rows of a table between SQLite and PostgreSQL (xfer.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "pg.h"
#include "xfer.h"

#define XFER_MAX_COLS 40

/* The names in "a, b, c" into names[] (pointers into buf); their count. */
static int split_cols(const char *cols, char *buf, size_t len, const char *names[])
{
	int n = 0;
	char *save = NULL, *t;

	snprintf(buf, len, "%s", cols);
	for (t = strtok_r(buf, ", ", &save); t && n < XFER_MAX_COLS; t = strtok_r(NULL, ", ", &save))
		names[n++] = t;
	return n;
}

/* "VERB INTO table (cols) VALUES (p1,...)SUFFIX" with n placeholders, $i
 * (PostgreSQL) or ? (SQLite); malloc'ed, NULL when out of memory. */
static char *insert_sql(const char *verb, const char *table, const char *cols, int n,
			int dollar, const char *suffix)
{
	char *sql = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&sql, &len);

	if (!f)
		return NULL;
	fprintf(f, "%s INTO %s (%s) VALUES (", verb, table, cols);
	for (int i = 0; i < n; i++)
		if (dollar)
			fprintf(f, "%s$%d", i ? "," : "", i + 1);
		else
			fprintf(f, "%s?", i ? "," : "");
	fprintf(f, ")%s", suffix ? suffix : "");
	if (fclose(f)) {
		free(sql);
		return NULL;
	}
	return sql;
}

int xfer_to_pg(sqlite3 *src, PGconn *dst, const char *table, const char *cols,
	       const char *where, int64_t arg, const struct xfer_map *m, const char *suffix,
	       uint64_t *rows, struct bpt_error *err)
{
	char namebuf[1024], *sql = NULL, vals[XFER_MAX_COLS][32];
	const char *names[XFER_MAX_COLS], *params[XFER_MAX_COLS];
	int n = split_cols(cols, namebuf, sizeof(namebuf), names), rc = 0, step;
	sqlite3_stmt *st = NULL;

	if (rows)
		*rows = 0;
	if (asprintf(&sql, "SELECT %s FROM %s WHERE %s", cols, table, where) < 0)
		return bpt_error_set(err, -ENOMEM, "out of memory");
	if (sqlite3_prepare_v2(src, sql, -1, &st, NULL) != SQLITE_OK) {
		free(sql);
		return adb_fail(src, err, "cannot read the rows to copy");
	}
	free(sql);
	sql = NULL;
	if (sqlite3_bind_parameter_count(st) > 0)
		sqlite3_bind_int64(st, 1, arg);
	if (!(sql = insert_sql("INSERT", table, cols, n, 1, suffix))) {
		sqlite3_finalize(st);
		return bpt_error_set(err, -ENOMEM, "out of memory");
	}
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		PGresult *r;

		for (int i = 0; i < n; i++) {
			int64_t v, out;

			switch (sqlite3_column_type(st, i)) {
			case SQLITE_NULL:
				params[i] = NULL;
				break;
			case SQLITE_INTEGER:
				v = sqlite3_column_int64(st, i);
				switch (m ? m->map(m->arg, names[i], v, &out) : 0) {
				case XFER_NULL:
					params[i] = NULL;
					continue;
				case XFER_VALUE:
					v = out;
				}
				snprintf(vals[i], sizeof(vals[i]), "%" PRId64, v);
				params[i] = vals[i];
				break;
			case SQLITE_FLOAT:
				snprintf(vals[i], sizeof(vals[i]), "%.17g", sqlite3_column_double(st, i));
				params[i] = vals[i];
				break;
			default:
				params[i] = (const char *)sqlite3_column_text(st, i);
			}
		}
		r = PQexecParams(dst, sql, n, NULL, params, NULL, NULL, 0);
		if (PQresultStatus(r) != PGRES_COMMAND_OK) {
			char what[96];

			snprintf(what, sizeof(what), "cannot copy a row of %s", table);
			rc = pg_fail(dst, r, err, what);
			PQclear(r);
			break;
		}
		if (rows)
			*rows += strtoull(PQcmdTuples(r), NULL, 10);
		PQclear(r);
	}
	if (!rc && step != SQLITE_DONE)
		rc = adb_fail(src, err, "cannot read the rows to copy");
	sqlite3_finalize(st);
	free(sql);
	return rc;
}

int xfer_from_pg(PGconn *src, sqlite3 *dst, const char *table, const char *cols,
		 struct bpt_error *err)
{
	char *sql = NULL, namebuf[1024];
	const char *names[XFER_MAX_COLS];
	int n = split_cols(cols, namebuf, sizeof(namebuf), names), rc = 0;
	sqlite3_stmt *st = NULL;
	PGresult *r;

	if (asprintf(&sql, "SELECT %s FROM %s", cols, table) < 0)
		return bpt_error_set(err, -ENOMEM, "out of memory");
	r = PQexecParams(src, sql, 0, NULL, NULL, NULL, NULL, 0);
	free(sql);
	sql = NULL;
	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		char what[96];

		snprintf(what, sizeof(what), "cannot read %s", table);
		rc = pg_fail(src, r, err, what);
		PQclear(r);
		return rc;
	}
	if (!(sql = insert_sql("INSERT", table, cols, n, 0, NULL))) {
		PQclear(r);
		return bpt_error_set(err, -ENOMEM, "out of memory");
	}
	if (sqlite3_prepare_v2(dst, sql, -1, &st, NULL) != SQLITE_OK) {
		rc = adb_fail(dst, err, "cannot prepare the local copy");
		goto out;
	}
	for (int row = 0; row < PQntuples(r) && !rc; row++) {
		for (int i = 0; i < n; i++) {
			if (PQgetisnull(r, row, i))
				sqlite3_bind_null(st, i + 1);
			else
				sqlite3_bind_text(st, i + 1, PQgetvalue(r, row, i), -1, SQLITE_STATIC);
		}
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = adb_fail(dst, err, "cannot write the local copy");
		sqlite3_reset(st);
	}
out:
	sqlite3_finalize(st);
	free(sql);
	PQclear(r);
	return rc;
}

int xfer_sqlite(sqlite3 *src, sqlite3 *dst, const char *table, const char *cols,
		const char *where, int64_t arg, const struct xfer_map *m, const char *verb,
		uint64_t *rows, struct bpt_error *err)
{
	char namebuf[1024], *sql = NULL;
	const char *names[XFER_MAX_COLS];
	int n = split_cols(cols, namebuf, sizeof(namebuf), names), rc = 0, step;
	sqlite3_stmt *st = NULL, *ins = NULL;

	if (rows)
		*rows = 0;
	if (asprintf(&sql, "SELECT %s FROM %s WHERE %s", cols, table, where) < 0)
		return bpt_error_set(err, -ENOMEM, "out of memory");
	rc = sqlite3_prepare_v2(src, sql, -1, &st, NULL);
	free(sql);
	if (rc != SQLITE_OK)
		return adb_fail(src, err, "cannot read the rows to copy");
	if (sqlite3_bind_parameter_count(st) > 0)
		sqlite3_bind_int64(st, 1, arg);
	sql = insert_sql(verb ? verb : "INSERT", table, cols, n, 0, NULL);
	if (!sql || sqlite3_prepare_v2(dst, sql, -1, &ins, NULL) != SQLITE_OK) {
		free(sql);
		sqlite3_finalize(st);
		return adb_fail(dst, err, "cannot prepare the copy");
	}
	free(sql);
	rc = 0;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		for (int i = 0; i < n; i++) {
			int64_t out;

			if (sqlite3_column_type(st, i) == SQLITE_INTEGER && m) {
				switch (m->map(m->arg, names[i], sqlite3_column_int64(st, i), &out)) {
				case XFER_NULL:
					sqlite3_bind_null(ins, i + 1);
					continue;
				case XFER_VALUE:
					sqlite3_bind_int64(ins, i + 1, out);
					continue;
				}
			}
			sqlite3_bind_value(ins, i + 1, sqlite3_column_value(st, i));
		}
		if (sqlite3_step(ins) != SQLITE_DONE)
			rc = adb_fail(dst, err, "cannot copy a row");
		else if (rows)
			*rows += (uint64_t)sqlite3_changes(dst);
		sqlite3_reset(ins);
	}
	if (!rc && step != SQLITE_DONE)
		rc = adb_fail(src, err, "cannot read the rows to copy");
	sqlite3_finalize(st);
	sqlite3_finalize(ins);
	return rc;
}
