/*
 * stats_file.c — a report's rows from a trace file read in place
 * (stats_int.h): the facts `analyze import` would store, taken from the
 * header and footer by the same rules (import.h, run_partial.h), and the
 * records as the rows import would write (queue_ns is issue_ns when not
 * known). The rare sorted queries (rows too far out of order for the
 * reorder windows) run on trace_ios() over the file on a private
 * in-memory connection, whose sorter spills to temporary files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "import.h"
#include "stats_int.h"
#include "vtab_trace.h"

/* Read a file once: its records and losses, as import counts them
 * (complete blocks only; a raid5/raid6 run's array-internal member I/Os
 * are not requests and are not counted, as import skips them). */
static int count_records(struct bpt_reader *r, uint64_t *n, struct bpt_error *err)
{
	struct bpt_record rec;
	int rc;

	*n = 0;
	while ((rc = bpt_reader_next(r, &rec, err)) == 1)
		*n += !rec.internal;
	if (rc < 0)
		return rc;
	return bpt_reader_rewind(r, err);
}

static int file_trace_row(struct st_source *src, struct st_report *rep, uint64_t *n,
			  struct bpt_error *err)
{
	struct bpt_reader *r = src->r;
	const struct bpt_header *h = bpt_reader_header(r);
	const char *v, *why;
	char *real = realpath(src->path, NULL);
	struct bpt_stats st;
	uint64_t digest;
	int rc;

	/* the path import stores (traces.path) */
	snprintf(rep->path, sizeof(rep->path), "%s", real ? real : src->path);
	free(real);
	snprintf(rep->kind, sizeof(rep->kind), "%s", h->kind[0] ? h->kind : "unknown");
	if ((rc = bpt_reader_digest(r, &digest, err)))
		return rc;
	import_digest_hex(digest, rep->digest);
	bpt_reader_stats(r, &st);
	if (st.complete && !(h->columns & BPT_COL_INTERNAL)) {
		*n = st.records;
	} else if ((rc = count_records(r, n, err))) {
		return rc;
	}
	bpt_reader_stats(r, &st);
	rep->lost_events = st.lost_events;
	rep->loss_windows = st.loss_windows;
	rep->truncated = !st.complete || st.truncated;
	src->has_sched = !!(h->columns & BPT_COL_SCHED);
	src->columns = h->columns;
	rep->is_run = run_header_is_run(h);
	run_verify_header(&rep->verify, h);
	snprintf(rep->label, sizeof(rep->label), "%s",
		 (v = bpt_header_get_meta(h, BPT_META_LABEL)) ? v : "");
	snprintf(rep->transform, sizeof(rep->transform), "%s",
		 (v = bpt_header_get_meta(h, BPT_META_TRANSFORM)) ? v : "");
	if (rep->is_run) {
		if ((v = bpt_header_get_meta(h, BPT_META_SOURCE_DIGEST)))
			import_normalise_digest(v, rep->source_digest);
		snprintf(rep->target, sizeof(rep->target), "%s",
			 (v = bpt_header_get_meta(h, BPT_META_TARGET)) ? v : "");
		snprintf(rep->timing, sizeof(rep->timing), "%s",
			 (v = bpt_header_get_meta(h, BPT_META_TIMING)) ? v : "");
		if (run_header_partial(h, &why))
			run_partial_set(&rep->partial, *n,
					(v = bpt_header_get_meta(h, BPT_META_RUN_IOS)) ?
						strtoull(v, NULL, 10) : 0, why);
	}
	return 0;
}

static int file_scan_begin(struct st_source *src, struct bpt_error *err)
{
	return bpt_reader_rewind(src->r, err);
}

static long file_scan_fill(struct st_source *src, struct st_row *rows, size_t max,
			   struct bpt_error *err)
{
	struct bpt_record rec;
	size_t n = 0;
	int rc = 1;

	while (n < max && (rc = bpt_reader_next(src->r, &rec, err)) == 1) {
		uint32_t pid, comm;
		uint64_t cgroup;

		if (rec.internal)
			continue; /* not a request: import skips it too */
		/* "By program" credits the task that caused the I/O (the writer
		 * of what a kworker wrote back) where the trace knows it */
		bpt_record_credit(&rec, src->columns, &pid, &comm, &cgroup);
		rows[n++] = (struct st_row){
			.idx = bpt_reader_record_index(src->r),
			.queue = rec.queue_ns ? rec.queue_ns : rec.issue_ns,
			.issue = rec.issue_ns,
			.complete = rec.complete_ns,
			.sector = rec.sector,
			.bytes = rec.bytes,
			.pid = pid,
			.comm = comm,
			.dev = rec.dev,
			.op = (uint8_t)(rec.op < BPT_OP__COUNT ? rec.op : BPT_OP__COUNT - 1),
			.completion = rec.completion,
			.error = rec.error,
			.sched = rec.sched_ns,
			.source_index = rec.source_index,
			.has_sched = (uint8_t)src->has_sched,
			.file_class = rec.file_class,
			.file_dev = rec.file_dev,
			.file_bytes = rec.file_bytes,
			.file2_dev = rec.file2_dev,
			.file2_bytes = rec.file2_bytes,
			.inode = rec.inode,
			.inode2 = rec.inode2,
		};
	}
	return rc < 0 ? rc : (long)n;
}

static void file_scan_end(struct st_source *src)
{
	(void)src;
}

static int file_path_name(struct st_source *src, uint32_t dev, uint64_t inode, char *buf,
			  size_t len)
{
	const char *p = bpt_reader_path(src->r, dev, inode);

	if (!p)
		return 0;
	snprintf(buf, len, "%s", p);
	return 1;
}

static int file_paths_each(struct st_source *src,
			   int (*fn)(void *ctx, uint32_t dev, uint64_t inode, const char *path),
			   void *ctx, struct bpt_error *err)
{
	const struct bpt_path *p;
	size_t n = bpt_reader_paths(src->r, &p);
	int rc = 0;

	(void)err;
	for (size_t i = 0; i < n && !rc; i++) {
		const char *s = bpt_reader_string(src->r, p[i].path_id);

		if (s)
			rc = fn(ctx, p[i].file_dev, p[i].inode, s);
	}
	return rc;
}

static void file_comm_name(struct st_source *src, uint32_t comm, char *buf, size_t len)
{
	const char *s = bpt_reader_string(src->r, comm);

	snprintf(buf, len, "%s", s ? s : "?");
}

static int file_device_names(struct st_source *src, struct st_report *rep, struct bpt_error *err)
{
	const struct bpt_header *h = bpt_reader_header(src->r);

	(void)err;
	for (uint32_t i = 0; i < h->ndevices && i < rep->ndev; i++) { /* those with I/O */
		const struct bpt_device *d = &h->devices[i];

		/* the fixed array need not be terminated when full */
		snprintf(rep->dev[i].name, sizeof(rep->dev[i].name), "%.*s", (int)sizeof(d->name),
			 d->name);
	}
	return 0;
}

static void file_bind_from(struct st_source *src, sqlite3_stmt *st)
{
	sqlite3_bind_text(st, 1, src->path, -1, SQLITE_STATIC);
}

static const struct st_source_ops file_ops = {
	.trace_row = file_trace_row,
	.scan_begin = file_scan_begin,
	.scan_fill = file_scan_fill,
	.scan_end = file_scan_end,
	.comm_name = file_comm_name,
	.path_name = file_path_name,
	.paths_each = file_paths_each,
	.device_names = file_device_names,
	.bind_from = file_bind_from,
};

int st_source_file(struct st_source *s, const char *path, struct bpt_error *err)
{
	int rc;

	memset(s, 0, sizeof(*s));
	s->ops = &file_ops;
	s->path = path;
	s->from = "trace_ios(?1)";
	snprintf(s->name, sizeof(s->name), "%s", path);
	if ((rc = bpt_reader_open(&s->r, path, err)))
		return rc;
	if (sqlite3_open_v2(":memory:", &s->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
		return bpt_error_set(err, -ENOMEM, "%s: cannot open an in-memory database", path);
	/* the sorted queries: a 64 MiB cache, then temporary files */
	if ((rc = adb_exec(s->db, "PRAGMA cache_size = -65536; PRAGMA temp_store = FILE", err)))
		return rc;
	return vtab_trace_register(s->db, NULL, NULL, err);
}

void st_source_file_close(struct st_source *s)
{
	bpt_reader_close(s->r);
	s->r = NULL;
	sqlite3_close(s->db);
	s->db = NULL;
}
