/*
 * error.h — how every blkpeak function that can fail tells its caller
 * why: it returns a negative errno (or -1) and, when given a
 * `struct bpt_error *` (which may be NULL), fills it. The caller decides
 * where the message goes; only command functions print. The trace library
 * (lib/bpt.h) defined it first, hence the name; it adds the byte offset.
 */
#ifndef BLKPEAK_ERROR_H
#define BLKPEAK_ERROR_H

#include "bpt_error.h" /* the struct */

/* Fill err (may be NULL) with code, offset 0 and the message fmt, word for
 * word. Returns code, so callers can `return bpt_error_set(err, ...)`. */
int bpt_error_set(struct bpt_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
