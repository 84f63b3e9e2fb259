/*
 * load.h — the trace as replay reads it: one pass in file order that
 * counts and sums up (load_scan), then the I/Os in issue order through a
 * bounded window (load_stream), as struct rp_io (sched.h) with the
 * device-to-target map, the --writes policy and --fit applied on the way.
 *
 * Memory does not grow with the trace's length. The scan keeps a few
 * dozen bytes per block of the file (a block holds up to 65536 records);
 * the stream keeps two windows of `window` I/Os (40 bytes each) at most.
 * Captures are written in completion order, so a block's issue times can
 * reach far back (an I/O that was outstanding for a long time is written
 * long after it was issued): the stream reads, for each window of issue times, every
 * block whose issue-time range meets it, so the order is exact whatever
 * the spread, and a block is decoded once more for each window its range
 * spans beyond its own (see load.c).
 */
#ifndef BLKPEAK_LOAD_H
#define BLKPEAK_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "bpt.h"
#include "filemap.h"
#include "fit.h"
#include "minheap.h"
#include "region.h"
#include "sched.h"
#include "xform.h"

#define LOAD_MAX_TARGETS 16

enum writes_mode {
	WRITES_REPLAY,   /* writes are written (block devices: --allow-write) */
	WRITES_SKIP,     /* writes, discards and write-zeroes are left out */
	WRITES_AS_READS, /* writes become reads of the same range; discards and
			    write-zeroes are left out */
};

#define LOAD_UNMAPPED 0xff

/* I/Os a window holds at most by default: 512K x 40 bytes; the stream
 * has two (one is filled by a thread while the other is replayed). */
#define LOAD_WINDOW_DEFAULT (1u << 19)

struct load_opts {
	/* target index of each device of the trace's header (by device
	 * index, ndev of them: load_opts_init); LOAD_UNMAPPED: a record on
	 * it (or on an index >= ndev) makes the load fail */
	uint8_t *dev_target;
	uint32_t ndev;
	/* regions sent to targets of their own (region.h), sorted by
	 * (dev, start); a device with regions has its I/Os cut at their
	 * bounds, each piece an rp_io of its own (same src, piece 0, 1, ...) */
	struct region region[REGION_MAX];
	unsigned nregion;
	uint8_t *has_region; /* ndev flags: the device has regions */
	/* file and task maps (filemap.h), planned; NULL: none. Their parts
	 * of a record are cut out of it first, the rest goes by regions */
	const struct filemap *fmap;
	enum writes_mode writes;
	/* what-if transforms of the records (transform/xform.h: select, ops,
	 * address), applied first; NULL: none. Loop and ramp are the
	 * stream's caller's (replay/xf_stream.h) */
	struct xform *xf;
};

/* Arrays for ndev devices (at least 1), every one LOAD_UNMAPPED without
 * regions; 0 or -ENOMEM. load_opts_free frees them (o may be zeroed). */
int load_opts_init(struct load_opts *o, uint32_t ndev);
void load_opts_free(struct load_opts *o);

/* Per target: what the scheduler will send there. */
struct load_target_stats {
	uint64_t ios;
	uint64_t writes;      /* writes, discards, write-zeroes to be sent */
	uint64_t extent;      /* end of the farthest I/O, bytes */
	uint64_t max_len;     /* longest I/O, bytes */
	uint64_t max_rw_len;  /* longest read or write (buffer size) */
};

struct load_block; /* load.c: one block of the file as the stream sees it */

struct loaded_trace {
	uint64_t n;              /* I/Os to replay */
	uint64_t source_records; /* records in the file */
	uint64_t skipped;        /* left out by the --writes policy */
	uint64_t deselected;     /* left out by the transforms (--select, ...) */
	uint64_t n_pass;         /* I/Os one pass of the stream gives (n without --loop) */
	uint64_t xf_bad_src;     /* after -ERANGE: the record a transform moved too far */
	uint64_t recorded_ns;    /* last completion - first issue */
	/* most I/Os in flight in the recording, of those whose completion
	 * the capture saw (one not seen stays "in flight" to its bound, far
	 * too late); set by load_scan when the file is in issue order, else
	 * by load_count_outstanding */
	unsigned max_outstanding;
	int have_max_outstanding;
	int issue_ordered;       /* the file's records are in issue order */
	int unmapped_dev;        /* after -ENODEV: the device without a target */
	uint64_t unmapped_byte;  /* ... and the first byte of the I/O there */
	int unmapped_region;     /* the byte lies outside the device's regions */
	uint64_t split;          /* records cut into pieces at region bounds */
	struct load_target_stats tgt[LOAD_MAX_TARGETS];
	/* what the stream needs */
	struct load_opts opts;
	uint64_t first_ns;       /* issue time that becomes 0 */
	struct load_block *blk;  /* blocks holding I/Os to replay, file order */
	uint64_t nblk;
};

/*
 * Read every record of `r` (from its start) once, in file order, into the
 * sums of *lt. Returns 0, -ENOMEM, -ENODEV for a record on an unmapped
 * device (lt->unmapped_dev says which), or the reader's error (err
 * filled). A truncated trace loads up to its last good block. `r` must
 * stay open for the streams made from *lt.
 */
int load_scan(struct bpt_reader *r, const struct load_opts *opts,
	      struct loaded_trace *lt, struct bpt_error *err);
void loaded_trace_free(struct loaded_trace *lt);

struct load_stream;

/*
 * A stream of lt's I/Os in issue order (ties by record index), times
 * relative to the first issue, through two windows of at most `window`
 * I/Os (0: LOAD_WINDOW_DEFAULT), one filled by a thread of the stream
 * while the other is given out. fit[t] places target t's offsets (NULL: as
 * recorded). The stream reads `r` (it moves its position); one stream at
 * a time per reader.
 */
int load_stream_open(struct load_stream **out, struct bpt_reader *r,
		     const struct loaded_trace *lt, const struct fit *fit,
		     uint64_t window);
/* The same, giving lt's I/Os `passes` times over (--loop): the thread
 * starts the next pass as soon as the last window of one is filled, so
 * a pass follows the one before it without a pause. load_stream_pass
 * says which pass (from 0) the I/O load_stream_next gave last is of. */
int load_stream_open_passes(struct load_stream **out, struct bpt_reader *r,
			    const struct loaded_trace *lt, const struct fit *fit,
			    uint64_t window, unsigned passes);
unsigned load_stream_pass(const struct load_stream *s);
/* The next I/O: 1, 0 at the end, or a negative errno (err filled; also
 * when the file no longer holds what load_scan saw). */
int load_stream_next(struct load_stream *s, struct rp_io *io, struct bpt_error *err);
void load_stream_close(struct load_stream *s);
/* Times a block was decoded so far (the stream's extra work, for tests). */
uint64_t load_stream_decodes(const struct load_stream *s);

/* Set lt->max_outstanding by one pass of a stream when load_scan could not
 * (a file not in issue order). 0 or a negative errno (err filled). */
int load_count_outstanding(struct bpt_reader *r, struct loaded_trace *lt,
			   uint64_t window, struct bpt_error *err);

/*
 * Most I/Os in flight at once, fed I/Os in issue order: a completion at
 * or before an issue has left the queue (so a zero-latency I/O never
 * counts). Holds the completion times of the I/Os in flight, so memory
 * follows the recording's concurrency, not its length.
 */
struct inflight_count {
	struct minheap done;  /* completion times of the I/Os in flight */
	unsigned best;
};
/* 0 or -ENOMEM. */
int inflight_add(struct inflight_count *c, uint64_t t_ns, uint64_t done_ns);
void inflight_free(struct inflight_count *c);

/* Most I/Os in flight at once given issue-sorted I/Os (0 when n is 0),
 * of those whose completion was seen (rp_io.unseen 0). */
unsigned load_max_outstanding(const struct rp_io *io, uint64_t n);

#endif
