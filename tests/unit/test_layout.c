/* Unit tests of the virtual array mappings (replay/array/layout*.c): member and
 * member offset of every part, chunk splits, mirror balancing. */
#include <criterion/criterion.h>
#include <errno.h>

#include "bpt.h"
#include "../../replay/array/layout.h"

#define K 1024ull

static struct layout mk(enum layout_kind kind, unsigned n, uint64_t chunk, uint64_t size)
{
	struct layout l = { .kind = kind, .nmembers = n, .chunk = chunk };

	for (unsigned i = 0; i < n; i++)
		l.member_size[i] = size;
	cr_assert_eq(layout_init(&l), 0);
	return l;
}

static void part_is(const struct layout_part *p, unsigned m, uint64_t off,
		    uint64_t len, uint64_t buf_off)
{
	cr_expect_eq(p->member, m, "member %u, want %u", p->member, m);
	cr_expect_eq(p->offset, off, "offset %llu, want %llu",
		     (unsigned long long)p->offset, (unsigned long long)off);
	cr_expect_eq(p->len, len, "len %llu, want %llu", (unsigned long long)p->len,
		     (unsigned long long)len);
	cr_expect_eq(p->buf_off, buf_off);
}

static void done_all(struct layout *l, struct layout_part *p, int n)
{
	for (int i = 0; i < n; i++)
		layout_part_done(l, &p[i]);
}

Test(layout, init_rules)
{
	struct layout l = { .kind = LAYOUT_RAID0, .nmembers = 2, .chunk = 1000,
			    .member_size = { 1 << 20, 1 << 20 } };

	cr_expect_eq(layout_init(&l), -EINVAL, "chunk not a multiple of 512");
	l.chunk = 0;
	cr_expect_eq(layout_init(&l), -EINVAL);
	l.chunk = 2 << 20;
	cr_expect_eq(layout_init(&l), -ENOSPC, "members smaller than a chunk");
	l.kind = LAYOUT_RAID1;
	l.nmembers = 1;
	cr_expect_eq(layout_init(&l), -EINVAL, "raid1 of one");
	l.kind = LAYOUT_SINGLE;
	l.nmembers = 2;
	cr_expect_eq(layout_init(&l), -EINVAL);
}

Test(layout, capacities)
{
	struct layout l = { .kind = LAYOUT_RAID0, .nmembers = 3, .chunk = 64 * K,
			    .member_size = { 1000 * K, 2000 * K, 300 * K } };

	cr_assert_eq(layout_init(&l), 0);
	cr_expect_eq(l.capacity, 3 * 4 * 64 * K, "smallest member, whole chunks");
	l.kind = LAYOUT_RAID1;
	cr_assert_eq(layout_init(&l), 0);
	cr_expect_eq(l.capacity, 300 * K);
	l.kind = LAYOUT_LINEAR;
	cr_assert_eq(layout_init(&l), 0);
	cr_expect_eq(l.capacity, 3300 * K);
	l.kind = LAYOUT_RAID10;
	cr_assert_eq(layout_init(&l), 0);
	cr_expect_eq(l.capacity, 12 / 2 * 64 * K, "half of the slots");
}

Test(layout, single_identity)
{
	struct layout l = mk(LAYOUT_SINGLE, 1, 0, 1 << 20);
	struct layout_part p[4];

	cr_assert_eq(layout_map(&l, BPT_OP_WRITE, 8192, 4096, p, 4), 1);
	part_is(&p[0], 0, 8192, 4096, 0);
	cr_expect_eq(layout_map(&l, BPT_OP_READ, (1 << 20) - 512, 1024, p, 4), -ERANGE);
	cr_expect_eq(layout_map(&l, BPT_OP_READ, (1 << 20) - 512, 512, p, 4), 1);
}

Test(layout, raid0_chunks)
{
	struct layout l = mk(LAYOUT_RAID0, 2, 64 * K, 1 << 20);
	struct layout_part p[8];

	/* inside chunk 0 */
	cr_assert_eq(layout_map(&l, BPT_OP_READ, 4 * K, 4 * K, p, 8), 1);
	part_is(&p[0], 0, 4 * K, 4 * K, 0);
	/* chunk 1 → member 1 row 0; chunk 2 → member 0 row 1; chunk 3 → 1, row 1 */
	cr_assert_eq(layout_map(&l, BPT_OP_READ, 64 * K, 4 * K, p, 8), 1);
	part_is(&p[0], 1, 0, 4 * K, 0);
	cr_assert_eq(layout_map(&l, BPT_OP_READ, 128 * K + 512, 512, p, 8), 1);
	part_is(&p[0], 0, 64 * K + 512, 512, 0);
	cr_assert_eq(layout_map(&l, BPT_OP_WRITE, 192 * K, 8 * K, p, 8), 1);
	part_is(&p[0], 1, 64 * K, 8 * K, 0);
	/* across a boundary: 60k..68k splits 4k + 4k */
	cr_assert_eq(layout_map(&l, BPT_OP_WRITE, 60 * K, 8 * K, p, 8), 2);
	part_is(&p[0], 0, 60 * K, 4 * K, 0);
	part_is(&p[1], 1, 0, 4 * K, 4 * K);
	/* 200k from 32k: 32k on m0, 64k on m1, 64k on m0 (row 1), 40k on m1 (row 1) */
	cr_assert_eq(layout_map(&l, BPT_OP_READ, 32 * K, 200 * K, p, 8), 4);
	part_is(&p[0], 0, 32 * K, 32 * K, 0);
	part_is(&p[1], 1, 0, 64 * K, 32 * K);
	part_is(&p[2], 0, 64 * K, 64 * K, 96 * K);
	part_is(&p[3], 1, 64 * K, 40 * K, 160 * K);
	cr_expect_eq(layout_map(&l, BPT_OP_READ, 32 * K, 200 * K, p, 3), -E2BIG);
	cr_expect_leq(4u, layout_max_parts(&l, 200 * K));
}

Test(layout, raid0_three_members_every_chunk)
{
	struct layout l = mk(LAYOUT_RAID0, 3, 16 * K, 160 * K);
	struct layout_part p[2];

	for (uint64_t k = 0; k < 30; k++) {
		cr_assert_eq(layout_map(&l, BPT_OP_READ, k * 16 * K + 1024, 2048, p, 2), 1);
		part_is(&p[0], (unsigned)(k % 3), (k / 3) * 16 * K + 1024, 2048, 0);
	}
	cr_expect_eq(layout_map(&l, BPT_OP_READ, 30 * 16 * K, 512, p, 2), -ERANGE);
}

Test(layout, flush_goes_everywhere)
{
	struct layout l = mk(LAYOUT_RAID0, 3, 64 * K, 1 << 20);
	struct layout_part p[4];

	cr_assert_eq(layout_map(&l, BPT_OP_FLUSH, 0, 0, p, 4), 3);
	for (unsigned i = 0; i < 3; i++)
		part_is(&p[i], i, 0, 0, 0);
}

Test(layout, raid1_writes_to_all_reads_balanced)
{
	struct layout l = mk(LAYOUT_RAID1, 2, 0, 1 << 20);
	struct layout_part p[4], a, b, c;

	cr_assert_eq(layout_map(&l, BPT_OP_WRITE, 8 * K, 4 * K, p, 4), 2);
	part_is(&p[0], 0, 8 * K, 4 * K, 0);
	part_is(&p[1], 1, 8 * K, 4 * K, 0);
	done_all(&l, p, 2);
	/* both idle, both last at 12k: tie → nearest, then lowest index */
	cr_assert_eq(layout_map(&l, BPT_OP_READ, 100 * K, 4 * K, &a, 1), 1);
	part_is(&a, 0, 100 * K, 4 * K, 0);
	/* member 0 busy: the next read goes to member 1 */
	cr_assert_eq(layout_map(&l, BPT_OP_READ, 200 * K, 4 * K, &b, 1), 1);
	part_is(&b, 1, 200 * K, 4 * K, 0);
	/* both have one outstanding: nearest last position wins (m1 ended at 204k) */
	cr_assert_eq(layout_map(&l, BPT_OP_READ, 208 * K, 4 * K, &c, 1), 1);
	cr_expect_eq(c.member, 1);
	layout_part_done(&l, &a);
	/* m0 has 0 outstanding now, m1 has 2: m0 although farther */
	cr_assert_eq(layout_map(&l, BPT_OP_READ, 900 * K, 4 * K, &a, 1), 1);
	cr_expect_eq(a.member, 0);
	cr_expect_eq(l.outstanding[0], 1);
	cr_expect_eq(l.outstanding[1], 2);
	layout_part_done(&l, &a);
	layout_part_done(&l, &b);
	layout_part_done(&l, &c);
	cr_expect_eq(l.outstanding[0] + l.outstanding[1], 0);
}

Test(layout, raid1_sequential_reads_stay_on_one_member)
{
	struct layout l = mk(LAYOUT_RAID1, 3, 0, 1 << 20);
	struct layout_part a, b;

	cr_assert_eq(layout_map(&l, BPT_OP_READ, 500 * K, 4 * K, &a, 1), 1);
	layout_part_done(&l, &a);
	for (int i = 1; i < 10; i++) {
		cr_assert_eq(layout_map(&l, BPT_OP_READ, 500 * K + i * 4 * K, 4 * K, &b, 1), 1);
		cr_expect_eq(b.member, a.member, "sequential stream moved to member %u", b.member);
		layout_part_done(&l, &b);
	}
}

Test(layout, raid10_near2)
{
	struct layout l = mk(LAYOUT_RAID10, 4, 64 * K, 1 << 20);
	struct layout_part p[8];

	/* chunk 0: members 0,1 row 0; chunk 1: 2,3 row 0; chunk 2: 0,1 row 1 */
	cr_assert_eq(layout_map(&l, BPT_OP_WRITE, 4 * K, 4 * K, p, 8), 2);
	part_is(&p[0], 0, 4 * K, 4 * K, 0);
	part_is(&p[1], 1, 4 * K, 4 * K, 0);
	done_all(&l, p, 2);
	cr_assert_eq(layout_map(&l, BPT_OP_WRITE, 64 * K, 4 * K, p, 8), 2);
	part_is(&p[0], 2, 0, 4 * K, 0);
	part_is(&p[1], 3, 0, 4 * K, 0);
	done_all(&l, p, 2);
	cr_assert_eq(layout_map(&l, BPT_OP_WRITE, 128 * K, 4 * K, p, 8), 2);
	part_is(&p[0], 0, 64 * K, 4 * K, 0);
	part_is(&p[1], 1, 64 * K, 4 * K, 0);
	done_all(&l, p, 2);
	/* a write across chunks 0/1 becomes 4 parts */
	cr_assert_eq(layout_map(&l, BPT_OP_WRITE, 60 * K, 8 * K, p, 8), 4);
	part_is(&p[0], 0, 60 * K, 4 * K, 0);
	part_is(&p[1], 1, 60 * K, 4 * K, 0);
	part_is(&p[2], 2, 0, 4 * K, 4 * K);
	part_is(&p[3], 3, 0, 4 * K, 4 * K);
	done_all(&l, p, 4);
	/* reads pick one copy; a busy copy sends the next read to its twin */
	cr_assert_eq(layout_map(&l, BPT_OP_READ, 0, 4 * K, p, 8), 1);
	cr_assert_eq(layout_map(&l, BPT_OP_READ, 8 * K, 4 * K, p + 1, 7), 1);
	cr_expect_neq(p[0].member, p[1].member);
	cr_expect(p[0].member <= 1 && p[1].member <= 1);
	cr_expect_eq(p[1].offset, 8 * K);
	done_all(&l, p, 2);
	/* a read across chunks: one part per chunk, copies of the right chunk */
	cr_assert_eq(layout_map(&l, BPT_OP_READ, 60 * K, 8 * K, p, 8), 2);
	cr_expect(p[0].member <= 1 && p[0].offset == 60 * K && p[0].len == 4 * K);
	cr_expect(p[1].member >= 2 && p[1].offset == 0 && p[1].buf_off == 4 * K);
	done_all(&l, p, 2);
	for (unsigned i = 0; i < 4; i++)
		cr_expect_eq(l.outstanding[i], 0);
}

Test(layout, raid10_odd_members)
{
	struct layout l = mk(LAYOUT_RAID10, 3, 4 * K, 64 * K);
	struct layout_part p[4];

	/* chunk 1 = slots 2,3: member 2 row 0 and member 0 row 1 */
	cr_assert_eq(layout_map(&l, BPT_OP_WRITE, 4 * K, 4 * K, p, 4), 2);
	part_is(&p[0], 2, 0, 4 * K, 0);
	part_is(&p[1], 0, 4 * K, 4 * K, 0);
}

Test(layout, linear_concat)
{
	struct layout l = { .kind = LAYOUT_LINEAR, .nmembers = 3,
			    .member_size = { 100 * K, 50 * K, 200 * K } };
	struct layout_part p[4];

	cr_assert_eq(layout_init(&l), 0);
	cr_assert_eq(layout_map(&l, BPT_OP_READ, 0, 4 * K, p, 4), 1);
	part_is(&p[0], 0, 0, 4 * K, 0);
	cr_assert_eq(layout_map(&l, BPT_OP_READ, 100 * K, 4 * K, p, 4), 1);
	part_is(&p[0], 1, 0, 4 * K, 0);
	cr_assert_eq(layout_map(&l, BPT_OP_READ, 160 * K, 4 * K, p, 4), 1);
	part_is(&p[0], 2, 10 * K, 4 * K, 0);
	/* spanning all three */
	cr_assert_eq(layout_map(&l, BPT_OP_WRITE, 96 * K, 60 * K, p, 4), 3);
	part_is(&p[0], 0, 96 * K, 4 * K, 0);
	part_is(&p[1], 1, 0, 50 * K, 4 * K);
	part_is(&p[2], 2, 0, 6 * K, 54 * K);
	cr_assert_eq(layout_map(&l, BPT_OP_READ, 346 * K, 4 * K, p, 4), 1);
	part_is(&p[0], 2, 196 * K, 4 * K, 0);
	cr_expect_eq(layout_map(&l, BPT_OP_READ, 347 * K, 4 * K, p, 4), -ERANGE);
}

/* Per-member union of the per-chunk parts of [off, off+len) on l. */
static void union_by_member(struct layout *l, unsigned op, uint64_t off, uint64_t len,
			    uint64_t *lo, uint64_t *hi, uint64_t *bytes)
{
	struct layout_part p[64];
	int n = op == BPT_OP_WRITE && l->kind == LAYOUT_RAID10 ?
			layout_raid10_map(l, BPT_OP_WRITE, off, len, p, 64) :
			layout_raid0_map(l, off, len, p, 64);

	cr_assert_gt(n, 0);
	for (unsigned m = 0; m < l->nmembers; m++) {
		lo[m] = UINT64_MAX;
		hi[m] = bytes[m] = 0;
	}
	for (int i = 0; i < n; i++) {
		unsigned m = p[i].member;

		if (p[i].offset < lo[m])
			lo[m] = p[i].offset;
		if (p[i].offset + p[i].len > hi[m])
			hi[m] = p[i].offset + p[i].len;
		bytes[m] += p[i].len;
	}
}

Test(layout, discards_are_one_range_per_member)
{
	uint64_t offs[] = { 0, 4 * K, 60 * K, 64 * K, 100 * K, 300 * K };
	uint64_t lens[] = { 4 * K, 64 * K, 68 * K, 128 * K, 200 * K, 512 * K, 1000 * K };
	enum layout_kind kinds[] = { LAYOUT_RAID0, LAYOUT_RAID10 };
	unsigned nmem[] = { 2, 3, 4 };

	for (unsigned a = 0; a < 2; a++)
		for (unsigned b = 0; b < 3; b++) {
			struct layout l = mk(kinds[a], nmem[b], 64 * K, 8 << 20);

			for (unsigned i = 0; i < 6; i++)
				for (unsigned j = 0; j < 7; j++) {
					struct layout_part p[LAYOUT_MAX_MEMBERS];
					uint64_t lo[8], hi[8], bytes[8];
					int n = layout_map(&l, BPT_OP_DISCARD, offs[i], lens[j], p,
							   LAYOUT_MAX_MEMBERS);

					cr_assert_gt(n, 0);
					cr_assert_leq(n, (int)nmem[b]);
					done_all(&l, p, n);
					union_by_member(&l, BPT_OP_WRITE, offs[i], lens[j], lo, hi, bytes);
					for (int q = 0; q < n; q++) {
						unsigned m = p[q].member;

						cr_assert_eq(p[q].offset, lo[m], "%s n=%u off %llu len %llu member %u",
							     layout_kind_name(kinds[a]), nmem[b],
							     (unsigned long long)offs[i],
							     (unsigned long long)lens[j], m);
						cr_assert_eq(p[q].offset + p[q].len, hi[m]);
						cr_assert_eq(p[q].len, bytes[m], "contiguous on the member");
					}
					for (unsigned m = 0, seen = 0; m < nmem[b]; m++, seen = 0) {
						for (int q = 0; q < n; q++)
							seen += p[q].member == m;
						cr_assert_eq(seen, bytes[m] ? 1u : 0u);
					}
				}
		}
	/* a 1 GiB discard on 64 KiB chunks: 4 parts, not 16384 */
	struct layout big = mk(LAYOUT_RAID0, 4, 64 * K, 1ull << 30);
	struct layout_part p[4];
	cr_expect_eq(layout_map(&big, BPT_OP_DISCARD, 0, 1ull << 30, p, 4), 4);
	cr_expect_eq(p[3].len, 256ull << 20);
}
