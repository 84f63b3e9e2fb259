/*
 * gen_model.h — the synthetic workload model behind `blkpeak generate`.
 *
 * The model draws I/Os one at a time, without any file I/O, so it can be
 * tested on its own:
 *
 *   what     each I/O is a read with probability read_pct/100, else a
 *            write; its size is drawn from the size mix; with probability
 *            random_pct/100 it starts at a random aligned offset in
 *            [offset, offset + span), else right after the previous I/O
 *            (wrapping to `offset` at the end of the span). No I/O ever
 *            reaches past offset + span. Random offsets are offset + a
 *            multiple of gen_align(size).
 *   when     arrivals (the record's queue time) are spaced 1/iops apart
 *            (fixed) or exponentially with mean 1/iops (poisson). With
 *            iops == 0 the workload is closed-loop: it keeps queue_depth
 *            I/Os outstanding, a new one arriving as soon as one completes.
 *   how long the device is `queue_depth` servers in front of a FIFO: an
 *            I/O is issued at its arrival, or when one of the queue_depth
 *            outstanding I/Os completes if all slots are busy, and takes
 *            latency_ns * U(0.8, 1.2) + bytes / bandwidth to complete.
 *            So queue <= issue <= complete, issue times never go back,
 *            and at most queue_depth I/Os are in flight at any time.
 *
 * The same parameters and seed give the same I/Os, bit for bit, with the
 * same C library (Poisson gaps use libm's log1p, whose last bit may differ
 * between libraries).
 */
#ifndef BLKPEAK_GEN_MODEL_H
#define BLKPEAK_GEN_MODEL_H

#include <stdint.h>

#include "bpt.h"
#include "gen_sizemix.h"

enum gen_arrival { GEN_ARRIVAL_FIXED, GEN_ARRIVAL_POISSON };

#define GEN_MAX_QD 65536

struct gen_params {
	struct size_mix bs;
	double read_pct;          /* 0..100 */
	double random_pct;        /* 0..100 */
	uint64_t offset;          /* first byte of the region, multiple of 512 */
	uint64_t span;            /* region length, >= the largest size */
	uint64_t count;           /* stop after this many I/Os; 0: no limit */
	uint64_t duration_ns;     /* stop before the first arrival >= this; 0: no limit */
	double iops;              /* mean arrival rate; 0: closed loop */
	enum gen_arrival arrival;
	uint32_t queue_depth;     /* 1..GEN_MAX_QD */
	uint64_t latency_ns;      /* device model: base service time */
	double bandwidth;         /* device model: bytes per second, > 0 */
	uint64_t seed;
	uint16_t dev;             /* copied into every record */
	uint32_t pid, comm_id;    /* copied into every record */
};

struct gen_model;

/* Defaults: 4 KiB random reads (read_pct 100, random_pct 100) over 1 GiB,
 * count 0 and duration 0 (the caller sets one), closed loop, queue depth
 * 1, 100 us + 1 GiB/s device, seed 1, pid 1, dev 0, comm_id 0. */
void gen_params_default(struct gen_params *p);

/* 0 if the parameters make sense, else -EINVAL with error (if not NULL)
 * naming the option, e.g. "--span: smaller than the largest size". */
int gen_params_check(const struct gen_params *p, struct bpt_error *error);

/* The alignment of a random I/O of `size` bytes: the largest power of
 * two that divides it (512 at least). */
uint32_t gen_align(uint32_t size);

/* Create a model; copies *p. -EINVAL if gen_params_check fails, -ENOMEM. */
int gen_model_create(struct gen_model **out, const struct gen_params *p);

/* Draw the next I/O into *rec (all fields set; optional columns 0).
 * Returns 1, or 0 when count or duration is reached. */
int gen_model_next(struct gen_model *m, struct bpt_record *rec);

void gen_model_free(struct gen_model *m);

#endif
