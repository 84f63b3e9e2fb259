/*
 * replay_run.h — one `blkpeak replay` from parsed options to the summary:
 * map the trace's devices to targets, load and sort the trace, open the
 * targets through the safety checks, fit the offsets, run the scheduler,
 * write the run file and print the summary.
 */
#ifndef BLKPEAK_REPLAY_RUN_H
#define BLKPEAK_REPLAY_RUN_H

#include <stdint.h>

#include "conflicts.h"
#include "fit.h"
#include "load.h"
#include "mix.h"
#include "sched.h"
#include "xform.h"

struct replay_map {
	/* recorded device: name, /dev/name or major:minor; or a region of
	 * one, DEV:START-END (region.h); or a partition's name */
	const char *dev;
	const char *spec;  /* target spec */
	const char *at_text; /* SPEC@OFFSET: OFFSET as typed, else NULL */
	uint64_t at;       /* ... in bytes: where the region starts on SPEC */
};

/* --mix-offset NAME=TIME: recording NAME starts TIME after the mix. */
struct replay_mix_offset {
	const char *name;  /* a recording's name (mix.h) or its path as given */
	uint64_t ns;
};

struct replay_opts {
	const char *trace;           /* the recording (a mix: traces[0]) */
	/* a mixed replay (mix.h): its recordings, ntraces of them (2 to
	 * MIX_MAX), replayed together on the targets; 0: one, `trace` */
	const char *traces[MIX_MAX];
	unsigned ntraces;
	struct replay_mix_offset mix_offset[MIX_MAX];
	unsigned nmix_offset;
	const char *output;          /* -o, or NULL */
	const char *protect[8];      /* --protect: paths no target member may be */
	unsigned nprotect;
	const char *target;          /* --target, or NULL when --map covers all */
	struct replay_map map[LOAD_MAX_TARGETS];
	unsigned nmap;
	enum timing timing;
	double speed;
	unsigned depth;              /* 0: the trace's own maximum */
	int no_idle, allow_write, stop_on_error, json;
	int realtime;                /* SCHED_FIFO + mlockall while replaying */
	int no_warmup;               /* no warm-up read before time 0 */
	int poll;                    /* afap: poll before sleeping when full */
	int verify;                  /* --verify: compare with the kernel's view */
	enum writes_mode writes;
	enum fit_mode fit;
	uint64_t offset, create_size;
	const char *engine;
	uint64_t null_latency_ns;    /* --engine null: simulated service time */
	const char *label;           /* --label: the run's display name, or NULL */
	unsigned repeat, repeats;    /* --repeat: this is run `repeat` (1..) of
					`repeats`; 0 of 0 without it */
	struct xform *xf;            /* what-if transforms (transform/xform.h), or NULL */
	enum conflict_rule conflicts; /* overlapping I/Os in flight together (conflicts.h) */
};

/* --label's longest name in bytes (analyze cuts longer ones: run_label.h) */
#define REPLAY_LABEL_MAX 63

/* Run it; prints errors and the summary. Returns an exit code: EXIT_OK,
 * or EXIT_FAIL when the replay could not start, stopped early or had I/O
 * errors. */
int replay_run(const struct replay_opts *o);

#endif
