/*
 * plot.h — the charts of `blkpeak analyze plot` and `analyze html`: reads
 * the I/Os of traces and runs from the analysis database (schema in
 * schemas/analyze.sql), turns them into series and draws them with the
 * SVG writer (svg.h). One chart overlays several traces in distinct
 * colours, all measured from each trace's own first issue.
 */
#ifndef BLKPEAK_PLOT_H
#define BLKPEAK_PLOT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sqlite3.h>

#include "svg.h"

enum plot_kind {
	PLOT_LATENCY_CDF, /* service latency CDF, one line per trace */
	PLOT_IOPS,        /* completions per second over time */
	PLOT_LBA,         /* offset over time: the access map (scatter, decimated) */
	PLOT_QD,          /* I/Os in flight over time (time-weighted average per bin) */
	PLOT_SIZES,       /* request-size histogram, % of I/Os per size class */
	PLOT_MBPS,        /* MB completed per second over time */
	PLOT_LATENCY_TIME,/* service latency of each I/O over time (scatter, decimated) */
	PLOT_SEEKS,       /* seeks per second over time (an I/O not where the last ended) */
	PLOT_MEMBERS,     /* I/Os per member of a virtual array (runs' member column) */
	PLOT_BTT,         /* btt's breakdown: mean queue wait Q->D and service D->C per trace */
	PLOT_BTT_PROCS,   /* the same per process (trace and comm, the busiest 8) */
	PLOT_KIND_COUNT,
};

/* Most points a scatter series keeps (access map decimation). */
#define PLOT_MAX_POINTS 6000
/* Time bins of the over-time charts. */
#define PLOT_TIME_BINS 120

/* "latency-cdf", "iops", "lba", "qd", "sizes", "mbps", "latency-time",
 * "seeks-time", "members", "btt", "btt-procs" <-> the enum (measure's
 * "seeks" chart is seeks against span, measure_view.h); parse returns 0 or
 * -EINVAL. */
int plot_kind_parse(const char *name, enum plot_kind *out);
const char *plot_kind_name(enum plot_kind kind);
/* A sentence saying what the chart shows, for reports. */
const char *plot_kind_caption(enum plot_kind kind);

/*
 * A short label for trace `id`: its id and chart_label() (chart_label.h),
 * "3 raid0 x2 64k" for a run, "1 photo-edit.bpt" for a trace, into buf.
 * Returns 0 or -ENOENT when no such trace is in the database.
 */
int plot_trace_label(sqlite3 *db, int64_t id, char *buf, size_t len);

/* One series of a chart: a trace's (x, y) points in the chart's units. */
struct plot_series {
	char label[192];
	double *x, *y;
	size_t n, cap;
};

/* A chart ready to draw: one series per trace (in the order of the ids;
 * an empty trace has n == 0), axes, units and title in `chart`; the btt
 * kinds have two series instead (queue wait and service) and a category
 * per trace or process, named in cat_names. */
struct plot_data {
	struct plot_series *series;
	size_t n;
	char (*cat_names)[64];
	const char **cat_ptrs;
	struct svg_chart chart;
	int64_t bin_ns;      /* time bin of the over-time charts */
};

/*
 * Build the series of `kind` for traces ids[0..n-1] into *pd (free it with
 * plot_data_free). Units: latency-cdf x = µs, y = %; iops / qd / lba x =
 * ms (when the longest trace is under 2 s) or s, as chart.x.label says;
 * iops y = I/Os per second; qd y = I/Os in flight; lba y = MiB or GiB;
 * sizes y = % per class (x = class index); mbps y = MB (10^6 bytes) per
 * second; latency-time y = µs (log axis); seeks y = seeks per second;
 * members y = I/Os that touched member x; btt and btt-procs y = µs or ms
 * (chart.y.label). Errors as plot_write.
 */
int plot_data_build(sqlite3 *db, enum plot_kind kind, const int64_t *ids, size_t n,
		    struct plot_data *pd);
void plot_data_free(struct plot_data *pd);

/*
 * Draw the chart of `kind` over traces ids[0..n-1] to f, as a standalone
 * .svg file (standalone = 1) or an <svg> element for HTML (0).
 * Returns 0, -ENOENT (an id is not in the database), -ENODATA (none of
 * the traces has an I/O this chart can show), -ENOMEM, -EIO (sqlite or
 * write error).
 */
int plot_write(sqlite3 *db, enum plot_kind kind, const int64_t *ids, size_t n,
	       int standalone, FILE *f);

/* The same with a progress line (common/progress.h; NULL: none): at each
 * trace, "WHAT: KIND chart, trace i of n, ..., ETA ...". */
struct progress;
int plot_write_progress(sqlite3 *db, enum plot_kind kind, const int64_t *ids, size_t n,
			int standalone, FILE *f, struct progress *prog);
int plot_data_build_progress(sqlite3 *db, enum plot_kind kind, const int64_t *ids, size_t n,
			     struct plot_data *pd, struct progress *prog);

#endif
