/*
 * stats_recording.c — `analyze report --recording NAME`: the rows of one
 * recording of a mixed replay's run (replay A.bpt B.bpt). Such a run
 * names its recordings in its meta (mix = N, mix.K.name for K = 1..N)
 * and tags every I/O with its recording's name as the comm; the report
 * keeps the rows whose comm is NAME, through the same keep bitmap (by
 * idx) as --files (stats_keep.c).
 *
 * Two passes over the rows before the report's: the first collects the
 * comm ids in use (a mix has a handful), whose names are then looked up
 * once each; the second sets the bits of the rows whose id names NAME.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "files_filter.h"
#include "stats_int.h"

#define MAX_COMMS 256 /* distinct comm ids of a run looked at */

/* The run's meta `key` into buf: 1, 0 when it has none. */
static int run_meta(struct st_source *src, const char *key, char *buf, size_t len)
{
	const char *v = NULL;
	sqlite3_stmt *st;
	char path[64];
	int found = 0;

	buf[0] = 0;
	if (src->r) {
		v = bpt_header_get_meta(bpt_reader_header(src->r), key);
		if (v)
			snprintf(buf, len, "%s", v);
		return v != NULL;
	}
	snprintf(path, sizeof(path), "$.\"%s\"", key);
	if (sqlite3_prepare_v2(src->db, "SELECT CASE WHEN json_valid(meta) THEN"
				       " json_extract(meta, ?2) END FROM traces WHERE id = ?1",
			       -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, src->id);
	sqlite3_bind_text(st, 2, path, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 0));
		found = 1;
	}
	sqlite3_finalize(st);
	return found;
}

/* rep->mix_recordings: the run's recordings, ", "-separated; 1 when
 * `name` is one of them, 0 when not, <0 (err) when the trace is not a
 * mixed run. */
static int mix_names(struct st_source *src, struct st_report *rep, const char *name,
		     struct bpt_error *err)
{
	char v[64], key[32], rec[256];
	unsigned long n;
	int have = 0;
	size_t at = 0;

	if (!rep->is_run || !run_meta(src, "mix", v, sizeof(v)) ||
	    (n = strtoul(v, NULL, 10)) < 2 || n > 16)
		return bpt_error_set(err, -EINVAL, "%s: --recording takes the run of a mixed replay"
				     " (blkpeak replay A.bpt B.bpt ...), whose meta names its"
				     " recordings (mix.K.name); this %s is not one", src->name,
				     rep->is_run ? "run" : "trace");
	rep->mix_recordings[0] = 0;
	rep->nmix = 0;
	for (unsigned long k = 1; k <= n; k++) {
		snprintf(key, sizeof(key), "mix.%lu.name", k);
		if (!run_meta(src, key, rec, sizeof(rec)))
			return bpt_error_set(err, -EINVAL, "%s: the mixed run names %lu recordings"
					     " but has no '%s' meta", src->name, n, key);
		have |= !strcmp(rec, name);
		snprintf(rep->mix_name[k - 1], sizeof(rep->mix_name[k - 1]), "%.127s", rec);
		rep->nmix = (unsigned)k;
		at += (size_t)snprintf(rep->mix_recordings + at,
				       at < sizeof(rep->mix_recordings) ?
					       sizeof(rep->mix_recordings) - at : 0,
				       "%s%s", k > 1 ? ", " : "", rec);
		if (at >= sizeof(rep->mix_recordings))
			at = sizeof(rep->mix_recordings) - 1;
	}
	return have;
}

struct comms {
	uint32_t id[MAX_COMMS];
	unsigned n;
	int over;            /* more than MAX_COMMS: looked up per row */
	uint8_t want[MAX_COMMS];
	struct st_source *src;
	const char *name;
	uint64_t *bits, nbits, kept;
};

static int comm_index(const struct comms *c, uint32_t id)
{
	for (unsigned i = 0; i < c->n; i++)
		if (c->id[i] == id)
			return (int)i;
	return -1;
}

static int collect(void *ctx, const struct st_row *r)
{
	struct comms *c = ctx;

	if (comm_index(c, r->comm) >= 0)
		return 0;
	if (c->n == MAX_COMMS) {
		c->over = 1;
		return 0;
	}
	c->id[c->n++] = r->comm;
	return 0;
}

static int mark(void *ctx, const struct st_row *r)
{
	struct comms *c = ctx;
	int i = comm_index(c, r->comm);

	if (i < 0 || !c->want[i] || r->idx >= c->nbits)
		return 0;
	c->bits[r->idx >> 6] |= 1ull << (r->idx & 63);
	c->kept++;
	return 0;
}

int stats_recording_build(struct st_source *src, struct st_report *rep, uint64_t n,
			  struct bpt_error *err)
{
	const char *name = src->files->recording;
	struct comms *c;
	char got[256];
	int rc;

	if ((rc = mix_names(src, rep, name, err)) < 0)
		return rc;
	if (!rc)
		return bpt_error_set(err, -ENOENT, "%s: '%s' is not a recording of this mixed run;"
				     " its recordings: %s", src->name, name, rep->mix_recordings);
	if (!(c = calloc(1, sizeof(*c))))
		return bpt_error_set(err, -ENOMEM, "%s: out of memory", src->name);
	c->src = src;
	c->name = name;
	if ((rc = stats_scan(src, n, 1, collect, c, err)))
		goto out;
	if (c->over) {
		rc = bpt_error_set(err, -E2BIG, "%s: more than %d process names in the run: not"
				   " a mixed run's", src->name, MAX_COMMS);
		goto out;
	}
	for (unsigned i = 0; i < c->n; i++) {
		src->ops->comm_name(src, c->id[i], got, sizeof(got));
		c->want[i] = !strcmp(got, name);
	}
	c->nbits = n;
	if (!(c->bits = calloc(n / 64 + 1, sizeof(*c->bits)))) {
		rc = bpt_error_set(err, -ENOMEM, "%s: out of memory", src->name);
		goto out;
	}
	if ((rc = stats_scan(src, n, 1, mark, c, err)))
		goto out;
	rc = stats_keep_install(src, c->bits, c->nbits, 0, err);
	c->bits = NULL; /* src's now, also after a failure (stats_keep_free) */
out:
	free(c->bits);
	free(c);
	return rc;
}
