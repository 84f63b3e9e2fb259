/*
 * run_label.h — the one display name of a trace, run or measurement in
 * every table, chart and legend: the label given to it (`replay
 * --label`, `measure --label`, `analyze label`), else a short name made
 * from its target ("single hdd:7200", "raid0 x2 64k", "dual hdd:7200"),
 * else its file's name. Never a list of paths: the full target spec
 * stays in `analyze report`.
 *
 * Short names from a target spec (run_label_target):
 *   PATH                      single NAME (the file's or device's name)
 *   hdd:MODEL:PATH            single hdd:MODEL (MODEL's first item)
 *   raid0:chunk=64k:A,B       raid0 x2 64k   (raid10, raid5, raid6 alike;
 *                             ":missing=N" adds " degraded")
 *   raid1:A,B / linear:A,B,C  raid1 x2 / linear x3
 *   K=SPEC;K=SPEC;*=SPEC      (replay --map) the one name when every pair
 *                             has the same; "dual NAME" when two regions
 *                             of one recorded disk are on two targets
 *                             (NAME: the common model, if any); else the
 *                             names joined with " + "
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
