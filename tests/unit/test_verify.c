/* Unit tests of replay --verify's matcher (replay/verify/verify_match.c): the
 * replay's I/Os against the kernel's requests on the members — present,
 * missing, misplaced, others' I/O, splits, merges, arrays, mirrors, and
 * the issue error from the kernel's view. */
#include <criterion/criterion.h>

#include "bpt.h"
#include "../../replay/verify/verify.h"

#define K 1024ull
#define US 1000ull

static struct layout mk(enum layout_kind kind, unsigned n, uint64_t chunk)
{
	struct layout l = { .kind = kind, .nmembers = n, .chunk = chunk };

	for (unsigned i = 0; i < n; i++)
		l.member_size[i] = 64 * K * K;
	cr_assert_eq(layout_init(&l), 0);
	return l;
}

static struct verify_set one(const struct layout *l)
{
	struct verify_set s = { .ntargets = 1, .nmembers = l->nmembers };

	s.layout[0] = l;
	return s;
}

/* An I/O due at `due`, submitted 2 µs later, reaped 100 µs after that. */
static struct verify_io io(uint64_t off, uint32_t len, unsigned op, uint64_t due, unsigned mask)
{
	return (struct verify_io){ .offset = off, .len = len, .op = (uint8_t)op,
				   .sched_ns = due, .issue_ns = due + 2 * US,
				   .complete_ns = due + 102 * US, .member_mask = mask,
				   .src = (uint32_t)(due / (1000 * US)) };
}

static struct verify_event ev(unsigned member, uint64_t off, uint32_t len, unsigned op,
			      uint64_t t)
{
	return (struct verify_event){ .member = (uint16_t)member, .sector = off / 512,
				      .bytes = len, .op = (uint8_t)op, .issue_ns = t };
}

Test(verify, all_present_and_issue_error)
{
	struct layout l = mk(LAYOUT_SINGLE, 1, 0);
	struct verify_set s = one(&l);
	struct verify_io ios[3] = {
		io(0, 4096, BPT_OP_READ, 1000 * US, 1),
		io(8192, 4096, BPT_OP_WRITE, 2000 * US, 1),
		io(0, 4096, BPT_OP_READ, 3000 * US, 1), /* same range again */
	};
	/* kernel issue 5, 7 and 9 µs after due; given out of order */
	struct verify_event e[3] = {
		ev(0, 0, 4096, BPT_OP_READ, 3009 * US),
		ev(0, 0, 4096, BPT_OP_READ, 1005 * US),
		ev(0, 8192, 4096, BPT_OP_WRITE, 2007 * US),
	};
	struct verify_result r;

	cr_assert_eq(verify_match(&s, ios, 3, e, 3, 0, 4000 * US, &r), 0);
	cr_expect_eq(r.ios, 3);
	cr_expect_eq(r.present, 3);
	cr_expect_eq(r.missing + r.misplaced + r.extra, 0);
	cr_expect_eq(r.parts, 3);
	cr_expect_eq(r.events, 3);
	cr_expect_eq(r.err_p50, 7 * US);
	cr_expect_eq(r.err_max, 9 * US);
	cr_expect_eq(r.sub_p50, 5 * US);
	/* error grew 4 µs over 2 ms of schedule */
	cr_expect_float_eq(r.drift, 4.0 / 2000.0, 1e-9);
	cr_expect_eq(r.have_missing, 0);
}

/* The deliberately wrong replay: one I/O never reached the device, one
 * went to the wrong offset, and another process did an I/O meanwhile. */
Test(verify, missing_moved_and_extra)
{
	struct layout l = mk(LAYOUT_SINGLE, 1, 0);
	struct verify_set s = one(&l);
	struct verify_io ios[3] = {
		io(0, 4096, BPT_OP_READ, 1000 * US, 1),
		io(64 * K, 16384, BPT_OP_WRITE, 2000 * US, 1),  /* missing */
		io(128 * K, 8192, BPT_OP_READ, 3000 * US, 1),   /* moved */
	};
	struct verify_event e[3] = {
		ev(0, 0, 4096, BPT_OP_READ, 1005 * US),
		ev(0, 512 * K, 8192, BPT_OP_READ, 3005 * US),   /* 128k asked */
		ev(0, 4 * K * K, 65536, BPT_OP_WRITE, 2500 * US), /* someone else */
	};
	struct verify_result r;

	cr_assert_eq(verify_match(&s, ios, 3, e, 3, 0, 4000 * US, &r), 0);
	cr_expect_eq(r.present, 1);
	cr_expect_eq(r.missing, 1);
	cr_expect_eq(r.misplaced, 1);
	cr_expect_eq(r.extra, 1);
	cr_expect_eq(r.extra_bytes, 65536);
	cr_expect_eq(r.have_missing, 1);
	cr_expect_eq(r.first_missing_src, 2);
}

/* The right range with the wrong operation, or outside the I/O's time,
 * is not the I/O. */
Test(verify, wrong_op_or_time_is_not_present)
{
	struct layout l = mk(LAYOUT_SINGLE, 1, 0);
	struct verify_set s = one(&l);
	struct verify_io ios[2] = {
		io(0, 4096, BPT_OP_READ, 1000 * US, 1),
		io(8192, 4096, BPT_OP_READ, 2000 * US, 1),
	};
	struct verify_event e[2] = {
		ev(0, 0, 4096, BPT_OP_WRITE, 1005 * US),
		ev(0, 8192, 4096, BPT_OP_READ, 2500 * US), /* after it was reaped */
	};
	struct verify_result r;

	cr_assert_eq(verify_match(&s, ios, 2, e, 2, 0, 4000 * US, &r), 0);
	cr_expect_eq(r.present, 0);
	cr_expect_eq(r.missing + r.misplaced, 2);
}

/* A device that splits by max_sectors: one part, several requests. */
Test(verify, split_by_the_device)
{
	struct layout l = mk(LAYOUT_SINGLE, 1, 0);
	struct verify_set s = one(&l);
	struct verify_io ios[1] = { io(1 * K * K, 256 * K, BPT_OP_WRITE, 1000 * US, 1) };
	struct verify_event e[3] = {
		ev(0, 1 * K * K, 128 * K, BPT_OP_WRITE, 1006 * US),
		ev(0, 1 * K * K + 128 * K, 64 * K, BPT_OP_WRITE, 1004 * US),
		ev(0, 1 * K * K + 192 * K, 64 * K, BPT_OP_WRITE, 1005 * US),
	};
	struct verify_result r;

	cr_assert_eq(verify_match(&s, ios, 1, e, 3, 0, 2000 * US, &r), 0);
	cr_expect_eq(r.present, 1);
	cr_expect_eq(r.split_parts, 1);
	cr_expect_eq(r.extra, 0);
	cr_expect_eq(r.err_p50, 4 * US); /* the first request the kernel issued */
	/* one piece short: not present */
	cr_assert_eq(verify_match(&s, ios, 1, e, 2, 0, 2000 * US, &r), 0);
	cr_expect_eq(r.present, 0);
}

/* Adjacent I/Os merged into one request; then an overlapping pair in
 * flight together where the greedy choice of an exact request would
 * strand the other I/O. */
Test(verify, merges)
{
	struct layout l = mk(LAYOUT_SINGLE, 1, 0);
	struct verify_set s = one(&l);
	struct verify_io ios[2] = {
		io(0, 4096, BPT_OP_WRITE, 1000 * US, 1),
		io(4096, 4096, BPT_OP_WRITE, 1001 * US, 1),
	};
	struct verify_event e[1] = { ev(0, 0, 8192, BPT_OP_WRITE, 1010 * US) };
	struct verify_result r;

	cr_assert_eq(verify_match(&s, ios, 2, e, 1, 0, 2000 * US, &r), 0);
	cr_expect_eq(r.present, 2);
	cr_expect_eq(r.merged, 1);
	cr_expect_eq(r.events, 1);

	/* A [0,16k) submitted first, B [16k,32k), C [0,16k) later: the kernel
	 * merged A and B; C's own request came after. */
	struct verify_io o[3] = {
		io(0, 16384, BPT_OP_READ, 1000 * US, 1),
		io(16384, 16384, BPT_OP_READ, 1001 * US, 1),
		io(0, 16384, BPT_OP_READ, 1050 * US, 1),
	};
	struct verify_event oe[2] = {
		ev(0, 0, 32768, BPT_OP_READ, 1010 * US),
		ev(0, 0, 16384, BPT_OP_READ, 1060 * US),
	};

	o[0].complete_ns = o[2].complete_ns; /* reaped together, late */
	cr_assert_eq(verify_match(&s, o, 3, oe, 2, 0, 2000 * US, &r), 0);
	cr_expect_eq(r.present, 3);
	cr_expect_eq(r.err_p50, 10 * US);
}

/* raid0: the parts on their members at their member offsets. */
Test(verify, raid0_members)
{
	struct layout l = mk(LAYOUT_RAID0, 2, 64 * K);
	struct verify_set s = one(&l);
	/* 64k at 96k: chunk 1 (member 1, row 0) from 32k, chunk 2 (member 0,
	 * row 1) to 32k */
	struct verify_io ios[1] = { io(96 * K, 64 * K, BPT_OP_READ, 1000 * US, 3) };
	struct verify_event good[2] = {
		ev(1, 32 * K, 32 * K, BPT_OP_READ, 1004 * US),
		ev(0, 64 * K, 32 * K, BPT_OP_READ, 1005 * US),
	};
	struct verify_event swapped[2] = {
		ev(0, 32 * K, 32 * K, BPT_OP_READ, 1004 * US),
		ev(0, 64 * K, 32 * K, BPT_OP_READ, 1005 * US),
	};
	struct verify_result r;

	cr_assert_eq(verify_match(&s, ios, 1, good, 2, 0, 2000 * US, &r), 0);
	cr_expect_eq(r.present, 1);
	cr_expect_eq(r.parts, 2);
	cr_assert_eq(verify_match(&s, ios, 1, swapped, 2, 0, 2000 * US, &r), 0);
	cr_expect_eq(r.present, 0);
	cr_expect_eq(r.missing, 1);
	cr_expect_eq(r.extra, 2); /* an I/O not present claims none of its requests */
}

/* raid1: a write on every member; a read on the member the replay chose;
 * two targets number their members one after the other. */
Test(verify, raid1_mirrors_and_two_targets)
{
	struct layout m = mk(LAYOUT_RAID1, 2, 0), p = mk(LAYOUT_SINGLE, 1, 0);
	struct verify_set s = { .ntargets = 2, .nmembers = 3, .layout = { &m, &p },
				.base = { 0, 2 } };
	struct verify_io ios[3] = {
		io(0, 4096, BPT_OP_WRITE, 1000 * US, 3),
		io(0, 4096, BPT_OP_READ, 2000 * US, 2),
		io(0, 4096, BPT_OP_READ, 3000 * US, 1),
	};
	struct verify_event e[4] = {
		ev(0, 0, 4096, BPT_OP_WRITE, 1003 * US),
		ev(1, 0, 4096, BPT_OP_WRITE, 1004 * US),
		ev(1, 0, 4096, BPT_OP_READ, 2004 * US),
		ev(2, 0, 4096, BPT_OP_READ, 3004 * US),
	};
	struct verify_result r;

	ios[2].target = 1;
	cr_assert_eq(verify_match(&s, ios, 3, e, 4, 0, 4000 * US, &r), 0);
	cr_expect_eq(r.present, 3);
	cr_expect_eq(r.parts, 4);
	/* the write's second copy lost: not present */
	cr_assert_eq(verify_match(&s, ios, 3, e + 1, 3, 0, 4000 * US, &r), 0);
	cr_expect_eq(r.present, 2);
}

/* Failed I/Os are not expected; a flush matches any flush request on its
 * member in its time. */
Test(verify, failed_and_flush)
{
	struct layout l = mk(LAYOUT_SINGLE, 1, 0);
	struct verify_set s = one(&l);
	struct verify_io ios[2] = {
		io(0, 4096, BPT_OP_READ, 1000 * US, 1),
		io(0, 0, BPT_OP_FLUSH, 2000 * US, 1),
	};
	struct verify_event e[1] = { ev(0, 0, 0, BPT_OP_FLUSH, 2010 * US) };
	struct verify_result r;

	ios[0].failed = 1;
	cr_assert_eq(verify_match(&s, ios, 2, e, 1, 0, 4000 * US, &r), 0);
	cr_expect_eq(r.ios, 1);
	cr_expect_eq(r.present, 1);
}
