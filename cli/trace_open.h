/*
 * trace_open.h — what `info` and `dump` do alike around the reader:
 * open a trace with a one-line error, and warn when a trace turned out
 * to be cut off.
 */
#ifndef BLKPEAK_TRACE_OPEN_H
#define BLKPEAK_TRACE_OPEN_H

#include "bpt.h"

/* The one FILE operand left after option parsing (argv[first..argc-1]);
 * prints the usage error and returns -EINVAL when there is none or more
 * than one. */
int trace_file_arg(const char *cmd, int argc, char **argv, int first,
		   const char **path);

/* Open `path` for subcommand `cmd`; on failure print
 * "blkpeak: CMD: <reason naming the file>" and return a negative errno. */
int trace_open(const char *cmd, const char *path, struct bpt_reader **r);

/* Print the error of a failed reader call: "blkpeak: CMD: <err->msg>",
 * or the errno text with the path when the library gave no message. */
void trace_error(const char *cmd, const char *path, int ret, const struct bpt_error *err);

/* If the reader (read to its end) found the file cut off, warn on stderr
 * with the offset where good data ends and how many bytes were cut. */
void trace_warn_truncated(const char *cmd, const char *path, const struct bpt_reader *r);

#endif
