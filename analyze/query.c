/*
 * query.c — user SQL, read-only, and the row writers (see query.h).
 *
 * Read-only is enforced three times over, so that no single mistake lets
 * a query change the database: the file is opened SQLITE_OPEN_READONLY
 * (adb_open), every statement is compiled before any runs and refused
 * unless sqlite3_stmt_readonly() says it cannot write, and an authorizer
 * denies what that function lets through (ATTACH/DETACH, which only
 * change the connection, PRAGMAs that set something, and functions that
 * are not for reading data: fts3_tokenizer(), load_extension(), ...).
 * SQLite's defensive settings are on (query_guard()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "db.h"
#include "jsonout.h"
#include "query.h"

#define TABLE_SAMPLE 1000 /* rows buffered to size the table's columns */

/* Why the authorizer last said no, for the message. One per process:
 * the CLI guards the one connection it opens (query_guard()). */
struct guard {
	char reason[160];
};
static struct guard guard_state;

/* Functions that are not for reading data: they load code, reach files,
 * or hand out pointers into the process (fts3_tokenizer() returns the
 * address of a tokenizer module, which helps an exploit). */
static const char *const refused_functions[] = {
	"fts3_tokenizer", "load_extension", "readfile", "writefile", "edit",
	"fts5", "sqlite_dbpage", NULL,
};

/* PRAGMAs that take an argument and only read. */
static const char *const read_pragmas[] = {
	"table_info", "table_xinfo", "table_list", "index_info", "index_xinfo",
	"index_list", "foreign_key_list", "foreign_key_check", "integrity_check",
	"quick_check", NULL,
};

static int authorize(void *arg, int action, const char *a, const char *b,
		     const char *dbname, const char *trigger)
{
	struct guard *g = arg;

	(void)dbname;
	(void)trigger;
	switch (action) {
	case SQLITE_ATTACH:
	case SQLITE_DETACH:
		snprintf(g->reason, sizeof(g->reason), "%s is refused: query reads only this database",
			 action == SQLITE_ATTACH ? "ATTACH" : "DETACH");
		return SQLITE_DENY;
	case SQLITE_FUNCTION:
		for (int i = 0; refused_functions[i]; i++)
			if (b && !strcasecmp(b, refused_functions[i])) {
				snprintf(g->reason, sizeof(g->reason),
					 "%s() is refused: query runs only functions that read data",
					 refused_functions[i]);
				return SQLITE_DENY;
			}
		return SQLITE_OK;
	case SQLITE_PRAGMA:
		if (!b)
			return SQLITE_OK;
		for (int i = 0; read_pragmas[i]; i++)
			if (!strcasecmp(a, read_pragmas[i]))
				return SQLITE_OK;
		snprintf(g->reason, sizeof(g->reason),
			 "PRAGMA %s = %s is refused: query does not change settings", a, b);
		return SQLITE_DENY;
	default:
		return SQLITE_OK;
	}
}

int query_guard(sqlite3 *db, struct bpt_error *err)
{
	int rc;

	if ((rc = adb_exec(db, "PRAGMA query_only = 1", err)))
		return rc;
	/* SQLite's own hardening for untrusted SQL (its "Defense against the
	 * dark arts"): no writes to the schema or shadow tables, no
	 * extensions, no functions with side effects run from the schema,
	 * no fts3_tokenizer() pointers, no ATTACH. */
	sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0, NULL);
	sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
	guard_state.reason[0] = 0;
	sqlite3_set_authorizer(db, authorize, &guard_state);
	return 0;
}

/* A statement's text, shortened for a message. */
static void stmt_excerpt(const char *sql, size_t len, char *buf, size_t size)
{
	while (len && (*sql == ' ' || *sql == '\n' || *sql == '\t'))
		sql++, len--;
	if (len > 60) {
		snprintf(buf, size, "%.57s...", sql);
		return;
	}
	snprintf(buf, size, "%.*s", (int)len, sql);
	for (char *p = buf; *p; p++)
		if (*p == '\n' || *p == '\t')
			*p = ' ';
}

/* A cell of the table escaped for a terminal (fmt_text): a value may be
 * a recorded string (a process name) holding control bytes. NULL when
 * out of memory. */
static char *escaped_dup(const char *s)
{
	size_t len = strlen(s) * 4 + 4;
	char *e = malloc(len);

	return e ? fmt_text(s, e, len) : NULL;
}

/* One value as text for table and CSV output (NULL -> ""). */
static const char *cell(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? (const char *)t : "";
}

static void json_value(struct jw *w, sqlite3_stmt *st, int i)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL:
		jw_null(w);
		break;
	case SQLITE_INTEGER:
		jw_i64(w, sqlite3_column_int64(st, i));
		break;
	case SQLITE_FLOAT:
		jw_num(w, sqlite3_column_double(st, i), 9);
		break;
	case SQLITE_BLOB: /* as a hex string */
		jw_hex(w, sqlite3_column_blob(st, i), (size_t)sqlite3_column_bytes(st, i));
		break;
	default:
		jw_str(w, cell(st, i));
	}
}

/* Table output: the first TABLE_SAMPLE rows are kept to size the
 * columns; later rows use the same widths. A column whose first value
 * is a number is right-aligned. */
struct table {
	int ncol;
	int *width;
	int *right;  /* 1: right-align column i */
	char **rows; /* TABLE_SAMPLE * ncol strdup'ed cells */
	long long n;
};

static void table_line(FILE *f, const struct table *t, char **cells)
{
	for (int i = 0; i < t->ncol; i++) {
		int w = t->width[i];
		const char *c = cells[i] ? cells[i] : "";

		if (t->right[i])
			fprintf(f, "%s%*s", i ? "  " : "", w, c);
		else
			fprintf(f, "%s%-*s", i ? "  " : "", i == t->ncol - 1 ? 0 : w, c);
	}
	putc('\n', f);
}

static void table_flush(FILE *f, struct table *t, char **head)
{
	table_line(f, t, head);
	for (int i = 0; i < t->ncol; i++) {
		fputs(i ? "  " : "", f);
		for (int k = 0; k < t->width[i]; k++)
			putc('-', f);
	}
	putc('\n', f);
	for (long long r = 0; r < t->n && r < TABLE_SAMPLE; r++)
		table_line(f, t, t->rows + r * t->ncol);
}

long long query_print(sqlite3 *db, sqlite3_stmt *st, enum q_format fmt, FILE *out,
		      struct bpt_error *err)
{
	int ncol = sqlite3_column_count(st), rc;
	struct table t = { ncol, NULL, NULL, NULL, 0 };
	char **head = NULL, **tmp = NULL;
	long long n = 0;

	if (fmt == Q_TABLE) {
		t.width = calloc(ncol ? ncol : 1, sizeof(*t.width));
		t.right = calloc(ncol ? ncol : 1, sizeof(*t.right));
		t.rows = calloc((size_t)TABLE_SAMPLE * (ncol ? ncol : 1), sizeof(*t.rows));
		head = calloc(ncol ? ncol : 1, sizeof(*head));
		tmp = calloc(ncol ? ncol : 1, sizeof(*tmp));
		if (!t.width || !t.right || !t.rows || !head || !tmp) {
			n = bpt_error_set(err, -ENOMEM, "out of memory");
			goto out;
		}
		for (int i = 0; i < ncol; i++) {
			head[i] = escaped_dup(sqlite3_column_name(st, i));
			if (!head[i]) {
				n = bpt_error_set(err, -ENOMEM, "out of memory");
				goto out;
			}
			t.width[i] = (int)strlen(head[i]);
		}
	} else if (fmt == Q_CSV && ncol) {
		for (int i = 0; i < ncol; i++) {
			if (i)
				putc(',', out);
			csv_str(out, sqlite3_column_name(st, i));
		}
		fputs("\r\n", out);
	} else if (fmt == Q_JSON) {
		putc('[', out);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (fmt == Q_TABLE && n < TABLE_SAMPLE) {
			for (int i = 0; i < ncol; i++) {
				char *s = escaped_dup(cell(st, i));
				int w = s ? (int)strlen(s) : 0;

				t.rows[n * ncol + i] = s ? s : strdup("");
				if (w > t.width[i])
					t.width[i] = w;
				if (n == 0)
					t.right[i] = sqlite3_column_type(st, i) == SQLITE_INTEGER ||
						     sqlite3_column_type(st, i) == SQLITE_FLOAT;
			}
			t.n = n + 1;
		} else if (fmt == Q_TABLE) {
			if (n == TABLE_SAMPLE)
				table_flush(out, &t, head);
			for (int i = 0; i < ncol; i++)
				tmp[i] = escaped_dup(cell(st, i));
			table_line(out, &t, tmp);
			for (int i = 0; i < ncol; i++)
				free(tmp[i]);
		} else if (fmt == Q_CSV) {
			for (int i = 0; i < ncol; i++) {
				if (i)
					putc(',', out);
				if (sqlite3_column_type(st, i) != SQLITE_NULL)
					csv_str(out, cell(st, i));
			}
			fputs("\r\n", out);
		} else {
			/* One row a line inside the array opened above. */
			struct jw w;

			fputs(n ? ",\n" : "\n", out);
			jw_init(&w, out, 0);
			jw_obj(&w);
			for (int i = 0; i < ncol; i++) {
				jw_key(&w, sqlite3_column_name(st, i));
				json_value(&w, st, i);
			}
			jw_obj_end(&w);
		}
		n++;
	}
	if (rc != SQLITE_DONE) {
		n = adb_fail(db, err, "query failed");
		goto out;
	}
	if (fmt == Q_TABLE && ncol && n <= TABLE_SAMPLE)
		table_flush(out, &t, head);
	if (fmt == Q_JSON)
		fputs(n ? "\n]\n" : "]\n", out);
	if (ferror(out))
		n = bpt_error_set(err, -EIO, "cannot write the output");
out:
	if (t.rows)
		for (long long r = 0; r < t.n && r < TABLE_SAMPLE; r++)
			for (int i = 0; i < ncol; i++)
				free(t.rows[r * ncol + i]);
	free(t.rows);
	free(t.width);
	free(t.right);
	for (int i = 0; head && i < ncol; i++)
		free(head[i]);
	free(head);
	free(tmp);
	return n;
}

int query_run(sqlite3 *db, const char *sql, enum q_format fmt, FILE *out,
	      struct bpt_error *err)
{
	sqlite3_stmt **stmts = NULL;
	const char *tail = sql;
	int n = 0, rc = 0;

	while (*tail) {
		const char *start = tail;
		sqlite3_stmt *st = NULL, **grown;
		char excerpt[80];

		guard_state.reason[0] = 0;
		if (sqlite3_prepare_v2(db, tail, -1, &st, &tail) != SQLITE_OK) {
			if (guard_state.reason[0])
				rc = bpt_error_set(err, -EPERM, "%s", guard_state.reason);
			else
				rc = bpt_error_set(err, -EINVAL, "%s", sqlite3_errmsg(db));
			break;
		}
		if (!st) /* only a comment or white space */
			continue;
		stmt_excerpt(start, (size_t)(tail - start), excerpt, sizeof(excerpt));
		if (!sqlite3_stmt_readonly(st)) {
			sqlite3_finalize(st);
			rc = bpt_error_set(err, -EPERM,
				     "'%s': refused, this statement would write; query is read-only",
				     excerpt);
			break;
		}
		grown = realloc(stmts, (n + 1) * sizeof(*stmts));
		if (!grown) {
			sqlite3_finalize(st);
			rc = bpt_error_set(err, -ENOMEM, "out of memory");
			break;
		}
		stmts = grown;
		stmts[n++] = st;
	}
	for (int i = 0; i < n && !rc; i++) {
		long long rows = query_print(db, stmts[i], fmt, out, err);

		if (rows < 0)
			rc = (int)rows;
	}
	for (int i = 0; i < n; i++)
		sqlite3_finalize(stmts[i]);
	free(stmts);
	return rc;
}
