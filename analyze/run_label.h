/*
 * run_label.h — the one display name of a trace, run or measurement in
 * every table, chart and legend: the label given to it (`replay
 * --label`, `measure --label`, `analyze label`), else a short name made
 * from its target ("single hdd:7200", "raid0 x2 64k", "dual hdd:7200"),
 * else its file's name. Never a list of paths: the full target spec
 * stays in `analyze report`.
 *
 * The short names are chart_label.h's ("single hdd:7200", "raid0 x2 64k
 * hdd:7200", "dual hdd:7200", "single loop3 + linear x2").
 * Labels are recorded strings: escape them (fmt_text) before printing.
 */
#ifndef BLKPEAK_ANALYZE_RUN_LABEL_H
#define BLKPEAK_ANALYZE_RUN_LABEL_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* A label is at most this long (bytes, NUL included); longer given
 * labels are cut. */
#define RUN_LABEL_MAX 64

/* The short name of target spec `spec` into buf; returns buf. */
const char *run_label_target(const char *spec, char *buf, size_t len);

/*
 * The display label from its parts, into buf (returns buf): `given` when
 * not NULL or empty; else for a run (target not NULL or empty) the short
 * name of target; else the last part of path ("?" when NULL).
 */
const char *run_label_make(const char *given, const char *target, const char *path,
			   char *buf, size_t len);

/* The display label of trace or run `id` of the database (traces.label,
 * runs.target, traces.path). 0, -ENOENT (no such trace) or -EIO. */
int run_label_db(sqlite3 *db, int64_t id, char *buf, size_t len);

/* The display label of measurement `id` (measurements.label, else the
 * short name of measurements.target). 0, -ENOENT or -EIO. */
int run_label_measurement_db(sqlite3 *db, int64_t id, char *buf, size_t len);

#endif
