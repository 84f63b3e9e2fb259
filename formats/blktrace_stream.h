/*
 * blktrace_stream.h — blktrace events from files: one file's records in
 * order (struct bt_stream), and several per-CPU files merged by time
 * (struct bt_merge), as blkparse merges DEV.blktrace.0, .1, ...
 *
 * Memory: one read buffer per file (1 MiB), whatever the file's length.
 * Functions return 1 (an event), 0 (the end) or a negative errno with
 * the message in err ("NAME: offset N: reason"); they never print.
 */
#ifndef FORMATS_BLKTRACE_STREAM_H
#define FORMATS_BLKTRACE_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "blktrace_format.h"
#include "error.h"

/* Where a stream's bytes come from: up to len bytes into buf; returns the
 * count, 0 at the end, or a negative errno with err filled. */
typedef long (*bt_read_fn)(void *ctx, void *buf, size_t len, struct bpt_error *err);

struct bt_stream {
	const char *name;      /* for messages; not owned */
	bt_read_fn read;
	void *ctx;
	uint8_t *buf;
	size_t cap, pos, end;  /* buf[pos..end) not yet decoded */
	uint64_t base;         /* file offset of buf[0] */
	int eof;
	int have_layout;
	struct bt_layout lay;  /* from the first record */
	uint64_t events;       /* decoded so far */
	uint64_t last_time;
	uint64_t backwards;    /* events earlier than the one before them */
};

/* Start reading `name` through read(ctx, ...). 0 or -ENOMEM. */
int bt_stream_init(struct bt_stream *s, const char *name, bt_read_fn read, void *ctx);
void bt_stream_free(struct bt_stream *s);

/* The next record. A file that ends inside a record, a record with
 * another magic than the first (damage, or not a blktrace file) and an
 * unknown version are errors naming the byte offset. */
int bt_stream_next(struct bt_stream *s, struct bt_event *ev, struct bpt_error *err);

/* Several streams merged into one in time order; ties go to the stream
 * given first. The event returned stays valid until the next call. */
struct bt_merge {
	struct bt_stream **s;  /* not owned */
	struct bt_event *cur;  /* each stream's next event */
	unsigned *heap;        /* stream indexes, a min-heap on cur[].time */
	unsigned n, live;
	int last;              /* stream whose event was returned last, or -1 */
	int started;
};

int bt_merge_init(struct bt_merge *m, struct bt_stream **s, unsigned n);
void bt_merge_free(struct bt_merge *m);
int bt_merge_next(struct bt_merge *m, struct bt_event *ev, struct bpt_error *err);

#endif
