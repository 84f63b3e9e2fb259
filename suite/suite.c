/*
 * suite.c — open a suite folder and plan its run (suite.h).
 */
#include "suite.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpt.h"

uint64_t suite_fnv(uint64_t h, const void *p, size_t len)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < len; i++) {
		h ^= c[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

void suite_label_dir(const char *label, char *out, size_t len)
{
	size_t i;

	for (i = 0; label[i] && i + 1 < len; i++) {
		char c = label[i];

		out[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			 c == '.' || c == '-' || c == '_' ? c : '_';
	}
	out[i] = '\0';
	if (out[0] == '.')
		out[0] = '_';
}

/* The manifest's bytes, for the digest (manifest_load read them once;
 * read again: the file is small). */
static int manifest_bytes_digest(const char *path, uint64_t *h, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char buf[8192];
	size_t n;

	if (!f) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return -errno;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		*h = suite_fnv(*h, buf, n);
	fclose(f);
	return 0;
}

static int open_rec(struct suite *s, struct suite_rec *r, char *err, size_t errlen)
{
	struct bpt_reader *rd;
	struct bpt_error e = { 0 };
	struct bpt_stats st;
	uint64_t d;
	int rc;

	if (asprintf(&r->path, "%s/%s", s->dir, r->e->file) < 0) {
		r->path = NULL;
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if ((rc = bpt_reader_open(&rd, r->path, &e))) {
		snprintf(err, errlen, "[recording %s] (%s/%s:%u): %s", r->e->name, s->dir,
			 SUITE_MANIFEST, r->e->line, e.msg);
		return rc;
	}
	rc = bpt_reader_digest(rd, &d, &e);
	bpt_reader_stats(rd, &st);
	bpt_reader_close(rd);
	if (rc) {
		snprintf(err, errlen, "[recording %s]: %s", r->e->name, e.msg);
		return rc;
	}
	snprintf(r->digest, sizeof(r->digest), "%016" PRIx64, d);
	r->ios = st.records;
	r->duration_ns = st.last_complete_ns > st.first_issue_ns ?
			 st.last_complete_ns - st.first_issue_ns : 0;
	return 0;
}

int suite_open(const char *dir, struct suite **out, char *err, size_t errlen)
{
	struct suite *s = calloc(1, sizeof(*s));
	char *mpath = NULL;
	uint64_t h = SUITE_FNV_START;
	int rc;

	*out = NULL;
	if (!s || !(s->dir = strdup(dir)) || asprintf(&mpath, "%s/%s", dir, SUITE_MANIFEST) < 0) {
		suite_close(s);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	while (strlen(s->dir) > 1 && s->dir[strlen(s->dir) - 1] == '/')
		s->dir[strlen(s->dir) - 1] = '\0';
	if ((rc = manifest_load(mpath, &s->m, err, errlen)) ||
	    (rc = manifest_bytes_digest(mpath, &h, err, errlen)))
		goto fail;
	if (s->m->name) {
		snprintf(s->name, sizeof(s->name), "%s", s->m->name);
	} else {
		const char *b = strrchr(s->dir, '/');

		suite_label_dir(b && b[1] ? b + 1 : s->dir, s->name, sizeof(s->name));
	}
	s->recs = calloc(s->m->n, sizeof(*s->recs));
	if (!s->recs) {
		rc = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < s->m->n; i++) {
		struct suite_rec *r;

		if (s->m->e[i].kind != MANIFEST_RECORDING)
			continue;
		r = &s->recs[s->nrecs++];
		r->e = &s->m->e[i];
		if ((rc = open_rec(s, r, err, errlen)))
			goto fail;
		h = suite_fnv(h, r->e->name, strlen(r->e->name) + 1);
		h = suite_fnv(h, r->digest, 16);
	}
	snprintf(s->digest, sizeof(s->digest), "%016" PRIx64, h);
	free(mpath);
	*out = s;
	return 0;
fail:
	free(mpath);
	suite_close(s);
	return rc;
}

void suite_close(struct suite *s)
{
	if (!s)
		return;
	for (size_t i = 0; s->recs && i < s->nrecs; i++)
		free(s->recs[i].path);
	free(s->recs);
	manifest_free(s->m);
	free(s->dir);
	free(s);
}

const struct suite_rec *suite_rec_of(const struct suite *s, const char *name)
{
	for (size_t i = 0; i < s->nrecs; i++)
		if (!strcmp(s->recs[i].e->name, name))
			return &s->recs[i];
	return NULL;
}

/* What one repeat of e in `timing` may take, from the recordings'
 * durations (original and causal follow them, divided by the speed; afap
 * is at most as long), 0 for a sweep. */
static double first_estimate(const struct suite *s, const struct manifest_entry *e)
{
	double t = 0;

	if (e->kind == MANIFEST_RECORDING) {
		t = suite_rec_of(s, e->name)->duration_ns / 1e9;
	} else if (e->kind == MANIFEST_MIX) {
		for (unsigned i = 0; i < e->nmembers; i++) {
			double m = suite_rec_of(s, e->members[i])->duration_ns / 1e9 +
				   e->offset_ns[i] / 1e9;

			if (m > t)
				t = m;
		}
	}
	return t / e->speed;
}

int suite_plan(const struct suite *s, struct suite_item **items, size_t *n, char *err,
	       size_t errlen)
{
	size_t cap = 0, k = 0;
	struct suite_item *it;

	for (size_t i = 0; i < s->m->n; i++) {
		const struct manifest_entry *e = &s->m->e[i];

		cap += (size_t)e->repeat * (e->kind == MANIFEST_MEASURE ? 1 : __builtin_popcount(e->timings));
	}
	it = calloc(cap ? cap : 1, sizeof(*it));
	if (!it) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->m->n; i++) {
		const struct manifest_entry *e = &s->m->e[i];
		unsigned bits = e->kind == MANIFEST_MEASURE ? 1 : e->timings;

		for (unsigned b = 1; b <= 4; b <<= 1) {
			if (!(bits & b))
				continue;
			for (unsigned r = 1; r <= e->repeat; r++) {
				struct suite_item *x = &it[k++];

				x->e = e;
				x->repeat = r;
				if (e->kind == MANIFEST_MEASURE) {
					x->kind = "qd-sweep";
					snprintf(x->key, sizeof(x->key), "%s.%u", e->name, r);
					snprintf(x->workload, sizeof(x->workload), "%s", e->name);
				} else {
					x->timing = b;
					x->kind = e->kind == MANIFEST_MIX ? "mix" : "replay";
					snprintf(x->key, sizeof(x->key), "%s.%s.%u", e->name,
						 manifest_timing_name(b), r);
					snprintf(x->workload, sizeof(x->workload), "%s %s", e->name,
						 manifest_timing_name(b));
				}
				x->est_s = first_estimate(s, e);
				if (x->est_s >= 4611686018.427387904) { /* 2^62 ns */
					snprintf(err, errlen, "[%s %s] (%s/%s:%u): speed = %g: the replay"
						 " would last %.3g s, past replay's longest schedule (2^62 ns,"
						 " about 146 years)", e->kind == MANIFEST_MIX ? "mix" : "recording",
						 e->name, s->dir, SUITE_MANIFEST, e->line, e->speed, x->est_s);
					free(it);
					return -EINVAL;
				}
			}
		}
	}
	*items = it;
	*n = k;
	return 0;
}
