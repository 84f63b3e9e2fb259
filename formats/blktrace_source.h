/*
 * blktrace_source.h — the requests of a set of blktrace files: the
 * per-CPU streams merged by time (blktrace_stream.h), their notes read
 * (process names, the wall clock), their I/O events joined into requests
 * (blktrace_pair.h). What the blktrace reader of formats/ returns, one
 * request at a time, without knowing where the bytes come from.
 */
#ifndef FORMATS_BLKTRACE_SOURCE_H
#define FORMATS_BLKTRACE_SOURCE_H

#include <stdint.h>

#include "blktrace_pair.h"
#include "blktrace_stream.h"

struct bt_source_input {
	const char *name;  /* for messages; must outlive the source */
	bt_read_fn read;
	void *ctx;
};

/* What the notes and streams said, beside the pairing's counts. */
struct bt_source_info {
	uint64_t notes;            /* notify records (skipped as I/O) */
	uint64_t backwards;        /* events earlier than the one before them
				      in their own file (blkparse re-sorts those;
				      pairing takes them as they come) */
	int has_wall;              /* a TIMESTAMP note was seen: */
	int64_t wall_minus_time;   /* wall-clock ns minus event-time ns */
	uint64_t names_dropped;    /* process names past the table's size */
	uint32_t version;          /* 7 or 8 (of the first file) */
	int big_endian;
};

struct bt_source;

/* Start reading n inputs (per-CPU files of one trace, or one stream). */
int bt_source_open(struct bt_source **out, const struct bt_source_input *in, unsigned n,
		   struct bpt_error *err);
void bt_source_close(struct bt_source *s);

/* The next request: 1 with *io and *comm (the submitter's process name
 * from the trace's PROCESS notes, "" when none), 0 at the end, <0 with
 * err set (a damaged file, or too many requests in flight). */
int bt_source_next(struct bt_source *s, struct bt_io *io, const char **comm,
		   struct bpt_error *err);

const struct bt_pair_stats *bt_source_pair_stats(const struct bt_source *s);
void bt_source_info(const struct bt_source *s, struct bt_source_info *info);

#endif
