/*
 * sched.h — the replay scheduler: when each I/O of a trace is issued.
 *
 * Input is a source of struct rp_io in recorded issue order (an array, or
 * load.h's stream of a trace file); output is one struct rp_result per
 * I/O, handed to a callback as each request completes (all its parts).
 * The scheduler holds only the I/Os in flight and one read ahead, so its
 * memory does not grow with the trace. Three timing modes:
 *
 *   original  I/O i is due at start + t_ns[i] / speed. Completions are
 *             reaped while waiting; the wait sleeps until spin_ns before
 *             the due time and spins the rest, reaping from the engine's
 *             ring until REAP_GUARD_NS before it. Each due time is absolute,
 *             so an I/O issued late does not delay the ones after it:
 *             lateness is measured per I/O (issue - due) and carried
 *             forward instead of piling up (fio's iolog_delay idea).
 *   afap      as fast as possible, in trace order, at most `depth`
 *             requests outstanding; with `poll`, a full queue is waited
 *             out by polling the engine for up to 50 µs before sleeping.
 *   causal    I/O i waits until every I/O whose recorded completion came
 *             before its recorded issue time has completed in the replay,
 *             then for its recorded think time (issue time minus the
 *             latest such completion; its offset from the start when it
 *             has none), divided by speed; `no_idle` drops the think time.
 *             An I/O whose completion the capture did not see (trace
 *             format 1.2) carries its bound as done_ns and counts as
 *             completed then: the I/Os issued after the bound wait for
 *             it (it had certainly completed), those issued before do
 *             not; one still pending at the capture's end holds up none.
 *             Exact at any distance, with memory for the I/Os in flight
 *             in the recording (causal.h).
 *
 * In every mode I/Os are issued in trace order and at most `depth`
 * requests are outstanding.
 *
 * A mixed replay (sched_source.nrec > 1: several recordings on one
 * target) keeps one lane per recording: each lane's I/Os come in its
 * recording's issue order and are issued in that order; across lanes the
 * I/O due first goes first (original and afap: the earliest recorded
 * time, so the lanes interleave by time; causal: the earliest due time
 * of the lanes whose dependencies are done). Causal dependencies are
 * kept within a lane: a recording never waits for another's I/Os.
 */
#ifndef BLKPEAK_SCHED_H
#define BLKPEAK_SCHED_H

#include <signal.h>
#include <stdint.h>

#include "cpu_pin.h"
#include "engine/engine.h"
#include "array/layout.h"

/* One I/O to replay (40 bytes; a million take 40 MB). */
struct rp_io {
	uint64_t t_ns;      /* recorded issue time, relative to the first */
	uint64_t done_ns;   /* recorded completion time, same origin */
	uint64_t offset;    /* on the target (after --offset/--fit), bytes */
	uint32_t len;       /* bytes */
	uint32_t src;       /* record index in the source trace */
	uint8_t target;     /* index into sched_config.targets */
	uint8_t op;         /* enum bpt_op */
	uint8_t flags;      /* enum bpt_flag */
	uint8_t piece;      /* a record cut at region bounds: which piece, in the
			       order of its bytes (load.h); else 0 */
	uint8_t unseen;     /* the capture did not see its completion: done_ns
			       is a bound (enum bpt_completion not SEEN) */
	uint8_t placement;  /* 0, or k: placed by file or task map k-1
			       (replay/filemap.h), for the summary */
	uint8_t rec;        /* a mixed replay: the recording it comes from
			       (sched_source.nrec), else 0 */
};
_Static_assert(sizeof(struct rp_io) == 40, "struct rp_io stays 40 bytes");

/* An array-internal I/O of a raid5/raid6 request (layout_part.internal):
 * an old data or parity read, a parity write, a read to rebuild a missing
 * member. Times relative to the replay's start. */
struct rp_internal {
	uint64_t offset;       /* on the member, bytes */
	uint64_t issue_ns, complete_ns;
	uint32_t len;
	uint8_t member, op;    /* op: BPT_OP_READ or BPT_OP_WRITE */
};

/* What happened to one I/O; times relative to the replay's start. */
struct rp_result {
	const struct rp_io *io; /* valid during the on_result call */
	uint64_t seq;         /* position in issue order, from 0 */
	uint64_t sched_ns;    /* when it was due */
	uint64_t issue_ns;    /* handed to the kernel */
	uint64_t complete_ns; /* last part completed */
	int32_t error;        /* 0 or first negative errno of a part */
	uint32_t member_mask; /* bit m: member m served a part (not counting
			       * array-internal parts) */
	uint32_t member_ios;  /* parts on members, array-internal ones included */
	uint8_t short_io;     /* a part did fewer bytes than asked (error -EIO) */
	/* the parts, valid during the on_result call: raid5/raid6 have
	 * array-internal ones (layout_part.internal), issued at phase0_ns
	 * (phase 0) or phase1_ns (phase 1), each done at part_done_ns[i] */
	const struct layout_part *parts;
	const uint64_t *part_done_ns;
	unsigned nparts;
	uint64_t phase0_ns, phase1_ns;
	/* the same internal parts as a list the caller may keep (NULL, 0 from
	 * the scheduler; sched_internal_copy makes one) */
	struct rp_internal *internal;
	unsigned ninternal;
};

/* The internal parts of r (rp_result.parts) as a malloc'ed list into
 * r->internal, r->ninternal (none: NULL, 0). -ENOMEM. */
int sched_internal_copy(struct rp_result *r);

/* The warm-up read: the first request on a device takes a cold path in
 * the kernel (request allocation, AIO and block-layer state: longer from
 * submit to dispatch; bench/RESULTS.md, "Replay, round 2: warm-up read"),
 * so one harmless read per member before the clock starts keeps that
 * delay off the first real I/O. */
#define WARMUP_LEN 4096u

enum timing { TIMING_ORIGINAL, TIMING_AFAP, TIMING_CAUSAL };

/* The spun stretch before a due time (sched_config.spin_ns): longer than
 * the longest wake-up from a sleep seen on an idle VM (bench/RESULTS.md,
 * issue 17's timing sections), so with
 * I/Os closer than this the issuer never sleeps and never waits to be
 * woken. SPIN_NS_SHORT is the stretch after a stall (spin_after_stall_ns)
 * and that of a SCHED_FIFO issuer, which must sleep now and then. */
#define SPIN_NS_DEFAULT 5000000ull
#define SPIN_NS_SHORT 80000ull
/* A spin interrupted this long was not the VM's noise (its gaps on an
 * idle machine are shorter: bench/RESULTS.md, issue 17) but other tasks
 * sharing the issuer's CPU: the machine is loaded. */
#define STALL_NS 10000000ull
/* No completion is reaped closer than this to a due time: the issue is
 * never held up by completion handling. */
#define REAP_GUARD_NS 30000ull

/* One replay target as the scheduler sees it. */
struct wcache;
struct sched_target {
	struct layout *layout;
	const int *fd;        /* per member */
	const int *is_blkdev; /* per member */
	struct wcache *wc;    /* the controller's write-back cache, or NULL
			       * (array/wcache.h; the scheduler destages it) */
};

struct sched_config {
	enum timing timing;
	double speed;          /* > 0; 1 = as recorded */
	unsigned depth;        /* most requests outstanding (>= 1) */
	int no_idle;           /* causal: no think time */
	/* before time 0, read WARMUP_LEN bytes at offset 0 of every member
	 * (into the buffer of the first I/O's operation, write_buf's bytes
	 * put back after; results ignored, reported nowhere) */
	int warmup;
	/* afap: when the queue is full, poll for completions for up to
	 * POLL_NS (scheduler.c) before sleeping in the engine */
	int poll;
	/* afap: hand a finished request's result to on_result only after
	 * the I/Os its completion made room for are submitted, so that this
	 * work is done while they are in flight rather than between a
	 * completion and the next issue (at depth 1 it is all the issuer
	 * does then). A stop asked by on_result then comes after those
	 * I/Os, and the read buffer may hold a later read's data. */
	int defer_results;
	int stop_on_error;
	/* original and causal: the stretch before a due time that is spun
	 * (completions polled from the engine's ring until REAP_GUARD_NS
	 * before it, then only the clock read) rather than slept; 0:
	 * SPIN_NS_DEFAULT */
	uint64_t spin_ns;
	/* after one spin is interrupted for STALL_NS or more (a loaded
	 * machine), spin only this long, sleeping until then: the scheduler
	 * gives a thread that wakes its CPU sooner than one that spins; a
	 * SCHED_FIFO issuer (fifo_guard) also leaves its pinned CPU, which
	 * the kernel may be lending to starved normal tasks; 0: keep
	 * spin_ns */
	uint64_t spin_after_stall_ns;
	/* the issuer runs SCHED_FIFO: leave it (for SCHED_OTHER) once the
	 * issuer used more than the RT throttle allows (fifo_guard.h), and
	 * its pinned CPU after a stall */
	int fifo_guard;
	/* original and causal: the issuing thread's own CPU (cpu_pin.h),
	 * taken after the engine is open and before the warm-up, left at the
	 * end; NULL: stay where it is */
	const struct cpu_pin *pin;
	volatile sig_atomic_t *stop; /* set asynchronously (Ctrl-C); may be NULL */
	const struct engine_ops *ops;
	struct engine_opts eopts; /* depth is filled in by the scheduler */
	struct sched_target *targets;
	unsigned ntargets;
	void *read_buf, *write_buf; /* aligned, at least max_len bytes each */
	size_t buf_len;             /* bytes in each (0: not said; not registered) */
	/* --fill random or PCT: each write from its request slot's copy of
	 * write_buf, every 4 KiB block stamped with the write's number and
	 * offset (scheduler.c, stamp_write): no two blocks alike */
	int stamp_writes;
	/* each completed request; return nonzero to stop the replay */
	int (*on_result)(void *ctx, const struct rp_result *r);
	/* about every 250 ms: progress so far */
	void (*on_progress)(void *ctx, uint64_t done, uint64_t total, uint64_t elapsed_ns);
	void *ctx;
};

struct sched_stats {
	uint64_t issued, completed, errors;
	uint64_t start_mono_ns;   /* CLOCK_MONOTONIC of time 0 */
	uint64_t elapsed_ns;      /* first issue to last completion */
	unsigned max_outstanding; /* requests, as the scheduler counted them */
	unsigned spin_stalls;     /* spins interrupted for STALL_NS or more */
	uint64_t fifo_left_ns;    /* fifo_guard: when it left SCHED_FIFO, from time 0; 0: never */
	int stopped;              /* ended early: signal, error or callback */
	/* controller caches (sched_target.wc) */
	uint64_t wc_writes;       /* writes that completed in the cache */
	uint64_t wc_waits;        /* ... of them, that waited for room first */
	uint64_t wc_read_hits;    /* reads served from it whole */
	uint64_t wc_destages, wc_destaged_bytes, wc_full_rows; /* runs written */
	uint64_t wc_drained_ns;   /* the last destage's completion, from time 0 */
	uint64_t wc_unwritten;    /* bytes still dirty at the end (a destage failed) */
	int wc_error;             /* the failed destage's error, or 0 */
};

/*
 * The longest schedule the scheduler represents: a recorded time divided
 * by --speed must stay below 2^62 ns (about 146 years), so that it plus
 * the start time and the completions so far fits 64 bits.
 * sched_span_fits says whether a trace whose recorded times reach
 * `span_ns` can be replayed at `speed`; due times are also capped at the
 * limit, so no speed makes them wrap.
 */
#define SCHED_MAX_SPAN_NS (1ull << 62)
int sched_span_fits(uint64_t span_ns, double speed);

/* "original", "afap", "causal" → timing; -EINVAL otherwise. */
int timing_parse(const char *s, enum timing *t);
const char *timing_name(enum timing t);

/* Most recordings a mixed replay takes (one lane each). */
#define SCHED_MAX_RECS 8

/* Where the I/Os come from, in issue order. */
struct sched_source {
	/* the next I/O into *io: 1, 0 at the end, or a negative errno */
	int (*next)(void *ctx, struct rp_io *io);
	/* a mixed replay: nrec lanes (2 to SCHED_MAX_RECS), recording rec's
	 * next I/O in its issue order (io->rec set to rec), as `next`
	 * returns; `next` is then unused. nrec 0 or 1: one lane, `next` */
	int (*next_rec)(void *ctx, unsigned rec, struct rp_io *io);
	unsigned nrec;
	void *ctx;
	uint64_t total;       /* I/Os it gives (for progress) */
	uint64_t max_rw_len;  /* longest read or write among them, bytes */
};

/*
 * Replay the source's I/Os per cfg. The first I/O is read before time 0.
 * Returns as sched_run; a negative errno from the source stops issuing,
 * waits for what is in flight and is returned.
 */
int sched_run_source(const struct sched_config *cfg, const struct sched_source *src,
		     struct sched_stats *stats);

/*
 * Replay io[0..n) per cfg (a source over the array). Returns 0 when every I/O was issued and
 * completed or the replay stopped cleanly (stats->stopped says which; I/Os
 * in flight are always waited for, so every issued I/O gets a result), or
 * a negative errno when the engine failed.
 */
int sched_run(const struct sched_config *cfg, const struct rp_io *io, uint64_t n,
	      struct sched_stats *stats);

#endif
