/*
 * runstats.h — the few figures per trace or run that the HTML report's
 * tables show, read from the analysis database: how long, how many I/Os
 * and bytes, the rates, service-latency percentiles and errors, plus the
 * time saved against a baseline with the formulas of schemas/analyze.sql
 * (comparison_entries).
 */
#ifndef BLKPEAK_RUNSTATS_H
#define BLKPEAK_RUNSTATS_H

#include <stdint.h>
#include <sqlite3.h>

struct runstats {
	int64_t id;
	char label[192];        /* plot_trace_label() */
	char kind[16];          /* capture, generate, replay, import */
	char timing[16];        /* runs.timing, "" for a trace */
	int64_t ios, bytes, errors;
	int64_t duration_ns;    /* first issue to last completion, 0 when empty */
	double iops, mbps;      /* per second of duration; MB = 10^6 bytes */
	int64_t p50_ns, p99_ns, p999_ns; /* service latency, -1 when no data I/O */
};

/* Fill *rs for trace id. Returns 0, -ENOENT, -ENOMEM or -EIO. */
int runstats_load(sqlite3 *db, int64_t id, struct runstats *rs);

/* (T0 - T) / T0 * 100: how much sooner `run` finished than `base`. NAN
 * when the baseline has no duration. */
double runstats_time_saved_pct(const struct runstats *base, const struct runstats *run);
/* (T0 / T - 1) * 100. */
double runstats_speedup_pct(const struct runstats *base, const struct runstats *run);

#endif
