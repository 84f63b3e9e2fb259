/*
 * mix.h — a mixed replay's recordings (`blkpeak replay A.bpt B.bpt ...`):
 * their names, their start offsets (--mix-offset NAME=TIME) and the
 * digest that names the mix in the run file.
 *
 * A recording's name is its file name without the folder and the last
 * extension (photo-edit for suite/photo-edit.bpt): the run file tags each
 * I/O with it (the comm column) and --mix-offset names a recording by it
 * (or by the path as given). Two recordings of one name are refused, so a
 * name always says which recording an I/O came from.
 */
#ifndef BLKPEAK_MIX_H
#define BLKPEAK_MIX_H

#include <stddef.h>
#include <stdint.h>

#include "recname.h"
#include "sched.h"

/* Most recordings of a mix. */
#define MIX_MAX SCHED_MAX_RECS
/* A recording's name: up to this many bytes (a longer one is cut). */
#define MIX_NAME_MAX RECNAME_MAX
/* Longest start offset: 24 hours, as a suite manifest's offsets. */
#define MIX_OFFSET_MAX_NS (24ull * 3600 * 1000000000)

/* path's recording name: recording_name(path, buf[MIX_NAME_MAX + 1])
 * (common/recname.h, which suite/ shares). */

/*
 * The mix's digest: FNV-1a 64 over, for each recording in order, its
 * digest as 16 hex digits, '@', its offset in ns in decimal and '\n'.
 * Two runs of the same recordings at the same offsets share it, so
 * analyze compare takes them as runs of one workload.
 */
uint64_t mix_digest(const uint64_t *digest, const uint64_t *offset_ns, unsigned n);

#endif
