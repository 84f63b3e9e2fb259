/* Unit tests of raid5 and raid6 (replay/array/layout_raid5*.c, raid6_gf.c): the
 * GF(2^8) arithmetic, md's row geometry, the parts of partial, full-row
 * and degraded requests, and data written through the scheduler onto
 * files read back through every degraded variant of the array. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpt.h"
#include "../../replay/array/layout.h"
#include "../../replay/array/raid6_gf.h"
#include "../../replay/sched.h"

#define K 1024ull

Test(raid, gf_tables_and_arithmetic)
{
	unsigned x = 1;

	for (unsigned i = 0; i < 255; i++) {
		cr_assert_eq(raid6_gf_exp[i], x, "2^%u", i);
		cr_assert_eq(raid6_gf_exp[i + 255], x);
		cr_assert_eq(raid6_gf_log[x], i);
		x <<= 1;
		if (x & 0x100)
			x ^= 0x11d;
	}
	/* a few products by hand: 2*0x80 = 0x1d, 3*7 = 9 (carry-less, no reduction) */
	cr_assert_eq(raid6_gf_mul(2, 0x80), 0x1d);
	cr_assert_eq(raid6_gf_mul(3, 7), 9);
	for (unsigned a = 1; a < 256; a++)
		for (unsigned b = 1; b < 256; b += 7)
			cr_assert_eq(raid6_gf_div(raid6_gf_mul((uint8_t)a, (uint8_t)b), (uint8_t)b), a);
}

/* slow Q: sum of g^z D_z with bitwise multiplication */
static uint8_t slow_mul(uint8_t a, uint8_t b)
{
	uint8_t r = 0;

	while (b) {
		if (b & 1)
			r ^= a;
		a = (uint8_t)((a << 1) ^ (a & 0x80 ? 0x1d : 0));
		b >>= 1;
	}
	return r;
}

Test(raid, syndrome_matches_definition)
{
	enum { D = 7, LEN = 37 }; /* odd length: the byte tail too */
	uint8_t data[D][LEN], p[LEN], q[LEN];
	const uint8_t *ptr[D];

	srand(3);
	for (unsigned z = 0; z < D; z++) {
		for (unsigned i = 0; i < LEN; i++)
			data[z][i] = (uint8_t)rand();
		ptr[z] = data[z];
	}
	raid6_syndrome(D, ptr, p, q, LEN);
	for (unsigned i = 0; i < LEN; i++) {
		uint8_t wp = 0, wq = 0, g = 1;

		for (unsigned z = 0; z < D; z++) {
			wp ^= data[z][i];
			wq ^= slow_mul(g, data[z][i]);
			g = slow_mul(g, 2);
		}
		cr_assert_eq(p[i], wp);
		cr_assert_eq(q[i], wq, "byte %u", i);
	}
}

static struct layout mk(enum layout_kind kind, enum raid_algo algo, unsigned n,
			uint64_t chunk, uint32_t missing)
{
	struct layout l = { .kind = kind, .nmembers = n, .chunk = chunk, .algo = algo,
			    .missing = missing };

	for (unsigned i = 0; i < n; i++)
		l.member_size[i] = 1024 * K;
	cr_assert_eq(layout_init(&l), 0);
	return l;
}

Test(raid, init_rules)
{
	struct layout l = { .kind = LAYOUT_RAID5, .nmembers = 2, .chunk = 64 * K,
			    .member_size = { 1 << 20, 1 << 20 } };

	cr_expect_eq(layout_init(&l), -EINVAL, "raid5 of 2");
	l.nmembers = 3;
	l.member_size[2] = 1 << 20;
	cr_expect_eq(layout_init(&l), 0);
	cr_expect_eq(l.capacity, 2ull << 20);
	l.chunk = 48 * K;
	cr_expect_eq(layout_init(&l), -EINVAL, "not a power of two");
	l.chunk = 2 * K;
	cr_expect_eq(layout_init(&l), -EINVAL, "below a page");
	l.chunk = 64 * K;
	l.missing = 3;
	cr_expect_eq(layout_init(&l), -EINVAL, "two missing in raid5");
	l.missing = 8;
	cr_expect_eq(layout_init(&l), -EINVAL, "member 3 of 3");
	l.kind = LAYOUT_RAID6;
	l.missing = 0;
	cr_expect_eq(layout_init(&l), -EINVAL, "raid6 of 3");
}

Test(raid, md_geometry)
{
	struct layout l = mk(LAYOUT_RAID5, RAID_LEFT_SYMMETRIC, 4, 64 * K, 0);
	/* md's left-symmetric raid5 of 4 (man md): P on 3, 2, 1, 0; data
	 * starts after P and wraps */
	static const unsigned ls[4][4] = { { 3, 0, 1, 2 }, { 2, 3, 0, 1 },
					   { 1, 2, 3, 0 }, { 0, 1, 2, 3 } };
	struct raid_row g;

	for (unsigned r = 0; r < 4; r++) {
		layout_raid_row(&l, r, &g);
		cr_expect_eq(g.pd, ls[r][0], "row %u", r);
		for (unsigned i = 0; i < 3; i++)
			cr_expect_eq(g.member[i], ls[r][i + 1], "row %u data %u", r, i);
	}
	l = mk(LAYOUT_RAID5, RAID_RIGHT_ASYMMETRIC, 4, 64 * K, 0);
	layout_raid_row(&l, 1, &g);
	cr_expect(g.pd == 1 && g.member[0] == 0 && g.member[1] == 2 && g.member[2] == 3);
	/* raid6 left-asymmetric of 5, row 2: D D P Q D, P on 2, Q on 3; Q's
	 * slots count from the member after Q: member 4 is slot 0 */
	l = mk(LAYOUT_RAID6, RAID_LEFT_ASYMMETRIC, 5, 64 * K, 0);
	layout_raid_row(&l, 2, &g);
	cr_expect(g.pd == 2 && g.qd == 3);
	cr_expect(g.member[0] == 0 && g.member[1] == 1 && g.member[2] == 4);
	cr_expect(g.slot[0] == 1 && g.slot[1] == 2 && g.slot[2] == 0);
	layout_raid_row(&l, 0, &g); /* Q D D D P */
	cr_expect(g.pd == 4 && g.qd == 0 && g.member[0] == 1 && g.slot[0] == 0);
	l = mk(LAYOUT_RAID6, RAID_LEFT_SYMMETRIC, 5, 64 * K, 0);
	layout_raid_row(&l, 1, &g);
	cr_expect(g.pd == 3 && g.qd == 4 && g.member[0] == 0 && g.slot[0] == 0);
}

struct want {
	unsigned member, phase, read, internal;
	uint64_t off, len;
};

static void parts_are(struct layout *l, unsigned op, uint64_t off, uint64_t len,
		      const struct want *w, int nw)
{
	struct layout_part p[64];
	int n = layout_map(l, op, off, len, p, 64);

	cr_assert_eq(n, nw, "%d parts, want %d", n, nw);
	for (int i = 0; i < n; i++) {
		int found = 0;

		for (int j = 0; j < nw && !found; j++)
			found = p[i].member == w[j].member && p[i].phase == w[j].phase &&
				p[i].read == w[j].read && p[i].internal == w[j].internal &&
				p[i].offset == w[j].off && p[i].len == w[j].len;
		cr_expect(found, "part %d: member %u phase %u read %u internal %u %llu+%llu", i,
			  p[i].member, p[i].phase, p[i].read, p[i].internal,
			  (unsigned long long)p[i].offset, (unsigned long long)p[i].len);
		layout_part_done(l, &p[i]);
	}
}

Test(raid, small_writes_rmw_or_rcw)
{
	struct layout l4 = mk(LAYOUT_RAID5, RAID_LEFT_SYMMETRIC, 4, 64 * K, 0);
	struct layout l5 = mk(LAYOUT_RAID5, RAID_LEFT_SYMMETRIC, 5, 64 * K, 0);
	struct layout l6 = mk(LAYOUT_RAID6, RAID_LEFT_SYMMETRIC, 6, 64 * K, 0);
	/* 4 members: rmw reads 2 (data, P), rcw 2 (the other data): a tie
	 * goes to rcw, as md's default */
	const struct want w4[] = {
		{ 1, 0, 1, 1, 4 * K, 4 * K }, { 2, 0, 1, 1, 4 * K, 4 * K },
		{ 0, 1, 0, 0, 4 * K, 4 * K }, { 3, 1, 0, 1, 4 * K, 4 * K },
	};
	/* 5 members: rmw 2 < rcw 3 */
	const struct want w5[] = {
		{ 0, 0, 1, 1, 4 * K, 4 * K }, { 4, 0, 1, 1, 4 * K, 4 * K },
		{ 0, 1, 0, 0, 4 * K, 4 * K }, { 4, 1, 0, 1, 4 * K, 4 * K },
	};
	/* raid6 of 6, row 0: P 5, Q 0, data 1..4; rmw 3 (D, P, Q) = rcw 3 */
	const struct want w6[] = {
		{ 2, 0, 1, 1, 0, 8 * K }, { 3, 0, 1, 1, 0, 8 * K }, { 4, 0, 1, 1, 0, 8 * K },
		{ 1, 1, 0, 0, 0, 8 * K }, { 5, 1, 0, 1, 0, 8 * K }, { 0, 1, 0, 1, 0, 8 * K },
	};

	parts_are(&l4, BPT_OP_WRITE, 4 * K, 4 * K, w4, 4);
	parts_are(&l5, BPT_OP_WRITE, 4 * K, 4 * K, w5, 4);
	parts_are(&l6, BPT_OP_WRITE, 0, 8 * K, w6, 6);
}

Test(raid, full_row_and_straddling)
{
	struct layout l = mk(LAYOUT_RAID5, RAID_LEFT_SYMMETRIC, 4, 64 * K, 0);
	/* row 1: P on 2, data on 3, 0, 1: no reads at all */
	const struct want full[] = {
		{ 3, 1, 0, 0, 64 * K, 64 * K }, { 0, 1, 0, 0, 64 * K, 64 * K },
		{ 1, 1, 0, 0, 64 * K, 64 * K }, { 2, 1, 0, 1, 64 * K, 64 * K },
	};
	/* 60k..68k: the end of data 0 (member 0) and the start of data 1
	 * (member 1): two column ranges, [0,4k) and [60k,64k), each rcw */
	const struct want cross[] = {
		{ 1, 0, 1, 1, 60 * K, 4 * K }, { 2, 0, 1, 1, 60 * K, 4 * K },
		{ 0, 1, 0, 0, 60 * K, 4 * K }, { 3, 1, 0, 1, 60 * K, 4 * K },
		{ 0, 0, 1, 1, 0, 4 * K }, { 2, 0, 1, 1, 0, 4 * K },
		{ 1, 1, 0, 0, 0, 4 * K }, { 3, 1, 0, 1, 0, 4 * K },
	};
	/* a read of a whole row: data members only, one part each */
	const struct want rd[] = {
		{ 0, 0, 1, 0, 0, 64 * K }, { 1, 0, 1, 0, 0, 64 * K }, { 2, 0, 1, 0, 0, 64 * K },
	};

	parts_are(&l, BPT_OP_WRITE, 192 * K, 192 * K, full, 4);
	parts_are(&l, BPT_OP_WRITE, 60 * K, 8 * K, cross, 8);
	parts_are(&l, BPT_OP_READ, 0, 192 * K, rd, 3);
	cr_expect_eq(layout_map(&l, BPT_OP_DISCARD, 0, 4096, (struct layout_part[64]){ 0 }, 64),
		     -EOPNOTSUPP);
}

Test(raid, degraded)
{
	struct layout l = mk(LAYOUT_RAID5, RAID_LEFT_SYMMETRIC, 4, 64 * K, 1u << 0);
	/* reading member 0's chunk: the other data and P, into scratch */
	const struct want rd[] = {
		{ 1, 0, 1, 1, 0, 4 * K }, { 2, 0, 1, 1, 0, 4 * K }, { 3, 0, 1, 1, 0, 4 * K },
	};
	/* writing it: rcw (rmw would need its old data), member 0 not written */
	const struct want wr[] = {
		{ 1, 0, 1, 1, 0, 4 * K }, { 2, 0, 1, 1, 0, 4 * K }, { 3, 1, 0, 1, 0, 4 * K },
	};
	/* a flush skips the missing member */
	struct layout_part p[8];

	parts_are(&l, BPT_OP_READ, 0, 4 * K, rd, 3);
	parts_are(&l, BPT_OP_WRITE, 0, 4 * K, wr, 3);
	cr_expect_eq(layout_map(&l, BPT_OP_FLUSH, 0, 0, p, 8), 3);
	cr_expect_gt(layout_scratch_size(&l, BPT_OP_READ, 0, 4 * K), 0);
	l.missing = 1u << 3; /* P missing: a read of member 0 is direct */
	cr_expect_eq(layout_scratch_size(&l, BPT_OP_READ, 0, 4 * K), 0);
}

/* Through the scheduler onto files: random writes on the whole array,
 * then every written byte read back through each degraded variant. */
#define NM 5
#define MSZ (2u << 20)

static uint8_t *shadow;  /* what the array should hold */
static uint8_t *rbuf;
static int mismatches;

static void pattern(uint8_t *b, uint64_t len)
{
	for (uint64_t i = 0; i < len; i++)
		b[i] = (uint8_t)(i * 131 + 7);
}

static int check_read(void *ctx, const struct rp_result *r)
{
	(void)ctx;
	cr_assert_eq(r->error, 0, "I/O %llu failed: %d", (unsigned long long)r->seq, r->error);
	if (r->io->op == BPT_OP_READ &&
	    memcmp(rbuf, shadow + r->io->offset, r->io->len))
		mismatches++;
	return 0;
}

static void run_on(struct layout *l, const int *fds, struct rp_io *io, unsigned n,
		   unsigned depth, void *wbuf)
{
	static const int blk[NM] = { 0 };
	struct sched_target t = { .layout = l, .fd = fds, .is_blkdev = blk };
	struct sched_config cfg = {
		.timing = TIMING_AFAP, .speed = 1, .depth = depth,
		.ops = &engine_libaio_ops, .targets = &t, .ntargets = 1,
		.read_buf = rbuf, .write_buf = wbuf, .on_result = check_read,
	};
	struct sched_stats st;

	cr_assert_eq(sched_run(&cfg, io, n, &st), 0);
	cr_assert_eq(st.completed, n);
}

static void data_round_trip(enum layout_kind kind)
{
	char path[NM][64];
	int fds[NM];
	unsigned np = kind == LAYOUT_RAID6 ? 2 : 1, nw = 300;
	struct layout l = mk(kind, RAID_LEFT_SYMMETRIC, NM, 16 * K, 0);
	struct rp_io *io = calloc(nw, sizeof(*io));
	void *wbuf = NULL;

	for (unsigned m = 0; m < NM; m++) {
		snprintf(path[m], sizeof(path[m]), "/var/tmp/blkpeak-unit-raid-%d-%u", getpid(), m);
		fds[m] = open(path[m], O_RDWR | O_CREAT | O_TRUNC | O_DIRECT, 0600);
		cr_assert(fds[m] >= 0);
		cr_assert_eq(ftruncate(fds[m], MSZ), 0);
		l.member_size[m] = MSZ;
	}
	cr_assert_eq(layout_init(&l), 0);
	shadow = calloc(1, l.capacity);
	cr_assert_eq(posix_memalign((void **)&rbuf, 4096, 256 * K), 0);
	cr_assert_eq(posix_memalign(&wbuf, 4096, 256 * K), 0);
	pattern(wbuf, 256 * K);
	srand(11);
	for (unsigned i = 0; i < nw; i++) {
		uint32_t len = (uint32_t)(1 + rand() % 24) * 4096;
		uint64_t off = (uint64_t)(rand() % (int)((l.capacity - len) / 4096)) * 4096;

		io[i] = (struct rp_io){ .offset = off, .len = len, .op = BPT_OP_WRITE, .src = i };
		/* the depth-1 replay issues them in this order */
		pattern(shadow + off, len);
	}
	run_on(&l, fds, io, nw, 1, wbuf);
	/* the same trace at depth 8: overlapping rows wait for each other */
	run_on(&l, fds, io, nw, 8, wbuf);
	/* read all of it back: whole, then without each member (each pair
	 * for raid6), 64k at a time at depth 1 so rbuf holds one read */
	unsigned nr = (unsigned)(l.capacity / (64 * K));
	struct rp_io *rd = calloc(nr, sizeof(*rd));

	for (unsigned i = 0; i < nr; i++)
		rd[i] = (struct rp_io){ .offset = i * 64 * K, .len = 64 * K, .op = BPT_OP_READ };
	for (unsigned a = 0; a <= NM; a++)
		for (unsigned b = a; b <= NM; b++) {
			uint32_t miss = (a < NM ? 1u << a : 0) | (b < NM ? 1u << b : 0);

			if ((unsigned)__builtin_popcount(miss) > np || (a == b && a < NM))
				continue;
			l.missing = miss;
			cr_assert_eq(layout_init(&l), 0);
			mismatches = 0;
			run_on(&l, fds, rd, nr, 1, wbuf);
			cr_expect_eq(mismatches, 0, "missing 0x%x: %d reads differ", miss, mismatches);
		}
	for (unsigned m = 0; m < NM; m++) {
		close(fds[m]);
		unlink(path[m]);
	}
	free(shadow);
	free(rbuf);
	free(wbuf);
	free(io);
	free(rd);
}

Test(raid, raid5_data_read_back_degraded) { data_round_trip(LAYOUT_RAID5); }
Test(raid, raid6_data_read_back_degraded) { data_round_trip(LAYOUT_RAID6); }
