/*
 * target_hdd.h — emulated disks on the replay path.
 *
 * A member spelled hdd:MODEL:PATH (target.h) is replayed on PATH for real,
 * and each completion is held back until the disk model (disk_model.h)
 * says the emulated disk would have finished it. The holding is done by a
 * layering engine, engine_hdd_ops: it takes the engine that does the real
 * I/O (engine_opts.inner) and the set of emulated disks (engine_opts.hdd,
 * looked up by the descriptor of each I/O), feeds every I/O to its disk's
 * model at commit time (CLOCK_MONOTONIC, so the platters turn with the
 * clock) and hands it back from getevents() once both the real I/O and
 * the model are done, sleeping until the model's finish time when that is
 * later. I/Os on descriptors without a model pass straight through.
 */
#ifndef BLKPEAK_TARGET_HDD_H
#define BLKPEAK_TARGET_HDD_H

#include <stddef.h>
#include <stdint.h>

#include "disk_model.h"
#include "engine/engine.h"

struct hdd_set;

int hdd_set_create(struct hdd_set **out);
void hdd_set_free(struct hdd_set *s);
/* Emulate the disk behind descriptor `fd` (capacity bytes) with `p`;
 * -EINVAL (bad parameters or fd), -EEXIST (fd already has a model),
 * -ENOMEM. */
int hdd_set_add(struct hdd_set *s, int fd, const struct disk_params *p, uint64_t capacity);
unsigned hdd_set_count(const struct hdd_set *s);

struct target;
/* Add every hdd: member of the opened target t to *s (created on the
 * first one), each with the member's size as its capacity; when `log` is
 * set, say on stderr which disk is emulated as what. 0, or a negative
 * errno with the reason in why[len]. */
int hdd_set_add_target(struct hdd_set **s, const struct target *t, int log, struct bpt_error *error);

#endif
