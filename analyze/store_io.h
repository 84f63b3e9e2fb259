/*
 * store_io.h — one I/O as the columns both engines show (SQLite's view
 * `ios`, PostgreSQL's table `ios`, schema 8), and back to a record.
 *
 * The NULL rules are the view's: the replay columns only where the trace
 * carries them, the file columns only for traces with files (a file's
 * inode and offset, and a second file, only for data I/Os), the cause
 * only when known. st_io_to_record() is the inverse for a trace's own
 * columns, so that import.c, given the record, stores exactly the rows it
 * stored from the file (the PostgreSQL working copy, merge).
 */
#ifndef BLKPEAK_ANALYZE_STORE_IO_H
#define BLKPEAK_ANALYZE_STORE_IO_H

#include <stdint.h>

#include "bpt.h"

/* The columns after trace_id and idx, 8-byte values first (PostgreSQL
 * stores them without padding in this order). */
#define ST_IO_COLS "queue_ns, issue_ns, complete_ns, sector, cgroup_id, pid, bytes, sched_ns," \
	" source_index, file_dev, inode, file_offset, file_bytes, file2_dev, inode2," \
	" file2_offset, file2_bytes, cause_pid, cause_cgroup, cause2_pid, cause2_cgroup," \
	" comm_id, dev, error, member, cause_comm_id, cause2_comm_id," \
	" op, flags, completion, file_class"
#define ST_IO_N 31

/* Column i of ST_IO_COLS (struct st_io v[i], null[i]). */
enum st_io_col {
	ST_C_QUEUE, ST_C_ISSUE, ST_C_COMPLETE, ST_C_SECTOR, ST_C_CGROUP, ST_C_PID, ST_C_BYTES,
	ST_C_SCHED, ST_C_SOURCE, ST_C_FILE_DEV, ST_C_INODE, ST_C_FILE_OFFSET, ST_C_FILE_BYTES,
	ST_C_FILE2_DEV, ST_C_INODE2, ST_C_FILE2_OFFSET, ST_C_FILE2_BYTES, ST_C_CAUSE_PID,
	ST_C_CAUSE_CGROUP, ST_C_CAUSE2_PID, ST_C_CAUSE2_CGROUP, ST_C_COMM, ST_C_DEV, ST_C_ERROR,
	ST_C_MEMBER, ST_C_CAUSE_COMM, ST_C_CAUSE2_COMM, ST_C_OP, ST_C_FLAGS, ST_C_COMPLETION,
	ST_C_FILE_CLASS, ST_C_N
};

/* Bytes of each column's binary value in a COPY (8, 4 or 2). */
extern const unsigned char st_io_width[ST_IO_N];

struct st_io {
	int64_t v[ST_IO_N];
	unsigned char null[ST_IO_N]; /* 1: NULL */
};

/* The columns of rec of a trace with optional columns `cols`. */
void st_io_from_record(struct st_io *io, const struct bpt_record *rec, uint32_t cols);

/* The record back (fields of a NULL column as the writer wants them). */
void st_io_to_record(const struct st_io *io, struct bpt_record *rec);

#endif
