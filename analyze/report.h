/*
 * report.h — printing a computed report (stats_report.h) for a person
 * (report_text.c) or a script (report_json.c).
 */
#ifndef BLKPEAK_ANALYZE_REPORT_H
#define BLKPEAK_ANALYZE_REPORT_H

#include <stdio.h>

#include "stats_report.h"

void report_print_text(FILE *f, const struct st_report *r);

/* One JSON object, newline-terminated; includes the per-second series. */
void report_print_json(FILE *f, const struct st_report *r);

#endif
