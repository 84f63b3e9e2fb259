/*
 * leaderboard.h — `blkpeak analyze leaderboard`: the configurations a
 * suite ran on, ranked the way the seeds' tables are (docs/suite.md).
 *
 * From suite_results (suite_store.h) of one suite version: per workload
 * and configuration (label, and host when results come from several
 * machines) the figure of each repeat — a replay's or mix's time (first
 * issue to last completion, as compare's), a qd-sweep's weighted IOPS
 * (measurements.score_ios_per_s) — summed up by compare's rule for
 * repeats (cmp_spread_of: median by nearest rank, min and max).
 *
 * Against a baseline configuration: a time's ratio is baseline median
 * time / median time, an IOPS ratio is median IOPS / baseline median
 * IOPS (above 1: better than the baseline either way); time saved is
 * (baseline - time) / baseline * 100. A configuration's score is the
 * geometric mean of its ratios over the workloads both have results of;
 * configurations rank by score, highest first.
 */
#ifndef BLKPEAK_ANALYZE_LEADERBOARD_H
#define BLKPEAK_ANALYZE_LEADERBOARD_H

#include <sqlite3.h>
#include <stdio.h>

#include "bpt.h"
#include "compare.h"

#define LB_NAME_MAX 128

struct lb_cell {
	int n;                  /* repeats stored; 0: none */
	struct cmp_spread v;    /* seconds, or IOPS */
	double ratio;           /* against the baseline, 0: not known */
	double saved_pct;       /* times: time saved against the baseline */
};

struct lb_workload {
	char name[LB_NAME_MAX];
	char kind[16];          /* replay, mix, qd-sweep */
	int iops;               /* 1: weighted IOPS (higher is better); 0: time */
	struct lb_cell *cell;   /* one per configuration, in lb.c order */
};

struct lb_config {
	char label[LB_NAME_MAX];
	char host[256];
	char shown[LB_NAME_MAX + 260]; /* label, or "label @ host" with several hosts */
	long long first;        /* the first result stored (its run's trace id) */
	double score;           /* geometric mean of the ratios, 0: none */
	int nscore;             /* workloads in the score */
	int rank;               /* 1.. by score */
};

struct leaderboard {
	char digest[17];
	char name[LB_NAME_MAX];
	int nw, nc;
	struct lb_workload *w;
	struct lb_config *c;    /* sorted by rank */
	int baseline;           /* index in c */
	int several_hosts;
	char other_versions[256]; /* other digests of the suite's name, or "" */
};

/* The digest a SUITE argument names: a suite folder (its current
 * version, from a child `blkpeak suite digest`), 16 hex digits as they
 * are, else a suite name (its latest version in the store; the other
 * versions' digests in others). -ENOENT when none. */
int lb_resolve(sqlite3 *db, const char *suite, char digest[17], char *others, size_t olen,
	       struct bpt_error *err);
/* Load and rank digest's results; baseline NULL: the configuration run
 * first. -ENOENT: no results, or no such baseline label. */
int lb_load(sqlite3 *db, const char *digest, const char *baseline, struct leaderboard *lb,
	    struct bpt_error *err);
void lb_free(struct leaderboard *lb);

void lb_print_text(FILE *f, const struct leaderboard *lb);
void lb_print_csv(FILE *f, const struct leaderboard *lb);
void lb_print_json(FILE *f, const struct leaderboard *lb);
/* The HTML report's section (analyze html --leaderboard): the ranking
 * table and one bar chart per workload. 0, or -EIO / -ENOMEM. */
int lb_print_html(FILE *f, const struct leaderboard *lb, struct bpt_error *err);

#endif
