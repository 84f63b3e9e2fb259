/*
 * wcache.c — the controller's write-back cache of a virtual array
 * (wcache.h): pages of the array's logical space in a hash table, rows
 * (stripes) with their dirty sector counts, and the choice of what to
 * destage next.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "wcache.h"

#define SECTOR 512u
#define SPP (WCACHE_PAGE / SECTOR) /* sectors per page: 8 */
#define NONE UINT32_MAX

struct wc_page {
	uint64_t lpn;       /* logical page number */
	uint64_t wgen;      /* the write (count) that touched it last */
	uint32_t next;      /* hash chain, or the free list */
	uint8_t dirty;      /* bit s: sector s of the page */
	uint8_t used;
};

struct wc_row {
	uint64_t row;
	uint64_t last_write; /* write count of its newest write */
	uint32_t dirty;      /* dirty sectors */
	uint32_t next;       /* hash chain, or the free list */
	uint8_t used, inflight;
};

struct wcache {
	uint64_t npages, used, capacity, rowb;
	uint64_t gen;              /* writes so far */
	unsigned destage_pct;
	uint8_t *data;             /* npages * WCACHE_PAGE */
	struct wc_page *pg;
	struct wc_row *rw;
	uint32_t *pbucket, *rbucket, nbuckets; /* power of two */
	uint32_t pfree, rfree;
	uint64_t nfull;            /* rows dirty from end to end */
};

static uint64_t row_bytes(const struct layout *l)
{
	switch (l->kind) {
	case LAYOUT_RAID5:
		return (uint64_t)(l->nmembers - 1) * l->chunk;
	case LAYOUT_RAID6:
		return (uint64_t)(l->nmembers - 2) * l->chunk;
	case LAYOUT_RAID0:
		if ((l->nmembers * l->chunk) % WCACHE_PAGE == 0)
			return l->nmembers * l->chunk;
		break;
	case LAYOUT_RAID10:
		if ((l->nmembers / 2 * l->chunk) % WCACHE_PAGE == 0 && l->nmembers >= 2)
			return l->nmembers / 2 * l->chunk;
		break;
	default:
		break;
	}
	return 1u << 20;
}

static uint32_t hash64(uint64_t x, uint32_t nb)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (uint32_t)(x & (nb - 1));
}

int wcache_create(struct wcache **out, const struct layout *l, uint64_t size,
		  unsigned destage_pct)
{
	struct wcache *c;
	uint64_t np = size / WCACHE_PAGE;

	*out = NULL;
	if (size < WCACHE_MIN || size > WCACHE_MAX || size % WCACHE_PAGE || destage_pct > 100)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->npages = np;
	c->capacity = l->capacity;
	c->rowb = row_bytes(l);
	c->destage_pct = destage_pct;
	c->nbuckets = 1;
	while (c->nbuckets < 2 * np)
		c->nbuckets <<= 1;
	c->data = malloc(np * WCACHE_PAGE);
	c->pg = calloc(np, sizeof(*c->pg));
	c->rw = calloc(np, sizeof(*c->rw));
	c->pbucket = malloc(c->nbuckets * sizeof(*c->pbucket));
	c->rbucket = malloc(c->nbuckets * sizeof(*c->rbucket));
	if (!c->data || !c->pg || !c->rw || !c->pbucket || !c->rbucket) {
		wcache_free(c);
		return -ENOMEM;
	}
	memset(c->pbucket, 0xff, c->nbuckets * sizeof(*c->pbucket));
	memset(c->rbucket, 0xff, c->nbuckets * sizeof(*c->rbucket));
	for (uint64_t i = 0; i < np; i++) {
		c->pg[i].next = i + 1 < np ? (uint32_t)(i + 1) : NONE;
		c->rw[i].next = i + 1 < np ? (uint32_t)(i + 1) : NONE;
	}
	c->pfree = c->rfree = 0;
	*out = c;
	return 0;
}

void wcache_free(struct wcache *c)
{
	if (!c)
		return;
	free(c->data);
	free(c->pg);
	free(c->rw);
	free(c->pbucket);
	free(c->rbucket);
	free(c);
}

uint64_t wcache_pages(const struct wcache *c) { return c->npages; }
uint64_t wcache_used(const struct wcache *c) { return c->used; }
uint64_t wcache_row_bytes(const struct wcache *c) { return c->rowb; }

static uint32_t page_find(const struct wcache *c, uint64_t lpn)
{
	for (uint32_t i = c->pbucket[hash64(lpn, c->nbuckets)]; i != NONE; i = c->pg[i].next)
		if (c->pg[i].lpn == lpn)
			return i;
	return NONE;
}

static uint32_t row_find(const struct wcache *c, uint64_t row)
{
	for (uint32_t i = c->rbucket[hash64(row, c->nbuckets)]; i != NONE; i = c->rw[i].next)
		if (c->rw[i].row == row)
			return i;
	return NONE;
}

/* The row entry of `row`, made when absent (there are as many entries as
 * pages, and a row with an entry has a page). */
static uint32_t row_get(struct wcache *c, uint64_t row)
{
	uint32_t i = row_find(c, row), b;

	if (i != NONE)
		return i;
	i = c->rfree;
	c->rfree = c->rw[i].next;
	b = hash64(row, c->nbuckets);
	c->rw[i] = (struct wc_row){ .row = row, .used = 1, .next = c->rbucket[b] };
	c->rbucket[b] = i;
	return i;
}

static void unlink_from(uint32_t *bucket, uint32_t i, uint32_t *next_of, size_t stride)
{
	/* next_of: &array[0].next; stride: sizeof an entry */
	uint32_t *pp = bucket;

	while (*pp != i)
		pp = (uint32_t *)((char *)next_of + (size_t)*pp * stride);
	*pp = *(uint32_t *)((char *)next_of + (size_t)i * stride);
}

static void row_put(struct wcache *c, uint32_t i)
{
	unlink_from(&c->rbucket[hash64(c->rw[i].row, c->nbuckets)], i, &c->rw[0].next,
		    sizeof(c->rw[0]));
	c->rw[i].used = 0;
	c->rw[i].next = c->rfree;
	c->rfree = i;
}

static void page_put(struct wcache *c, uint32_t i)
{
	unlink_from(&c->pbucket[hash64(c->pg[i].lpn, c->nbuckets)], i, &c->pg[0].next,
		    sizeof(c->pg[0]));
	c->pg[i].used = 0;
	c->pg[i].next = c->pfree;
	c->pfree = i;
	c->used--;
}

static uint32_t page_new(struct wcache *c, uint64_t lpn)
{
	uint32_t i = c->pfree, b = hash64(lpn, c->nbuckets);

	c->pfree = c->pg[i].next;
	c->pg[i] = (struct wc_page){ .lpn = lpn, .used = 1, .next = c->pbucket[b] };
	c->pbucket[b] = i;
	c->used++;
	return i;
}

static uint64_t rows_sectors(const struct wcache *c, uint64_t row)
{
	uint64_t r0 = row * c->rowb, r1 = r0 + c->rowb;

	if (r1 > c->capacity)
		r1 = c->capacity;
	return (r1 - r0) / SECTOR;
}

/* Row entry i gained (d > 0) or lost dirty sectors: keep nfull right. */
static void row_count(struct wcache *c, uint32_t i, int64_t d)
{
	struct wc_row *r = &c->rw[i];
	uint64_t full = rows_sectors(c, r->row);
	int was = r->dirty == full;

	r->dirty = (uint32_t)((int64_t)r->dirty + d);
	if (was && r->dirty != full)
		c->nfull--;
	else if (!was && r->dirty == full)
		c->nfull++;
}

int wcache_too_big(const struct wcache *c, uint64_t len)
{
	/* a write spans at most len / page + 2 pages */
	return len / WCACHE_PAGE + 2 > c->npages;
}

int wcache_fits(const struct wcache *c, uint64_t off, uint64_t len)
{
	uint64_t need = 0;

	if (wcache_too_big(c, len))
		return 0;
	if (!len)
		return 1;
	for (uint64_t p = off / WCACHE_PAGE; p <= (off + len - 1) / WCACHE_PAGE; p++)
		need += page_find(c, p) == NONE;
	return need <= c->npages - c->used;
}

/* The sectors of page lpn within [off, off+len) as a mask. */
static uint8_t sector_mask(uint64_t lpn, uint64_t off, uint64_t len)
{
	uint64_t p0 = lpn * WCACHE_PAGE, a = off > p0 ? off : p0;
	uint64_t b = off + len < p0 + WCACHE_PAGE ? off + len : p0 + WCACHE_PAGE;
	uint8_t m = 0;

	for (uint64_t s = (a - p0) / SECTOR; s < (b - p0 + SECTOR - 1) / SECTOR; s++)
		m |= (uint8_t)(1u << s);
	return m;
}

int wcache_write(struct wcache *c, uint64_t off, uint64_t len, const uint8_t *data)
{
	if (!wcache_fits(c, off, len))
		return -ENOSPC;
	if (!len)
		return 0;
	c->gen++;
	for (uint64_t p = off / WCACHE_PAGE; p <= (off + len - 1) / WCACHE_PAGE; p++) {
		uint32_t i = page_find(c, p), ri;
		uint64_t p0 = p * WCACHE_PAGE, a = off > p0 ? off : p0;
		uint64_t b = off + len < p0 + WCACHE_PAGE ? off + len : p0 + WCACHE_PAGE;
		uint8_t m = sector_mask(p, off, len), added;

		if (i == NONE)
			i = page_new(c, p);
		memcpy(c->data + (uint64_t)i * WCACHE_PAGE + (a - p0), data + (a - off), b - a);
		added = m & (uint8_t)~c->pg[i].dirty;
		c->pg[i].dirty |= m;
		c->pg[i].wgen = c->gen;
		ri = row_get(c, p0 / c->rowb);
		row_count(c, ri, __builtin_popcount(added));
		c->rw[ri].last_write = c->gen;
	}
	return 0;
}

/* Clear `m` of page i (of row entry ri); free what is left empty. */
static void clean(struct wcache *c, uint32_t i, uint32_t ri, uint8_t m)
{
	uint8_t gone = c->pg[i].dirty & m;

	c->pg[i].dirty &= (uint8_t)~m;
	row_count(c, ri, -(int64_t)__builtin_popcount(gone));
	if (!c->pg[i].dirty)
		page_put(c, i);
	if (!c->rw[ri].dirty && !c->rw[ri].inflight)
		row_put(c, ri);
}

void wcache_forget(struct wcache *c, uint64_t off, uint64_t len)
{
	if (!len)
		return;
	c->gen++;
	for (uint64_t p = off / WCACHE_PAGE; p <= (off + len - 1) / WCACHE_PAGE; p++) {
		uint32_t i = page_find(c, p), ri;

		if (i == NONE)
			continue;
		ri = row_find(c, p * WCACHE_PAGE / c->rowb);
		c->pg[i].wgen = c->gen;
		/* only whole sectors are overwritten (I/O is in sectors) */
		clean(c, i, ri, sector_mask(p, off, len));
	}
}

int wcache_read(const struct wcache *c, uint64_t off, uint64_t len, uint8_t *buf)
{
	int all = 1;

	if (!len)
		return 0;
	for (uint64_t s = off / SECTOR; s < (off + len + SECTOR - 1) / SECTOR; s++) {
		uint64_t lpn = s * SECTOR / WCACHE_PAGE;
		uint32_t i = page_find(c, lpn);
		unsigned bit = (unsigned)(s % SPP);

		if (i == NONE || !(c->pg[i].dirty & (1u << bit))) {
			all = 0;
			continue;
		}
		uint64_t a = s * SECTOR > off ? s * SECTOR : off;
		uint64_t b = (s + 1) * SECTOR < off + len ? (s + 1) * SECTOR : off + len;

		memcpy(buf + (a - off), c->data + (uint64_t)i * WCACHE_PAGE + (a - lpn * WCACHE_PAGE),
		       b - a);
	}
	return all;
}

int wcache_overlaps(const struct wcache *c, uint64_t off, uint64_t len)
{
	if (!len || !c->used)
		return 0;
	for (uint64_t p = off / WCACHE_PAGE; p <= (off + len - 1) / WCACHE_PAGE; p++) {
		uint32_t i = page_find(c, p);

		if (i != NONE && (c->pg[i].dirty & sector_mask(p, off, len)))
			return 1;
	}
	return 0;
}

int wcache_over_mark(const struct wcache *c)
{
	return c->used * 100 > c->npages * c->destage_pct;
}

/* The first run of dirty sectors of row entry ri into *run and buf. */
static void take_run(struct wcache *c, uint32_t ri, struct wcache_run *run, uint8_t *buf)
{
	struct wc_row *r = &c->rw[ri];
	uint64_t r0 = r->row * c->rowb, nsec = rows_sectors(c, r->row);
	uint64_t start = UINT64_MAX, end = 0;

	for (uint64_t k = 0; k < nsec; k++) {
		uint64_t s = r0 / SECTOR + k, lpn = s / SPP;
		uint32_t i = page_find(c, lpn);
		int dirty = i != NONE && (c->pg[i].dirty & (1u << (s % SPP)));

		if (dirty && start == UINT64_MAX)
			start = s;
		if (!dirty && start != UINT64_MAX)
			break;
		if (dirty) {
			end = s + 1;
			memcpy(buf + (s - r0 / SECTOR) * SECTOR - (start - r0 / SECTOR) * SECTOR,
			       c->data + (uint64_t)i * WCACHE_PAGE + (s % SPP) * SECTOR, SECTOR);
		}
	}
	*run = (struct wcache_run){
		.off = start * SECTOR, .len = (end - start) * SECTOR, .row = r->row, .gen = c->gen,
		.full = r->dirty == nsec,
	};
	r->inflight = 1;
}

int wcache_destage_next(struct wcache *c, int partial, wcache_busy_fn busy, void *ctx,
			struct wcache_run *run, uint8_t *buf)
{
	uint32_t best = NONE;
	int best_full = 0;

	if (!c->used || (!partial && !c->nfull))
		return 0;
	for (uint32_t i = 0; i < c->npages; i++) {
		const struct wc_row *r = &c->rw[i];
		int full;

		if (!r->used || r->inflight || !r->dirty)
			continue;
		full = r->dirty == rows_sectors(c, r->row);
		if (!full && !partial)
			continue;
		if (best != NONE) {
			const struct wc_row *b = &c->rw[best];

			/* full rows first, then the oldest write, then the lowest row */
			if (best_full && !full)
				continue;
			if (best_full == full &&
			    (b->last_write < r->last_write ||
			     (b->last_write == r->last_write && b->row < r->row)))
				continue;
		}
		if (busy && busy(ctx, r->row * c->rowb, c->rowb))
			continue;
		best = i;
		best_full = full;
	}
	if (best == NONE)
		return 0;
	take_run(c, best, run, buf);
	return 1;
}

void wcache_destage_done(struct wcache *c, const struct wcache_run *run, int ok)
{
	uint32_t ri = row_find(c, run->row);

	if (ri == NONE)
		return;
	c->rw[ri].inflight = 0;
	if (ok && run->len)
		for (uint64_t p = run->off / WCACHE_PAGE; p <= (run->off + run->len - 1) / WCACHE_PAGE;
		     p++) {
			uint32_t i = page_find(c, p);

			/* a page written again since keeps its sectors dirty */
			if (i != NONE && c->pg[i].wgen <= run->gen)
				clean(c, i, ri, sector_mask(p, run->off, run->len));
			if (!c->rw[ri].used)
				break;
		}
	if (c->rw[ri].used && !c->rw[ri].dirty)
		row_put(c, ri);
}
