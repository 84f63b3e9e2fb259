/* Unit tests of the what-if transforms (transform/xform.h): the option
 * parser's refusals and records, the record-level transforms (select,
 * ops, spread and shift), and the loop and ramp time map against its
 * closed form. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "xform.h"

static int opt(struct xform *x, int o, const char *arg)
{
	char why[256] = "";
	int rc = xform_option(x, o, arg, why, sizeof(why));

	if (rc)
		cr_assert(why[0], "a refusal says why");
	return rc;
}

Test(xform, options_refused)
{
	struct xform x = { 0 };
	char why[256];

	cr_assert_eq(opt(&x, XF_OPT_LOOP, "0"), -EINVAL);
	cr_assert_eq(opt(&x, XF_OPT_LOOP, "1000001"), -EINVAL);
	cr_assert_eq(opt(&x, XF_OPT_LOOP, "99999999999999999999999"), -ERANGE);
	cr_assert_eq(opt(&x, XF_OPT_LOOP, "-3"), -EINVAL);
	cr_assert_neq(opt(&x, XF_OPT_SPREAD, "0"), 0);
	cr_assert_neq(opt(&x, XF_OPT_SPREAD, "nan"), 0);
	cr_assert_neq(opt(&x, XF_OPT_SPREAD, "inf"), 0);
	cr_assert_neq(opt(&x, XF_OPT_SHIFT, "99999999999999999999999"), 0);
	cr_assert_neq(opt(&x, XF_OPT_SHIFT, "8e"), 0);
	cr_assert_neq(opt(&x, XF_OPT_LOOP_OFFSET, "4611686018427387904"), 0); /* 2^62 */
	cr_assert_neq(opt(&x, XF_OPT_RAMP, "1"), 0);
	cr_assert_neq(opt(&x, XF_OPT_RAMP, "1:0"), 0);
	cr_assert_neq(opt(&x, XF_OPT_RAMP, ":2"), 0);
	cr_assert_neq(opt(&x, XF_OPT_FILL, "101"), 0);
	cr_assert_neq(opt(&x, XF_OPT_FILL, "0x10"), 0);
	cr_assert_neq(opt(&x, XF_OPT_SELECT, "70s-10s"), 0);
	cr_assert_neq(opt(&x, XF_OPT_SELECT, "-"), 0);
	cr_assert_neq(opt(&x, XF_OPT_SELECT, "bogus:1"), 0);
	cr_assert_neq(opt(&x, XF_OPT_SELECT, "pid:0"), 0);
	cr_assert_neq(opt(&x, XF_OPT_SELECT, "op:reed"), 0);
	cr_assert_neq(opt(&x, XF_OPT_SELECT, "dev:"), 0);
	cr_assert_str_empty(xform_describe(&x));
	cr_assert_eq(opt(&x, XF_OPT_LOOP_OFFSET, "1g"), 0);
	cr_assert_neq(xform_check(&x, why, sizeof(why)), 0); /* without --loop */
	cr_assert_eq(opt(&x, XF_OPT_LOOP, "2"), 0);
	cr_assert_eq(opt(&x, XF_OPT_LOOP, "3"), -EINVAL); /* twice */
	cr_assert_eq(xform_check(&x, why, sizeof(why)), 0);
	cr_assert_str_eq(xform_describe(&x), "loop-offset=1g loop=2");
}

Test(xform, select_and_ops)
{
	struct xform x = { 0 };
	struct bpt_record r = { .issue_ns = 5000000000ull, .op = BPT_OP_WRITE, .sector = 8,
				.bytes = 4096 };

	cr_assert_eq(opt(&x, XF_OPT_SELECT, "4s-6s"), 0);
	cr_assert_eq(opt(&x, XF_OPT_SELECT, "op:write,discard"), 0);
	cr_assert_eq(opt(&x, XF_OPT_W2R, NULL), 0);
	x.trace_first_ns = 1000000000ull; /* t = 4 s: kept */
	x.align = 512;
	cr_assert_eq(xform_record(&x, &r), 1);
	cr_assert_eq(r.op, BPT_OP_READ);
	r = (struct bpt_record){ .issue_ns = 7000000000ull, .op = BPT_OP_WRITE };
	cr_assert_eq(xform_record(&x, &r), 0); /* t = 6 s: out ([from, to)) */
	r = (struct bpt_record){ .issue_ns = 5000000000ull, .op = BPT_OP_DISCARD };
	cr_assert_eq(xform_record(&x, &r), 0); /* writes-as-reads drops discards */
	r = (struct bpt_record){ .issue_ns = 5000000000ull, .op = BPT_OP_READ };
	cr_assert_eq(xform_record(&x, &r), 0); /* op: */
}

Test(xform, spread_shift)
{
	struct xform x = { 0 };
	struct bpt_record r = { .op = BPT_OP_READ, .sector = 3, .bytes = 512 };

	cr_assert_eq(opt(&x, XF_OPT_SPREAD, "3"), 0);
	cr_assert_eq(opt(&x, XF_OPT_SHIFT, "8k"), 0);
	x.align = 4096;
	cr_assert_eq(xform_record(&x, &r), 1);
	cr_assert_eq(r.sector * 512, 4096 + 8192); /* 1536 * 3 = 4608, down to 4096 */
	r = (struct bpt_record){ .op = BPT_OP_READ, .sector = 1ull << 53, .bytes = 512 };
	cr_assert_eq(xform_record(&x, &r), -ERANGE); /* 2^62 * 3 */
	r = (struct bpt_record){ .op = BPT_OP_FLUSH, .sector = 5 };
	cr_assert_eq(xform_record(&x, &r), 1);
	cr_assert_eq(r.sector, 5); /* a flush has no address */
}

Test(xform, loop_and_ramp_times)
{
	struct xform x = { 0 };

	cr_assert_eq(opt(&x, XF_OPT_LOOP, "3"), 0);
	x.span_ns = 1000000000ull;
	cr_assert_eq(xform_time(&x, 5, 0), 5);
	cr_assert_eq(xform_time(&x, 5, 2), 2000000005ull);
	cr_assert_eq(xform_total_ns(&x), 3000000000ull);
	cr_assert_eq(opt(&x, XF_OPT_RAMP, "1:4"), 0);
	/* T = 3 s, s(t) = 1 + t: tau(t) = ln(1 + t) for t in s */
	for (double t = 0; t <= 3.0; t += 0.25) {
		uint64_t got = xform_time(&x, (uint64_t)(t * 1e9), 0);
		double want = log1p(t) * 1e9;

		cr_assert(fabs((double)got - want) < 2, "t=%g got %llu want %.0f", t,
			  (unsigned long long)got, want);
	}
	cr_assert(llabs((long long)xform_total_ns(&x) - (long long)(log(4.0) * 1e9)) < 2);
	struct xform y = { 0 };

	cr_assert_eq(opt(&y, XF_OPT_RAMP, "2:2"), 0);
	y.span_ns = 10;
	cr_assert_eq(xform_time(&y, 1000, 0), 500);
}

Test(xform, fill)
{
	struct xform x = { 0 };
	unsigned char b[8192];
	size_t zeros = 0;

	cr_assert_eq(opt(&x, XF_OPT_FILL, "25"), 0);
	xform_fill_buffer(&x, b, sizeof(b));
	for (size_t i = 0; i < sizeof(b); i++)
		zeros += !b[i];
	/* 1024 zero bytes per 4 KiB, and random ones (a few happen to be 0) */
	cr_assert(zeros >= 2048 && zeros < 2048 + 64, "zeros %zu", zeros);
	cr_assert_eq(b[0], 0);
	cr_assert_eq(b[1023], 0);
	cr_assert_eq(opt(&x, XF_OPT_FILL, "zero"), 0);
	xform_fill_buffer(&x, b, sizeof(b));
	cr_assert_eq(b[5000], 0);
}
