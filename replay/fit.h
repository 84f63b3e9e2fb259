/*
 * fit.h — placing a trace's offsets on a target: `--offset` shifts every
 * I/O, and a trace that reaches past the end of the target is refused
 * unless `--fit wrap` (offsets modulo the space) or `--fit scale` (offsets
 * scaled by space/extent, so the trace's shape is kept) is given. Offsets
 * stay aligned to the target's logical block size.
 */
#ifndef BLKPEAK_FIT_H
#define BLKPEAK_FIT_H

#include <stddef.h>
#include <stdint.h>

#include "bpt.h"

enum fit_mode { FIT_REFUSE, FIT_WRAP, FIT_SCALE };

struct fit {
	enum fit_mode mode;   /* FIT_REFUSE also when the trace fits */
	uint64_t extent;      /* end of the trace's farthest I/O, bytes */
	uint64_t space;       /* target capacity minus shift, aligned down */
	uint64_t shift;       /* --offset */
	unsigned align;       /* logical block size of the target */
	int identity;         /* the trace fits: offsets only shifted */
};

/* "wrap", "scale" → mode; -EINVAL otherwise. */
int fit_mode_parse(const char *s, enum fit_mode *mode);

/*
 * Set up *f for a trace whose I/Os end at most at `extent` and are at most
 * `max_len` long, on a target of `capacity` bytes, shifted by `shift`.
 * -ENOSPC with a reason naming `name` and both sizes when it does not fit
 * and mode is FIT_REFUSE, or when even one I/O is longer than the space.
 */
int fit_init(struct fit *f, enum fit_mode mode, uint64_t extent,
	     uint64_t max_len, uint64_t capacity, uint64_t shift, unsigned align,
	     const char *name, struct bpt_error *error);

/* The target offset of the I/O [off, off+len); always within capacity. */
uint64_t fit_map(const struct fit *f, uint64_t off, uint64_t len);

#endif
