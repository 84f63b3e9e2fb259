/*
 * vtab_trace.h — trace files as SQL tables, without an import:
 *
 *	SELECT op_name, count(*), sum(bytes) FROM trace_ios('big.bpt')
 *	WHERE issue_ns BETWEEN 60e9 AND 61e9 GROUP BY op;
 *
 * trace_ios(PATH) is an eponymous virtual table (a table-valued
 * function): one row per record of the trace file PATH, in file order,
 * with the columns of the io_detail view (schemas/analyze.sql) but
 * trace_id: idx (the record's position in the file), queue_ns ...
 * completion, then op_name, comm, service_ns and total_ns. Values are
 * those `analyze import` stores: queue_ns is issue_ns when the trace did
 * not know it, the replay columns are NULL when the trace has none.
 *
 * Constraints are pushed down, never trusted (SQLite checks every row
 * again): a range on issue_ns skips the blocks outside it by the file's
 * index, and =, <, <=, >, >= on an integer column (dev, op, flags, pid,
 * ...) drop a record before it becomes a row. The module is
 * SQLITE_VTAB_DIRECTONLY: a view or trigger of a database cannot use it
 * (opening a database never makes blkpeak read other files).
 */
#ifndef BLKPEAK_ANALYZE_VTAB_TRACE_H
#define BLKPEAK_ANALYZE_VTAB_TRACE_H

#include <sqlite3.h>
#include <stdint.h>

#include "bpt.h"

/*
 * Register trace_ios on db: 0 or -EIO with err filled. `progress`, when
 * not NULL, is called every 2^20 records a scan reads with the records
 * read so far and the file's count (0 when unknown): the progress line
 * of query (common/progress.h).
 */
int vtab_trace_register(sqlite3 *db, void (*progress)(void *arg, uint64_t done, uint64_t total),
			void *progress_arg, struct bpt_error *err);

#endif
