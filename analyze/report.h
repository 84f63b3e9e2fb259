/*
 * report.h — printing a computed report (stats.h) for a person
 * (report_text.c) or a script (report_json.c).
 */
#ifndef BLKPEAK_ANALYZE_REPORT_H
#define BLKPEAK_ANALYZE_REPORT_H

#include <stdio.h>

#include "stats.h"

void report_print_text(FILE *f, const struct st_report *r);

/* One JSON object, newline-terminated; includes the per-second series. */
void report_print_json(FILE *f, const struct st_report *r);

/* Print a nanosecond figure in the unit a person reads best: "812 ns",
 * "35.2 us", "4.12 ms", "1.503 s". Returns buf. */
char *report_fmt_ns(double ns, char *buf, size_t len);

#endif
