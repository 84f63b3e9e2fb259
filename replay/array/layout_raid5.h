/*
 * layout_raid5.h — the column ranges of a raid5/raid6 request, shared by
 * the mapping (layout_raid5.c) and the parity computation
 * (layout_raid5_compute.c), which must walk them identically.
 *
 * A row of chunks holds d = n - p data chunks (p = 1 or 2 parity chunks).
 * Within a row, a request covers a byte range of the row's data; at
 * column x (the offset within a chunk, 0 <= x < c) it covers some set of
 * data chunks. The set only changes where the request starts or ends, so a
 * row splits into at most three column ranges, each with a constant set:
 * this is the unit of every parity decision, as md's per-page stripe head
 * is, merged over the pages that decide alike.
 */
#ifndef BLKPEAK_LAYOUT_RAID5_H
#define BLKPEAK_LAYOUT_RAID5_H

#include "layout.h"

struct raid_col {
	uint64_t row, x0, len;   /* columns [x0, x0+len) of chunk row `row` */
	uint32_t touched;        /* bit i: the request covers data index i here */
	int64_t pos0;            /* request byte of data index 0 at x0 (may be < 0) */
	struct raid_row g;
	/* bit masks of members */
	uint32_t data, parity, want; /* want: the request's own members here */
};

struct raid_cols {
	const struct layout *l;
	uint64_t off, end, row, x;
	int started;
};

/* How a column range is written (md's handle_stripe_dirtying). */
enum raid_strategy {
	RAID_READ,        /* a read: the wanted members, nothing missing */
	RAID_REBUILD,     /* a read of a missing member: read the others */
	RAID_FULL,        /* every data chunk written: parity from new data */
	RAID_RMW,         /* read old data and parity, xor the difference in */
	RAID_RCW,         /* read the unwritten data, parity from all data */
	RAID_RECON,       /* raid6, two missing: read all, solve, then as RCW */
	RAID_NOPARITY,    /* every parity member missing: write data only */
};

unsigned raid_nparity(const struct layout *l);
void raid_cols_init(struct raid_cols *it, const struct layout *l, uint64_t off, uint64_t len);
/* The next column range the request covers: 1, or 0 at the end. */
int raid_cols_next(struct raid_cols *it, struct raid_col *c);
enum raid_strategy raid_col_strategy(const struct layout *l, unsigned op,
				     const struct raid_col *c, uint32_t *reads,
				     uint32_t *writes);
/* Bytes of scratch a column range uses (0: none, its parts use the
 * request's buffer): a slot per member, then new P and new Q. */
uint64_t raid_col_scratch(const struct layout *l, enum raid_strategy s, const struct raid_col *c);
static inline uint64_t raid_slot_len(uint64_t len)
{
	return (len + 4095) & ~4095ull;
}

#endif
