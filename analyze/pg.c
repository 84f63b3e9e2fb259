/*
 * pg.c — connect to the PostgreSQL store, name it safely, check and
 * create its schema (pg.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg.h"

extern const char analyze_schema_pg_sql[]; /* build/gen/schema_pg_sql.c */

/* Advisory lock key for creating the schema: 'BLKP'. */
#define PG_SCHEMA_LOCK "1112296272"

int pg_is_pg(const char *value)
{
	PQconninfoOption *o;
	char *msg = NULL;

	if (!value)
		return 0;
	if (!strncmp(value, "postgresql://", 13) || !strncmp(value, "postgres://", 11))
		return 1;
	/* key=value: libpq must know every keyword ("a=b.db" is a file) */
	if (!strchr(value, '=') || !(o = PQconninfoParse(value, &msg))) {
		PQfreemem(msg);
		return 0;
	}
	PQconninfoFree(o);
	return 1;
}


const char *pg_name(PGconn *c, char *buf, size_t len)
{
	const char *host = PQhost(c), *port = PQport(c);

	snprintf(buf, len, "postgresql://%s@%s%s%s/%s", PQuser(c) ? PQuser(c) : "",
		 host && *host != '/' ? host : "",
		 port && *port && host && *host != '/' ? ":" : "",
		 port && *port && host && *host != '/' ? port : "", PQdb(c) ? PQdb(c) : "");
	if (host && *host == '/') { /* a Unix socket directory */
		size_t l = strlen(buf);

		snprintf(buf + l, len - l, "?host=%s", host);
	}
	return buf;
}

/* The first line of a libpq message, without "ERROR:  " and the end. */
static void first_line(const char *msg, char *buf, size_t len)
{
	size_t n;

	if (!msg || !*msg)
		msg = "unknown error";
	if (!strncmp(msg, "ERROR:  ", 8))
		msg += 8;
	if (!strncmp(msg, "FATAL:  ", 8))
		msg += 8;
	n = strcspn(msg, "\n");
	snprintf(buf, len, "%.*s", (int)n, msg);
}

int pg_fail(PGconn *c, const PGresult *res, struct bpt_error *err, const char *what)
{
	char name[512], line[400];

	first_line(res ? PQresultErrorMessage(res) : PQerrorMessage(c), line, sizeof(line));
	if (!*line || !strcmp(line, "unknown error"))
		first_line(PQerrorMessage(c), line, sizeof(line));
	return bpt_error_set(err, -EIO, "%s: %s: %s", pg_name(c, name, sizeof(name)), what, line);
}

int pg_exec(PGconn *c, const char *sql, struct bpt_error *err)
{
	PGresult *r = PQexec(c, sql);
	int rc = 0;

	if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
		rc = pg_fail(c, r, err, "cannot run SQL");
	PQclear(r);
	return rc;
}

int pg_query_int(PGconn *c, const char *sql, int nparams, const char *const *params,
		 int64_t *v, int *found, struct bpt_error *err)
{
	PGresult *r = PQexecParams(c, sql, nparams, NULL, params, NULL, NULL, 0);
	int rc = 0;

	*v = 0;
	if (found)
		*found = 0;
	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		rc = pg_fail(c, r, err, "cannot query");
	} else if (PQntuples(r) > 0 && !PQgetisnull(r, 0, 0)) {
		*v = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
		if (found)
			*found = 1;
	}
	PQclear(r);
	return rc;
}

const char *pg_this_host(char *buf, size_t len)
{
	if (gethostname(buf, len))
		snprintf(buf, len, "unknown");
	buf[len - 1] = 0;
	return buf;
}

/* Why a connection failed, as one line a user can act on. */
static int connect_error(PGconn *c, const char *value, struct bpt_error *err)
{
	char safe[512], line[400];
	const char *m = PQerrorMessage(c);
	const char *db = PQdb(c);

	pg_redact(value, safe, sizeof(safe));
	first_line(strstr(m, "FATAL:  ") ? strstr(m, "FATAL:  ") : m, line, sizeof(line));
	if (strstr(m, "password authentication failed") || strstr(m, "no password supplied") ||
	    strstr(m, "authentication failed") || strstr(m, "password is required"))
		return bpt_error_set(err, -EACCES, "%s: authentication failed (%s)", safe, line);
	if (strstr(m, "does not exist") && strstr(m, "database"))
		return bpt_error_set(err, -ENOENT, "%s: database \"%s\" does not exist on the server"
				     " (create it: createdb %s)", safe, db ? db : "", db ? db : "NAME");
	if (strstr(m, "Connection refused") || strstr(m, "No such file or directory") ||
	    strstr(m, "could not translate host name") || strstr(m, "timeout expired") ||
	    strstr(m, "No route to host") || strstr(m, "Network is unreachable") ||
	    strstr(m, "could not connect"))
		return bpt_error_set(err, -EHOSTUNREACH, "%s: server not reachable (%s)", safe, line);
	return bpt_error_set(err, -EIO, "%s: cannot connect: %s", safe, line);
}

/* The schema version: 0 with *version (0: none yet), or an error. */
static int schema_version(PGconn *c, int64_t *version, int64_t *tables, struct bpt_error *err)
{
	int rc, found;

	if ((rc = pg_query_int(c, "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()",
			       0, NULL, tables, NULL, err)))
		return rc;
	if ((rc = pg_query_int(c, "SELECT to_regclass('blkpeak_schema') IS NOT NULL::int::bigint",
			       0, NULL, version, &found, err)))
		return rc;
	if (!*version)
		return 0;
	return pg_query_int(c, "SELECT max(version) FROM blkpeak_schema WHERE application = 'blkpeak'",
			    0, NULL, version, &found, err);
}

/* The view io_detail of schema 8 on (as analyze-pg.sql makes it). */
#define PG_IO_DETAIL \
	"CREATE VIEW io_detail AS SELECT ios.*, ops.name AS op_name, processes.comm AS comm," \
	" ios.complete_ns - ios.issue_ns AS service_ns, ios.complete_ns - ios.queue_ns AS total_ns," \
	" fc.name AS file, p1.path AS file_path, p2.path AS file2_path, c1.comm AS cause_comm," \
	" c2.comm AS cause2_comm FROM ios JOIN ops ON ops.op = ios.op" \
	" LEFT JOIN processes ON processes.trace_id = ios.trace_id AND processes.comm_id = ios.comm_id" \
	" LEFT JOIN file_classes fc ON fc.class = ios.file_class" \
	" LEFT JOIN paths p1 ON p1.trace_id = ios.trace_id AND p1.file_dev = ios.file_dev" \
	" AND p1.inode = ios.inode AND p1.seq = 0" \
	" LEFT JOIN paths p2 ON p2.trace_id = ios.trace_id AND p2.file_dev = ios.file2_dev" \
	" AND p2.inode = ios.inode2 AND p2.seq = 0" \
	" LEFT JOIN processes c1 ON c1.trace_id = ios.trace_id AND c1.comm_id = ios.cause_comm_id" \
	" LEFT JOIN processes c2 ON c2.trace_id = ios.trace_id AND c2.comm_id = ios.cause2_comm_id;"

/* 7 -> 8: the file and cause columns of trace format 1.3 (as SQLite's
 * schema 8); columns added to `ios` reach every partition. */
static const char pg_v8[] =
	"ALTER TABLE ios ADD COLUMN file_dev bigint, ADD COLUMN inode bigint,"
	" ADD COLUMN file_offset bigint, ADD COLUMN file_bytes bigint, ADD COLUMN file2_dev bigint,"
	" ADD COLUMN inode2 bigint, ADD COLUMN file2_offset bigint, ADD COLUMN file2_bytes bigint,"
	" ADD COLUMN cause_pid bigint, ADD COLUMN cause_cgroup bigint, ADD COLUMN cause2_pid bigint,"
	" ADD COLUMN cause2_cgroup bigint, ADD COLUMN cause_comm_id integer,"
	" ADD COLUMN cause2_comm_id integer, ADD COLUMN file_class smallint;"
	"CREATE TABLE file_classes (class bigint PRIMARY KEY, name text NOT NULL UNIQUE);"
	"INSERT INTO file_classes (class, name) VALUES (0, 'unknown'), (1, 'data'),"
	" (2, 'metadata'), (3, 'journal'), (4, 'swap'), (5, 'raw');"
	"CREATE TABLE paths (trace_id bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,"
	" file_dev bigint NOT NULL, inode bigint NOT NULL, seq bigint NOT NULL, path text NOT NULL,"
	" PRIMARY KEY (trace_id, file_dev, inode, seq));"
	"ALTER TABLE comparisons ADD COLUMN files text;"
	"DROP VIEW io_detail;"
	PG_IO_DETAIL
	"UPDATE blkpeak_schema SET version = 8;";

/* 8 -> 9: the results of suites (as SQLite's schema 9). */
static const char pg_v9[] =
	"CREATE TABLE suite_results (suite_digest text NOT NULL, suite_name text NOT NULL,"
	" workload text NOT NULL, kind text NOT NULL, label text NOT NULL, host text NOT NULL,"
	" repeat_no bigint NOT NULL,"
	" trace_id bigint REFERENCES traces(id) ON DELETE CASCADE,"
	" measurement_id bigint REFERENCES measurements(id) ON DELETE CASCADE,"
	" PRIMARY KEY (suite_digest, workload, label, host, repeat_no));"
	"CREATE INDEX suite_results_name ON suite_results (suite_name, label);"
	"UPDATE blkpeak_schema SET version = 9;";

/* 9 -> 10: the I/Os as SQLite stores them (io_rows partitioned by
 * trace, io_kinds and the side tables; `ios` becomes a view), each
 * trace's rows moved from its old partition. A kind is numbered by
 * dense_rank over the kind columns (NULLs are peers in a sort, so a NULL
 * file or cause column is one kind, as in import). */
static const char pg_v10[] =
	"ALTER TABLE ios RENAME TO ios_v9;"
	"DROP VIEW io_detail;"
	"CREATE TABLE io_rows (issue_ns bigint, sector bigint, idx bigint, trace_id integer,"
	" wait_ns integer, service_ns integer, kind integer) PARTITION BY LIST (trace_id);"
	"CREATE TABLE io_kinds (trace_id integer NOT NULL, kind integer NOT NULL,"
	" dev integer NOT NULL, bytes bigint NOT NULL, op smallint NOT NULL,"
	" flags smallint NOT NULL, pid bigint NOT NULL, comm_id integer NOT NULL,"
	" cgroup_id bigint NOT NULL, error integer NOT NULL, completion smallint NOT NULL,"
	" file_class smallint, file_dev bigint, file_bytes bigint, cause_pid bigint,"
	" cause_comm_id integer, cause_cgroup bigint, PRIMARY KEY (trace_id, kind));"
	"CREATE TABLE io_replay (trace_id integer, idx bigint, sched_ns bigint,"
	" source_index bigint, member integer) PARTITION BY LIST (trace_id);"
	"CREATE TABLE io_files (trace_id integer, idx bigint, inode bigint, file_offset bigint)"
	" PARTITION BY LIST (trace_id);"
	"CREATE TABLE io_files2 (trace_id integer NOT NULL, idx bigint NOT NULL,"
	" file2_dev bigint NOT NULL, inode2 bigint NOT NULL, file2_offset bigint,"
	" file2_bytes bigint NOT NULL, cause2_pid bigint, cause2_comm_id integer,"
	" cause2_cgroup bigint, PRIMARY KEY (trace_id, idx));"
	"CREATE TABLE io_wide (trace_id integer NOT NULL, idx bigint NOT NULL,"
	" wait_ns bigint NOT NULL, service_ns bigint NOT NULL, PRIMARY KEY (trace_id, idx));"
	"CREATE VIEW ios AS SELECT r.trace_id, r.idx,"
	" r.issue_ns - coalesce(r.wait_ns, w.wait_ns) AS queue_ns, r.issue_ns,"
	" r.issue_ns + coalesce(r.service_ns, w.service_ns) AS complete_ns,"
	" r.sector, k.cgroup_id, k.pid, k.bytes, x.sched_ns, x.source_index,"
	" k.file_dev, f.inode, f.file_offset, k.file_bytes,"
	" g.file2_dev, g.inode2, g.file2_offset, g.file2_bytes,"
	" k.cause_pid, k.cause_cgroup, g.cause2_pid, g.cause2_cgroup,"
	" k.comm_id, k.dev, k.error, x.member, k.cause_comm_id, g.cause2_comm_id,"
	" k.op, k.flags, k.completion, k.file_class FROM io_rows r"
	" JOIN io_kinds k ON k.trace_id = r.trace_id AND k.kind = r.kind"
	" LEFT JOIN io_wide w ON w.trace_id = r.trace_id AND w.idx = r.idx"
	" LEFT JOIN io_replay x ON x.trace_id = r.trace_id AND x.idx = r.idx"
	" LEFT JOIN io_files f ON f.trace_id = r.trace_id AND f.idx = r.idx"
	" LEFT JOIN io_files2 g ON g.trace_id = r.trace_id AND g.idx = r.idx;"
	PG_IO_DETAIL
	"DO $$ DECLARE t bigint; fits text :="
	" '(issue_ns - queue_ns BETWEEN -2147483648 AND 2147483647"
	" AND complete_ns - issue_ns BETWEEN -2147483648 AND 2147483647)';"
	" BEGIN FOR t IN SELECT id FROM traces ORDER BY id LOOP"
	" CREATE TEMP TABLE v9_rows AS SELECT o.*, (dense_rank() OVER (ORDER BY dev, bytes, op,"
	" flags, pid, comm_id, cgroup_id, error, completion, file_class, file_dev, file_bytes,"
	" cause_pid, cause_comm_id, cause_cgroup) - 1)::integer AS kind FROM ios_v9 o"
	" WHERE o.trace_id = t;"
	" INSERT INTO io_kinds (trace_id, kind, dev, bytes, op, flags, pid, comm_id, cgroup_id,"
	" error, completion, file_class, file_dev, file_bytes, cause_pid, cause_comm_id,"
	" cause_cgroup) SELECT DISTINCT ON (kind) t, kind, dev, bytes, op, flags, pid, comm_id,"
	" cgroup_id, error, completion, file_class, file_dev, file_bytes, cause_pid,"
	" cause_comm_id, cause_cgroup FROM v9_rows ORDER BY kind;"
	" EXECUTE format('CREATE TABLE io_rows_t%s (LIKE io_rows, CHECK (trace_id = %s))', t, t);"
	" EXECUTE format('INSERT INTO io_rows_t%s SELECT issue_ns, sector, idx, trace_id,"
	" CASE WHEN %s THEN issue_ns - queue_ns END, CASE WHEN %s THEN complete_ns - issue_ns END,"
	" kind FROM v9_rows ORDER BY idx', t, fits, fits);"
	" EXECUTE format('INSERT INTO io_wide SELECT trace_id, idx, issue_ns - queue_ns,"
	" complete_ns - issue_ns FROM v9_rows WHERE NOT %s', fits);"
	" IF EXISTS (SELECT 1 FROM v9_rows WHERE sched_ns IS NOT NULL OR source_index IS NOT NULL"
	" OR member IS NOT NULL) THEN"
	" EXECUTE format('CREATE TABLE io_replay_t%s (LIKE io_replay, CHECK (trace_id = %s))', t, t);"
	" EXECUTE format('INSERT INTO io_replay_t%s SELECT trace_id, idx, sched_ns, source_index,"
	" member FROM v9_rows WHERE sched_ns IS NOT NULL OR source_index IS NOT NULL"
	" OR member IS NOT NULL ORDER BY idx', t);"
	" EXECUTE format('ALTER TABLE io_replay ATTACH PARTITION io_replay_t%s FOR VALUES IN (%s)',"
	" t, t); END IF;"
	" IF EXISTS (SELECT 1 FROM v9_rows WHERE inode IS NOT NULL) THEN"
	" EXECUTE format('CREATE TABLE io_files_t%s (LIKE io_files, CHECK (trace_id = %s))', t, t);"
	" EXECUTE format('INSERT INTO io_files_t%s SELECT trace_id, idx, inode, file_offset"
	" FROM v9_rows WHERE inode IS NOT NULL ORDER BY idx', t);"
	" EXECUTE format('ALTER TABLE io_files ATTACH PARTITION io_files_t%s FOR VALUES IN (%s)',"
	" t, t); END IF;"
	" INSERT INTO io_files2 SELECT trace_id, idx, file2_dev, inode2, file2_offset, file2_bytes,"
	" cause2_pid, cause2_comm_id, cause2_cgroup FROM v9_rows WHERE file2_dev IS NOT NULL;"
	" EXECUTE format('ALTER TABLE io_rows ATTACH PARTITION io_rows_t%s FOR VALUES IN (%s)', t, t);"
	" DROP TABLE v9_rows; END LOOP; END $$;"
	"DROP TABLE ios_v9;"
	"UPDATE blkpeak_schema SET version = 10;";

/* 10 -> 11: the knee search's result and steps in the measurements
 * tables (as SQLite's schema 11); the rows there keep their values. IF
 * NOT EXISTS, as SQLite's add_column: a store made older by hand (the
 * e2e tests) may have them. */
static const char pg_v11[] =
	"ALTER TABLE measurements ADD COLUMN IF NOT EXISTS knee_slo text,"
	" ADD COLUMN IF NOT EXISTS knee_factor double precision;"
	"ALTER TABLE measurement_points ADD COLUMN IF NOT EXISTS speed_factor double precision,"
	" ADD COLUMN IF NOT EXISTS met integer;"
	"UPDATE blkpeak_schema SET version = 11;";

/*
 * Bring a store from `from` to ADB_SCHEMA_VERSION inside the caller's
 * transaction (it holds the schema lock: the version is read again under
 * it, so that two blkpeaks never migrate twice). Each later version adds
 * a case.
 */
static int migrate(PGconn *c, const char *name, int64_t from, struct bpt_error *err)
{
	int64_t tables;
	int rc;

	if ((rc = pg_exec(c, "SELECT pg_advisory_xact_lock(" PG_SCHEMA_LOCK ")", err)) ||
	    (rc = schema_version(c, &from, &tables, err)))
		return rc;
	switch (from) {
	case 7:
		if ((rc = pg_exec(c, pg_v8, err)))
			return rc;
		/* fall through */
	case 8:
		if ((rc = pg_exec(c, pg_v9, err)))
			return rc;
		/* fall through */
	case 9:
		if ((rc = pg_exec(c, pg_v10, err)))
			return rc;
		/* fall through */
	case 10:
		return pg_exec(c, pg_v11, err);
	case ADB_SCHEMA_VERSION:
		return 0; /* done by another blkpeak meanwhile */
	default:
		return bpt_error_set(err, -EPROTO, "%s: schema version %lld has no migration to %d",
				     name, (long long)from, ADB_SCHEMA_VERSION);
	}
}

int pg_open(PGconn **out, const char *value, enum adb_mode mode, struct bpt_error *err)
{
	PGconn *c;
	int64_t version = 0, tables = 0;
	char name[512];
	int rc;

	*out = NULL;
	c = PQconnectdb(value);
	if (!c)
		return bpt_error_set(err, -ENOMEM, "out of memory");
	if (PQstatus(c) != CONNECTION_OK) {
		rc = connect_error(c, value, err);
		PQfinish(c);
		return rc;
	}
	pg_name(c, name, sizeof(name));
	/* messages stay in English and on our side (no NOTICE lines) */
	if ((rc = pg_exec(c, "SET client_min_messages = warning", err)))
		goto fail;
	if ((rc = pg_exec(c, "BEGIN", err)) ||
	    (mode == ADB_CREATE &&
	     (rc = pg_exec(c, "SELECT pg_advisory_xact_lock(" PG_SCHEMA_LOCK ")", err))) ||
	    (rc = schema_version(c, &version, &tables, err)))
		goto fail;
	if (!version && tables > 0) {
		rc = bpt_error_set(err, -ENOTSUP, "%s: not a blkpeak database (%lld tables of another"
				   " application), refusing to touch it", name, (long long)tables);
		goto fail;
	}
	if (version > ADB_SCHEMA_VERSION) {
		rc = bpt_error_set(err, -EPROTO, "%s: schema version %lld is newer than this blkpeak's"
				   " (%d); use a newer blkpeak", name, (long long)version,
				   ADB_SCHEMA_VERSION);
		goto fail;
	}
	if (!version && mode != ADB_CREATE) {
		rc = bpt_error_set(err, -ENOENT, "%s: no blkpeak database there yet (import a trace"
				   " first: blkpeak analyze import FILE --db URI)", name);
		goto fail;
	}
	if (version && version < ADB_SCHEMA_VERSION && mode == ADB_READONLY) {
		rc = bpt_error_set(err, -EPROTO, "%s: old schema version %lld, run 'blkpeak analyze"
				   " import' once to migrate it", name, (long long)version);
		goto fail;
	}
	if (version && version < ADB_SCHEMA_VERSION &&
	    (rc = migrate(c, name, version, err)))
		goto fail;
	if (!version && (rc = pg_exec(c, analyze_schema_pg_sql, err)))
		goto fail;
	if ((rc = pg_exec(c, "COMMIT", err)))
		goto fail;
	*out = c;
	return 0;
fail:
	PQfinish(c);
	return rc;
}
