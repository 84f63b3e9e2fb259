/*
 * region.h — "dual" placement: a region of a recorded disk replayed on a
 * target of its own (`--map DEV:START-END=SPEC[@OFFSET]`, or
 * `--map PARTITION=SPEC` for a partition the capture stored).
 *
 * A region [start, end) of recorded device `dev` goes to `target`, byte
 * start landing at `at` there; the rest of the disk goes to the device's
 * own target (--map DEV=SPEC or --target), or nowhere (an I/O there is an
 * error). An I/O that straddles region boundaries is cut at each boundary
 * into pieces, in the order of its bytes, each piece sent to its region's
 * target: the pieces cover the I/O exactly, without gap or overlap. A
 * flush (or any I/O of no bytes) concerns the whole disk and goes to every
 * target of the disk: the rest's target first, then the regions' in order
 * of their start, each target once.
 *
 * Sizes in the map take parse_size's units (k, M, G, T: binary) or a
 * count of 512-byte sectors with an "s" suffix ("2048s"); every bound is
 * a multiple of 512.
 */
#ifndef BLKPEAK_REGION_H
#define BLKPEAK_REGION_H

/* Region bounds and @OFFSETs: at most 2^62 bytes (4 EiB), so sums of them
 * and an I/O's length never wrap. */
#define REGION_MAX_BYTES (1ull << 62)

#include <stdint.h>

#include "error.h"

/* At most this many regions over all devices. */
#define REGION_MAX 16
/* Pieces one I/O can become: a piece per region and per gap between them,
 * or (flush) one per target. */
#define REGION_MAX_PIECES (2 * REGION_MAX + 1)
#define REGION_NO_TARGET 0xff

struct region {
	uint64_t start, end;  /* bytes on the recorded device, start < end */
	uint64_t at;          /* where `start` lands on the target, bytes */
	uint32_t dev;         /* recorded device index */
	uint8_t target;       /* target index */
};

/* One piece of a recorded I/O: where it goes and which bytes it holds. */
struct region_piece {
	uint8_t target;       /* REGION_NO_TARGET never appears: see region_split */
	uint64_t offset;      /* on the target, bytes */
	uint64_t len;         /* bytes */
	uint64_t src_off;     /* where the piece starts within the I/O */
	uint8_t placement;    /* 0: where its device's maps put it; k: by
			       * rule k-1 of a file or task map (filemap.h) */
};

/*
 * "1G", "512M", "4k", "2048s" (sectors) → bytes; -EINVAL unless a whole
 * number of 512-byte sectors.
 */
int region_parse_size(const char *text, uint64_t *out);

/*
 * The key of a --map (what precedes '='): "DEV:START-END" or "DEV:START-"
 * (to the end of the disk). Returns 1 with *dev_len (the length of DEV in
 * key), *start, *end (0 for "to the end": *to_end set) when key has that
 * form; 0 when it does not (a plain device or partition name: the last
 * ':' is not followed by START-); -EINVAL with the reason when it has the
 * form but a bad or empty range.
 */
int region_parse_key(const char *key, size_t *dev_len, uint64_t *start, uint64_t *end,
		     int *to_end, struct bpt_error *error);

/*
 * Cut "SPEC@OFFSET" at its last '@' when what follows is a size
 * (region_parse_size): returns 1 with *at and *spec_len (the length of
 * SPEC), 0 when there is no such suffix, -EINVAL for "@" followed by a
 * size not in whole sectors or an empty SPEC.
 */
int region_parse_at(const char *spec, size_t *spec_len, uint64_t *at,
		    struct bpt_error *error);

/*
 * Sort r[0..n) by (dev, start) and refuse overlaps: -EINVAL with both
 * regions named ("device NAME: regions A-B and C-D overlap") using
 * dev_names[dev].
 */
int region_check(struct region *r, unsigned n, const char *const *dev_names,
		 struct bpt_error *error);

/*
 * Cut the I/O [off, off+len) of recorded device `dev` over the sorted
 * regions r[0..n); `rest` is the target of the device's bytes outside
 * every region (REGION_NO_TARGET: none). Returns the number of pieces
 * written to out[0..REGION_MAX_PIECES), or -ENODEV when a byte of the I/O
 * lies outside the regions and `rest` is REGION_NO_TARGET (*miss: the
 * first such byte).
 */
int region_split(const struct region *r, unsigned n, unsigned dev, unsigned rest,
		 uint64_t off, uint64_t len, struct region_piece *out, uint64_t *miss);

#endif
