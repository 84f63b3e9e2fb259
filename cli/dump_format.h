/*
 * dump_format.h — one trace record as a line of text, CSV or JSON, for
 * `blkpeak dump`. No file access: the caller reads records and hands them
 * here with the comm string already looked up.
 *
 * Columns (in this order; the last four only when the trace's header
 * has the optional column):
 *   queue_us issue_us complete_us  times from the trace start, µs
 *                                  (an unknown queue time, 0, shows the
 *                                  issue time)
 *   dev sector bytes op flags      device name, 512-byte sector, length,
 *                                  "read"... and flag letters (SFPMA)
 *   pid comm cgroup
 *   wait_us service_us             issue - queue, complete - issue
 *   error                          0 or a negative errno
 *   sched_us source member         replay run files only
 *   completion                     captures: "seen", or, when the
 *                                  completion was not seen, the kind of
 *                                  bound complete_us holds: "reused"
 *                                  (the request was used again then) or
 *                                  "pending" (the end of the capture);
 *                                  service_us is then up to that bound
 *   file file_dev inode file_offset file_bytes
 *   file2_dev inode2 file2_offset file2_bytes path path2
 *                                  captures with the file columns (1.3):
 *                                  the class ("data", "metadata",
 *                                  "journal", "swap", "raw", "unknown"),
 *                                  and for data the file system's
 *                                  MAJ:MIN, inode, byte offset in the
 *                                  file, bytes of the I/O that are the
 *                                  file's, the same for a second file
 *                                  merged into the request, the paths;
 *                                  "-" (CSV: empty, JSON: null) where none
 *   cause_pid cause_comm cause_cgroup
 *                                  with the cause columns (1.3): the task
 *                                  that caused the I/O (the writer of
 *                                  data a kworker wrote back); "-" (CSV:
 *                                  empty, JSON: null) when not known
 *
 * JSON output is one array of objects, one object per line, so
 * `json.load` reads it whole and `sed 1d;$d` leaves JSON lines.
 */
#ifndef BLKPEAK_DUMP_FORMAT_H
#define BLKPEAK_DUMP_FORMAT_H

#include <stdint.h>
#include <stdio.h>

#include "bpt.h"

enum dump_format { DUMP_TEXT, DUMP_CSV, DUMP_JSON };

struct dump_out {
	FILE *f;
	enum dump_format fmt;
	const struct bpt_header *hdr; /* device names and optional columns */
	uint64_t lines;               /* records written so far */
	/* the path of a file (the trace's path table), or NULL; may be NULL */
	const char *(*path)(void *ctx, uint32_t file_dev, uint64_t inode);
	/* a string of the string table by id (the cause's comm), or NULL */
	const char *(*string)(void *ctx, uint32_t id);
	void *path_ctx;
};

/* Parse "text", "csv" or "json"; -EINVAL otherwise. */
int dump_format_parse(const char *s, enum dump_format *fmt);

/* Text: a "#" column line; CSV: the header row; JSON: "[". */
void dump_begin(struct dump_out *o);
/* One record. comm may be NULL when the string is unknown. */
void dump_record(struct dump_out *o, const struct bpt_record *r, const char *comm);
/* JSON: "]". Others: nothing. */
void dump_end(struct dump_out *o);

#endif
