/*
 * measure_view.h — measurements (`blkpeak measure`, tables measurements
 * and measurement_points) side by side: the tables of `analyze compare
 * --measurements`, the charts of `analyze plot --kind qd-iops|qd-p99|
 * zcav|seeks|commit|knee-latency|knee-iops` and the Measurements
 * section of `analyze html`. A knee search (measure knee) is a
 * measurement whose steps are speed factors.
 *
 * Measurements are compared step by step: the qd-sweep's depths, zcav's
 * zones, the seeks' spans, paired by their value (never by position: a
 * sweep over 1,2,4 against one over 1,4,8,16 has the rows QD 1, 2, 4, 8,
 * 16, and a step one side lacks shows "\u2013"; knee searches pair
 * their steps by speed factor). The first measurement is
 * the baseline; every other value also shows its change against its step
 * of the same depth (zone, span) in percent.
 */
#ifndef BLKPEAK_ANALYZE_MEASURE_VIEW_H
#define BLKPEAK_ANALYZE_MEASURE_VIEW_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"

struct mview_point {
	int64_t depth, zone, offset_bytes, span_bytes;
	double span_pct, weight, iops, mbps, p50_ns, p99_ns, p999_ns, max_ns;
	double factor;          /* knee: the speed factor */
	double slo_ns;          /* knee: the step's value of the target's (first) figure */
	int met;                /* knee: 1 met the target, 0 missed; -1 other kinds */
};

struct mview_meas {
	int64_t id;
	char kind[16], target[512], access[512], write_cache[64];
	char label[64];         /* the display label (run_label.h) */
	double score;           /* qd-sweep */
	double knee_factor;     /* knee: the answer, NAN when no factor met the target */
	char slo[160];          /* knee: the target in words, "p99 <= 5 ms" */
	char slo_fig[16];       /* knee: its first figure ("p99") and limit */
	double slo_limit_ns;
	size_t n;
	struct mview_point *p;
};

struct mview {
	size_t n;
	struct mview_meas *m;
};

/* Load measurements ids[0..n) (n == 0: every measurement, by id) into v.
 * -ENOENT (an id is not there) or -EIO, with err. */
int mview_load(sqlite3 *db, const int64_t *ids, size_t n, struct mview *v,
	       struct bpt_error *err);
void mview_free(struct mview *v);

/* m's step of this depth (qd-sweep), zone (zcav), span in percent
 * (seeks) or speed factor (knee), m's one step (commit, key 0); NULL
 * when m has none. */
const struct mview_point *mview_step(const struct mview_meas *m, double key);

/* -EINVAL with err unless v holds one or more measurements of one kind. */
int mview_same_kind(const struct mview *v, struct bpt_error *err);

/* The comparison table of measurements of one kind. */
void mview_print_text(FILE *f, const struct mview *v);
void mview_print_json(FILE *f, const struct mview *v);
void mview_print_html(FILE *f, const struct mview *v);
/* One measurement on its own (analyze report --measurement): what ran,
 * a row per step in the order run (a knee's: met or missed) and its
 * summary (score, write cache, the knee). */
void mview_print_report(FILE *f, const struct mview_meas *m);

/* Charts: "qd-iops" (IOPS against depth), "qd-p99" (p99 latency against
 * depth), "zcav" (MB/s against the zone's offset), "seeks" (seeks/s
 * against span), "commit" (commits/s per target), "knee-latency" (the
 * latency figure of the knee's target against the speed factor, the
 * target's line and the knee marked), "knee-iops" (IOPS against the
 * speed factor, the knee marked). */
enum mview_chart { MVIEW_QD_IOPS, MVIEW_QD_P99, MVIEW_ZCAV, MVIEW_SEEKS, MVIEW_COMMIT,
		   MVIEW_KNEE_LATENCY, MVIEW_KNEE_IOPS, MVIEW_CHART_COUNT };
int mview_chart_parse(const char *name, enum mview_chart *c);
const char *mview_chart_name(enum mview_chart c);
/* The measurement kind a chart draws. */
const char *mview_chart_kind(enum mview_chart c);
/* Draw; 0, -EINVAL (a measurement of another kind, err says which),
 * -ENODATA (nothing to draw), -EIO. */
int mview_chart_write(FILE *f, const struct mview *v, enum mview_chart c, int standalone,
		      struct bpt_error *err);

/* A knee chart of v's searches (knee_chart.c): iops 1 knee-iops, 0
 * knee-latency. svg_write's result, -ENODATA (no step) or -ENOMEM. */
int mview_knee_chart(FILE *f, const struct mview *v, int iops, int standalone);

#endif
