/* Unit tests of the controller's write-back cache (replay/array/wcache.c):
 * what reads see, room, the destage order and what a destage cleans. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bpt.h"
#include "../../replay/array/wcache.h"

#define K 1024ull
#define M (1024 * K)

/* raid5 of 4 members, 64 KiB chunks: rows of 192 KiB. */
static struct layout raid5(void)
{
	struct layout l = { .kind = LAYOUT_RAID5, .nmembers = 4, .chunk = 64 * K };

	for (unsigned i = 0; i < 4; i++)
		l.member_size[i] = 64 * M;
	cr_assert_eq(layout_init(&l), 0);
	return l;
}

static struct wcache *mk(uint64_t size, unsigned pct)
{
	struct layout l = raid5();
	struct wcache *c;

	cr_assert_eq(wcache_create(&c, &l, size, pct), 0);
	return c;
}

static uint8_t *fill(uint64_t len, uint8_t v)
{
	uint8_t *b = malloc(len);

	cr_assert(b);
	for (uint64_t i = 0; i < len; i++)
		b[i] = (uint8_t)(v + i * 7);
	return b;
}

Test(wcache, create_rules)
{
	struct layout l = raid5();
	struct wcache *c;

	cr_expect_eq(wcache_create(&c, &l, 512 * K, 50), -EINVAL);
	cr_expect_eq(wcache_create(&c, &l, M + 512, 50), -EINVAL);
	cr_expect_eq(wcache_create(&c, &l, M, 101), -EINVAL);
	cr_expect_eq(wcache_create(&c, &l, WCACHE_MAX * 2, 50), -EINVAL);
	cr_assert_eq(wcache_create(&c, &l, M, 50), 0);
	cr_expect_eq(wcache_pages(c), 256);
	cr_expect_eq(wcache_row_bytes(c), 192 * K);
	wcache_free(c);
}

Test(wcache, reads_see_dirty_sectors)
{
	struct wcache *c = mk(M, 50);
	uint8_t *w = fill(8 * K, 3), buf[16 * K];

	cr_assert_eq(wcache_write(c, 4 * K + 512, 8 * K, w), 0);
	memset(buf, 0xee, sizeof(buf));
	/* whole: served */
	cr_expect_eq(wcache_read(c, 4 * K + 512, 8 * K, buf), 1);
	cr_expect_eq(memcmp(buf, w, 8 * K), 0);
	/* partly: the dirty part copied, the rest left */
	memset(buf, 0xee, sizeof(buf));
	cr_expect_eq(wcache_read(c, 4 * K, 4 * K, buf), 0);
	cr_expect_eq(buf[0], 0xee);
	cr_expect_eq(buf[511], 0xee);
	cr_expect_eq(buf[512], w[0]);
	cr_expect(wcache_overlaps(c, 12 * K, 512));
	cr_expect(!wcache_overlaps(c, 12 * K + 512, 512));
	cr_expect(!wcache_overlaps(c, 0, 4 * K + 512));
	/* three pages taken */
	cr_expect_eq(wcache_used(c), 3);
	free(w);
	wcache_free(c);
}

Test(wcache, room_and_too_big)
{
	struct wcache *c = mk(M, 50);
	uint8_t *w = fill(M, 1);

	cr_expect(wcache_too_big(c, M));
	cr_expect(!wcache_fits(c, 0, M));
	cr_expect_eq(wcache_write(c, 0, M, w), -ENOSPC);
	cr_assert_eq(wcache_write(c, 0, 1000 * 4 * K / 4, w), 0);  /* 250 pages */
	cr_expect(wcache_fits(c, 0, 4 * K));                       /* already there */
	cr_expect(wcache_fits(c, 2 * M, 24 * K));                  /* 6 free */
	cr_expect(!wcache_fits(c, 2 * M, 28 * K));
	cr_expect(wcache_over_mark(c));
	free(w);
	wcache_free(c);
}

Test(wcache, full_rows_first_then_oldest)
{
	struct wcache *c = mk(4 * M, 100);
	uint8_t *w = fill(192 * K, 9), *buf = malloc(192 * K);
	struct wcache_run r;

	cr_assert_eq(wcache_write(c, 10 * 192 * K + 4 * K, 4 * K, w), 0); /* row 10, partial */
	cr_assert_eq(wcache_write(c, 3 * 192 * K, 4 * K, w), 0);          /* row 3, partial */
	cr_assert_eq(wcache_write(c, 5 * 192 * K, 192 * K, w), 0);        /* row 5, full */
	/* partial rows wait while under the mark */
	cr_assert_eq(wcache_destage_next(c, 1, NULL, NULL, &r, buf), 1);
	cr_expect(r.full);
	cr_expect_eq(r.off, 5 * 192 * K);
	cr_expect_eq(r.len, 192 * K);
	cr_expect_eq(memcmp(buf, w, 192 * K), 0);
	cr_expect_eq(wcache_destage_next(c, 0, NULL, NULL, &r, buf), 0);
	/* then the row written longest ago */
	cr_assert_eq(wcache_destage_next(c, 1, NULL, NULL, &r, buf), 1);
	cr_expect_eq(r.off, 10 * 192 * K + 4 * K);
	cr_expect_eq(r.len, 4 * K);
	cr_expect(!r.full);
	free(w);
	free(buf);
	wcache_free(c);
}

static int row_three_busy(void *ctx, uint64_t off, uint64_t len)
{
	(void)ctx;
	(void)len;
	return off == 3 * 192 * K;
}

Test(wcache, busy_rows_and_runs)
{
	struct wcache *c = mk(4 * M, 0);
	uint8_t *w = fill(64 * K, 5), *buf = malloc(192 * K);
	struct wcache_run r;

	/* row 3: two runs, [0, 8k) and [16k, 20k) */
	cr_assert_eq(wcache_write(c, 3 * 192 * K, 8 * K, w), 0);
	cr_assert_eq(wcache_write(c, 3 * 192 * K + 16 * K, 4 * K, w), 0);
	cr_expect_eq(wcache_destage_next(c, 1, row_three_busy, NULL, &r, buf), 0);
	cr_assert_eq(wcache_destage_next(c, 1, NULL, NULL, &r, buf), 1);
	cr_expect_eq(r.off, 3 * 192 * K);
	cr_expect_eq(r.len, 8 * K);
	/* the row is being destaged: not handed out twice */
	cr_expect_eq(wcache_destage_next(c, 1, NULL, NULL, &r, buf), 0);
	wcache_destage_done(c, &r, 1);
	cr_expect_eq(wcache_used(c), 1);
	cr_assert_eq(wcache_destage_next(c, 1, NULL, NULL, &r, buf), 1);
	cr_expect_eq(r.off, 3 * 192 * K + 16 * K);
	cr_expect_eq(r.len, 4 * K);
	wcache_destage_done(c, &r, 1);
	cr_expect_eq(wcache_used(c), 0);
	cr_expect_eq(wcache_destage_next(c, 1, NULL, NULL, &r, buf), 0);
	free(w);
	free(buf);
	wcache_free(c);
}

Test(wcache, rewritten_while_destaged_stays_dirty)
{
	struct wcache *c = mk(M, 0);
	uint8_t *w = fill(8 * K, 5), *w2 = fill(8 * K, 77), *buf = malloc(192 * K), got[8 * K];
	struct wcache_run r;

	cr_assert_eq(wcache_write(c, 0, 8 * K, w), 0);
	cr_assert_eq(wcache_destage_next(c, 1, NULL, NULL, &r, buf), 1);
	cr_assert_eq(wcache_write(c, 4 * K, 4 * K, w2), 0); /* the second page, again */
	wcache_destage_done(c, &r, 1);
	/* the first page is clean, the second holds the newer bytes */
	cr_expect(!wcache_overlaps(c, 0, 4 * K));
	cr_expect_eq(wcache_read(c, 4 * K, 4 * K, got), 1);
	cr_expect_eq(memcmp(got, w2, 4 * K), 0);
	/* a failed destage leaves everything dirty */
	cr_assert_eq(wcache_destage_next(c, 1, NULL, NULL, &r, buf), 1);
	wcache_destage_done(c, &r, 0);
	cr_expect(wcache_overlaps(c, 4 * K, 4 * K));
	/* a write around the cache forgets the sectors it covers */
	wcache_forget(c, 4 * K, 1024);
	cr_expect(!wcache_overlaps(c, 4 * K, 1024));
	cr_expect(wcache_overlaps(c, 5 * K, 3 * K));
	free(w);
	free(w2);
	free(buf);
	wcache_free(c);
}
