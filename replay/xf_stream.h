/*
 * xf_stream.h — the trace's I/Os as replay gives them to the scheduler
 * with the what-if transforms that act on the schedule (transform/xform.h):
 * --loop (the load stream read once per pass, each pass later by the
 * kept I/Os' span and --loop-offset bytes further on) and --ramp (the
 * times through the rising speed factor). The record-level transforms
 * (select, ops, address) are load.c's (load_opts.xf). --fit places the
 * offsets here, after a pass's --loop-offset, so that wrap and scale see
 * the looped extent. The conflicts (conflicts.h) are found last, on the
 * target offsets and the transformed recorded times.
 *
 * Memory: one load stream (load.h's two windows), which gives the
 * trace's I/Os once per pass (load_stream_open_passes): its thread fills
 * the first window of a pass while the last one of the pass before is
 * given out, so a pass begins on time.
 */
#ifndef BLKPEAK_XF_STREAM_H
#define BLKPEAK_XF_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "conflicts.h"
#include "fit.h"
#include "load.h"
#include "xform.h"

/*
 * After load_scan with transforms: set x's span from lt (the kept I/Os'
 * recorded length) and turn lt's sums into those of the whole looped
 * schedule (count, writes, extents; recorded_ns: the ramped length).
 * -ERANGE with the reason when an extent would pass 2^62 bytes.
 */
int xf_totals(struct loaded_trace *lt, struct xform *x, char *why, size_t len);

/*
 * The largest logical block size of the members of target `spec` (from
 * sysfs for a block device; 512 for a file, as target_open takes it),
 * known before the target is opened, for --spread's rounding. 512 when
 * a member cannot be looked at (the open that follows says why).
 */
uint32_t xf_target_align(const char *spec);

struct xf_stream;

/* As load_stream_open, with x's loop and ramp (x NULL: none), and
 * overlapping I/Os in flight together handled by `rule` (conflicts.h). */
int xf_stream_open(struct xf_stream **out, struct bpt_reader *r, const struct loaded_trace *lt,
		   const struct fit *fit, uint64_t window, const struct xform *x,
		   enum conflict_rule rule);
/* The conflicts seen so far and, of those, the I/Os left out (drop). */
void xf_stream_conflicts(const struct xf_stream *s, uint64_t *count, uint64_t *dropped);
/* As load_stream_next. */
int xf_stream_next(struct xf_stream *s, struct rp_io *io, struct bpt_error *err);
void xf_stream_close(struct xf_stream *s);

#endif
