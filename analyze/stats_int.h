/*
 * stats_int.h — what the files of the report computation share (private
 * to stats.c, stats_load.c and stats_procs.c): one I/O row as read from
 * the database, the scan over a trace's rows, and the process table.
 */
#ifndef BLKPEAK_ANALYZE_STATS_INT_H
#define BLKPEAK_ANALYZE_STATS_INT_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "db.h"
#include "progress.h"
#include "stats_report.h"

/* One I/O row. op is clamped below BPT_OP__COUNT. */
struct st_row {
	uint64_t idx, queue, issue, complete, sector;
	uint64_t sched;     /* due time of a run's I/O, when has_sched */
	uint64_t source_index; /* a run's I/O: idx of the trace I/O it replayed */
	uint32_t bytes, pid, comm;
	uint16_t dev; /* < ST_MAX_DEV (65536) */
	uint8_t op;
	uint8_t completion; /* ios.completion: 0 seen, else complete is a bound */
	uint8_t has_sched;  /* the trace has the sched_ns column */
	int error;
	/* the file columns (format 1.3; 0 when the trace has none) */
	uint8_t file_class;
	uint32_t file_dev, file_bytes, file2_dev, file2_bytes;
	uint64_t inode, inode2;
};

/*
 * Where a report's rows come from: a trace of the database (stats_load.c)
 * or a trace file read in place (stats_file.c). The figures are computed
 * by the same code (stats.c) from either: only reading differs.
 */
struct st_source;
struct st_source_ops {
	/* The trace's facts into rep (path, kind, digest, run, losses,
	 * truncated, partial, verify) and its number of I/Os into *n. 0, -ENOENT,
	 * -EIO with err filled. */
	int (*trace_row)(struct st_source *s, struct st_report *rep, uint64_t *n,
			 struct bpt_error *err);
	/* Start a pass over the rows in file order: 0 or <0 (err). */
	int (*scan_begin)(struct st_source *s, struct bpt_error *err);
	/* Up to max next rows into rows: how many, fewer than max only at
	 * the end (then no further call), or <0 (err). Runs in the reader
	 * thread of stats_scan. */
	long (*scan_fill)(struct st_source *s, struct st_row *rows, size_t max,
			  struct bpt_error *err);
	void (*scan_end)(struct st_source *s);
	/* The path of file (dev, inode) into buf: 1, or 0 when not known
	 * (may be NULL: no paths). */
	int (*path_name)(struct st_source *s, uint32_t dev, uint64_t inode, char *buf,
			 size_t len);
	/* fn for every path of the trace's path table, until fn returns
	 * non-zero (returned); 0, or -EIO with err filled. */
	int (*paths_each)(struct st_source *s,
			  int (*fn)(void *ctx, uint32_t dev, uint64_t inode, const char *path),
			  void *ctx, struct bpt_error *err);
	/* The name of process string `comm` into buf, "?" when unknown. */
	void (*comm_name)(struct st_source *s, uint32_t comm, char *buf, size_t len);
	/* Device names into rep->dev[].name: 0 or -EIO (err). */
	int (*device_names)(struct st_source *s, struct st_report *rep, struct bpt_error *err);
	/* Bind ?1 of a statement over `from` (below). */
	void (*bind_from)(struct st_source *s, sqlite3_stmt *st);
};

struct st_source {
	const struct st_source_ops *ops;
	/* The connection the sorted queries run on, and the rows there as a
	 * FROM term taking ?1: the database's ios of one trace, or
	 * trace_ios(?1) over the file on a private in-memory connection. */
	sqlite3 *db;
	const char *from;
	int64_t id;                 /* database: the trace id */
	const char *path;           /* file: as given */
	int has_sched;              /* the rows have sched_ns (set by trace_row) */
	uint32_t columns;           /* file: the header's optional columns */
	struct bpt_reader *r;       /* file */
	void *scan;                 /* the source's pass state */
	/* database: the I/Os held in memory for a PostgreSQL working copy
	 * (adb_remote_ios), NULL: the database's tables */
	const struct adb_ios *remote;
	struct progress *progress;  /* NULL, or the terminal's progress line */
	char name[4112];            /* "trace 3", or the file: for messages */
	/* --files (files_filter.h): the rows kept are those whose bit is set
	 * in keep, by idx (a trace) or by source_index (a run, keep_by_source);
	 * keep NULL: every row. Set by stats_keep_build. */
	const struct files_filter *files;
	uint64_t *keep, keep_n;
	int keep_by_source;
	char from_buf[192];         /* from, narrowed to the kept rows */
};

/* Is row r kept under --files? */
static inline int st_row_kept(const struct st_source *s, const struct st_row *r)
{
	uint64_t i = s->keep_by_source ? r->source_index : r->idx;

	return !s->keep || (i < s->keep_n && (s->keep[i >> 6] >> (i & 63) & 1));
}

/* The keep bitmap of src under src->files (stats_keep.c): from the
 * source's own rows (n of them), or for a run (rep->is_run, from trace_row) from
 * those of the trace it replayed; src->from narrowed to them (an SQL
 * function blkpeak_keep() on src->db). 0, or <0 with err filled. */
int stats_keep_build(struct st_source *src, struct st_report *rep, uint64_t n,
		     struct bpt_error *err);
/* Make bits (nbits of them, by source_index when by_source, else by
 * idx; src's from now on) the rows src keeps, and narrow src->from to
 * them. 0, or <0 with err filled. */
int stats_keep_install(struct st_source *src, uint64_t *bits, uint64_t nbits, int by_source,
		       struct bpt_error *err);
/* --recording (stats_recording.c): the rows of the recording
 * src->files->recording of a mixed run, by idx; rep->mix_recordings set.
 * 0, or <0 with err filled (not a mixed run; NAME not one of its
 * recordings, naming them). */
int stats_recording_build(struct st_source *src, struct st_report *rep, uint64_t n,
			  struct bpt_error *err);
/* Free the bitmap and drop the SQL function. */
void stats_keep_free(struct st_source *src);

/* A source over trace `id` of db (stats_load.c). */
void st_source_db(struct st_source *s, sqlite3 *db, int64_t id);

/* A source over the trace file `path` (stats_file.c): opens it and a
 * private in-memory connection. 0 or <0 with err filled; close with
 * st_source_file_close (also after a failure). */
int st_source_file(struct st_source *s, const char *path, struct bpt_error *err);
void st_source_file_close(struct st_source *s);

/* Call fn for each I/O row of the source in file order; stops at fn's
 * first non-zero return, which is returned. Checks that there were `n`
 * rows: -EIO otherwise. 0, -EIO or fn's value, with err filled. */
int stats_scan(struct st_source *src, uint64_t n, int pass,
	       int (*fn)(void *ctx, const struct st_row *r), void *ctx, struct bpt_error *err);

/* I/Os and bytes per (pid, comm id), counted one row at a time. */
struct proc_slot;
struct proc_table {
	struct proc_slot *slot;
	uint64_t cap, used; /* cap is a power of two */
};

/* 0 or -ENOMEM. */
int procs_add(struct proc_table *t, uint32_t pid, uint32_t comm, uint32_t bytes);
/* The process figures of rep (nproc_total, top_ios, top_bytes), names
 * from the source; frees t. 0 or -ENOMEM. */
int procs_finish(struct st_source *src, struct st_report *rep, struct proc_table *t,
		 struct bpt_error *err);
void procs_free(struct proc_table *t);

/* I/Os, bytes and service time per file (stats_files.c). */
struct file_slot;
struct file_table {
	struct file_slot *slot;
	uint64_t cap, used;
	double service_ns; /* of all rows */
};

int stfiles_add(struct file_table *t, const struct st_row *r);
/* The file figures of rep, paths from the source; frees t. */
int stfiles_finish(struct st_source *src, struct st_report *rep, struct file_table *t,
		 struct bpt_error *err);
void stfiles_free(struct file_table *t);

#endif
