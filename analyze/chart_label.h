/*
 * chart_label.h — the short name of a trace or run in charts, legends and
 * the HTML report's tables: "single hdd:7200", "raid0 x2 64k",
 * "dual: single hdd:7200 + raid0 x2 64k", or a trace's file name. Never a
 * path list: the full target spec stays in `analyze report` and in the
 * report's tooltips.
 *
 * This is the one place charts take a label from, so that a shared run
 * label (a stored --label, issue 25) replaces it here alone.
 */
#ifndef BLKPEAK_CHART_LABEL_H
#define BLKPEAK_CHART_LABEL_H

#include <stddef.h>

/*
 * The short label of a replay onto `target` (a replay target spec, the
 * runs.target column: "raid0:chunk=64k:hdd:7200:/dev/loop6,hdd:7200:/dev/loop7",
 * several --map entries joined by ';'), or of a trace at `path` when
 * target is NULL or empty. Written to buf (always terminated); returns buf.
 */
char *chart_label(const char *target, const char *path, char *buf, size_t len);

#endif
