/*
 * stats_keep.c — which rows a report keeps under --files (files_filter.h).
 *
 * Before the report's passes, one pass over the rows that carry the file
 * columns sets a bit per I/O that matches: the trace's own rows, or for a
 * replay run (whose I/Os carry no file columns) the rows of the trace it
 * replayed, whose bits the run's I/Os are then looked up by (their
 * source_index). The globs are tried once per path of the path table, not
 * per I/O: the files that match are a sorted array of (device, inode),
 * which each data I/O is looked up in. Memory: one bit per I/O of that
 * trace, and the matching files.
 *
 * The report's sorted queries (stats.c, when the rows are too far out of
 * order for a reorder window) read src->from: it is narrowed to the kept
 * rows through an SQL function, blkpeak_keep(i), registered on the
 * source's connection for as long as the report runs.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db.h"
#include "files_filter.h"
#include "stats_int.h"

struct file_key {
	uint64_t ino;
	uint32_t dev;
};

struct keep_ctx {
	const struct files_filter *ff;
	struct file_key *keys; /* the files with a matching path, sorted */
	size_t n, cap;
	uint64_t *bits, nbits;
};

static int key_cmp(const void *a, const void *b)
{
	const struct file_key *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static int add_path(void *arg, uint32_t dev, uint64_t ino, const char *path)
{
	struct keep_ctx *k = arg;

	if (!files_filter_path(k->ff, path))
		return 0;
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 64;
		struct file_key *keys = realloc(k->keys, cap * sizeof(*keys));

		if (!keys)
			return -ENOMEM;
		k->keys = keys;
		k->cap = cap;
	}
	k->keys[k->n++] = (struct file_key){ .ino = ino, .dev = dev };
	return 0;
}

static int file_matches(const struct keep_ctx *k, uint32_t dev, uint64_t ino)
{
	struct file_key key = { .ino = ino, .dev = dev };

	return k->n && bsearch(&key, k->keys, k->n, sizeof(key), key_cmp) != NULL;
}

static int mark_row(void *arg, const struct st_row *r)
{
	struct keep_ctx *k = arg;
	int m = r->file_class < 32 && (k->ff->classes >> r->file_class & 1);

	if (!m && r->file_class == BPT_FILE_DATA)
		m = file_matches(k, r->file_dev, r->inode) ||
		    (r->file2_bytes && file_matches(k, r->file2_dev, r->inode2));
	if (m && r->idx < k->nbits)
		k->bits[r->idx >> 6] |= 1ull << (r->idx & 63);
	return 0;
}

/* The bitmap of fsrc's rows (n of them) into k->bits. */
static int mark_source(struct st_source *fsrc, uint64_t n, struct keep_ctx *k,
		       struct bpt_error *err)
{
	int rc;

	k->nbits = n;
	if (!(k->bits = calloc(n / 64 + 1, sizeof(*k->bits))))
		return bpt_error_set(err, -ENOMEM, "%s: out of memory", fsrc->name);
	if (fsrc->ops->paths_each &&
	    (rc = fsrc->ops->paths_each(fsrc, add_path, k, err)))
		return rc == -ENOMEM ? bpt_error_set(err, rc, "%s: out of memory", fsrc->name) : rc;
	if (k->n)
		qsort(k->keys, k->n, sizeof(*k->keys), key_cmp);
	return stats_scan(fsrc, n, 1, mark_row, k, err);
}

/* A run's source trace as a source of its own: the database's trace
 * source_id, or the file the run's meta names (same digest); near holds
 * its path when found next to the run file (fsrc->path may point there). */
static int open_run_source(struct st_source *src, const struct st_report *rep,
			   struct st_source *fsrc, struct st_report *frep, uint64_t *n,
			   char *near, size_t nlen, struct bpt_error *err)
{
	const char *path;
	int rc;

	if (!(src->columns & BPT_COL_SOURCE))
		return bpt_error_set(err, -EINVAL, "%s: --files: this replay run does not say which"
				     " trace I/O each of its I/Os replayed (no source_index column)",
				     src->name);
	if (!src->r) { /* the database */
		if (!rep->source_id)
			return bpt_error_set(err, -ENOENT, "%s: --files matches a run's I/Os by the"
					     " files of the trace it replayed (digest %s), which is"
					     " not in the database: import it first", src->name,
					     rep->source_digest[0] ? rep->source_digest : "not recorded");
		st_source_db(fsrc, src->db, rep->source_id);
	} else {
		path = bpt_header_get_meta(bpt_reader_header(src->r), BPT_META_SOURCE);
		if (!path || !*path)
			return bpt_error_set(err, -ENOENT, "%s: --files: the run does not name the"
					     " trace it replayed (no '%s' meta)", src->name,
					     BPT_META_SOURCE);
		/* a relative path as replay was given it: next to the run
		 * file first, else from here */
		if (path[0] != '/' && strchr(src->path, '/')) {
			snprintf(near, nlen, "%.*s/%s",
				 (int)(strrchr(src->path, '/') - src->path), src->path, path);
			if (access(near, F_OK) == 0)
				path = near;
		}
		if ((rc = st_source_file(fsrc, path, err))) {
			char why[sizeof(err->msg)];

			snprintf(why, sizeof(why), "%s", err->msg);
			return bpt_error_set(err, rc, "%s: --files needs the trace it replayed: %s",
					     src->name, why);
		}
	}
	if ((rc = fsrc->ops->trace_row(fsrc, frep, n, err)))
		return rc;
	if (src->r && strcmp(frep->digest, rep->source_digest))
		return bpt_error_set(err, -EXDEV, "%s: --files: '%s' has digest %s, but the run"
				     " replayed digest %s", src->name, fsrc->path, frep->digest,
				     rep->source_digest[0] ? rep->source_digest : "(none)");
	return 0;
}

static void keep_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const struct st_source *src = sqlite3_user_data(ctx);
	int64_t i = sqlite3_value_int64(argv[0]);

	(void)argc;
	sqlite3_result_int(ctx, sqlite3_value_type(argv[0]) == SQLITE_INTEGER && i >= 0 &&
				(uint64_t)i < src->keep_n && (src->keep[i >> 6] >> (i & 63) & 1));
}

int stats_keep_build(struct st_source *src, struct st_report *rep, uint64_t n,
		     struct bpt_error *err)
{
	struct keep_ctx k = { .ff = src->files };
	struct st_source fsrc = { 0 };
	struct st_report *frep = NULL;
	uint32_t columns = src->columns;
	int lost = rep->files_lost;
	char *near = NULL;
	int rc;

	if (rep->is_run) {
		frep = calloc(1, sizeof(*frep));
		near = malloc(2 * PATH_MAX);
		if (!frep || !near) {
			free(frep);
			free(near);
			return bpt_error_set(err, -ENOMEM, "%s: out of memory", src->name);
		}
		rc = open_run_source(src, rep, &fsrc, frep, &n, near, 2 * PATH_MAX, err);
		if (!rc)
			rc = mark_source(&fsrc, n, &k, err);
		columns = fsrc.columns;
		lost = frep->files_lost;
		if (fsrc.r || (fsrc.db && fsrc.db != src->db))
			st_source_file_close(&fsrc);
		st_report_free(frep);
		free(frep);
		free(near);
	} else {
		struct st_source self = *src; /* its own pass state */

		/* the trace's own rows, before its report's passes */
		rc = mark_source(&self, n, &k, err);
	}
	free(k.keys);
	if (rc) {
		free(k.bits);
		return rc;
	}
	rep->files_unknown = !(columns & BPT_COL_FILE) || lost;
	return stats_keep_install(src, k.bits, k.nbits, rep->is_run, err);
}

int stats_keep_install(struct st_source *src, uint64_t *bits, uint64_t nbits, int by_source,
		       struct bpt_error *err)
{
	src->keep = bits;
	src->keep_n = nbits;
	src->keep_by_source = by_source;
	snprintf(src->from_buf, sizeof(src->from_buf), "(SELECT * FROM %s WHERE blkpeak_keep(%s))",
		 src->from, by_source ? "source_index" : "idx");
	src->from = src->from_buf;
	if (sqlite3_create_function(src->db, "blkpeak_keep", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
				    src, keep_fn, NULL, NULL) != SQLITE_OK)
		return adb_fail(src->db, err, "cannot register blkpeak_keep()");
	return 0;
}

void stats_keep_free(struct st_source *src)
{
	if (src->from == src->from_buf && src->db) /* the function was registered */
		sqlite3_create_function(src->db, "blkpeak_keep", 1, SQLITE_UTF8, NULL, NULL, NULL,
					NULL);
	free(src->keep);
	src->keep = NULL;
	src->keep_n = 0;
}

int st_keep_trace(sqlite3 *db, int64_t id, const struct files_filter *files, struct st_keep *k,
		  struct bpt_error *err)
{
	struct st_report *rep = calloc(1, sizeof(*rep));
	struct st_source src;
	uint64_t n;
	int rc;

	memset(k, 0, sizeof(*k));
	if (!rep)
		return bpt_error_set(err, -ENOMEM, "out of memory");
	st_source_db(&src, db, id);
	src.files = files;
	if (!(rc = src.ops->trace_row(&src, rep, &n, err)) &&
	    !(rc = stats_keep_build(&src, rep, n, err))) {
		*k = (struct st_keep){ .bits = src.keep, .n = src.keep_n,
				       .by_source = src.keep_by_source };
		src.keep = NULL; /* the caller's now */
	}
	stats_keep_free(&src);
	st_report_free(rep);
	free(rep);
	return rc;
}

int st_keep_has(const struct st_keep *k, uint64_t idx, uint64_t source_index)
{
	uint64_t i = k->by_source ? source_index : idx;

	return i < k->n && (k->bits[i >> 6] >> (i & 63) & 1);
}
