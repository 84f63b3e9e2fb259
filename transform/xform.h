/*
 * xform.h — what-if transforms of a trace's records, shared by `replay`
 * (applied as the trace streams into the scheduler) and `convert`
 * (applied as records stream to the output, so a transformed trace can
 * be kept). Nothing here holds more than a few bytes per record kind:
 * memory does not grow with the trace.
 *
 * The transforms, in the order they apply to a record:
 *   select    keep only the records in a time range (from the trace's
 *             first issue), on given devices, of given processes (pid or
 *             comm glob, the causing task where recorded), files (path
 *             glob) or operations; kinds AND, values of one kind OR
 *   ops       --writes-as-reads / --reads-as-writes (both: swapped);
 *             discards and write-zeroes are left out by writes-as-reads
 *   address   --spread F: byte offset * F, rounded down to `align`;
 *             --shift B: + B bytes (a multiple of `align`)
 *   loop      --loop N passes; pass k is later by k x span (the kept
 *             records' last completion minus first issue) and, with
 *             --loop-offset B, k x B bytes further on
 *   ramp      --ramp A:B: the speed factor rises linearly from A to B
 *             over the whole (looped) schedule: a recorded time t of a
 *             schedule T long becomes the integral of 1/s over [0, t],
 *             s(t) = A + (B - A) t / T, so an I/O rate r becomes r x s(t)
 *   fill      --fill zero|random|PCT: the data written (PCT: that share
 *             of each 4 KiB zero, the rest random), for compressing or
 *             deduplicating devices; recorded, applied by replay
 *
 * The record-level transforms (select, ops, address) are xform_record;
 * loop and ramp are times and offsets of a pass (xform_time,
 * xform_pass_offset), applied by the caller that re-reads the trace per
 * pass. xform_record is called by one thread at a time (it fills a
 * cache of comm and path matches).
 *
 * Functions return 0 or a negative errno and never print; messages go to
 * a caller's buffer.
 */
#ifndef BLKPEAK_XFORM_H
#define BLKPEAK_XFORM_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>

#include "bpt.h"

#define XF_MAX_SEL 16            /* values of one --select kind */
#define XF_MAX_LOOPS 1000000u
#define XF_MAX_OFFSET (1ull << 62) /* --shift, --loop-offset, and every result */
#define XF_MAX_SPREAD 1e6

enum xf_fill { XF_FILL_PATTERN, XF_FILL_ZERO, XF_FILL_RANDOM, XF_FILL_PCT };
enum xf_ops { XF_OPS_AS_IS = 0, XF_WRITES_AS_READS = 1, XF_READS_AS_WRITES = 2 };

struct xform {
	/* select (given) */
	int has_time;
	uint64_t t_from_ns, t_to_ns;      /* [from, to) from the trace's first issue */
	const char *dev[XF_MAX_SEL];      /* device name, /dev/name or MAJ:MIN */
	unsigned ndev;
	const char *comm[XF_MAX_SEL];     /* fnmatch globs */
	unsigned ncomm;
	uint32_t pid[XF_MAX_SEL];
	unsigned npid;
	const char *path[XF_MAX_SEL];     /* fnmatch globs, '*' matches '/' */
	unsigned npath;
	uint32_t op_mask;                 /* bit (1 << enum bpt_op); 0: every op */
	/* ops, address, loop, ramp, fill (given) */
	unsigned ops;                     /* enum xf_ops bits */
	double spread;                    /* 0: not given */
	uint64_t shift;
	unsigned loops;                   /* 0 or 1: once */
	uint64_t loop_offset;
	double ramp_from, ramp_to;        /* 0: not given */
	enum xf_fill fill;
	unsigned fill_pct;                /* XF_FILL_PCT: compressible share */
	/* the options as typed, for the metadata (xform_describe) */
	char text[512];
	/* bound to a trace (xform_bind, xform_measure) */
	const struct bpt_reader *r;
	uint32_t columns;
	uint32_t align;                   /* spread's rounding, bytes (>= 512) */
	uint64_t trace_first_ns;          /* the trace's first issue */
	uint64_t kept_first_ns;           /* the kept records' first issue */
	uint64_t span_ns;                 /* their last completion - first issue */
	uint8_t *dev_ok;                  /* per device index: selected */
	uint32_t ndevices;
	uint8_t *comm_cache;              /* per string id: 0 unknown, 1 no, 2 yes */
	uint32_t ncomm_cache;
};

/*
 * The long options every command with transforms takes; a command
 * appends XFORM_LONG_OPTIONS to its table and hands every value in
 * [XF_OPT_FIRST, XF_OPT_LAST] to xform_option.
 */
enum {
	XF_OPT_FIRST = 0x7100,
	XF_OPT_SELECT = XF_OPT_FIRST, XF_OPT_LOOP, XF_OPT_LOOP_OFFSET, XF_OPT_SPREAD,
	XF_OPT_SHIFT, XF_OPT_W2R, XF_OPT_R2W, XF_OPT_RAMP, XF_OPT_FILL,
	XF_OPT_LAST = XF_OPT_FILL,
};
#define XFORM_LONG_OPTIONS \
	{ "select", required_argument, NULL, XF_OPT_SELECT }, \
	{ "loop", required_argument, NULL, XF_OPT_LOOP }, \
	{ "loop-offset", required_argument, NULL, XF_OPT_LOOP_OFFSET }, \
	{ "spread", required_argument, NULL, XF_OPT_SPREAD }, \
	{ "shift", required_argument, NULL, XF_OPT_SHIFT }, \
	{ "writes-as-reads", no_argument, NULL, XF_OPT_W2R }, \
	{ "reads-as-writes", no_argument, NULL, XF_OPT_R2W }, \
	{ "ramp", required_argument, NULL, XF_OPT_RAMP }, \
	{ "fill", required_argument, NULL, XF_OPT_FILL }

/* The options' help lines, for a command's usage text. */
extern const char xform_usage[];

static inline int xform_is_option(int c)
{
	return c >= XF_OPT_FIRST && c <= XF_OPT_LAST;
}

/*
 * Take option `opt` (XF_OPT_*) with value `arg` (NULL for a flag) into
 * *x. -EINVAL (or -ERANGE for a number too large) with the reason in
 * why[len], naming the option: "--loop: '0': not a count from 1 to
 * 1000000". `arg` must outlive x (globs and names are kept as pointers).
 */
int xform_option(struct xform *x, int opt, const char *arg, char *why, size_t len);
/* The same for a command: 0, or EXIT_USAGE after printing
 * "CMD: reason" (pr_err). */
int xform_cli_option(struct xform *x, const char *cmd, int opt, const char *arg);
int xform_cli_check(const struct xform *x, const char *cmd);
/* The checks across options (--loop-offset without --loop, ...): 0 or
 * -EINVAL with the reason. Call after the last xform_option. */
int xform_check(const struct xform *x, char *why, size_t len);

/* 1 when any transform is given (the trace is not replayed as is). */
int xform_active(const struct xform *x);
/* 1 when a record-level transform is given (xform_record changes or
 * drops records). */
int xform_changes_records(const struct xform *x);
/* The number of passes (1 without --loop). */
static inline unsigned xform_passes(const struct xform *x)
{
	return x->loops > 1 ? x->loops : 1;
}

/*
 * Bind x to the trace read by r: its devices (--select dev: names one
 * the trace does not have: -ENODEV with the reason), its files
 * (--select path: on a trace without file columns or path table: -EINVAL,
 * a glob that matches no file's name: -ENOENT, with the reason) and
 * strings; `align`
 * is the rounding of --spread and the unit --shift and --loop-offset
 * must be multiples of (-EINVAL with the reason otherwise). r must
 * outlive x's use. xform_free releases what bind took.
 */
int xform_bind(struct xform *x, const struct bpt_reader *r, uint32_t align, char *why,
	       size_t len);
void xform_free(struct xform *x);

/*
 * Read r from its start (it is rewound before and after) for what the
 * transforms need to know first: the trace's first issue (for a --select
 * time range; from the footer when the file is complete and that is all)
 * and, when need_span, the kept records' first issue and span. 0 or the
 * reader's error.
 */
int xform_measure(struct xform *x, struct bpt_reader *r, int need_span,
		  struct bpt_error *err);

/*
 * Apply select, ops and address transforms to *rec in place: 1 kept, 0
 * left out, -ERANGE when --spread or --shift moves it to byte 2^62 or
 * beyond (or the file format's largest sector).
 */
int xform_record(struct xform *x, struct bpt_record *rec);

/* -ERANGE with the reason when --loop's passes of span_ns would last
 * 2^62 ns or more (about 146 years), else 0. */
int xform_check_span(const struct xform *x, char *why, size_t len);
/* Time `t_ns` (from the kept records' first issue) of pass `pass`, with
 * the loop's shift and the ramp applied. Monotonic in t and pass. */
uint64_t xform_time(const struct xform *x, uint64_t t_ns, unsigned pass);
/* The schedule's length after loop and ramp (passes x span_ns). */
uint64_t xform_total_ns(const struct xform *x);
/* Bytes pass `pass` adds to every offset (k x --loop-offset). */
static inline uint64_t xform_pass_offset(const struct xform *x, unsigned pass)
{
	return (uint64_t)pass * x->loop_offset;
}

/*
 * For a command that writes the transformed records out (convert): bind
 * x to r (512-byte alignment), measure what the loop and the ramp need,
 * and make *out a copy of r's header naming the transforms (meta
 * "transform", after the input's own one and " | "; "fill"). 0 or <0
 * (err set); bpt_header_free(out) after a success.
 */
int xform_prepare(struct xform *x, struct bpt_reader *r, struct bpt_header *out,
		  struct bpt_error *err);
/*
 * Record `rec` (index idx, for messages) of pass `pass` (from 0): 1 with
 * its op, sector and times transformed, 0 when left out (*deselected
 * counted), <0 (err set) when moved past 2^62 bytes.
 */
int xform_apply(struct xform *x, struct bpt_record *rec, unsigned pass, uint64_t idx,
		uint64_t *deselected, struct bpt_error *err);

/* The transforms as one line, "select=10s-70s loop=3 ..." (x->text),
 * for the metadata key "transform"; "" when none. */
const char *xform_describe(const struct xform *x);
/* The --fill value as typed ("zero", "random", "70"), or NULL. */
const char *xform_fill_name(const struct xform *x, char *buf, size_t len);
/* Parse a "fill" metadata value or --fill argument into *x's fill. */
int xform_fill_parse(struct xform *x, const char *s);
/* Fill buf[len] with x's data (XF_FILL_PATTERN: left as it is);
 * deterministic (seeded). */
void xform_fill_buffer(const struct xform *x, void *buf, size_t len);

#endif
