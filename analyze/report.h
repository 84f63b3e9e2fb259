/*
 * report.h — printing a computed report (stats_report.h) for a person
 * (report_text.c) or a script (report_json.c).
 */
#ifndef BLKPEAK_ANALYZE_REPORT_H
#define BLKPEAK_ANALYZE_REPORT_H

#include <stdio.h>

#include "jsonout.h"
#include "stats_report.h"

void report_print_text(FILE *f, const struct st_report *r);

/* One JSON object, newline-terminated; includes the per-second series. */
void report_print_json(FILE *f, const struct st_report *r);

/* --files: the key "files_filter" (null without it): the patterns and,
 * with `count`, the I/Os of the trace before the filter, as report (and,
 * without count, compare) --json write it (schemas/analyze-*.schema.json). */
void report_files_filter_json(struct jw *w, const struct st_report *r, int count);

/* --files in words, the patterns escaped (fmt_text): "only the I/Os of
 * files matching '/scratch/x' or :journal", into buf; "" without it.
 * Returns buf. */
char *report_files_filter_text(const struct st_report *r, char *buf, size_t len);

#endif
