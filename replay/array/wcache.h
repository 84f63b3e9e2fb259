/*
 * wcache.h — the write-back cache of a virtual array's controller
 * (`cache=SIZE` in the array spec, schemas/array-layouts.md "Controller
 * cache"): the battery-backed memory of a RAID controller, in front of
 * the layout.
 *
 * A pure data structure, no clock and no I/O: the scheduler puts writes
 * in (they complete there), asks which reads it can serve, and asks for
 * the next run of dirty bytes to destage, which it writes through the
 * layout and reports back. Decisions depend only on the order of these
 * calls, so a replay's model is deterministic.
 *
 * Space is counted in 4 KiB pages of the array's logical space (a page is
 * taken by any dirty byte in it); dirtiness is kept per 512-byte sector.
 * Destaging works per row of the layout (a stripe: rowb bytes, the data
 * of one row of chunks; for raid0 and raid10 one row of chunks, for
 * raid1, linear and single 1 MiB): the unit handed out is the first
 * contiguous run of dirty sectors of a row, so a row dirty from end to
 * end is one full-stripe write, which needs no reads.
 */
#ifndef BLKPEAK_WCACHE_H
#define BLKPEAK_WCACHE_H

#include <stdint.h>

#include "layout.h"

#define WCACHE_PAGE 4096u
#define WCACHE_MIN (1ull << 20)     /* smallest cache: 1 MiB */
#define WCACHE_MAX (1ull << 34)     /* largest: 16 GiB */
#define WCACHE_DESTAGE_DEFAULT 50   /* % dirty before partial rows go */

struct wcache;

/* Which rows the scheduler cannot destage now (a request in flight
 * shares the row): 1 busy, 0 free. */
typedef int (*wcache_busy_fn)(void *ctx, uint64_t off, uint64_t len);

/* The cache of `size` bytes (a multiple of 4 KiB, WCACHE_MIN..WCACHE_MAX)
 * for the array `l` (its capacity and row size); -EINVAL, -ENOMEM. */
int wcache_create(struct wcache **out, const struct layout *l, uint64_t size,
		  unsigned destage_pct);
void wcache_free(struct wcache *c);

/* Pages, dirty pages (with those being destaged). */
uint64_t wcache_pages(const struct wcache *c);
uint64_t wcache_used(const struct wcache *c);
/* Bytes in one destage run at most (the row size). */
uint64_t wcache_row_bytes(const struct wcache *c);

/* 1 when a write of [off, off+len) fits now (the pages it needs that are
 * not in the cache are free); a write larger than the whole cache never
 * does (wcache_too_big). */
int wcache_fits(const struct wcache *c, uint64_t off, uint64_t len);
int wcache_too_big(const struct wcache *c, uint64_t len);
/* Put a write's bytes in: its sectors become dirty (off and len multiples
 * of 512). 0, or -ENOSPC when it does not fit. */
int wcache_write(struct wcache *c, uint64_t off, uint64_t len, const uint8_t *data);
/* A write that goes around the cache (too big): forget the dirty
 * sectors it overwrites. */
void wcache_forget(struct wcache *c, uint64_t off, uint64_t len);
/* Copy the dirty sectors of [off, off+len) into buf (the rest of buf is
 * left alone). Returns 1 when every sector was dirty (the read is served
 * from the cache), 0 when some or none were. */
int wcache_read(const struct wcache *c, uint64_t off, uint64_t len, uint8_t *buf);
/* 1 when some sector of [off, off+len) is dirty. */
int wcache_overlaps(const struct wcache *c, uint64_t off, uint64_t len);

/* One run being destaged. */
struct wcache_run {
	uint64_t off, len;   /* on the array, bytes */
	uint64_t row;
	uint64_t gen;        /* the cache's write count when it was taken */
	int full;            /* the whole row: a full-stripe write */
};

/*
 * The next run to destage into *run, its bytes copied to buf (at least
 * wcache_row_bytes): rows dirty from end to end first (oldest write
 * first), then, only when `partial` is set, the row written longest ago.
 * Rows already being destaged and rows `busy` says are busy are skipped.
 * 1 when a run was taken, 0 when none is due.
 */
int wcache_destage_next(struct wcache *c, int partial, wcache_busy_fn busy, void *ctx,
			struct wcache_run *run, uint8_t *buf);
/* The run was written (ok) or failed: its sectors not written again
 * since it was taken become clean (pages with nothing dirty are freed);
 * on failure they stay dirty. */
void wcache_destage_done(struct wcache *c, const struct wcache_run *run, int ok);
/* 1 when partial rows are due by the fill level (destage=PCT). */
int wcache_over_mark(const struct wcache *c);

#endif
