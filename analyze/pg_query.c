/*
 * pg_query.c — a user's SQL on the PostgreSQL store (pg_query.h).
 *
 * The statement goes by the extended protocol (PQexecParams), which runs
 * exactly one statement: "COMMIT; DELETE ..." cannot leave the read-only
 * transaction. Its rows are put in an in-memory SQLite table, typed by
 * the server's column types (integers as integers, numbers as reals, a
 * numeric without fraction, as sum() gives, as an integer), and printed
 * by query_print(), so the output is the SQLite output.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "db.h"
#include "pg.h"
#include "pg_query.h"

/* Type oids (pg_type.h, stable). */
#define OID_BOOL 16
#define OID_INT8 20
#define OID_INT2 21
#define OID_INT4 23
#define OID_OID 26
#define OID_FLOAT4 700
#define OID_FLOAT8 701
#define OID_NUMERIC 1700

/* 1 when sql calls trace_ios( outside quotes. */
static int uses_trace_ios(const char *sql)
{
	for (const char *p = sql; *p; p++) {
		if (*p == '\'' || *p == '"') { /* skip a quoted part */
			char q = *p;

			while (*++p && *p != q)
				;
			if (!*p)
				break;
			continue;
		}
		if (!strncasecmp(p, "trace_ios", 9) && (p == sql || !(isalnum((unsigned char)p[-1]) || p[-1] == '_'))) {
			const char *q = p + 9;

			while (isspace((unsigned char)*q))
				q++;
			if (*q == '(')
				return 1;
		}
	}
	return 0;
}

static void bind_value(sqlite3_stmt *st, int i, const PGresult *r, int row, int col)
{
	const char *v = PQgetvalue(r, row, col);
	Oid t = PQftype(r, col);
	char *end;

	if (PQgetisnull(r, row, col)) {
		sqlite3_bind_null(st, i);
		return;
	}
	switch (t) {
	case OID_INT2: case OID_INT4: case OID_INT8: case OID_OID:
		sqlite3_bind_int64(st, i, strtoll(v, NULL, 10));
		return;
	case OID_BOOL:
		sqlite3_bind_int(st, i, *v == 't');
		return;
	case OID_NUMERIC: {
		long long n = strtoll(v, &end, 10);

		if (!*end && end != v) {
			sqlite3_bind_int64(st, i, n);
			return;
		}
	}
		/* fall through */
	case OID_FLOAT4: case OID_FLOAT8: {
		double d = strtod(v, &end);

		if (!*end && end != v) {
			sqlite3_bind_double(st, i, d);
			return;
		}
		break;
	}
	}
	sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
}

/* The rows of r printed through an in-memory SQLite table. */
static int print_result(const PGresult *r, enum q_format fmt, FILE *out, struct bpt_error *err)
{
	int cols = PQnfields(r), rc = 0;
	sqlite3 *mem = NULL;
	sqlite3_stmt *st = NULL;
	char *create = NULL, *insert = NULL, *select = NULL;
	size_t l1 = 0, l2 = 0, l3 = 0;
	FILE *f1 = open_memstream(&create, &l1), *f2 = open_memstream(&insert, &l2),
	     *f3 = open_memstream(&select, &l3);

	if (!f1 || !f2 || !f3) {
		if (f1) fclose(f1);
		if (f2) fclose(f2);
		if (f3) fclose(f3);
		free(create); free(insert); free(select);
		return bpt_error_set(err, -ENOMEM, "out of memory");
	}
	fprintf(f1, "CREATE TABLE r (");
	fprintf(f2, "INSERT INTO r VALUES (");
	fprintf(f3, "SELECT ");
	for (int i = 0; i < cols; i++) {
		char *name = sqlite3_mprintf("%w", PQfname(r, i));

		fprintf(f1, "%sc%d", i ? ", " : "", i);
		fprintf(f2, "%s?", i ? ", " : "");
		fprintf(f3, "%sc%d AS \"%s\"", i ? ", " : "", i, name ? name : "?");
		sqlite3_free(name);
	}
	fprintf(f1, ")");
	fprintf(f2, ")");
	fprintf(f3, " FROM r ORDER BY rowid");
	fclose(f1);
	fclose(f2);
	fclose(f3);
	if (sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
	    (cols && (sqlite3_exec(mem, create, NULL, NULL, NULL) != SQLITE_OK ||
		      sqlite3_prepare_v2(mem, insert, -1, &st, NULL) != SQLITE_OK))) {
		rc = adb_fail(mem, err, "cannot hold the rows");
		goto out;
	}
	if (!cols)
		goto out;
	sqlite3_exec(mem, "BEGIN", NULL, NULL, NULL);
	for (int row = 0; row < PQntuples(r) && !rc; row++) {
		for (int i = 0; i < cols; i++)
			bind_value(st, i + 1, r, row, i);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = adb_fail(mem, err, "cannot hold the rows");
		sqlite3_reset(st);
	}
	sqlite3_exec(mem, "COMMIT", NULL, NULL, NULL);
	sqlite3_finalize(st);
	st = NULL;
	if (!rc && sqlite3_prepare_v2(mem, select, -1, &st, NULL) != SQLITE_OK)
		rc = adb_fail(mem, err, "cannot hold the rows");
	if (!rc && query_print(mem, st, fmt, out, err) < 0)
		rc = -EIO;
out:
	sqlite3_finalize(st);
	sqlite3_close(mem);
	free(create);
	free(insert);
	free(select);
	return rc;
}

int pg_query_run(PGconn *c, const char *sql, enum q_format fmt, FILE *out,
		 struct bpt_error *err)
{
	char set[96], name[512];
	PGresult *r;
	int rc;

	if (uses_trace_ios(sql))
		return bpt_error_set(err, -EPERM, "trace_ios('FILE') reads a trace file in place on"
				     " this machine: it works on a SQLite database (or without one),"
				     " not on PostgreSQL; query the imported trace's rows in ios instead");
	snprintf(set, sizeof(set), "SET LOCAL statement_timeout = '%ds'", PG_QUERY_TIMEOUT_S);
	if ((rc = pg_exec(c, "BEGIN TRANSACTION READ ONLY", err)) || (rc = pg_exec(c, set, err)))
		return rc;
	r = PQexecParams(c, sql, 0, NULL, NULL, NULL, NULL, 0);
	switch (PQresultStatus(r)) {
	case PGRES_TUPLES_OK:
		rc = print_result(r, fmt, out, err);
		break;
	case PGRES_COMMAND_OK:
		rc = 0;
		break;
	case PGRES_EMPTY_QUERY:
		rc = bpt_error_set(err, -EINVAL, "no SQL statement given");
		break;
	default: {
		const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
		char line[400];

		snprintf(line, sizeof(line), "%s", PQresultErrorMessage(r));
		line[strcspn(line, "\n")] = 0;
		pg_name(c, name, sizeof(name));
		if (state && !strcmp(state, "25006")) /* read_only_sql_transaction */
			rc = bpt_error_set(err, -EPERM, "%s: refused, the database is opened read-only"
					   " (%s)", name, line + (strncmp(line, "ERROR:  ", 8) ? 0 : 8));
		else if (state && !strcmp(state, "57014")) /* query_canceled */
			rc = bpt_error_set(err, -EINVAL, "%s: stopped after the statement timeout"
					   " of %d s", name, PG_QUERY_TIMEOUT_S);
		else
			rc = bpt_error_set(err, -EINVAL, "%s: %s", name,
					   line + (strncmp(line, "ERROR:  ", 8) ? 0 : 8));
	}
	}
	PQclear(r);
	pg_exec(c, "ROLLBACK", NULL);
	return rc;
}
