/*
 * vtab_trace.c — the trace_ios(PATH) table-valued function (see
 * vtab_trace.h): an eponymous-only SQLite virtual table over one trace
 * file, read through lib/ (bpt_reader_open), so every format the reader
 * opens is a table.
 *
 * Pushed-down constraints only ever narrow what is read to a superset of
 * the matching rows: their `omit` is never set, so SQLite evaluates each
 * constraint again on every row the table returns, and a constraint the
 * code here cannot evaluate exactly (a value that is not an integer) is
 * simply not used here.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vtab_trace.h"

/* The columns, in CREATE TABLE order. */
enum col {
	C_IDX, C_QUEUE, C_ISSUE, C_COMPLETE, C_DEV, C_SECTOR, C_BYTES, C_OP, C_FLAGS, C_PID,
	C_COMM_ID, C_CGROUP, C_ERROR, C_SCHED, C_SOURCE, C_MEMBER, C_COMPLETION, C_OP_NAME,
	C_COMM, C_SERVICE, C_TOTAL,
	/* the file and cause columns (format 1.3): NULL when the trace has none */
	C_FILE, C_FILE_DEV, C_INODE, C_FILE_OFFSET, C_FILE_BYTES, C_FILE_PATH,
	C_FILE2_DEV, C_INODE2, C_FILE2_OFFSET, C_FILE2_BYTES, C_FILE2_PATH,
	C_CAUSE_PID, C_CAUSE_COMM, C_CAUSE_CGROUP,
	C_CAUSE2_PID, C_CAUSE2_COMM, C_CAUSE2_CGROUP,
	C_PATH, C__COUNT
};

static const char schema[] =
	"CREATE TABLE x(idx INTEGER, queue_ns INTEGER, issue_ns INTEGER, complete_ns INTEGER,"
	" dev INTEGER, sector INTEGER, bytes INTEGER, op INTEGER, flags INTEGER, pid INTEGER,"
	" comm_id INTEGER, cgroup_id INTEGER, error INTEGER, sched_ns INTEGER,"
	" source_index INTEGER, member INTEGER, completion INTEGER, op_name TEXT, comm TEXT,"
	" service_ns INTEGER, total_ns INTEGER,"
	" file TEXT, file_dev INTEGER, inode INTEGER, file_offset INTEGER, file_bytes INTEGER,"
	" file_path TEXT, file2_dev INTEGER, inode2 INTEGER, file2_offset INTEGER,"
	" file2_bytes INTEGER, file2_path TEXT, cause_pid INTEGER, cause_comm TEXT,"
	" cause_cgroup INTEGER, cause2_pid INTEGER, cause2_comm TEXT, cause2_cgroup INTEGER,"
	" path HIDDEN)";

#define MAX_CONS 16        /* integer constraints pushed down at most */
#define PROGRESS_EVERY (1u << 20)

struct progress_hook {
	void (*fn)(void *arg, uint64_t done, uint64_t total);
	void *arg;
};

struct tvtab {
	sqlite3_vtab base;
	struct progress_hook progress;
};

/* One pushed-down constraint: column `col` `op` value (an integer). */
struct cons {
	int col;
	unsigned char op; /* SQLITE_INDEX_CONSTRAINT_EQ, GT, LE, LT, GE */
};

struct tcursor {
	sqlite3_vtab_cursor base;
	struct bpt_reader *r;
	char *path;                /* of r */
	uint32_t cols;             /* the trace's optional columns */
	uint64_t total;            /* its records (0: unknown) */
	int eof;
	struct bpt_record rec;    /* the current row; its idx: bpt_reader_record_index */
	uint64_t since_progress;
	int ncons;
	struct cons cons[MAX_CONS];
	int64_t val[MAX_CONS];
	int use[MAX_CONS];         /* the value is an integer: filter on it */
	double real[MAX_CONS];     /* the value, when a REAL (issue_ns ranges) */
	int is_real[MAX_CONS];
};

/* The plan: idxNum 1 when the path is argv[0]; the pushed-down
 * constraints are argv[1..], their columns and operators in idxStr as
 * "col:op,col:op,...". */

static int tv_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
		      sqlite3_vtab **out, char **errmsg)
{
	struct tvtab *t;
	int rc;

	(void)argc;
	(void)argv;
	(void)errmsg;
	rc = sqlite3_declare_vtab(db, schema);
	if (rc != SQLITE_OK)
		return rc;
	/* No view or trigger may read files through it: only SQL the user
	 * typed does (vtab_trace.h). */
	sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
	t = sqlite3_malloc(sizeof(*t));
	if (!t)
		return SQLITE_NOMEM;
	memset(t, 0, sizeof(*t));
	if (aux)
		t->progress = *(const struct progress_hook *)aux;
	*out = &t->base;
	return SQLITE_OK;
}

static int tv_disconnect(sqlite3_vtab *v)
{
	sqlite3_free(v);
	return SQLITE_OK;
}

/* An integer column a constraint can be checked on before the row exists. */
static int filterable(int col)
{
	return col >= C_IDX && col <= C_COMPLETION;
}

static int filter_op(unsigned char op)
{
	return op == SQLITE_INDEX_CONSTRAINT_EQ || op == SQLITE_INDEX_CONSTRAINT_GT ||
	       op == SQLITE_INDEX_CONSTRAINT_LE || op == SQLITE_INDEX_CONSTRAINT_LT ||
	       op == SQLITE_INDEX_CONSTRAINT_GE;
}

static int tv_best_index(sqlite3_vtab *v, sqlite3_index_info *info)
{
	char plan[MAX_CONS * 8 + 1];
	int argn, have_path = 0, ncons = 0, narrowed = 0;
	size_t len = 0;

	(void)v;
	plan[0] = 0;
	for (int i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &info->aConstraint[i];

		if (c->iColumn == C_PATH && c->op == SQLITE_INDEX_CONSTRAINT_EQ) {
			if (!c->usable)
				return SQLITE_CONSTRAINT; /* a plan that has the path first */
			info->aConstraintUsage[i].argvIndex = 1;
			info->aConstraintUsage[i].omit = 1; /* not a column of any row */
			have_path = 1;
		}
	}
	argn = have_path; /* argv numbers are dense: no path, no argv[0] */
	for (int i = 0; i < info->nConstraint && ncons < MAX_CONS; i++) {
		const struct sqlite3_index_constraint *c = &info->aConstraint[i];

		if (!have_path)
			break; /* a plan without the file is refused in xFilter */
		if (!c->usable || !filterable(c->iColumn) || !filter_op(c->op))
			continue;
		info->aConstraintUsage[i].argvIndex = ++argn;
		info->aConstraintUsage[i].omit = 0; /* SQLite checks every row again */
		len += (size_t)snprintf(plan + len, sizeof(plan) - len, "%s%d:%d", ncons ? "," : "",
					c->iColumn, c->op);
		ncons++;
		narrowed |= c->iColumn == C_ISSUE || c->iColumn == C_DEV || c->iColumn == C_OP;
	}
	info->idxNum = have_path;
	if (ncons) {
		info->idxStr = sqlite3_mprintf("%s", plan);
		if (!info->idxStr)
			return SQLITE_NOMEM;
		info->needToFreeIdxStr = 1;
	}
	/* rows come in file order: ORDER BY idx costs nothing */
	if (info->nOrderBy == 1 && info->aOrderBy[0].iColumn == C_IDX && !info->aOrderBy[0].desc)
		info->orderByConsumed = 1;
	info->estimatedRows = narrowed ? 100000 : 10000000;
	info->estimatedCost = have_path ? (narrowed ? 1e5 : 1e7) : 1e300;
	return SQLITE_OK;
}

static int tv_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out)
{
	struct tcursor *c = sqlite3_malloc(sizeof(*c));

	(void)v;
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->eof = 1;
	*out = &c->base;
	return SQLITE_OK;
}

static int tv_close(sqlite3_vtab_cursor *cur)
{
	struct tcursor *c = (struct tcursor *)cur;

	bpt_reader_close(c->r);
	free(c->path);
	sqlite3_free(c);
	return SQLITE_OK;
}

static int fail(struct tcursor *c, const char *fmt, const char *a)
{
	sqlite3_vtab *v = c->base.pVtab;

	sqlite3_free(v->zErrMsg);
	v->zErrMsg = sqlite3_mprintf(fmt, a);
	c->eof = 1;
	return SQLITE_ERROR;
}

/* Column `col` of the current record as SQL sees it (an int64), and
 * whether it is NULL (an optional column the trace does not carry). */
static int64_t int_col(const struct tcursor *c, int col, int *null)
{
	const struct bpt_record *r = &c->rec;

	*null = 0;
	switch (col) {
	case C_IDX: return (int64_t)bpt_reader_record_index(c->r);
	case C_QUEUE: return (int64_t)(r->queue_ns ? r->queue_ns : r->issue_ns);
	case C_ISSUE: return (int64_t)r->issue_ns;
	case C_COMPLETE: return (int64_t)r->complete_ns;
	case C_DEV: return r->dev;
	case C_SECTOR: return (int64_t)r->sector;
	case C_BYTES: return r->bytes;
	case C_OP: return r->op;
	case C_FLAGS: return r->flags;
	case C_PID: return r->pid;
	case C_COMM_ID: return r->comm_id;
	case C_CGROUP: return (int64_t)r->cgroup_id;
	case C_ERROR: return r->error;
	case C_SCHED: *null = !(c->cols & BPT_COL_SCHED); return (int64_t)r->sched_ns;
	case C_SOURCE: *null = !(c->cols & BPT_COL_SOURCE); return (int64_t)r->source_index;
	case C_MEMBER: *null = !(c->cols & BPT_COL_MEMBER); return r->member;
	case C_COMPLETION: return r->completion;
	case C_SERVICE: return (int64_t)(r->complete_ns - r->issue_ns);
	case C_TOTAL: return (int64_t)(r->complete_ns - (r->queue_ns ? r->queue_ns : r->issue_ns));
	/* a file's fields only for data (NULL otherwise, and an unknown offset) */
	case C_FILE_DEV:
		*null = !(c->cols & BPT_COL_FILE) || !r->file_dev;
		return r->file_dev;
	case C_INODE: *null = !(c->cols & BPT_COL_FILE) || r->file_class != BPT_FILE_DATA;
		return (int64_t)r->inode;
	case C_FILE_OFFSET:
		*null = !(c->cols & BPT_COL_FILE) || r->file_class != BPT_FILE_DATA ||
			r->file_offset == BPT_FILE_OFFSET_UNKNOWN;
		return (int64_t)r->file_offset;
	case C_FILE_BYTES: *null = !(c->cols & BPT_COL_FILE) || r->file_class != BPT_FILE_DATA;
		return r->file_bytes;
	case C_FILE2_DEV: *null = !(c->cols & BPT_COL_FILE) || !r->file2_bytes;
		return r->file2_dev;
	case C_INODE2: *null = !(c->cols & BPT_COL_FILE) || !r->file2_bytes;
		return (int64_t)r->inode2;
	case C_FILE2_OFFSET:
		*null = !(c->cols & BPT_COL_FILE) || !r->file2_bytes ||
			r->file2_offset == BPT_FILE_OFFSET_UNKNOWN;
		return (int64_t)r->file2_offset;
	case C_FILE2_BYTES: *null = !(c->cols & BPT_COL_FILE) || !r->file2_bytes;
		return r->file2_bytes;
	case C_CAUSE_PID: *null = !(c->cols & BPT_COL_CAUSE) || !r->cause_pid;
		return r->cause_pid;
	case C_CAUSE_CGROUP: *null = !(c->cols & BPT_COL_CAUSE) || !r->cause_pid;
		return (int64_t)r->cause_cgroup;
	/* the task that caused the second file's part */
	case C_CAUSE2_PID: *null = !(c->cols & BPT_COL_CAUSE) || !r->cause2_pid;
		return r->cause2_pid;
	case C_CAUSE2_CGROUP: *null = !(c->cols & BPT_COL_CAUSE) || !r->cause2_pid;
		return (int64_t)r->cause2_cgroup;
	default: *null = 1; return 0;
	}
}

/* Does the current record pass every pushed-down constraint? Exactly
 * SQL's answer for an integer value; NULL compares false. */
static int passes(const struct tcursor *c)
{
	for (int i = 0; i < c->ncons; i++) {
		int null;
		int64_t x, v = c->val[i];

		if (!c->use[i])
			continue;
		x = int_col(c, c->cons[i].col, &null);
		if (null)
			return 0;
		switch (c->cons[i].op) {
		case SQLITE_INDEX_CONSTRAINT_EQ: if (x != v) return 0; break;
		case SQLITE_INDEX_CONSTRAINT_GT: if (x <= v) return 0; break;
		case SQLITE_INDEX_CONSTRAINT_GE: if (x < v) return 0; break;
		case SQLITE_INDEX_CONSTRAINT_LT: if (x >= v) return 0; break;
		case SQLITE_INDEX_CONSTRAINT_LE: if (x > v) return 0; break;
		}
	}
	return 1;
}

static int tv_next(sqlite3_vtab_cursor *cur)
{
	struct tcursor *c = (struct tcursor *)cur;
	struct tvtab *t = (struct tvtab *)cur->pVtab;
	struct bpt_error err; /* filled by the reader on an error; not cleared per row */
	int rc;

	err.code = 0;
	err.msg[0] = 0;

	while ((rc = bpt_reader_next(c->r, &c->rec, &err)) == 1) {
		if (t->progress.fn && ++c->since_progress >= PROGRESS_EVERY) {
			c->since_progress = 0;
			t->progress.fn(t->progress.arg, bpt_reader_record_index(c->r) + 1, c->total);
		}
		if (c->rec.internal)
			continue; /* a raid5/raid6 run's own member I/O: not a request,
				   * not in the database's ios either */
		if (!c->ncons || passes(c))
			return SQLITE_OK;
	}
	c->eof = 1;
	if (rc < 0)
		return fail(c, "trace_ios: %s", err.msg);
	return SQLITE_OK;
}

/* Narrow [lo, hi] (issue times, unsigned) by one integer constraint on
 * issue_ns; *empty when nothing can match. */
static void narrow(unsigned char op, int64_t v, uint64_t *lo, uint64_t *hi, int *empty)
{
	switch (op) {
	case SQLITE_INDEX_CONSTRAINT_EQ:
		if (v < 0) { *empty = 1; return; }
		*lo = (uint64_t)v > *lo ? (uint64_t)v : *lo;
		*hi = (uint64_t)v < *hi ? (uint64_t)v : *hi;
		return;
	case SQLITE_INDEX_CONSTRAINT_GT:
		if (v == INT64_MAX) { *empty = 1; return; }
		v++;
		/* fall through */
	case SQLITE_INDEX_CONSTRAINT_GE:
		if (v > 0 && (uint64_t)v > *lo)
			*lo = (uint64_t)v;
		return;
	case SQLITE_INDEX_CONSTRAINT_LT:
		if (v <= 0) { *empty = 1; return; }
		v--;
		/* fall through */
	case SQLITE_INDEX_CONSTRAINT_LE:
		if (v < 0) { *empty = 1; return; }
		if ((uint64_t)v < *hi)
			*hi = (uint64_t)v;
		return;
	}
}

/* The same for a REAL value (issue_ns BETWEEN 60e9 AND 61e9), widened
 * to the integers around it: the range read is then a superset of the
 * matching rows, which SQLite alone picks (passes() uses no REAL). */
static void narrow_real(unsigned char op, double x, uint64_t *lo, uint64_t *hi, int *empty)
{
	if (x != x) /* NaN: compares false with everything */
		return;
	if (op == SQLITE_INDEX_CONSTRAINT_EQ || op == SQLITE_INDEX_CONSTRAINT_GT ||
	    op == SQLITE_INDEX_CONSTRAINT_GE) {
		if (x > 9.3e18)
			*empty = 1; /* above every int64 */
		else if (x > 0 && x < 9.2e18) /* else: not narrowed */
			narrow(SQLITE_INDEX_CONSTRAINT_GE, (int64_t)floor(x), lo, hi, empty);
	}
	if (op == SQLITE_INDEX_CONSTRAINT_EQ || op == SQLITE_INDEX_CONSTRAINT_LT ||
	    op == SQLITE_INDEX_CONSTRAINT_LE) {
		if (x < 0)
			*empty = 1;
		else if (x < 9.2e18)
			narrow(SQLITE_INDEX_CONSTRAINT_LE, (int64_t)ceil(x), lo, hi, empty);
	}
}

/* Open (or rewind, for the same file) the cursor's reader. */
static int open_reader(struct tcursor *c, const char *path)
{
	struct bpt_error err = { 0 };
	struct bpt_stats st;

	if (c->r && !strcmp(c->path, path)) {
		bpt_reader_rewind(c->r, NULL);
		return SQLITE_OK;
	}
	bpt_reader_close(c->r);
	free(c->path);
	c->r = NULL;
	if (!(c->path = strdup(path)))
		return SQLITE_NOMEM;
	if (bpt_reader_open(&c->r, path, &err))
		return fail(c, "trace_ios: %s", err.msg);
	c->cols = bpt_reader_header(c->r)->columns;
	bpt_reader_stats(c->r, &st);
	c->total = st.complete ? st.records : 0;
	return SQLITE_OK;
}

static int tv_filter(sqlite3_vtab_cursor *cur, int idxnum, const char *idxstr, int argc,
		     sqlite3_value **argv)
{
	struct tcursor *c = (struct tcursor *)cur;
	uint64_t lo = 0, hi = UINT64_MAX;
	struct bpt_stats st;
	int empty = 0, rc, a = 1;
	const char *path;

	c->eof = 1;
	c->ncons = 0;
	if (!(idxnum & 1) || argc < 1)
		return fail(c, "%s", "trace_ios() needs a trace file: FROM trace_ios('trace.bpt')");
	if (sqlite3_value_type(argv[0]) != SQLITE_TEXT)
		return fail(c, "%s", "trace_ios(): the argument is the path of a trace file, as text");
	path = (const char *)sqlite3_value_text(argv[0]);
	if ((rc = open_reader(c, path)) != SQLITE_OK)
		return rc;
	for (const char *p = idxstr; p && *p && a < argc && c->ncons < MAX_CONS; a++) {
		int col = 0, op = 0, n = 0;
		sqlite3_value *val = argv[a];

		if (sscanf(p, "%d:%d%n", &col, &op, &n) != 2)
			break;
		p += n + (p[n] == ',');
		c->cons[c->ncons] = (struct cons){ col, (unsigned char)op };
		c->use[c->ncons] = sqlite3_value_type(val) == SQLITE_INTEGER;
		c->val[c->ncons] = sqlite3_value_int64(val);
		c->is_real[c->ncons] = sqlite3_value_type(val) == SQLITE_FLOAT;
		c->real[c->ncons] = sqlite3_value_double(val);
		if (sqlite3_value_type(val) == SQLITE_NULL)
			empty = 1; /* x op NULL is never true */
		c->ncons++;
	}
	/* A range of issue times skips blocks, by the unsigned times of the
	 * file: only when every time of the file is a non-negative int64, as
	 * SQL compares them. */
	bpt_reader_stats(c->r, &st);
	if (st.complete && st.last_issue_ns <= INT64_MAX) {
		for (int i = 0; i < c->ncons; i++) {
			if (c->cons[i].col != C_ISSUE)
				continue;
			if (c->use[i])
				narrow(c->cons[i].op, c->val[i], &lo, &hi, &empty);
			else if (c->is_real[i])
				narrow_real(c->cons[i].op, c->real[i], &lo, &hi, &empty);
		}
		if (!empty && lo > hi)
			empty = 1;
		if (!empty && (lo || hi != UINT64_MAX))
			bpt_reader_set_issue_range(c->r, lo, hi);
	}
	c->since_progress = 0;
	c->eof = 0;
	if (empty) {
		c->eof = 1;
		return SQLITE_OK;
	}
	return tv_next(cur);
}

static int tv_eof(sqlite3_vtab_cursor *cur)
{
	return ((struct tcursor *)cur)->eof;
}

static int tv_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct tcursor *c = (struct tcursor *)cur;
	const char *s;
	int null;
	int64_t v;

	switch (col) {
	case C_OP_NAME:
		sqlite3_result_text(ctx, bpt_op_name(c->rec.op), -1, SQLITE_STATIC);
		return SQLITE_OK;
	case C_COMM:
		/* the reader keeps its strings until it is closed, and a row
		 * lives shorter than the cursor */
		s = bpt_reader_string(c->r, c->rec.comm_id);
		if (s)
			sqlite3_result_text(ctx, s, -1, SQLITE_TRANSIENT);
		else
			sqlite3_result_null(ctx);
		return SQLITE_OK;
	case C_PATH:
		sqlite3_result_text(ctx, c->path, -1, SQLITE_TRANSIENT);
		return SQLITE_OK;
	case C_FILE:
		if (c->cols & BPT_COL_FILE)
			sqlite3_result_text(ctx, bpt_file_class_name(c->rec.file_class), -1,
					    SQLITE_STATIC);
		else
			sqlite3_result_null(ctx);
		return SQLITE_OK;
	case C_FILE_PATH:
	case C_FILE2_PATH:
		s = NULL;
		if ((c->cols & BPT_COL_FILE) && c->rec.file_class == BPT_FILE_DATA)
			s = col == C_FILE_PATH
			    ? bpt_reader_path(c->r, c->rec.file_dev, c->rec.inode)
			    : c->rec.file2_bytes
			    ? bpt_reader_path(c->r, c->rec.file2_dev, c->rec.inode2) : NULL;
		if (s)
			sqlite3_result_text(ctx, s, -1, SQLITE_TRANSIENT);
		else
			sqlite3_result_null(ctx);
		return SQLITE_OK;
	case C_CAUSE_COMM:
	case C_CAUSE2_COMM:
		s = NULL;
		if ((c->cols & BPT_COL_CAUSE) && col == C_CAUSE_COMM && c->rec.cause_pid)
			s = bpt_reader_string(c->r, c->rec.cause_comm_id);
		else if ((c->cols & BPT_COL_CAUSE) && col == C_CAUSE2_COMM && c->rec.cause2_pid)
			s = bpt_reader_string(c->r, c->rec.cause2_comm_id);
		if (s)
			sqlite3_result_text(ctx, s, -1, SQLITE_TRANSIENT);
		else
			sqlite3_result_null(ctx);
		return SQLITE_OK;
	}
	v = int_col(c, col, &null);
	if (null)
		sqlite3_result_null(ctx);
	else
		sqlite3_result_int64(ctx, v);
	return SQLITE_OK;
}

static int tv_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = (sqlite3_int64)bpt_reader_record_index(((struct tcursor *)cur)->r);
	return SQLITE_OK;
}

static const sqlite3_module trace_module = {
	.iVersion = 0,
	.xCreate = NULL, /* eponymous only: no CREATE VIRTUAL TABLE */
	.xConnect = tv_connect,
	.xBestIndex = tv_best_index,
	.xDisconnect = tv_disconnect,
	.xDestroy = tv_disconnect,
	.xOpen = tv_open,
	.xClose = tv_close,
	.xFilter = tv_filter,
	.xNext = tv_next,
	.xEof = tv_eof,
	.xColumn = tv_column,
	.xRowid = tv_rowid,
};

int vtab_trace_register(sqlite3 *db, void (*progress)(void *arg, uint64_t done, uint64_t total),
			void *progress_arg, struct bpt_error *err)
{
	struct progress_hook *hook = NULL;

	if (progress) {
		hook = sqlite3_malloc(sizeof(*hook));
		if (!hook)
			return bpt_error_set(err, -ENOMEM, "out of memory");
		hook->fn = progress;
		hook->arg = progress_arg;
	}
	if (sqlite3_create_module_v2(db, "trace_ios", &trace_module, hook, sqlite3_free) != SQLITE_OK)
		return bpt_error_set(err, -EIO, "cannot register trace_ios: %s", sqlite3_errmsg(db));
	return 0;
}
