/*
 * compare.c — compute, store and print comparisons (see compare.h).
 * Each entry's figures come from the same st_report_compute() as
 * `report`, so a comparison never disagrees with the reports.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cliutil.h"
#include "compare.h"
#include "db.h"
#include "jsonout.h"
#include "partial.h"
#include "report.h"
#include "run_label.h"

/* An escaped label or key (fmt_text): 4 bytes per byte at worst. */
#define ESC_LABEL (sizeof(((struct cmp_entry *)0)->label) * 4 + 4)

int cmp_expand_ids(sqlite3 *db, const int64_t *ids, int n, int64_t **out, int *nout,
		   struct bpt_error *err)
{
	static const char sql[] =
		"SELECT t.id, r.trace_id IS NOT NULL, s.trace_id FROM traces t"
		" LEFT JOIN runs r ON r.trace_id = t.id"
		" LEFT JOIN runs s ON s.source_digest = t.digest"
		" WHERE t.id = ? ORDER BY s.trace_id";
	sqlite3_stmt *st;
	int64_t *v, *grown;
	int rc, k = 0, rows = 0;

	if (!(v = malloc((n >= 2 ? n : 1) * sizeof(*v))))
		return bpt_error_set(err, -ENOMEM, "out of memory");
	memcpy(v, ids, n * sizeof(*v));
	if (n >= 2) {
		*out = v;
		*nout = n;
		return 0;
	}
	/* one id: the trace, then every run whose source digest is its digest */
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		free(v);
		return adb_fail(db, err, "cannot look up the runs");
	}
	sqlite3_bind_int64(st, 1, ids[0]);
	k = 1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		rows++;
		if (sqlite3_column_int(st, 1)) {
			rc = bpt_error_set(err, -EINVAL, "trace %lld is a run: give the runs to compare, or"
				     " the trace they replayed", (long long)ids[0]);
			break;
		}
		if (sqlite3_column_type(st, 2) == SQLITE_NULL)
			continue;
		if (!(grown = realloc(v, (k + 1) * sizeof(*v)))) {
			rc = bpt_error_set(err, -ENOMEM, "out of memory");
			break;
		}
		v = grown;
		v[k++] = sqlite3_column_int64(st, 2);
	}
	if (rc == SQLITE_DONE && rows == 0)
		rc = bpt_error_set(err, -ENOENT, "no trace with id %lld in the database", (long long)ids[0]);
	else if (rc == SQLITE_DONE && k == 1)
		rc = bpt_error_set(err, -EINVAL, "trace %lld has no runs in the database to compare with",
			     (long long)ids[0]);
	else if (rc == SQLITE_DONE)
		rc = 0;
	else if (rc > 0)
		rc = adb_fail(db, err, "cannot look up the runs");
	sqlite3_finalize(st);
	if (rc) {
		free(v);
		return rc;
	}
	*out = v;
	*nout = k;
	return 0;
}

/* Label and key (the digest of the I/O's origin) of one entry. */
static int describe(sqlite3 *db, struct cmp_entry *e, struct bpt_error *err)
{
	static const char sql[] =
		"SELECT t.digest, t.path, r.trace_id IS NOT NULL, r.source_digest, r.target,"
		" r.timing, t.label FROM traces t LEFT JOIN runs r ON r.trace_id = t.id WHERE t.id = ?";
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return adb_fail(db, err, "cannot read the trace");
	sqlite3_bind_int64(st, 1, e->trace_id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return rc == SQLITE_DONE ? bpt_error_set(err, -ENOENT, "no trace with id %lld in the database",
						   (long long)e->trace_id)
					 : adb_fail(db, err, "cannot read the trace");
	}
	const char *digest = (const char *)sqlite3_column_text(st, 0);
	const char *path = (const char *)sqlite3_column_text(st, 1);
	const char *src = (const char *)sqlite3_column_text(st, 3);
	const char *target = (const char *)sqlite3_column_text(st, 4);
	const char *timing = (const char *)sqlite3_column_text(st, 5);
	const char *given = (const char *)sqlite3_column_text(st, 6);

	e->is_run = sqlite3_column_int(st, 2);
	snprintf(e->key, sizeof(e->key), "%s", e->is_run && src ? src : digest);
	run_label_make(given, e->is_run ? target : NULL, path, e->label, sizeof(e->label));
	/* a repeat of the same configuration has the same group */
	snprintf(e->group, sizeof(e->group), "%s\n%.700s\n%s", e->label, target ? target : path,
		 timing ? timing : "");
	sqlite3_finalize(st);
	return 0;
}

/* Label and key of an entry read from a file, from its report (the
 * facts describe() reads from the database, taken from the same header). */
static void describe_file(struct cmp_entry *e)
{
	const struct st_report *r = &e->rep;

	e->is_run = r->is_run;
	snprintf(e->key, sizeof(e->key), "%s", e->is_run && r->source_digest[0] ? r->source_digest
										  : r->digest);
	run_label_make(r->label, e->is_run ? r->target : NULL, r->path, e->label, sizeof(e->label));
	snprintf(e->group, sizeof(e->group), "%s\n%.700s\n%s", e->label,
		 e->is_run && r->target[0] ? r->target : r->path, r->timing);
}

/* An entry's name in messages: "trace 3", or the file. */
static const char *entry_name(const struct cmp_entry *e, char *buf, size_t len)
{
	if (e->trace_id)
		snprintf(buf, len, "trace %lld", (long long)e->trace_id);
	else
		fmt_text(e->rep.path, buf, len);
	return buf;
}

int cmp_compute(sqlite3 *db, const int64_t *ids, int n, int flags, struct cmp *c,
		struct bpt_error *err)
{
	struct cmp_arg *args = calloc(n ? n : 1, sizeof(*args));
	int rc;

	if (!args)
		return bpt_error_set(err, -ENOMEM, "out of memory");
	for (int i = 0; i < n; i++)
		args[i].id = ids[i];
	rc = cmp_compute_args(db, args, n, flags, c, err);
	free(args);
	return rc;
}

int cmp_compute_args(sqlite3 *db, const struct cmp_arg *args, int n, int flags, struct cmp *c,
		     struct bpt_error *err)
{
	int force = flags & CMP_FORCE;
	int rc = 0;

	memset(c, 0, sizeof(*c));
	if (!(c->e = calloc(n, sizeof(*c->e))))
		return bpt_error_set(err, -ENOMEM, "out of memory");
	for (int i = 0; i < n && !rc; i++) {
		struct cmp_entry *e = &c->e[i];
		char name[ESC_LABEL], name0[ESC_LABEL];

		e->trace_id = args[i].id;
		if (args[i].path) {
			if ((rc = st_report_compute_file(args[i].path, &e->rep, 0, 1, err)))
				break;
			describe_file(e);
		} else if ((rc = describe(db, e, err)) ||
			   (rc = st_report_compute(db, e->trace_id, &e->rep, err))) {
			break;
		}
		c->n = i + 1; /* from here on e->rep is cmp_free's */
		if (strcmp(e->key, c->e[0].key)) {
			if (!force) {
				char k[ESC_LABEL], k0[ESC_LABEL];

				rc = bpt_error_set(err, -EXDEV,
					     "%s comes from trace digest %s, %s from %s:"
					     " not the same I/O (--force compares them anyway)",
					     entry_name(e, name, sizeof(name)), fmt_text(e->key, k, sizeof(k)),
					     entry_name(&c->e[0], name0, sizeof(name0)),
					     fmt_text(c->e[0].key, k0, sizeof(k0)));
				break;
			}
			c->forced = 1;
		}
		if (e->rep.partial.partial) {
			if (!(flags & CMP_ALLOW_PARTIAL)) {
				rc = bpt_error_set(err, -EINVAL,
					     "%s is a partial run (%s): its figures cover only"
					     " part of the trace; --allow-partial compares it anyway",
					     entry_name(e, name, sizeof(name)), e->rep.partial.text);
				break;
			}
			size_t l = strlen(e->label);

			snprintf(e->label + l, sizeof(e->label) - l, " %s", e->rep.partial.text);
		}
		st_report_free(&e->rep); /* the series is not compared */
	}
	if (rc) {
		cmp_free(c);
		return rc;
	}
	for (int i = 0; i < n; i++) {
		double t0 = (double)c->e[0].rep.duration_ns, t = (double)c->e[i].rep.duration_ns;

		c->e[i].time_saved_pct = t0 > 0 ? (t0 - t) / t0 * 100 : 0;
		c->e[i].speedup_pct = t > 0 ? (t0 / t - 1) * 100 : 0;
	}
	return 0;
}

int cmp_store(sqlite3 *db, struct cmp *c, struct bpt_error *err)
{
	static const char entry_sql[] =
		"INSERT INTO comparison_entries VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
	sqlite3_stmt *st = NULL;
	char now[32];
	int rc;

	for (int i = 0; i < c->n; i++)
		if (!c->e[i].trace_id)
			return bpt_error_set(err, -EINVAL, "a comparison of files read in place is"
					     " not stored (import them to store it)");
	if ((rc = adb_exec(db, "BEGIN IMMEDIATE", err)))
		return rc;
	if (sqlite3_prepare_v2(db, "INSERT INTO comparisons (created_at, baseline_trace_id,"
			       " source_digest, forced) VALUES (?,?,?,?)", -1, &st, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_text(st, 1, adb_utc_now(now, sizeof(now)), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, c->e[0].trace_id);
	if (!c->forced)
		sqlite3_bind_text(st, 3, c->e[0].key, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, c->forced);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	c->id = sqlite3_last_insert_rowid(db);
	if (sqlite3_prepare_v2(db, entry_sql, -1, &st, NULL) != SQLITE_OK)
		goto fail;
	for (int i = 0; i < c->n; i++) {
		const struct cmp_entry *e = &c->e[i];
		const struct st_report *r = &e->rep;

		sqlite3_bind_int64(st, 1, c->id);
		sqlite3_bind_int(st, 2, i);
		sqlite3_bind_int64(st, 3, e->trace_id);
		sqlite3_bind_text(st, 4, e->label, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 5, (int64_t)r->duration_ns);
		sqlite3_bind_int64(st, 6, (int64_t)r->ios);
		sqlite3_bind_int64(st, 7, (int64_t)r->bytes);
		sqlite3_bind_double(st, 8, r->iops);
		sqlite3_bind_double(st, 9, r->mbps);
		sqlite3_bind_double(st, 10, e->time_saved_pct);
		sqlite3_bind_double(st, 11, e->speedup_pct);
		sqlite3_bind_int64(st, 12, (int64_t)r->all_service.pct[0]);
		sqlite3_bind_int64(st, 13, (int64_t)r->all_service.pct[2]);
		sqlite3_bind_int64(st, 14, (int64_t)r->all_service.pct[3]);
		sqlite3_bind_int64(st, 15, (int64_t)r->all_total.pct[0]);
		sqlite3_bind_int64(st, 16, (int64_t)r->all_total.pct[2]);
		sqlite3_bind_int64(st, 17, (int64_t)r->all_total.pct[3]);
		sqlite3_bind_int64(st, 18, (int64_t)r->errors);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto fail;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return adb_exec(db, "COMMIT", err);
fail:
	rc = adb_fail(db, err, "cannot store the comparison");
	sqlite3_finalize(st);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	c->id = 0;
	return rc;
}

void cmp_free(struct cmp *c)
{
	for (int i = 0; c->e && i < c->n; i++)
		st_report_free(&c->e[i].rep);
	free(c->e);
	c->e = NULL;
	c->n = 0;
}

/* A cell of the text table: entry e's figure (`arg` picks a percentile
 * where there are several) into b. */
typedef void cell_fn(const struct cmp_entry *e, int arg, char *b, size_t l);

/* One row of the text table: a name, then one cell per entry, entry i
 * right-aligned in w[i] columns. */
static void row(FILE *f, const struct cmp *c, const int *w, const char *name, cell_fn *cellf,
		int arg)
{
	char buf[ESC_LABEL];

	fprintf(f, "%-16s", name);
	for (int i = 0; i < c->n; i++) {
		cellf(&c->e[i], arg, buf, sizeof(buf));
		fprintf(f, "  %*s", w[i], buf);
	}
	fputc('\n', f);
}

static void c_id(const struct cmp_entry *e, int arg __attribute__((unused)), char *b, size_t l)
{
	if (e->trace_id)
		snprintf(b, l, "trace %" PRId64, e->trace_id);
	else
		snprintf(b, l, "file"); /* read in place */
}
static void c_label(const struct cmp_entry *e, int arg __attribute__((unused)), char *b, size_t l)
{
	fmt_text(e->label, b, l); /* labels are made of recorded strings */
}
static void c_time(const struct cmp_entry *e, int arg __attribute__((unused)), char *b, size_t l) { fmt_ns((double)e->rep.duration_ns, b, (int)l); }
static void c_saved(const struct cmp_entry *e, int arg __attribute__((unused)), char *b, size_t l) { snprintf(b, l, "%+.1f%%", e->time_saved_pct); }
static void c_speedup(const struct cmp_entry *e, int arg __attribute__((unused)), char *b, size_t l) { snprintf(b, l, "%+.1f%%", e->speedup_pct); }
static void c_ios(const struct cmp_entry *e, int arg __attribute__((unused)), char *b, size_t l) { snprintf(b, l, "%" PRIu64, e->rep.ios); }
static void c_iops(const struct cmp_entry *e, int arg __attribute__((unused)), char *b, size_t l) { snprintf(b, l, "%.1f", e->rep.iops); }
static void c_mbps(const struct cmp_entry *e, int arg __attribute__((unused)), char *b, size_t l) { snprintf(b, l, "%.2f", e->rep.mbps); }
static void c_errors(const struct cmp_entry *e, int arg __attribute__((unused)), char *b, size_t l) { snprintf(b, l, "%" PRIu64, e->rep.errors); }
static void c_mean_depth(const struct cmp_entry *e, int arg __attribute__((unused)), char *b, size_t l) { snprintf(b, l, "%.2f", e->rep.mean_depth); }

static void c_svc(const struct cmp_entry *e, int arg, char *b, size_t l) { fmt_ns((double)e->rep.all_service.pct[arg], b, (int)l); }
static void c_fidelity(const struct cmp_entry *e, int arg, char *b, size_t l) { run_verify_cell(&e->rep.verify, (enum rv_field)arg, b, l); }
static void c_faithful(const struct cmp_entry *e, int arg __attribute__((unused)), char *b, size_t l)
{
	int v = run_verify_faithful(&e->rep.verify);

	snprintf(b, l, "%s", !e->rep.verify.verified ? "-" : v > 0 ? "yes" : v == 0 ? "NO" : "?");
}
static void c_late(const struct cmp_entry *e, int arg, char *b, size_t l)
{
	if (e->rep.lateness.count)
		fmt_ns((double)e->rep.lateness.pct[arg], b, (int)l);
	else
		snprintf(b, l, "-"); /* no due times: not a run */
}

/* The rows of a run's timing: its own clock, then the kernel's view
 * (replay --verify), "-" where an entry has neither; and a warning line
 * under the table for each run the kernel did not see as the trace. */
static void fidelity_rows(FILE *f, const struct cmp *c, const int *w)
{
	static const struct { const char *name; enum rv_field field; } rows[] = {
		{ "  I/Os compared", RV_IOS }, { "  present", RV_PRESENT },
		{ "  missing", RV_MISSING }, { "  misplaced", RV_MISPLACED },
		{ "  lost events", RV_LOST }, { "  issue err p50", RV_ERR_P50 },
		{ "  issue err p99", RV_ERR_P99 }, { "  issue err max", RV_ERR_MAX },
		{ "  drift", RV_DRIFT },
	};
	static const struct { const char *name; int pct; } late[] = {
		{ "  lateness p50", 0 }, { "  lateness p99", 2 }, { "  lateness max", 5 },
	};
	int any = 0, verified = 0;

	for (int i = 0; i < c->n; i++) {
		any |= c->e[i].rep.is_run || c->e[i].rep.verify.verified;
		verified |= c->e[i].rep.verify.verified;
	}
	if (!any)
		return;
	fprintf(f, "replayer's clock (issue - due)\n");
	for (unsigned k = 0; k < sizeof(late) / sizeof(late[0]); k++)
		row(f, c, w, late[k].name, c_late, late[k].pct);
	fprintf(f, "fidelity (replay --verify: the kernel's view, issue - due)\n");
	if (!verified) { /* ten rows of dashes say less than this */
		fprintf(f, "  (no entry ran with replay --verify)\n");
		return;
	}
	for (unsigned k = 0; k < sizeof(rows) / sizeof(rows[0]); k++)
		row(f, c, w, rows[k].name, c_fidelity, rows[k].field);
	row(f, c, w, "  faithful", c_faithful, 0);
}
static void c_tot(const struct cmp_entry *e, int arg, char *b, size_t l) { fmt_ns((double)e->rep.all_total.pct[arg], b, (int)l); }

void cmp_print_text(FILE *f, const struct cmp *c)
{
	char name[32], label[ESC_LABEL], first[ESC_LABEL];
	int *w = calloc(c->n, sizeof(*w)); /* each column as wide as its label */

	if (!w)
		return;
	for (int i = 0; i < c->n; i++) {
		c_label(&c->e[i], 0, label, sizeof(label));
		w[i] = strlen(label) > 12 ? (int)strlen(label) : 12;
	}

	if (c->id)
		fprintf(f, "comparison %" PRId64 " (stored)%s\n\n", c->id,
			c->forced ? ", forced: the entries are not all the same I/O" : "");
	row(f, c, w, "", c_id, 0);
	row(f, c, w, "", c_label, 0);
	row(f, c, w, "total time", c_time, 0);
	row(f, c, w, "time saved", c_saved, 0);
	row(f, c, w, "speedup", c_speedup, 0);
	row(f, c, w, "I/Os", c_ios, 0);
	row(f, c, w, "IOPS", c_iops, 0);
	row(f, c, w, "MB/s", c_mbps, 0);
	row(f, c, w, "mean queue depth", c_mean_depth, 0);
	for (int p = 0; p < STATS_NPCT; p++) {
		snprintf(name, sizeof(name), "service %s", stats_pct_label[p]);
		row(f, c, w, name, c_svc, p);
	}
	for (int p = 0; p < STATS_NPCT; p++) {
		snprintf(name, sizeof(name), "total %s", stats_pct_label[p]);
		row(f, c, w, name, c_tot, p);
	}
	row(f, c, w, "errors", c_errors, 0);
	fidelity_rows(f, c, w);
	fputc('\n', f);
	for (int i = 0; i < c->n; i++) {
		const struct cmp_entry *e = &c->e[i];
		char why[160];

		if (run_verify_faithful(&e->rep.verify) == 0)
			fprintf(f, "WARNING: %s is not a faithful replay of the trace: replay --verify"
				" found %s\n", fmt_text(e->label, label, sizeof(label)),
				run_verify_why(&e->rep.verify, why, sizeof(why)));
	}
	for (int i = 1; i < c->n; i++) {
		const struct cmp_entry *e = &c->e[i];
		double s = e->time_saved_pct;

		fprintf(f, "%s finishes %.1f%% %s than %s%s\n",
			fmt_text(e->label, label, sizeof(label)), s < 0 ? -s : s,
			s < 0 ? "later" : "sooner", fmt_text(c->e[0].label, first, sizeof(first)),
			run_verify_faithful(&e->rep.verify) == 0 ? " (not a faithful replay)" : "");
	}
	free(w);
}

void cmp_print_json(FILE *f, const struct cmp *c)
{
	struct jw w;

	jw_init(&w, f, 0);
	jw_obj(&w);
	jw_key(&w, "comparison_id");
	if (c->id)
		jw_i64(&w, c->id);
	else
		jw_null(&w);
	jw_kbool(&w, "forced", c->forced);
	jw_key(&w, "entries");
	jw_arr(&w);
	for (int i = 0; i < c->n; i++) {
		const struct cmp_entry *e = &c->e[i];
		const struct st_report *r = &e->rep;

		jw_obj(&w);
		jw_ki64(&w, "position", i);
		jw_key(&w, "trace_id");
		if (e->trace_id)
			jw_i64(&w, e->trace_id);
		else
			jw_null(&w); /* a file read in place */
		jw_kstr(&w, "label", e->label);
		jw_kbool(&w, "is_run", e->is_run);
		jw_kstr(&w, "source_digest", e->key);
		jw_ku64(&w, "duration_ns", r->duration_ns);
		jw_ku64(&w, "ios", r->ios);
		jw_ku64(&w, "bytes", r->bytes);
		jw_knum(&w, "ios_per_s", r->iops, 3);
		jw_knum(&w, "mb_per_s", r->mbps, 6);
		jw_knum(&w, "time_saved_pct", e->time_saved_pct, 6);
		jw_knum(&w, "speedup_pct", e->speedup_pct, 6);
		jw_knum(&w, "mean_queue_depth", r->mean_depth, 4);
		jw_key(&w, "partial");
		if (r->partial.partial)
			partial_json(&w, r->partial.done, r->partial.total, r->partial.reason);
		else
			jw_null(&w);
		jw_ku64(&w, "errors", r->errors);
		jw_key(&w, "service");
		stats_latency_json(&w, &r->all_service);
		jw_key(&w, "total");
		stats_latency_json(&w, &r->all_total);
		jw_key(&w, "lateness");
		if (r->lateness.count)
			stats_latency_json(&w, &r->lateness);
		else
			jw_null(&w);
		jw_key(&w, "fidelity");
		run_verify_json(&w, &r->verify);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_obj_end(&w);
	jw_finish(&w);
}
