/*
 * load.h — reading a trace into the compact, issue-sorted array the
 * scheduler replays (struct rp_io, 40 bytes per I/O), applying the
 * device-to-target map and the --writes policy on the way.
 */
#ifndef BLKPEAK_LOAD_H
#define BLKPEAK_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "bpt.h"
#include "sched.h"

#define LOAD_MAX_TARGETS 16

enum writes_mode {
	WRITES_REPLAY,   /* writes are written (block devices: --allow-write) */
	WRITES_SKIP,     /* writes, discards and write-zeroes are left out */
	WRITES_AS_READS, /* writes become reads of the same range; discards and
			    write-zeroes are left out */
};

#define LOAD_UNMAPPED 0xff

struct load_opts {
	/* target index of each device of the trace's header (by device
	 * index); LOAD_UNMAPPED: a record on it makes the load fail */
	uint8_t dev_target[BPT_MAX_DEVICES];
	enum writes_mode writes;
};

/* Per target: what the scheduler will send there. */
struct load_target_stats {
	uint64_t ios;
	uint64_t writes;      /* writes, discards, write-zeroes to be sent */
	uint64_t extent;      /* end of the farthest I/O, bytes */
	uint64_t max_len;     /* longest I/O, bytes */
	uint64_t max_rw_len;  /* longest read or write (buffer size) */
};

struct loaded_trace {
	struct rp_io *io;        /* sorted by (t_ns, src) */
	uint64_t n;
	uint64_t source_records; /* records in the file */
	uint64_t skipped;        /* left out by the --writes policy */
	uint64_t recorded_ns;    /* last completion - first issue */
	unsigned max_outstanding; /* most I/Os in flight in the recording */
	int unmapped_dev;        /* after -ENODEV: the device without a target */
	struct load_target_stats tgt[LOAD_MAX_TARGETS];
};

/*
 * Read every record of `r` (from where it stands) into *lt. Times become
 * relative to the first issue. Returns 0, -ENOMEM, -ENODEV for a record
 * on an unmapped device (lt->unmapped_dev says which), or the reader's
 * error (err filled). A truncated trace loads up to its last good block.
 */
int load_trace(struct bpt_reader *r, const struct load_opts *opts,
	       struct loaded_trace *lt, struct bpt_error *err);
void loaded_trace_free(struct loaded_trace *lt);

/* Most I/Os in flight at once given issue-sorted I/Os (0 when n is 0). */
unsigned load_max_outstanding(const struct rp_io *io, uint64_t n);

#endif
