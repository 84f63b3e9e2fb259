/*
 * Unit tests of the synthetic workload model (generate/gen_model.c): the read
 * share, size mix proportions, span bound, alignment, fixed vs Poisson
 * spacing, the queue-depth bound, time consistency and determinism.
 * Statistical checks use 200k draws and tolerances of several standard
 * deviations, so they fail on a wrong model, not on bad luck.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gen_model.h"

#define N 200000

/* Draw up to max records with p; returns how many. */
static size_t draw(const struct gen_params *p, struct bpt_record *out, size_t max)
{
	struct gen_model *m;
	size_t n = 0;

	cr_assert_eq(gen_model_create(&m, p), 0);
	while (n < max && gen_model_next(m, &out[n]) == 1)
		n++;
	gen_model_free(m);
	return n;
}

static struct bpt_record *recs(void)
{
	struct bpt_record *r = malloc(N * sizeof(*r));

	cr_assert_not_null(r);
	return r;
}

Test(gen_model, read_share_and_flags)
{
	struct gen_params p;
	struct bpt_record *r = recs();
	size_t reads = 0;

	gen_params_default(&p);
	p.read_pct = 67;
	p.count = N;
	cr_assert_eq(draw(&p, r, N), N);
	for (size_t i = 0; i < N; i++) {
		if (r[i].op == BPT_OP_READ) {
			reads++;
			cr_assert_eq(r[i].flags, 0);
		} else {
			cr_assert_eq(r[i].op, BPT_OP_WRITE);
			cr_assert_eq(r[i].flags, BPT_F_SYNC);
		}
	}
	/* sd of the share is sqrt(.67*.33/N) = 0.00105; allow 5 sd */
	cr_assert(fabs((double)reads / N - 0.67) < 0.0053, "read share %f", (double)reads / N);
	free(r);
}

Test(gen_model, size_mix_proportions)
{
	struct gen_params p;
	struct bpt_record *r = recs();
	size_t c512 = 0, c4k = 0, c64k = 0;

	gen_params_default(&p);
	cr_assert_eq(size_mix_parse("512:10,4k:60,64k:30", &p.bs, NULL), 0);
	p.count = N;
	cr_assert_eq(draw(&p, r, N), N);
	for (size_t i = 0; i < N; i++) {
		switch (r[i].bytes) {
		case 512: c512++; break;
		case 4096: c4k++; break;
		case 65536: c64k++; break;
		default: cr_assert_fail("size %u not in the mix", r[i].bytes);
		}
	}
	cr_assert(fabs((double)c512 / N - 0.10) < 0.004);
	cr_assert(fabs((double)c4k / N - 0.60) < 0.006);
	cr_assert(fabs((double)c64k / N - 0.30) < 0.006);
	free(r);
}

Test(gen_model, span_bound_and_alignment)
{
	struct gen_params p;
	struct bpt_record *r = recs();
	uint64_t lo = UINT64_MAX, hi = 0;

	gen_params_default(&p);
	cr_assert_eq(size_mix_parse("512:1,4k:1,12k:1,64k:1", &p.bs, NULL), 0);
	p.offset = 1 << 20;
	p.span = 8 << 20;
	p.count = N;
	cr_assert_eq(draw(&p, r, N), N);
	for (size_t i = 0; i < N; i++) {
		uint64_t start = r[i].sector * 512, end = start + r[i].bytes;

		cr_assert_geq(start, p.offset);
		cr_assert_leq(end, p.offset + p.span, "I/O %zu ends past the span", i);
		cr_assert_eq((start - p.offset) % gen_align(r[i].bytes), 0,
			     "I/O %zu of %u at %llu not aligned", i, r[i].bytes,
			     (unsigned long long)start);
		if (start < lo) lo = start;
		if (end > hi) hi = end;
	}
	/* the whole span is used: both ends are reached */
	cr_assert_eq(lo, p.offset);
	cr_assert_eq(hi, p.offset + p.span);
	cr_assert_eq(gen_align(512), 512);
	cr_assert_eq(gen_align(12288), 4096);
	cr_assert_eq(gen_align(65536), 65536);
	cr_assert_eq(gen_align(1536), 512);
	free(r);
}

Test(gen_model, sequential_wraps_within_span)
{
	struct gen_params p;
	struct bpt_record *r = recs();

	gen_params_default(&p);
	cr_assert_eq(size_mix_parse("64k", &p.bs, NULL), 0);
	p.random_pct = 0;
	p.span = 1 << 20; /* 16 I/Os per pass */
	p.count = 40;
	cr_assert_eq(draw(&p, r, N), 40);
	for (size_t i = 0; i < 40; i++)
		cr_assert_eq(r[i].sector, (i % 16) * 128);
	free(r);
}

Test(gen_model, partly_random)
{
	struct gen_params p;
	struct bpt_record *r = recs();
	size_t seq = 0;

	gen_params_default(&p);
	cr_assert_eq(size_mix_parse("8k", &p.bs, NULL), 0);
	p.random_pct = 80;
	p.count = N;
	cr_assert_eq(draw(&p, r, N), N);
	for (size_t i = 1; i < N; i++)
		seq += r[i].sector == r[i - 1].sector + 16;
	/* 20% continue sequentially (random hits on the next block are ~0) */
	cr_assert(fabs((double)seq / N - 0.20) < 0.006, "sequential share %f", (double)seq / N);
	free(r);
}

Test(gen_model, fixed_spacing)
{
	struct gen_params p;
	struct bpt_record *r = recs();

	gen_params_default(&p);
	p.iops = 3000; /* 333333.33 ns apart: rounding must not drift */
	p.count = 30001;
	cr_assert_eq(draw(&p, r, N), 30001);
	for (size_t i = 1; i < 30001; i++) {
		uint64_t gap = r[i].queue_ns - r[i - 1].queue_ns;
		cr_assert(gap == 333333 || gap == 333334, "gap %llu", (unsigned long long)gap);
	}
	cr_assert_eq(r[30000].queue_ns, 10000000000ull, "no drift over 10 s");
	free(r);
}

Test(gen_model, poisson_spacing)
{
	struct gen_params p;
	struct bpt_record *r = recs();
	double sum = 0, sum2 = 0, mean, cv;
	size_t below_mean = 0;

	gen_params_default(&p);
	p.iops = 10000;
	p.arrival = GEN_ARRIVAL_POISSON;
	p.count = N;
	cr_assert_eq(draw(&p, r, N), N);
	for (size_t i = 1; i < N; i++) {
		double gap = (double)(r[i].queue_ns - r[i - 1].queue_ns);
		sum += gap;
		sum2 += gap * gap;
	}
	mean = sum / (N - 1);
	cv = sqrt(sum2 / (N - 1) - mean * mean) / mean;
	for (size_t i = 1; i < N; i++)
		below_mean += (double)(r[i].queue_ns - r[i - 1].queue_ns) < mean;
	/* exponential: mean 1/rate, coefficient of variation 1, P(X < mean) = 1 - 1/e */
	cr_assert(fabs(mean - 100000) < 1500, "mean gap %f", mean);
	cr_assert(fabs(cv - 1) < 0.02, "cv %f", cv);
	cr_assert(fabs((double)below_mean / (N - 1) - (1 - exp(-1))) < 0.006);
	free(r);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The number of I/Os in flight never exceeds qd: sweep the issue and
 * complete events in time order (completions first at equal times). */
static void check_queue(const struct bpt_record *r, size_t n, uint32_t qd, int *reached)
{
	uint64_t *done = malloc(n * sizeof(*done));
	size_t j = 0, inflight_max = 0;

	cr_assert_not_null(done);
	for (size_t i = 0; i < n; i++)
		done[i] = r[i].complete_ns;
	qsort(done, n, sizeof(*done), cmp_u64);
	for (size_t i = 0; i < n; i++) {
		cr_assert_leq(r[i].queue_ns, r[i].issue_ns, "I/O %zu issued before queued", i);
		cr_assert_lt(r[i].issue_ns, r[i].complete_ns, "I/O %zu completes before issue", i);
		if (i)
			cr_assert_geq(r[i].issue_ns, r[i - 1].issue_ns, "issue order");
		while (j < n && done[j] <= r[i].issue_ns)
			j++;
		size_t inflight = i + 1 - j;
		cr_assert_leq(inflight, qd, "%zu in flight at I/O %zu", inflight, i);
		if (inflight > inflight_max)
			inflight_max = inflight;
	}
	*reached = inflight_max == qd;
	free(done);
}

Test(gen_model, queue_depth_never_exceeded)
{
	static const uint32_t qds[] = { 1, 4, 32 };
	struct gen_params p;
	struct bpt_record *r = recs();
	int reached;

	for (size_t k = 0; k < 3; k++) {
		/* overloaded open loop: 1 GB/s, 100 us, 4k/64k; offered 1M IOPS
		 * (capacity at qd 32 is about 32 / 134 us = 240k IOPS) */
		gen_params_default(&p);
		cr_assert_eq(size_mix_parse("4k:1,64k:1", &p.bs, NULL), 0);
		p.iops = 1000000;
		p.arrival = GEN_ARRIVAL_POISSON;
		p.queue_depth = qds[k];
		p.count = 50000;
		cr_assert_eq(draw(&p, r, N), 50000);
		check_queue(r, 50000, qds[k], &reached);
		cr_assert(reached, "an overloaded queue fills up to %u", qds[k]);
		/* closed loop keeps qd in flight */
		p.iops = 0;
		cr_assert_eq(draw(&p, r, N), 50000);
		check_queue(r, 50000, qds[k], &reached);
		cr_assert(reached);
	}
	free(r);
}

Test(gen_model, underloaded_has_no_queueing)
{
	struct gen_params p;
	struct bpt_record *r = recs();

	gen_params_default(&p);
	p.iops = 1000; /* 1 ms apart, service 100 us +-20% + 3.8 us at 1 GiB/s */
	p.count = 10000;
	cr_assert_eq(draw(&p, r, N), 10000);
	for (size_t i = 0; i < 10000; i++) {
		uint64_t svc = r[i].complete_ns - r[i].issue_ns;
		cr_assert_eq(r[i].queue_ns, r[i].issue_ns);
		cr_assert(svc >= 80000 + 3814 && svc <= 120000 + 3816, "service %llu",
			  (unsigned long long)svc);
	}
	free(r);
}

Test(gen_model, duration_stops)
{
	struct gen_params p;
	struct bpt_record *r = recs();

	gen_params_default(&p);
	p.iops = 1000;
	p.duration_ns = 2000000000ull; /* 2 s at 1000/s: arrivals 0 .. 1.999 s */
	cr_assert_eq(draw(&p, r, N), 2000);
	cr_assert_lt(r[1999].queue_ns, p.duration_ns);
	free(r);
}

Test(gen_model, same_seed_same_trace)
{
	struct gen_params p;
	struct bpt_record *a = recs(), *b = recs();

	gen_params_default(&p);
	cr_assert_eq(size_mix_parse("512:10,4k:60,64k:30", &p.bs, NULL), 0);
	p.read_pct = 70;
	p.random_pct = 50;
	p.iops = 20000;
	p.arrival = GEN_ARRIVAL_POISSON;
	p.queue_depth = 8;
	p.count = 20000;
	p.seed = 42;
	cr_assert_eq(draw(&p, a, N), 20000);
	cr_assert_eq(draw(&p, b, N), 20000);
	cr_assert_eq(memcmp(a, b, 20000 * sizeof(*a)), 0);
	p.seed = 43;
	cr_assert_eq(draw(&p, b, N), 20000);
	cr_assert_neq(memcmp(a, b, 20000 * sizeof(*a)), 0, "another seed, another trace");
	free(a);
	free(b);
}

Test(gen_model, bad_params)
{
	struct gen_params p;
	struct gen_model *m;
	struct bpt_error why = { 0 };

	gen_params_default(&p);
	cr_assert_eq(gen_params_check(&p, &why), 0);
	p.read_pct = 101;
	cr_assert_eq(gen_params_check(&p, &why), -EINVAL);
	cr_assert_str_eq(why.msg, "--read-pct: must be from 0 to 100");
	cr_assert_eq(gen_model_create(&m, &p), -EINVAL);
	cr_assert_null(m);
	gen_params_default(&p);
	p.span = 2048;
	cr_assert_eq(gen_params_check(&p, &why), -EINVAL);
	cr_assert_str_eq(why.msg, "--span: smaller than the largest I/O size");
	gen_params_default(&p);
	p.offset = 100;
	cr_assert_eq(gen_params_check(&p, &why), -EINVAL);
	gen_params_default(&p);
	p.queue_depth = 0;
	cr_assert_eq(gen_params_check(&p, &why), -EINVAL);
}
