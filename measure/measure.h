/*
 * measure.h — `blkpeak measure`: the standard disk measurements, each a
 * series of steps run through replay's engines and targets.
 *
 *   qd-sweep  one step per queue depth: an IOMeter access spec (a preset
 *             of `generate`, or the mix of a recorded trace, --like),
 *             random offsets over the whole target, afap at that depth
 *   zcav      one step per zone: sequential reads from zone_first(i)
 *   seeks     one step per span: random reads at depth 1 over the first
 *             span_pct % of the target
 *   commit    one step: small writes at depth 1, each followed by a flush
 *             (or written with FUA); a unit is a write and its flush
 *
 * Each step: the trace is made (by `blkpeak generate`, or with lib's
 * writer), replayed by a child `blkpeak replay --timing afap` into a run
 * file, and the run file's I/Os are turned into units and figures
 * (figures.h). The first `warmup` units of a step are left out.
 */
#ifndef BLKPEAK_MEASURE_MEASURE_H
#define BLKPEAK_MEASURE_MEASURE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "depths.h"
#include "error.h"
#include "figures.h"

enum measure_kind { MEASURE_QD_SWEEP, MEASURE_ZCAV, MEASURE_SEEKS, MEASURE_COMMIT };

#define MEASURE_MAX_STEPS 256
#define MEASURE_MAX_SPANS 32

struct measure_opts {
	enum measure_kind kind;
	const char *target;
	const char *pattern;       /* qd-sweep: a generate pattern */
	const char *like;          /* qd-sweep: a trace whose mix to use */
	struct depths depths;      /* qd-sweep; its weights */
	const char *weights_from;  /* the trace the weights came from */
	int weights_given;         /* --weights */
	uint64_t ios, warmup;      /* units per step, measured and before */
	uint64_t time_ns;          /* --time: a step stops after this (0: no limit) */
	uint64_t warmup_ns;        /* --time without --warmup: the first tenth */
	uint64_t bs;               /* zcav, seeks, commit: I/O size */
	unsigned zones;            /* zcav */
	unsigned depth;            /* zcav: queue depth */
	double span_pct[MEASURE_MAX_SPANS]; /* seeks: increasing, (0, 100] */
	unsigned nspans;
	uint64_t region;           /* commit: bytes the writes cycle over */
	int fua;                   /* commit: FUA writes instead of flushes */
	int allow_write;
	const char *engine;        /* NULL: replay's default */
	uint64_t null_latency_ns;
	uint64_t seed;
	const char *output, *db;   /* db NULL: analyze's default database */
	int json, no_store;
	const char *label;         /* --label: the display name, or NULL */
};

/*
 * Parse argv (argv[0] is "measure") into *o through the option loop every
 * command shares (opt_next of common/cliutil.h), with the kind's
 * defaults and the checks across options. Returns -1 when the
 * measurement is to run; else the exit code for the command: EXIT_OK
 * after --help (usage printed on stdout), EXIT_USAGE after the reason
 * was printed on stderr ("measure: --bs: '4q': not a multiple of 512").
 */
int measure_opts_parse(int argc, char **argv, struct measure_opts *o, void (*usage)(FILE *));

/* One step's result. */
struct measure_point {
	unsigned depth;
	unsigned zone;             /* zcav: 0.. */
	uint64_t offset_bytes;     /* zcav: where the zone starts */
	uint64_t span_bytes;       /* seeks: the span; zcav: bytes read */
	double span_pct;           /* seeks */
	double weight;             /* qd-sweep */
	struct figures fig;
};

struct measure_result {
	enum measure_kind kind;
	char target[512];
	uint64_t capacity;         /* bytes the target holds */
	char access[512];          /* what was run, in words */
	char bs[256];              /* I/O size or mix ("" for a pattern) */
	uint64_t max_bs;           /* its largest size */
	double read_pct, random_pct;
	int64_t started_wall_ns;
	char write_cache[64];      /* commit: sysfs's state, or "" */
	char weights[16];          /* qd-sweep: "equal", "given" or "trace" */
	double score;              /* qd-sweep */
	unsigned npoints;
	struct measure_point points[MEASURE_MAX_STEPS];
};

const char *measure_kind_name(enum measure_kind k);
int measure_kind_parse(const char *s, enum measure_kind *k);

/* Run every step; fills r. Prints its own errors; returns an exit code. */
int measure_run(const struct measure_opts *o, struct measure_result *r);

/* The table for a person, and the results document (schemas/
 * measure-results.schema.json). */
void measure_print_text(FILE *f, const struct measure_opts *o, const struct measure_result *r);
void measure_print_json(FILE *f, const struct measure_opts *o, const struct measure_result *r);

/* Store a results document in analyze's database (db: --db, NULL: its
 * default), as `analyze import` would: the file `written` (--output), or
 * when NULL a temporary one that print(f, arg) fills. Errors are printed
 * after "cmd: "; returns an exit code. */
int measure_store(const char *cmd, const char *db, const char *written,
		  void (*print)(FILE *f, const void *arg), const void *arg);

/* The size replay gave its target, from a run file's device table (the
 * first device), cut to a multiple of 4 KiB. */
int measure_run_capacity(const char *run, uint64_t *capacity, struct bpt_error *err);

/* The write cache state of the target's members from sysfs into buf:
 * "write back", "write through", "mixed: ...", or "none (file)". */
void measure_write_cache(const char *target, char *buf, size_t len);

/* The access mix of a recorded trace (--like): read share, random share
 * and a size mix of up to 32 sizes, "512:10,4k:60" (the most frequent;
 * the rest are left out). -EINVAL when it has no read or write. */
int measure_like(const char *path, double *read_pct, double *random_pct, char *mix,
		 size_t len, struct bpt_error *err);

#endif
