/*
 * compare.h — several runs of the same I/O (a trace and its replays, or
 * replays of one trace on different targets) side by side, against the
 * first: total time, time saved and speedup in percent, IOPS, MB/s,
 * latency percentiles. Stored in the comparisons tables.
 */
#ifndef BLKPEAK_ANALYZE_COMPARE_H
#define BLKPEAK_ANALYZE_COMPARE_H

#include <sqlite3.h>
#include <stdio.h>

#include "stats_report.h"

struct cmp_entry {
	int64_t trace_id;
	/* the display label (run_label.h); a partial run's label ends in
	 * its PARTIAL text, so every line naming it says so */
	char label[512];
	/* label, full target (else path) and timing: entries of one group
	 * are repeats of one configuration */
	char group[1800];
	char key[17];        /* digest of the trace this I/O comes from */
	char transform[512]; /* what-if transforms (meta "transform"), "" none */
	int is_run;
	double time_saved_pct; /* (T0 - T) / T0 * 100 */
	double speedup_pct;    /* (T0 / T - 1) * 100 */
	struct st_report rep;  /* series freed */
};

/*
 * The figures a configuration's runs are summed up by (cmp_group): per
 * figure the median and the range (min-max) over its runs. The median is
 * common/stats.h's nearest-rank p50 (of an even count, the lower middle
 * run), so a median is always one run's figure.
 */
enum cmp_fig {
	CF_TIME,       /* total time, ns: first issue to last completion */
	CF_SAVED,      /* time saved, %: against the baseline's median time */
	CF_SPEEDUP,    /* speedup, %: the baseline's median time / T - 1 */
	CF_IOPS, CF_MBPS, CF_DEPTH, CF_ERRORS,
	CF_SVC,                        /* service p50 ... max (STATS_NPCT), ns */
	CF_TOT = CF_SVC + STATS_NPCT,  /* total (queue to completion) p50 ... max */
	CF_LATE = CF_TOT + STATS_NPCT, /* lateness p50 ... max (runs) */
	CF__COUNT = CF_LATE + STATS_NPCT,
};

struct cmp_spread {
	double med, min, max;
};

/* Median (nearest rank: common/stats.h's rule, so always one run's
 * figure) and range of v[0..n), n >= 1, which is sorted here. The one
 * rule for repeats: compare's groups and the leaderboard use it. */
struct cmp_spread cmp_spread_of(double *v, int n);

/* The runs of one configuration: the entries of one group (same label,
 * target and timing), in the order of their first entry; group 0 holds
 * e[0] and is the baseline. */
struct cmp_group {
	char label[512];      /* unique in the comparison (" #K" added if not) */
	int n;                /* entries (runs) */
	int *entry;           /* their indexes in cmp.e, n of them */
	struct cmp_spread fig[CF__COUNT];
	int has_late;         /* every run has lateness figures */
	/* the ranges of total time of this group and the baseline overlap:
	 * 1 "within noise", 0 not; -1 for the baseline, and when both have
	 * one run (no spread known) */
	int within_noise;
};

struct cmp {
	int n;
	struct cmp_entry *e; /* e[0] is the baseline */
	int forced;          /* entries of different traces, allowed by --force */
	int64_t id;          /* comparisons.id once stored, else 0 */
	int ng;              /* configurations (compare_group.c) */
	struct cmp_group *g; /* g[0] is the baseline's */
	/* --files: every entry's figures cover the I/Os of these files (a
	 * run's by the files of the trace it replayed); NULL: every I/O */
	const struct files_filter *files;
};

/* One line: who won against the baseline, by how much, how sure, e.g.
 * "raid0 x2 64k finishes 38.2% sooner than single hdd:7200 (median of 5,
 * range 36.1-42.0%)". Labels are escaped (fmt_text). Returns buf. */
char *cmp_headline(const struct cmp *c, char *buf, size_t len);

/* How sure configuration k's difference from the baseline is, as the
 * headline and the last lines of the text say it: " (median of 5, range
 * 36.1-42.0%)", "; within noise" when the ranges of total time
 * overlap, "(one run each: ...)" without repeats. Returns buf. */
char *cmp_how_sure(const struct cmp *c, int k, char *buf, size_t len);

/* Group c's entries and sum them up (cmp_compute does it): 0 or -ENOMEM. */
int cmp_group(struct cmp *c);

/*
 * The trace ids to compare. With two or more ids, those. With one id of
 * a trace (not a run): that trace followed by every run of it in the
 * database, by id. *out is malloc'ed. Returns 0, -ENOENT, -EINVAL (one
 * id that is a run, or a trace without runs) or -EIO.
 */
int cmp_expand_ids(sqlite3 *db, const int64_t *ids, int n, int64_t **out, int *nout,
		   struct bpt_error *err);

/* cmp_compute's flags. */
enum {
	CMP_FORCE = 1,         /* entries may come from different traces */
	CMP_ALLOW_PARTIAL = 2, /* partial runs are compared (and marked) */
};

/* One entry to compare: a trace of the database (id), or a trace file
 * read in place (path, id 0). */
struct cmp_arg {
	int64_t id;
	const char *path;
};

/* The comparison of args (n >= 2), as cmp_compute; db may be NULL when
 * every entry is a file. Entries that are files have trace_id 0 and the
 * comparison cannot be stored (cmp_store refuses it). files: only the
 * I/Os of those files (files_filter.h), NULL: every I/O. */
int cmp_compute_args(sqlite3 *db, const struct cmp_arg *args, int n, int flags,
		     const struct files_filter *files, struct cmp *c, struct bpt_error *err);

/*
 * Compute the comparison of `ids` (n >= 2). Entries must come from the
 * same trace (a run's source digest, a trace's own digest) unless
 * CMP_FORCE; otherwise -EXDEV names the first that differs. A partial run
 * (run_partial.h) is refused with -EINVAL unless CMP_ALLOW_PARTIAL. Free
 * with cmp_free().
 */
int cmp_compute(sqlite3 *db, const int64_t *ids, int n, int flags, struct cmp *c,
		struct bpt_error *err);

/* Insert c into comparisons and comparison_entries (one transaction) and
 * set c->id. */
int cmp_store(sqlite3 *db, struct cmp *c, struct bpt_error *err);

void cmp_print_text(FILE *f, const struct cmp *c);
void cmp_print_json(FILE *f, const struct cmp *c);
void cmp_free(struct cmp *c);

#endif
