/*
 * dbread.h — read-only access to the analysis database for plot and html.
 */
#ifndef BLKPEAK_DBREAD_H
#define BLKPEAK_DBREAD_H

#include <stdint.h>
#include <sqlite3.h>

/* PRAGMA application_id of a blkpeak database, the decimal that
 * schemas/analyze.sql writes (its comment says 0x424C4B50 'BLKP', but
 * 1112230736 is 0x424B4B50; the number the schema writes is what counts). */
#define DBREAD_APPLICATION_ID 1112230736

/* The database file to use: opt if given, else $BLKPEAK_DB, else "blkpeak.db". */
const char *dbread_path(const char *opt);

/* Open path read-only into *out. Returns 0, -ENOENT (no such file),
 * -EPROTO (not a blkpeak database) or -EIO. */
int dbread_open(const char *path, sqlite3 **out);

/* The reason for an error of dbread_open, for "blkpeak: analyze plot: PATH: REASON". */
const char *dbread_strerror(int err);

/* Parse the trace ids args[0..n-1] (positive numbers, traces.id) into a
 * new array *out (caller frees). Prints "analyze CMD: 'x': not a trace id"
 * and returns -EINVAL on a bad one, -ENOMEM without memory. */
int parse_trace_ids(const char *cmd, char **args, int n, int64_t **out);

#endif
