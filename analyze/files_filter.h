/*
 * files_filter.h — `--files PATTERN` of analyze report, compare and html:
 * the I/Os of the files whose recorded path matches a glob, or of a
 * class of I/O (trace format 1.3's file columns, schemas/trace-format.md
 * "Files and paths").
 *
 * What matches (docs/analyze.md, "Restricting to files"):
 *   - a PATTERN is an fnmatch(3) glob without FNM_PATHNAME, so `*` also
 *     matches `/`: /scratch/ followed by a star is everything under
 *     /scratch, '*.tmp' every .tmp file. A data I/O matches when a path its file had during
 *     the capture (the trace's path table: every path of the inode, a
 *     renamed file's old and new names) matches. A file the path table
 *     does not name matches no glob;
 *   - ':CLASS' (':data', ':metadata', ':journal', ':swap', ':raw',
 *     ':unknown') matches every I/O of that class; ':data' every I/O of a
 *     file. A trace without file columns has only ':unknown' I/Os;
 *   - several patterns: an I/O that matches any of them;
 *   - a request holding two files' data (merged writeback) matches when
 *     either file does, and is counted whole: its size, time and latency
 *     are the request's (the files table inside the report credits each
 *     file its byte share, as without the filter);
 *   - a replay run's I/O matches when the trace I/O it replayed
 *     (source_index) does: the run is matched by the recorded files of
 *     its source trace, which must be in the database (or, for a run file
 *     read in place, at the path its meta names, with the same digest).
 */
#ifndef BLKPEAK_ANALYZE_FILES_FILTER_H
#define BLKPEAK_ANALYZE_FILES_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "bpt.h"

#define FF_MAX_PATTERNS 64
#define FF_MAX_PATTERN 4096 /* bytes, as a path */

struct files_filter {
	int n;                                /* patterns given */
	const char *pattern[FF_MAX_PATTERNS]; /* as given (not copied: argv) */
	uint32_t classes;                     /* 1 << enum bpt_file_class, from ':CLASS' */
	/* analyze report --recording NAME (not a file filter, but kept the
	 * same way): only the I/Os of recording NAME of a mixed run, whose
	 * comm is NAME (stats_recording.c); NULL: none. With patterns or
	 * classes too, refused (cmd_report.c). */
	const char *recording;
};

/* Add one --files argument: 0, or -EINVAL with err saying why (empty,
 * too long, an unknown class, too many). */
int files_filter_add(struct files_filter *f, const char *arg, struct bpt_error *err);

/* Does `path` match one of the globs (not the classes)? */
int files_filter_path(const struct files_filter *f, const char *path);

/* The patterns, one a line (comparisons.files), into buf: buf. */
char *files_filter_lines(const struct files_filter *f, char *buf, size_t len);

#endif
