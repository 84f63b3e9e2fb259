/*
 * run_verify.c — a run's `replay --verify` figures from its meta
 * (run_verify.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliutil.h"
#include "db.h"
#include "jsonout.h"
#include "run_verify.h"

static const char *const keys[RV_NFIELDS] = {
	[RV_IOS] = BPT_META_VERIFY_IOS,
	[RV_PRESENT] = BPT_META_VERIFY_PRESENT,
	[RV_MISSING] = BPT_META_VERIFY_MISSING,
	[RV_MISPLACED] = BPT_META_VERIFY_MISPLACED,
	[RV_EXTRA] = BPT_META_VERIFY_EXTRA,
	[RV_LOST] = BPT_META_VERIFY_LOST,
	[RV_ERR_P50] = BPT_META_VERIFY_ERR_P50,
	[RV_ERR_P99] = BPT_META_VERIFY_ERR_P99,
	[RV_ERR_MAX] = BPT_META_VERIFY_ERR_MAX,
	[RV_DRIFT] = BPT_META_VERIFY_DRIFT,
};

const char *run_verify_key(enum rv_field f)
{
	return f < RV_NFIELDS ? keys[f] : "";
}

static int known(const struct run_verify *v, enum rv_field f)
{
	return v->verified && (v->known >> f & 1);
}

/* Plain decimal digits only, as replay writes them: "010" is not 8 and
 * "0x10" not 16 (parse_u64 takes both). 0 or -1. */
static int parse_dec(const char *s, uint64_t *out)
{
	unsigned long long n;
	char *end;

	if (!s || !*s || strspn(s, "0123456789") != strlen(s))
		return -1;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = n;
	return 0;
}

void run_verify_meta(struct run_verify *v, const char *key, const char *value)
{
	if (!key || strncmp(key, "verify.", 7))
		return;
	v->verified = 1;
	for (unsigned f = 0; f < RV_NFIELDS; f++) {
		if (strcmp(key, keys[f]))
			continue;
		v->known &= ~(1u << f);
		if (f == RV_DRIFT ? parse_double(value, &v->drift) == 0
				  : parse_dec(value, &v->v[f]) == 0)
			v->known |= 1u << f;
		return;
	}
}

void run_verify_header(struct run_verify *v, const struct bpt_header *h)
{
	memset(v, 0, sizeof(*v));
	for (uint32_t i = 0; i < h->nmeta && i < BPT_MAX_META; i++)
		run_verify_meta(v, h->meta[i].key, h->meta[i].value);
}

int run_verify_load(sqlite3 *db, int64_t trace_id, struct run_verify *v,
		    struct bpt_error *err)
{
	/* a meta that is not valid JSON (a hand-made database) reads as none */
	static const char sql[] =
		"SELECT j.key, j.value FROM (SELECT CASE WHEN json_valid(meta) THEN meta"
		" ELSE '{}' END AS m FROM traces WHERE id = ?) AS t, json_each(t.m) AS j"
		" WHERE j.key GLOB 'verify.*'";
	sqlite3_stmt *st;
	int rc;

	memset(v, 0, sizeof(*v));
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return adb_fail(db, err, "cannot read the trace's meta");
	sqlite3_bind_int64(st, 1, trace_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		run_verify_meta(v, (const char *)sqlite3_column_text(st, 0),
				(const char *)sqlite3_column_text(st, 1));
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return adb_fail(db, err, "cannot read the trace's meta");
	return 0;
}

int run_verify_faithful(const struct run_verify *v)
{
	static const enum rv_field bad[] = { RV_MISSING, RV_MISPLACED, RV_LOST };
	int all = 1;

	if (!v->verified)
		return -1;
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (!known(v, bad[i]))
			all = 0;
		else if (v->v[bad[i]])
			return 0;
	}
	return all ? 1 : -1;
}

char *run_verify_why(const struct run_verify *v, char *buf, size_t len)
{
	static const struct { enum rv_field f; const char *one, *many; } words[] = {
		{ RV_MISSING, "I/O missing", "I/Os missing" },
		{ RV_MISPLACED, "misplaced", "misplaced" },
		{ RV_LOST, "event lost by the capture", "events lost by the capture" },
	};
	size_t used = 0;

	buf[0] = '\0';
	if (run_verify_faithful(v) != 0)
		return buf;
	for (unsigned i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		uint64_t n = v->v[words[i].f];

		if (!known(v, words[i].f) || !n || used >= len)
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%llu %s", used ? ", " : "",
					 (unsigned long long)n, n == 1 ? words[i].one : words[i].many);
	}
	return buf;
}

char *run_verify_cell(const struct run_verify *v, enum rv_field f, char *buf, size_t len)
{
	if (!v->verified)
		snprintf(buf, len, "-");
	else if (!known(v, f))
		snprintf(buf, len, "?");
	else if (f == RV_DRIFT)
		snprintf(buf, len, "%.3g%%", v->drift * 100);
	else if (f == RV_ERR_P50 || f == RV_ERR_P99 || f == RV_ERR_MAX)
		fmt_ns((double)v->v[f], buf, (int)len);
	else
		snprintf(buf, len, "%llu", (unsigned long long)v->v[f]);
	return buf;
}

static void field_json(struct jw *w, const struct run_verify *v, const char *k, enum rv_field f)
{
	jw_key(w, k);
	if (!known(v, f))
		jw_null(w);
	else if (f == RV_DRIFT)
		jw_num(w, v->drift, 9); /* as replay --json writes it */
	else
		jw_u64(w, v->v[f]);
}

void run_verify_json(struct jw *w, const struct run_verify *v)
{
	int faithful = run_verify_faithful(v);

	if (!v->verified) {
		jw_null(w);
		return;
	}
	/* the names of replay --json's "verify" object */
	jw_obj(w);
	field_json(w, v, "ios", RV_IOS);
	field_json(w, v, "present", RV_PRESENT);
	field_json(w, v, "missing", RV_MISSING);
	field_json(w, v, "misplaced", RV_MISPLACED);
	field_json(w, v, "extra_requests", RV_EXTRA);
	field_json(w, v, "lost_events", RV_LOST);
	jw_key(w, "issue_error");
	jw_obj(w);
	field_json(w, v, "p50_ns", RV_ERR_P50);
	field_json(w, v, "p99_ns", RV_ERR_P99);
	field_json(w, v, "max_ns", RV_ERR_MAX);
	jw_obj_end(w);
	field_json(w, v, "drift", RV_DRIFT);
	jw_key(w, "faithful");
	if (faithful < 0)
		jw_null(w);
	else
		jw_bool(w, faithful);
	jw_obj_end(w);
}
