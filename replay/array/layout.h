/*
 * layout.h — virtual arrays built in user space: how a request on the
 * virtual target (offset, length, operation) becomes parts on its members.
 *
 * The mappings are pure arithmetic on (offset, len) except the read
 * balancing of mirrors (raid1, raid10), which looks at how many parts each
 * member has outstanding and where its last part ended: layout_map()
 * counts every part it returns as outstanding on its member and
 * layout_part_done() takes it off again when the part completes.
 *
 *   single  one member, identity mapping
 *   raid0   chunk c over n members: logical chunk k lives on member k % n,
 *           row k / n; requests split at chunk boundaries
 *   raid1   every member holds everything; a read goes whole to the member
 *           with the fewest outstanding parts, ties to the one whose last
 *           part ended nearest the read's offset, then the lowest index;
 *           writes, discards, write-zeroes and flushes go to all members
 *   raid10  md's "near 2" layout: logical chunk k has copies in slots 2k
 *           and 2k+1, slot s on member s % n, row s / n; reads pick one
 *           copy per chunk as raid1 does, writes go to both
 *   linear  members concatenated in order; requests split at member ends
 *   raid5   md's raid5: chunk c, one parity chunk per row of n chunks, its
 *           place rotating per row as md's layout (`algo`) says; a write
 *           becomes reads of old data or parity (phase 0, array-internal)
 *           then writes of data and parity (phase 1); layout_raid5.c
 *   raid6   the same with two parity chunks, P and Q (raid6_gf.h)
 *   Degraded raid5/raid6 (`missing`, a mask of members) never touch a
 *   missing member and rebuild what a read needs from the others.
 *
 * A flush goes to every member (offset 0, length 0) in every layout.
 * Discards and write-zeroes carry no data, so raid0 and raid10 send them
 * as one range per member (the union of that member's chunks, which is
 * contiguous on the member) instead of one part per chunk: a 1 GiB
 * discard on 64 KiB chunks is n parts, not 16384.
 */
#ifndef BLKPEAK_LAYOUT_H
#define BLKPEAK_LAYOUT_H

#include <stdint.h>

#define LAYOUT_MAX_MEMBERS 32

enum layout_kind {
	LAYOUT_SINGLE,
	LAYOUT_RAID0,
	LAYOUT_RAID1,
	LAYOUT_RAID10,
	LAYOUT_LINEAR,
	LAYOUT_RAID5,
	LAYOUT_RAID6,
};

/* md's parity placements (drivers/md/raid5.h ALGORITHM_*, same numbers);
 * md's default, and blkpeak's, is left-symmetric. */
enum raid_algo {
	RAID_LEFT_ASYMMETRIC = 0,
	RAID_RIGHT_ASYMMETRIC = 1,
	RAID_LEFT_SYMMETRIC = 2,
	RAID_RIGHT_SYMMETRIC = 3,
	RAID_PARITY_0 = 4,
	RAID_PARITY_N = 5,
	RAID_ALGO__COUNT
};

struct layout {
	enum layout_kind kind;
	unsigned nmembers;
	uint64_t chunk;                  /* raid0, raid10, raid5, raid6: bytes */
	enum raid_algo algo;             /* raid5, raid6 */
	uint32_t missing;                /* raid5, raid6: bit m, member m is absent */
	uint64_t member_size[LAYOUT_MAX_MEMBERS]; /* bytes */
	uint64_t capacity;               /* set by layout_init */
	/* read balancing state (raid1, raid10) */
	unsigned outstanding[LAYOUT_MAX_MEMBERS];
	uint64_t last_pos[LAYOUT_MAX_MEMBERS];
};

/* One piece of a request on one member. */
struct layout_part {
	unsigned member;
	uint64_t offset;   /* on the member, bytes */
	uint64_t len;      /* bytes */
	uint64_t buf_off;  /* where the piece starts within the request, or
			    * within its scratch buffer when `scratch` */
	/* raid5, raid6 (0 in the other layouts): */
	uint8_t phase;     /* 1: queued once every phase-0 part completed and
			    * layout_raid_compute ran */
	uint8_t read;      /* reads whatever the request's operation */
	uint8_t internal;  /* array-internal: old data or parity read, parity
			    * write, or a read to rebuild a missing member */
	uint8_t scratch;   /* buf_off is within the request's scratch buffer */
};

/*
 * Check kind, member count and chunk, and compute the capacity from the
 * member sizes. -EINVAL: bad member count for the kind (raid1, raid10 and
 * linear need 2 or more, raid0 1 or more, single exactly 1) or a chunk
 * that is 0 or not a multiple of 512; -ENOSPC: the members are too small
 * to hold a single chunk.
 */
int layout_init(struct layout *l);

/* Most parts a request of `len` bytes can become (for sizing arrays). */
unsigned layout_max_parts(const struct layout *l, uint64_t len);

/*
 * Map the request [off, off+len) with operation `op` (enum bpt_op) into at
 * most `max` parts, in the order of the request's bytes (mirror copies of
 * the same bytes next to each other, lower member first). Returns the
 * number of parts, -ERANGE when the request reaches past the capacity, or
 * -E2BIG when `max` is too small. Every returned part is counted as
 * outstanding on its member and moves the member's last position.
 */
int layout_map(struct layout *l, unsigned op, uint64_t off, uint64_t len,
	       struct layout_part *parts, unsigned max);

/* A part returned by layout_map completed. */
void layout_part_done(struct layout *l, const struct layout_part *p);

/* raid5, raid6: the request's parts need a scratch buffer of this many
 * bytes (4096-aligned) and layout_raid_compute after phase 0; 0 for the
 * other layouts and for plain reads. */
uint64_t layout_scratch_size(const struct layout *l, unsigned op, uint64_t off,
			     uint64_t len);
/* raid5, raid6, after the phase-0 parts of a request completed: compute
 * the parity its phase-1 parts write (into scratch), or rebuild the bytes
 * a read wanted from a missing member (into `buf`, the request's buffer).
 * `buf` holds the request's bytes (a write's data). */
void layout_raid_compute(const struct layout *l, unsigned op, uint64_t off, uint64_t len,
			 uint8_t *buf, uint8_t *scratch);
/* raid5, raid6: 1 when requests a and b may not be in flight together
 * (they share a row and one of them is not a read: parity is read,
 * modified and written per row); 0 always for the other layouts. */
int layout_conflict(const struct layout *l, unsigned op_a, uint64_t off_a, uint64_t len_a,
		    unsigned op_b, uint64_t off_b, uint64_t len_b);
/* "left-symmetric", ... and back (-EINVAL for an unknown name). */
const char *raid_algo_name(enum raid_algo a);
int raid_algo_parse(const char *s, enum raid_algo *a);

/* One row of a raid5/raid6 array: where its parity and data chunks are. */
struct raid_row {
	unsigned pd, qd;                        /* P and Q members (qd: raid6) */
	unsigned member[LAYOUT_MAX_MEMBERS];    /* data index -> member */
	unsigned slot[LAYOUT_MAX_MEMBERS];      /* data index -> Q syndrome slot */
};
void layout_raid_row(const struct layout *l, uint64_t row, struct raid_row *g);

/* Name of a kind: "single", "raid0", ... */
const char *layout_kind_name(enum layout_kind k);

/* Per-layout mappers behind layout_map (layout_<kind>.c); `op` is known
 * not to be a flush. They return a part count or -E2BIG. */
int layout_raid0_map(struct layout *l, uint64_t off, uint64_t len,
		     struct layout_part *parts, unsigned max);
int layout_raid1_map(struct layout *l, unsigned op, uint64_t off, uint64_t len,
		     struct layout_part *parts, unsigned max);
int layout_raid10_map(struct layout *l, unsigned op, uint64_t off, uint64_t len,
		      struct layout_part *parts, unsigned max);
int layout_linear_map(struct layout *l, uint64_t off, uint64_t len,
		      struct layout_part *parts, unsigned max);
int layout_raid5_map(struct layout *l, unsigned op, uint64_t off, uint64_t len,
		     struct layout_part *parts, unsigned max);
/* Discard/write-zeroes on raid0 (copies 1) or raid10 (copies 2): one
 * part per member that holds any of [off, off+len), in member order. */
int layout_stripe_ranges(const struct layout *l, unsigned copies, uint64_t off,
			 uint64_t len, struct layout_part *parts, unsigned max);
/* The chunk holding byte `pos` (*k), the offset in it (*in), and how much
 * of the `left` bytes from pos fit before the chunk ends (returned). */
uint64_t layout_chunk_piece(const struct layout *l, uint64_t pos, uint64_t left,
			    uint64_t *k, uint64_t *in);
/* Slot `slot` of a stripe over all members (slot s on member s % n, row
 * s / n), `in` bytes into its chunk: the part of `len` bytes that starts
 * `buf_off` bytes into the request. raid0 puts chunk k in slot k, raid10
 * in slots 2k and 2k+1. */
struct layout_part layout_slot_part(const struct layout *l, uint64_t slot, uint64_t in,
				    uint64_t len, uint64_t buf_off);
/* Of the candidate members, the one a read should go to (raid1 rule). */
unsigned layout_pick_mirror(const struct layout *l, const unsigned *cand,
			    unsigned ncand, uint64_t member_off);

#endif
