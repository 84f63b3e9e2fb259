/*
 * iolog_writer.h — .bpt records as a fio iolog, version 3 (fio(1),
 * "Trace file format v3", fio 3.31 and later), which `fio --read_iolog`
 * replays:
 *
 *   fio version 3 iolog
 *   TIME FILE add            one per device, TIME 0
 *   TIME FILE open
 *   TIME FILE ACTION OFFSET LENGTH     one per I/O, in issue order
 *   TIME FILE close          one per device, at the last issue
 *
 * TIME is the issue time in µs from the start of the trace (fio waits for
 * the difference between two lines' times; --replay_no_stall does not);
 * OFFSET and LENGTH are bytes. FILE is /dev/NAME for a device named NAME
 * (a name holding '/' is written as it is); fio --replay_redirect sends
 * every I/O elsewhere. ACTION: read, write (also write-zeroes: fio has no
 * such action), trim (discard), sync (flush: fio's fsync of the file, a
 * flush for a block device; OFFSET and LENGTH 0, as the format needs 5
 * fields). The whole file is written to a new file renamed into place.
 */
#ifndef FORMATS_IOLOG_WRITER_H
#define FORMATS_IOLOG_WRITER_H

#include "bpt.h"

struct fiow;

int fiow_open(struct fiow **out, const char *path, const struct bpt_header *hdr,
	      const char *const *inputs, struct bpt_error *err);
int fiow_add(struct fiow *w, const struct bpt_record *rec, const char *comm,
	     struct bpt_error *err);
int fiow_close(struct fiow *w, int failed, struct bpt_error *err);

#endif
