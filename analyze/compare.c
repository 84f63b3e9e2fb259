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
#include "files_filter.h"
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
		" r.timing, t.label,"
		" CASE WHEN json_valid(t.meta) THEN json_extract(t.meta, '$.transform') END"
		" FROM traces t LEFT JOIN runs r ON r.trace_id = t.id WHERE t.id = ?";
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
	const char *tx = (const char *)sqlite3_column_text(st, 7);

	e->is_run = sqlite3_column_int(st, 2);
	snprintf(e->key, sizeof(e->key), "%s", e->is_run && src ? src : digest);
	run_label_make(given, e->is_run ? target : NULL, path, e->label, sizeof(e->label));
	/* a repeat of the same configuration (transforms included) has the same group */
	snprintf(e->transform, sizeof(e->transform), "%s", tx ? tx : "");
	snprintf(e->group, sizeof(e->group), "%s\n%.700s\n%s\n%.400s", e->label,
		 target ? target : path, timing ? timing : "", e->transform);
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
	snprintf(e->transform, sizeof(e->transform), "%s", r->transform);
	snprintf(e->group, sizeof(e->group), "%s\n%.700s\n%s\n%.400s", e->label,
		 e->is_run && r->target[0] ? r->target : r->path, r->timing, e->transform);
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
	rc = cmp_compute_args(db, args, n, flags, NULL, c, err);
	free(args);
	return rc;
}

int cmp_compute_args(sqlite3 *db, const struct cmp_arg *args, int n, int flags,
		     const struct files_filter *files, struct cmp *c, struct bpt_error *err)
{
	int force = flags & CMP_FORCE;
	int rc = 0;

	memset(c, 0, sizeof(*c));
	c->files = files;
	if (!(c->e = calloc(n, sizeof(*c->e))))
		return bpt_error_set(err, -ENOMEM, "out of memory");
	for (int i = 0; i < n && !rc; i++) {
		struct cmp_entry *e = &c->e[i];
		char name[ESC_LABEL], name0[ESC_LABEL];

		e->trace_id = args[i].id;
		if (args[i].path) {
			if ((rc = st_report_compute_file_files(args[i].path, files, &e->rep, 1, err)))
				break;
			describe_file(e);
		} else if ((rc = describe(db, e, err)) ||
			   (rc = st_report_compute_files(db, e->trace_id, files, &e->rep, err))) {
			break;
		}
		c->n = i + 1; /* from here on e->rep is cmp_free's */
		if (files && !e->rep.ios) {
			rc = bpt_error_set(err, -ENODATA, "--files: no I/O of %s matches%s: nothing"
					   " to compare", entry_name(e, name, sizeof(name)),
					   e->rep.files_unknown ? " (its trace has no file columns)"
								: "");
			break;
		}
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
			l = strlen(e->group); /* a partial run is no repeat of complete ones */
			snprintf(e->group + l, sizeof(e->group) - l, "\npartial %d", i);
		}
		st_report_free(&e->rep); /* the series is not compared */
	}
	if (rc) {
		cmp_free(c);
		return rc;
	}
	if (cmp_group(c)) { /* time saved and speedup too */
		cmp_free(c);
		return bpt_error_set(err, -ENOMEM, "out of memory");
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
			       " source_digest, forced, files) VALUES (?,?,?,?,?)", -1, &st,
			       NULL) != SQLITE_OK)
		goto fail;
	if (c->files) {
		size_t len = 1;
		char *lines;

		for (int i = 0; i < c->files->n; i++)
			len += strlen(c->files->pattern[i]) + 1;
		if (!(lines = malloc(len))) {
			sqlite3_finalize(st);
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
			return bpt_error_set(err, -ENOMEM, "out of memory");
		}
		sqlite3_bind_text(st, 5, files_filter_lines(c->files, lines, len), -1, free);
	}
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
	if ((rc = adb_exec(db, "COMMIT", err)))
		return rc;
	return adb_publish_comparison(db, &c->id, err); /* a PostgreSQL store's */
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
	for (int k = 0; c->g && k < c->ng; k++)
		free(c->g[k].entry);
	free(c->g);
	free(c->e);
	c->g = NULL;
	c->ng = 0;
	c->e = NULL;
	c->n = 0;
}

static void spread_json(struct jw *w, const char *key, const struct cmp_spread *s, int prec)
{
	jw_key(w, key);
	jw_obj(w);
	jw_knum(w, "median", s->med, prec);
	jw_knum(w, "min", s->min, prec);
	jw_knum(w, "max", s->max, prec);
	jw_obj_end(w);
}

/* One configuration: its label, runs and the spread of its figures. */
static void group_json(struct jw *w, const struct cmp *c, const struct cmp_group *g)
{
	static const struct { const char *key; int fig, prec; } figs[] = {
		{ "duration_ns", CF_TIME, 0 }, { "time_saved_pct", CF_SAVED, 6 },
		{ "speedup_pct", CF_SPEEDUP, 6 }, { "ios_per_s", CF_IOPS, 3 },
		{ "mb_per_s", CF_MBPS, 6 }, { "mean_queue_depth", CF_DEPTH, 4 },
	};
	char key[48];

	jw_obj(w);
	jw_kstr(w, "label", g->label);
	jw_ki64(w, "runs", g->n);
	jw_key(w, "positions");
	jw_arr(w);
	for (int j = 0; j < g->n; j++)
		jw_i64(w, g->entry[j]);
	jw_arr_end(w);
	jw_key(w, "within_noise");
	if (g->within_noise < 0)
		jw_null(w);
	else
		jw_bool(w, g->within_noise);
	for (unsigned f = 0; f < sizeof(figs) / sizeof(figs[0]); f++)
		spread_json(w, figs[f].key, &g->fig[figs[f].fig], figs[f].prec);
	for (int p = 0; p < STATS_NPCT; p++) {
		snprintf(key, sizeof(key), "service_%s", stats_pct_key[p]);
		spread_json(w, key, &g->fig[CF_SVC + p], 0);
		snprintf(key, sizeof(key), "total_%s", stats_pct_key[p]);
		spread_json(w, key, &g->fig[CF_TOT + p], 0);
	}
	(void)c;
	jw_obj_end(w);
}

void cmp_print_json(FILE *f, const struct cmp *c)
{
	char head[4 * 2 * sizeof(c->e[0].label) + 256];
	struct jw w;

	jw_init(&w, f, 0);
	jw_obj(&w);
	jw_key(&w, "comparison_id");
	if (c->id)
		jw_i64(&w, c->id);
	else
		jw_null(&w);
	jw_kbool(&w, "forced", c->forced);
	jw_kstr(&w, "headline", cmp_headline(c, head, sizeof(head)));
	if (c->n) /* --files: the same patterns for every entry */
		report_files_filter_json(&w, &c->e[0].rep, 0);
	jw_kstr(&w, "spread", "median (nearest rank) and min-max over a configuration's runs");
	jw_key(&w, "configurations");
	jw_arr(&w);
	for (int k = 0; k < c->ng; k++)
		group_json(&w, c, &c->g[k]);
	jw_arr_end(&w);
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
		jw_key(&w, "ios_of_trace"); /* --files: before the filter */
		if (r->files)
			jw_u64(&w, r->files_ios_of);
		else
			jw_null(&w);
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
