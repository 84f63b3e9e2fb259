/*
 * verify.h — `replay --verify`: the kernel's view of the replay, compared
 * with what the trace asked.
 *
 * While the replay runs, a child `blkpeak capture -d MEMBER...` (through
 * /proc/self/exe: replay/ does not include capture/) records the issue
 * and completion of every request on the target's member devices with its
 * eBPF programs; the replay starts its first I/O only once the child said
 * READY=1 on a datagram socket given as $NOTIFY_SOCKET, and stops it with
 * SIGINT after the last completion. Its trace is then matched against the
 * replay's I/Os (verify_match.c):
 *
 *  - every replayed I/O becomes its expected parts: member, member offset,
 *    length and operation, from the target's layout (a mirrored read may
 *    be served by any copy among the members the replay used);
 *  - a part is present when kernel requests of its operation on its
 *    member cover its bytes exactly, each issued by the kernel between the
 *    replay's submission and its completion (VERIFY_SLACK_NS either
 *    side). Splits (a device's max_sectors) are several requests covering
 *    one part; merges one request covering several parts: both are
 *    counted, neither is an error. A flush carries no range: any flush
 *    request on the member in the window;
 *  - an I/O whose parts are not all present is missing, or misplaced when
 *    a request of its size that nothing else claimed was issued in its
 *    window elsewhere (another member, offset or operation);
 *  - kernel requests inside the replay's time that no I/O claimed are
 *    extra: other processes' I/O, reported apart, not errors of the replay;
 *  - issue error: the kernel's issue time of an I/O's first request minus
 *    the time the schedule meant; both clocks are CLOCK_MONOTONIC (the
 *    BPF programs stamp with bpf_ktime_get_ns, which is that clock, and
 *    the capture and the replay give their time 0 in it).
 */
#ifndef BLKPEAK_VERIFY_H
#define BLKPEAK_VERIFY_H

#include <stdint.h>
#include <stdio.h>

#include "bpt.h"
#include "jsonout.h"
#include "array/layout.h"
#include "load.h"
#include "sched.h"

/* How far outside [submission, completion] a kernel issue may lie. */
#define VERIFY_SLACK_NS 20000ull
/* Parts one kernel request may serve (a merge of more is not matched). */
#define VERIFY_MAX_CLAIMS 8

/* One replayed I/O as the matcher needs it; times CLOCK_MONOTONIC. */
struct verify_io {
	uint64_t offset;      /* on the target, bytes */
	uint64_t sched_ns, issue_ns, complete_ns;
	uint32_t len;
	uint32_t member_mask; /* the members the replay sent parts to */
	uint32_t src;         /* source index */
	uint8_t target, op;
	int8_t failed;        /* the replay saw an error: not expected */
};

/* One kernel request on a member; times CLOCK_MONOTONIC. */
struct verify_event {
	uint64_t issue_ns;
	uint64_t sector;      /* on the member */
	uint32_t bytes;
	uint16_t member;      /* global member index (verify_set) */
	uint8_t op;
	/* matcher state: the byte ranges parts claimed, from the start */
	uint8_t claims;
	uint32_t cl_off[VERIFY_MAX_CLAIMS], cl_len[VERIFY_MAX_CLAIMS];
};

/* The targets: member m of target t is global member base[t] + m. */
struct verify_set {
	const struct layout *layout[LOAD_MAX_TARGETS];
	unsigned base[LOAD_MAX_TARGETS];
	unsigned ntargets, nmembers;
};

/* What the comparison found. */
struct verify_result {
	uint64_t ios;           /* replayed I/Os compared (failed ones left out) */
	uint64_t present;       /* every part on its member, offset, size, op */
	uint64_t missing;       /* a part the kernel never saw */
	uint64_t misplaced;     /* ...but one of its size came elsewhere */
	uint64_t parts;         /* expected parts */
	uint64_t split_parts;   /* parts the kernel did as several requests */
	uint64_t merged;        /* requests that served several parts */
	uint64_t events;        /* kernel requests in the replay's time */
	uint64_t extra;         /* of those, not the replay's (others' I/O) */
	uint64_t extra_bytes;
	uint64_t lost;          /* events the capture lost */
	uint32_t first_missing_src; /* source index of the first missing I/O */
	int have_missing;
	/* kernel issue time - due time, of present I/Os (ns, >= 0 clipped) */
	uint64_t err_p50, err_p99, err_max;
	/* kernel issue time - the replay's submission (the engine's path) */
	uint64_t sub_p50, sub_p99, sub_max;
	double drift;           /* error growth per unit of schedule time */
	uint64_t start_mono_ns; /* the replay's time 0 (CLOCK_MONOTONIC), for cross-checks */
};

/* Match ios[0..nio) (issue order) against ev[0..nev) (any order; sorted
 * and its matcher fields reset here). Replay window: [t0, t1]. 0 or
 * -ENOMEM. */
int verify_match(const struct verify_set *set, const struct verify_io *ios, uint64_t nio,
		 struct verify_event *ev, uint64_t nev, uint64_t t0, uint64_t t1,
		 struct verify_result *res);

/* ------------------------------------------------ the replay's side */

struct verify;

/* The members (block devices) to record: fd[m] of each target. */
struct verify_target {
	const struct layout *layout;
	const int *fd;
	const char *spec;
};

/* Start the capture child on every member and wait until it records.
 * -1 with err filled (no root, no BPF, a member not a block device). */
int verify_start(struct verify **out, const struct verify_target *t, unsigned n,
		 struct bpt_error *err);

/* Keep one result (issue order, any thread but one at a time). */
int verify_add(struct verify *v, const struct rp_result *r);

/* Stop the capture, read its trace, compare. start_mono_ns: the replay's
 * time 0. 0, or -1 with err filled. */
int verify_finish(struct verify *v, uint64_t start_mono_ns, struct verify_result *res,
		  struct bpt_error *err);

/* Stop the child if still running, remove its trace, free. NULL ok. */
void verify_free(struct verify *v);

/* Output: text lines, a JSON object, end meta pairs (BPT_META_VERIFY_*). */
void verify_print_text(const struct verify_result *r, FILE *f);
void verify_json(struct jw *w, const struct verify_result *r);
/* Fill up to VERIFY_NMETA key/value pairs into kv (2 per pair) using
 * buf[VERIFY_NMETA][32] for the values; returns the pair count. */
#define VERIFY_NMETA 10
unsigned verify_meta(const struct verify_result *r, const char **kv, char (*buf)[32]);

#endif
