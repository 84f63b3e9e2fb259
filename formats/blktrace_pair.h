/*
 * blktrace_pair.h — from blktrace events to requests: the events of one
 * request (Q queued, G got a request, I inserted, M/F merged, X split,
 * D issued, R requeued, C completed) are joined into one I/O with its
 * queue, issue and completion times, as blkparse and btt join them.
 *
 * Events must come in time order (per-CPU files merged). A request is
 * known by (device, sector): the sector its bios were queued at, the
 * sector the driver saw it issued and completed at (for a partition
 * trace both are whole-disk sectors, as the kernel records them after
 * the remap). Two requests at the same place are told apart by order
 * (the oldest is matched first) and by length.
 *
 *  - Q starts a request (queue time = Q time, pid = the submitter).
 *  - M (back merge) drops the merged bio's own Q: it is part of a request
 *    that starts before it, whose D says the full length.
 *  - F (front merge) moves the request it joins to the bio's sector.
 *  - X (split) gives the split-off part its own request at the new sector
 *    (the X payload), with the same queue time.
 *  - G or I without a Q before (a trace started late, a request the
 *    kernel made itself) start a request at their time.
 *  - D issues the oldest queued request at its sector; its length,
 *    operation and flags are the D's. A D without any Q starts a request
 *    with no queue time (queue_ns 0).
 *  - R returns it to the queue; the next D issues it again (the issue
 *    time kept is the last one, the one that completed).
 *  - C completes the oldest issued request at its sector; a C shorter
 *    than what is left completes part of it, and the rest stays in flight
 *    at the sector after the part.
 *  - A (remap), P/U/T (plugs), S, B and driver data change nothing;
 *    passthrough (PC) requests are not block I/O of a device's sectors and
 *    are counted, not returned.
 *
 * Requests leave in issue order: a finished one waits until every
 * request issued before it is done. When more than BT_PAIR_MAX_HELD
 * wait, the oldest request in flight is given up (returned as pending,
 * counted in given_up): a request whose completion the trace lost does
 * not hold the rest to the end of the file.
 *
 * Memory: the table of requests in flight, at most max_inflight (when
 * full, requests untouched for 60 s of trace time are given up: issued
 * ones are returned as still pending, queued ones counted; if none is
 * that old, bt_pair_feed fails), and at most BT_PAIR_MAX_HELD finished
 * requests waiting for their turn.
 */
#ifndef FORMATS_BLKTRACE_PAIR_H
#define FORMATS_BLKTRACE_PAIR_H

#include <stdint.h>

#include "blktrace_format.h"

/* One request, done (or given up). */
struct bt_io {
	uint64_t queue_ns;    /* 0 when no Q/G/I of it was in the trace */
	uint64_t issue_ns;
	uint64_t complete_ns; /* when completed */
	uint64_t sector;
	uint64_t cgroup;
	uint32_t bytes;
	uint32_t pid;         /* of the event that started it (Q: the submitter) */
	uint32_t dev;         /* major << 20 | minor */
	uint32_t cat;         /* category bits of its D (its Q when never issued) */
	int32_t error;        /* 0 or a negative errno */
	uint8_t completed;    /* 0: issued, its completion not in the trace */
	uint8_t unseen;       /* when not completed: BPT_COMPLETION_PENDING, or
				 REUSED from a note (bt_pair_unseen) */
};

/* What the pairing saw, for the user: nothing is dropped silently. */
struct bt_pair_stats {
	uint64_t events;               /* I/O events fed (not notes) */
	uint64_t ios;                  /* requests returned */
	uint64_t pending;              /* of them, never completed in the trace */
	uint64_t merges;               /* M and F */
	uint64_t splits;               /* X */
	uint64_t requeues;             /* R */
	uint64_t remaps;               /* A */
	uint64_t partial_completions;  /* C for part of a request */
	uint64_t passthrough;          /* events of passthrough (PC) requests */
	uint64_t unmatched_completions; /* C without a D of the request */
	uint64_t never_issued;         /* queued, no D by the end (or given up) */
	uint64_t unknown_actions;      /* action codes this reader does not know */
	uint64_t max_inflight;         /* most requests in the table at once */
	uint64_t given_up;             /* in flight while BT_PAIR_MAX_HELD later
					  ones finished: returned as pending */
};

struct bt_pair;

/* Each request in flight took at least one event (48 bytes) of the input:
 * the table never outgrows what the input allows. */
#define BT_PAIR_MAX_INFLIGHT (1u << 23)
#define BT_PAIR_MAX_HELD (1u << 20)
#define BT_PAIR_STALE_NS (60ull * 1000000000ull)

/* max_inflight 0 = BT_PAIR_MAX_INFLIGHT. 0 or -ENOMEM. */
int bt_pair_create(struct bt_pair **out, uint32_t max_inflight);
void bt_pair_free(struct bt_pair *p);

/* One event, in time order. Notes are ignored. 0, -ENOMEM, or -ENOSPC
 * when more than max_inflight requests are in flight within 60 s. */
int bt_pair_feed(struct bt_pair *p, const struct bt_event *ev);

/* A note that the request just issued at ev's device, sector and bytes
 * will have no completion: it is done, not completed, with complete_ns =
 * bound and unseen = completion (blktrace_writer.h writes such notes).
 * Nothing happens when no such request is in flight. 0 or -ENOMEM. */
int bt_pair_unseen(struct bt_pair *p, const struct bt_event *ev, uint8_t completion,
		   uint64_t bound);

/* The end of the events: requests still issued become pending I/Os
 * (bt_pair_take returns them), queued ones are counted as never issued. */
int bt_pair_finish(struct bt_pair *p);

/* A finished request, in issue order (those issued before it are all
 * done or given up): 1, or 0 when none is ready; -ENOMEM. */
int bt_pair_take(struct bt_pair *p, struct bt_io *io);

const struct bt_pair_stats *bt_pair_stats(const struct bt_pair *p);

/*
 * The .bpt operation and flags of a request from its categories and
 * length: discard, write-zeroes (v0x08 only; v0x07 records them as
 * writes), a flush (FLUSH without data), write, else read; flags sync,
 * fua, meta, readahead, and preflush (FLUSH with data). Returns 0, or -1
 * for a zone management request (reset, finish, open, close), which has
 * no .bpt operation.
 */
int bt_cat_to_op(uint64_t cat, uint32_t bytes, uint8_t *op, uint8_t *flags);
/* The categories blktrace gives a request of that operation and flags
 * (as the kernel does: a flush is READ|FLUSH, a discard WRITE|DISCARD,
 * write-zeroes a WRITE). */
uint32_t bt_op_to_cat(unsigned op, unsigned flags);
/* The recorded 16-bit error as a negative errno (0 stays 0). */
int32_t bt_errno(uint16_t error);

#endif
