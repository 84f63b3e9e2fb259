/* Unit tests of capture/ringread.c: the events ring buffer read in place,
 * over a memory layout like the kernel's (consumer page; producer page,
 * then the data twice in a row). No root needed. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../capture/capture.h"

#define PAGE 4096
#define SIZE 4096 /* data bytes, a power of two */
#define BUSY (1u << 31)
#define DISCARD (1u << 30)

static uint64_t cons_page[PAGE / 8];
static uint8_t prod_area[PAGE + 2 * SIZE];
static struct evring r;

static void setup(void)
{
	memset(cons_page, 0, sizeof(cons_page));
	memset(prod_area, 0, sizeof(prod_area));
	r = (struct evring){ .cons = cons_page, .prod = prod_area,
			     .data = prod_area + PAGE, .size = SIZE, .page = PAGE };
}

/* Write one record (header word `word`, payload of `len` bytes of `fill`)
 * at position `pos`, in both copies of the data; the next position. */
static uint64_t put(uint64_t pos, uint32_t word, uint32_t len, uint8_t fill)
{
	uint8_t rec[8 + 256];
	uint32_t total = (len + 8 + 7) & ~7u;

	cr_assert_leq(len, 256);
	memset(rec, 0, sizeof(rec));
	memcpy(rec, &word, 4);
	memset(rec + 8, fill, len);
	for (uint32_t i = 0; i < total; i++) {
		size_t at = (pos + i) & (SIZE - 1);

		prod_area[PAGE + at] = rec[i];
		prod_area[PAGE + SIZE + at] = rec[i];
	}
	return pos + total;
}

static void publish(uint64_t prod)
{
	memcpy(prod_area, &prod, 8);
}

struct seen {
	int n, fail_at;
	uint32_t size[300];
	uint8_t first[300];
	uint64_t cons_then[300];
};

static int take(void *ctx, void *data, size_t size)
{
	struct seen *s = ctx;

	if (s->n == s->fail_at)
		return -EIO;
	s->size[s->n] = size;
	s->first[s->n] = size ? ((uint8_t *)data)[0] : 0;
	/* every byte of the payload is the record's fill: read as one piece */
	for (size_t i = 0; i < size; i++)
		cr_assert_eq(((uint8_t *)data)[i], s->first[s->n]);
	s->cons_then[s->n] = cons_page[0];
	s->n++;
	return 0;
}

TestSuite(capture_ringread, .init = setup);

Test(capture_ringread, records_in_order_discarded_left_out)
{
	struct seen s = { .fail_at = -1 };
	uint64_t p = 0;

	p = put(p, 80, 80, 0xa1);
	p = put(p, 192 | DISCARD, 192, 0xb2);
	p = put(p, 5, 5, 0xc3);
	publish(p);
	cr_assert_eq(evring_consume(&r, take, &s), 2);
	cr_assert_eq(s.n, 2);
	cr_assert_eq(s.size[0], 80);
	cr_assert_eq(s.first[0], 0xa1);
	cr_assert_eq(s.size[1], 5);
	cr_assert_eq(s.first[1], 0xc3);
	cr_assert_eq(cons_page[0], p, "everything consumed");
	cr_assert_eq(evring_consume(&r, take, &s), 0, "nothing new");
}

Test(capture_ringread, stops_at_a_busy_record)
{
	struct seen s = { .fail_at = -1 };
	uint64_t a, b;

	a = put(0, 16, 16, 1);
	b = put(a, BUSY | 16, 16, 2);
	publish(put(b, 16, 16, 3));
	cr_assert_eq(evring_consume(&r, take, &s), 1);
	cr_assert_eq(cons_page[0], a, "the busy record is not passed");
	/* committed now: it and the next are read */
	put(a, 16, 16, 2);
	cr_assert_eq(evring_consume(&r, take, &s), 2);
	cr_assert_eq(s.first[1], 2);
	cr_assert_eq(s.first[2], 3);
}

Test(capture_ringread, a_record_across_the_end_reads_whole)
{
	struct seen s = { .fail_at = -1 };
	uint64_t start = 3 * SIZE - 40, p;

	cons_page[0] = start;
	p = put(start, 200, 200, 0x5e);
	publish(p);
	cr_assert_eq(evring_consume(&r, take, &s), 1);
	cr_assert_eq(s.size[0], 200);
	cr_assert_eq(cons_page[0], p);
}

Test(capture_ringread, an_error_stops_after_its_record)
{
	struct seen s = { .fail_at = 1 };
	uint64_t a, b;

	a = put(0, 8, 8, 1);
	b = put(a, 8, 8, 2);
	publish(put(b, 8, 8, 3));
	cr_assert_eq(evring_consume(&r, take, &s), -EIO);
	cr_assert_eq(s.n, 1);
	cr_assert_eq(cons_page[0], b, "the failed record is consumed, the next is not");
}

Test(capture_ringread, position_published_per_batch)
{
	struct seen s = { .fail_at = -1 };
	uint64_t pos[201], p = 0;

	for (int i = 0; i < 200; i++) {
		pos[i] = p;
		p = put(p, 8, 8, (uint8_t)(i + 1));
	}
	pos[200] = p;
	publish(p);
	cr_assert_eq(evring_consume(&r, take, &s), 200);
	/* while record k is handled, the consumer position is that after the
	 * last whole batch of 64 */
	for (int k = 0; k < 200; k++)
		cr_assert_eq(s.cons_then[k], pos[(k / 64) * 64], "record %d", k);
	cr_assert_eq(cons_page[0], p);
}

Test(capture_ringread, open_refuses_a_size_not_a_power_of_two)
{
	struct evring e;

	cr_assert_eq(evring_open(&e, -1, 3000), -EINVAL);
	cr_assert_eq(evring_open(&e, -1, 0), -EINVAL);
	evring_close(&e); /* nothing mapped: nothing to undo */
}
