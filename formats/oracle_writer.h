/*
 * oracle_writer.h — .bpt records as a libCacheSim "oracleGeneral" trace
 * (github.com/1a1a11a/libCacheSim, traceReader/customizedReader/oracle/
 * oracleGeneralBin.h; written by its traceConv), for cache simulators
 * (libCacheSim's cachesim, Belady and the other algorithms that need the
 * future). A file of 24-byte little-endian records, no header:
 *
 *    0 u32 clock_time         the issue time, whole seconds from the
 *                             trace's start
 *    4 u64 obj_id             the block (below)
 *   12 u32 obj_size           bytes: OGW_BLOCK
 *   16 i64 next_access_vtime  the number (1-based, counting the file's
 *                             requests) of the next request for the same
 *                             obj_id; -1 when there is none within the
 *                             look-ahead (below)
 *
 * Block I/Os onto objects: the cache unit is an aligned block of
 * OGW_BLOCK (4096) bytes of one device; an I/O becomes one request per
 * block it touches, in the I/O's issue order and then block order, with
 * obj_id = device index << 48 | (byte offset / 4096) (a block number at
 * or past 2^48, 1 EiB, is refused). Reads, writes and write-zeroes are
 * accesses; flushes, discards and I/Os of no bytes have no block and are
 * left out.
 *
 * next_access_vtime needs the future: requests wait in a look-ahead of
 * `window` requests (OGW_WINDOW by default) before they are written, and
 * a hash of the blocks in it finds each request's next access. Memory is
 * bounded by the window (24 bytes a request plus 32 a hash slot at load
 * 1/2: 56 MiB for 2^20), whatever the trace's length; a next access
 * `window` or more requests ahead is written as -1, as libCacheSim
 * writes "no next access" (it reads -1 as an infinite reuse distance).
 * Exact whenever the trace has fewer requests than the window.
 */
#ifndef FORMATS_ORACLE_WRITER_H
#define FORMATS_ORACLE_WRITER_H

#include <stdint.h>

#include "bpt.h"

#define OGW_BLOCK 4096u
#define OGW_RECORD 24u
#define OGW_WINDOW (1u << 20)
#define OGW_MAX_BLOCK (1ull << 48)

struct ogw;

/* window: the look-ahead in requests (a power of two >= 2; 0 for
 * OGW_WINDOW). */
int ogw_open(struct ogw **out, const char *path, const struct bpt_header *hdr,
	     const char *const *inputs, uint32_t window, struct bpt_error *err);
int ogw_add(struct ogw *w, const struct bpt_record *rec, struct bpt_error *err);
int ogw_close(struct ogw *w, int failed, struct bpt_error *err);

#endif
