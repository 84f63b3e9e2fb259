/* Unit tests of the replay scheduler (replay/scheduler.c) on the null
 * engine: afap's depth limit, causal's dependencies and think time,
 * original timing, stopping, the warm-up, afap polling. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bpt.h"
#include "../../replay/sched.h"

#define US 1000ull
#define MS 1000000ull

struct run {
	const struct rp_io *base;
	struct rp_result *res;  /* by I/O index */
	uint8_t *seen;
	uint64_t nres, stop_after;
};

static int collect(void *ctx, const struct rp_result *r)
{
	struct run *run = ctx;
	uint64_t i = r->seq; /* the array is in issue order */

	cr_assert(!run->seen[i], "I/O %llu completed twice", (unsigned long long)i);
	run->seen[i] = 1;
	run->res[i] = *r;
	run->nres++;
	return run->stop_after && run->nres >= run->stop_after;
}

static struct layout lay = { .kind = LAYOUT_SINGLE, .nmembers = 1,
			     .member_size = { 1ull << 40 } };
static const int fds[1] = { -1 }, blk[1] = { 0 };
static struct sched_target tgt = { .layout = &lay, .fd = fds, .is_blkdev = blk };
static char buf[1 << 16];

static int replay(struct run *run, const struct rp_io *io, uint64_t n, enum timing t,
		  unsigned depth, uint64_t latency, struct sched_stats *st, int no_idle)
{
	struct sched_config cfg = {
		.timing = t, .speed = 1, .depth = depth, .no_idle = no_idle,
		.ops = &engine_null_ops, .eopts = { .null_latency_ns = latency },
		.targets = &tgt, .ntargets = 1, .read_buf = buf, .write_buf = buf,
		.on_result = collect, .ctx = run,
	};

	cr_assert_eq(layout_init(&lay), 0);
	run->base = io;
	run->res = calloc(n, sizeof(*run->res));
	run->seen = calloc(n, 1);
	return sched_run(&cfg, io, n, st);
}

static struct rp_io *random_trace(uint64_t n, uint64_t gap_ns, uint64_t lat_ns, unsigned seed)
{
	struct rp_io *io = calloc(n, sizeof(*io));
	uint64_t t = 0;

	srand(seed);
	for (uint64_t i = 0; i < n; i++) {
		t += (uint64_t)rand() % (2 * gap_ns + 1);
		io[i] = (struct rp_io){ .t_ns = t, .done_ns = t + lat_ns / 2 + (uint64_t)rand() % lat_ns,
					.offset = (uint64_t)(rand() % 1000) * 4096, .len = 4096,
					.src = (uint32_t)i, .op = (uint8_t)(rand() % 3 ? BPT_OP_READ : BPT_OP_WRITE) };
	}
	return io;
}

/* Largest number of I/Os in flight at once according to the results. */
static unsigned max_overlap(const struct rp_result *r, uint64_t n)
{
	unsigned best = 0;

	for (uint64_t i = 0; i < n; i++) {
		unsigned c = 0;

		for (uint64_t j = 0; j < n; j++)
			if (r[j].issue_ns <= r[i].issue_ns && r[j].complete_ns > r[i].issue_ns)
				c++;
		if (c > best)
			best = c;
	}
	return best;
}

Test(sched, afap_never_exceeds_depth)
{
	uint64_t n = 1500;
	struct rp_io *io = random_trace(n, 10 * MS, 1 * MS, 1);
	struct sched_stats st;
	struct run run = { 0 };

	cr_assert_eq(replay(&run, io, n, TIMING_AFAP, 8, 30 * US, &st, 0), 0);
	cr_expect_eq(run.nres, n);
	cr_expect_eq(st.completed, n);
	cr_expect_eq(st.max_outstanding, 8, "afap fills its depth");
	cr_expect_leq(max_overlap(run.res, n), 8);
	for (uint64_t i = 1; i < n; i++)
		cr_assert_geq(run.res[i].issue_ns, run.res[i - 1].issue_ns, "order kept");
	/* far faster than the recording's 15 s: 1500 / 8 * 30 us ~ 6 ms */
	cr_expect_lt(st.elapsed_ns, 2000 * MS);
	free(run.res);
	free(run.seen);
	free(io);
}

Test(sched, causal_waits_for_dependencies_and_think_time)
{
	/* 0 → 1 (think 50 us) → {2, 3} (think 50 us) → 4 (think 5 ms) */
	struct rp_io io[5] = {
		{ .t_ns = 0, .done_ns = 100 * US, .len = 4096 },
		{ .t_ns = 150 * US, .done_ns = 250 * US, .len = 4096 },
		{ .t_ns = 300 * US, .done_ns = 400 * US, .len = 4096 },
		{ .t_ns = 300 * US, .done_ns = 420 * US, .len = 4096 },
		{ .t_ns = 5420 * US, .done_ns = 5500 * US, .len = 4096 },
	};
	struct sched_stats st;
	struct run run = { 0 };
	const struct rp_result *r = run.res;

	/* the replay's device is 20x slower than the recorded one: 2 ms */
	cr_assert_eq(replay(&run, io, 5, TIMING_CAUSAL, 4, 2 * MS, &st, 0), 0);
	r = run.res;
	cr_assert_eq(run.nres, 5);
	cr_expect_geq(r[1].issue_ns, r[0].complete_ns + 50 * US);
	cr_expect_geq(r[2].issue_ns, r[1].complete_ns + 50 * US);
	cr_expect_geq(r[3].issue_ns, r[1].complete_ns + 50 * US);
	cr_expect_lt(r[3].issue_ns, r[2].complete_ns, "2 and 3 overlap as recorded");
	cr_expect_geq(r[4].issue_ns, r[3].complete_ns + 5 * MS);
	cr_expect_geq(r[4].issue_ns, r[2].complete_ns + 5 * MS);
	/* and due exactly then: the due time is computed, so this holds
	 * however late another process on the machine makes the issue */
	uint64_t deps = r[2].complete_ns > r[3].complete_ns ? r[2].complete_ns : r[3].complete_ns;

	cr_expect_eq(r[4].sched_ns, deps + 5 * MS, "due 5 ms after its dependencies");
	free(run.res);
	free(run.seen);

	/* --no-idle: no think time left */
	struct run run2 = { 0 };
	cr_assert_eq(replay(&run2, io, 5, TIMING_CAUSAL, 4, 2 * MS, &st, 1), 0);
	r = run2.res;
	deps = r[2].complete_ns > r[3].complete_ns ? r[2].complete_ns : r[3].complete_ns;
	cr_expect_geq(r[4].issue_ns, deps);
	cr_expect_eq(r[4].sched_ns, deps, "think time dropped");
	free(run2.res);
	free(run2.seen);
}

Test(sched, causal_random_trace_never_early)
{
	uint64_t n = 400;
	struct rp_io *io = random_trace(n, 100 * US, 300 * US, 7);
	struct sched_stats st;
	struct run run = { 0 };

	cr_assert_eq(replay(&run, io, n, TIMING_CAUSAL, 64, 500 * US, &st, 1), 0);
	cr_assert_eq(run.nres, n);
	for (uint64_t i = 0; i < n; i++)
		for (uint64_t j = 0; j < n; j++)
			if (io[j].done_ns < io[i].t_ns)
				cr_assert_geq(run.res[i].issue_ns, run.res[j].complete_ns,
					      "I/O %llu issued before its dependency %llu completed",
					      (unsigned long long)i, (unsigned long long)j);
	free(run.res);
	free(run.seen);
	free(io);
}

Test(sched, original_timing)
{
	uint64_t n = 400;
	struct rp_io *io = calloc(n, sizeof(*io));
	struct sched_stats st;
	struct run run = { 0 };
	uint64_t late_sum = 0;

	for (uint64_t i = 0; i < n; i++)
		io[i] = (struct rp_io){ .t_ns = i * 500 * US, .done_ns = i * 500 * US + 100 * US,
					.len = 4096 };
	cr_assert_eq(replay(&run, io, n, TIMING_ORIGINAL, 16, 100 * US, &st, 0), 0);
	cr_assert_eq(run.nres, n);
	for (uint64_t i = 0; i < n; i++) {
		cr_assert_eq(run.res[i].sched_ns, io[i].t_ns, "due when recorded");
		cr_assert_geq(run.res[i].issue_ns, run.res[i].sched_ns, "never early");
		late_sum += run.res[i].issue_ns - run.res[i].sched_ns;
	}
	/* No drift: every I/O is due at its recorded time (above), none is
	 * early. How late they are is up to the machine's other processes
	 * (bench/bench-replay.sh measures it); only a scheduler that holds
	 * I/Os back on purpose (issuing in batches, say) is late by half
	 * the 200 ms run on average: the bound is far from both. */
	cr_expect_lt(late_sum / n, 50 * MS, "mean lateness %llu ns",
		     (unsigned long long)(late_sum / n));
	free(run.res);
	free(run.seen);

	/* --speed 4: due at a quarter of the recorded times, and no sooner */
	struct run run4 = { .base = io };
	struct sched_config cfg = {
		.timing = TIMING_ORIGINAL, .speed = 4, .depth = 16,
		.ops = &engine_null_ops, .eopts = { .null_latency_ns = 50 * US },
		.targets = &tgt, .ntargets = 1, .read_buf = buf, .write_buf = buf,
		.on_result = collect, .ctx = &run4,
	};
	run4.res = calloc(n, sizeof(*run4.res));
	run4.seen = calloc(n, 1);
	cr_assert_eq(sched_run(&cfg, io, n, &st), 0);
	cr_assert_eq(run4.nres, n);
	for (uint64_t i = 0; i < n; i++) {
		cr_assert_eq(run4.res[i].sched_ns, io[i].t_ns / 4, "due at a quarter");
		cr_assert_geq(run4.res[i].issue_ns, run4.res[i].sched_ns, "never early");
	}
	cr_expect_geq(st.elapsed_ns, (n - 1) * 125 * US);
	free(run4.res);
	free(run4.seen);
	free(io);
}

Test(sched, stops_cleanly)
{
	uint64_t n = 1000;
	struct rp_io *io = random_trace(n, 10 * US, 100 * US, 3);
	struct sched_stats st;
	struct run run = { .stop_after = 100 };

	cr_assert_eq(replay(&run, io, n, TIMING_AFAP, 16, 20 * US, &st, 0), 0);
	cr_expect(st.stopped);
	cr_expect_eq(st.completed, st.issued, "everything issued is reaped");
	cr_expect_geq(run.nres, 100);
	cr_expect_lt(run.nres, n);
	free(run.res);
	free(run.seen);

	volatile sig_atomic_t flag = 1;
	struct sched_config cfg = {
		.timing = TIMING_ORIGINAL, .speed = 1, .depth = 4, .stop = &flag,
		.ops = &engine_null_ops, .targets = &tgt, .ntargets = 1,
		.read_buf = buf, .write_buf = buf,
	};
	cr_assert_eq(sched_run(&cfg, io, n, &st), 0);
	cr_expect(st.stopped);
	cr_expect_eq(st.issued, 0);
	free(io);
}

Test(sched, timing_names)
{
	enum timing t;

	cr_expect_eq(timing_parse("causal", &t), 0);
	cr_expect_eq(t, TIMING_CAUSAL);
	cr_expect_str_eq(timing_name(TIMING_AFAP), "afap");
	cr_expect_lt(timing_parse("fast", &t), 0);
}

/* The null engine, noting what it is asked to queue and when. */
static struct { uint8_t op; uint64_t offset, len, at; } queued[64];
static unsigned nqueued;

static enum eng_status noting_queue(struct engine *e, struct eng_io *io)
{
	if (nqueued < 64) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		queued[nqueued].op = io->op;
		queued[nqueued].offset = io->offset;
		queued[nqueued].len = io->len;
		queued[nqueued++].at = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	}
	return engine_null_ops.queue(e, io);
}

Test(sched, warmup_reads_each_member_before_time_0_and_reports_nothing)
{
	static struct layout two = { .kind = LAYOUT_RAID1, .nmembers = 2,
				     .member_size = { 1ull << 30, 1ull << 30 } };
	static const int fds2[2] = { -1, -1 }, blk2[2] = { 0, 0 };
	struct sched_target t2 = { .layout = &two, .fd = fds2, .is_blkdev = blk2 };
	struct engine_ops noting = engine_null_ops;
	struct rp_io io[3] = {
		{ .t_ns = 0, .done_ns = 50 * US, .offset = 8192, .len = 4096, .op = BPT_OP_WRITE },
		{ .t_ns = 100 * US, .done_ns = 150 * US, .offset = 0, .len = 4096, .op = BPT_OP_READ },
		{ .t_ns = 200 * US, .done_ns = 250 * US, .offset = 4096, .len = 4096, .op = BPT_OP_READ },
	};
	struct sched_stats st;
	struct run run = { .base = io };

	noting.queue = noting_queue;
	nqueued = 0;
	cr_assert_eq(layout_init(&two), 0);
	run.res = calloc(3, sizeof(*run.res));
	run.seen = calloc(3, 1);
	struct sched_config cfg = {
		.timing = TIMING_ORIGINAL, .speed = 1, .depth = 4, .warmup = 1,
		.ops = &noting, .eopts = { .null_latency_ns = 10 * US },
		.targets = &t2, .ntargets = 1, .read_buf = buf, .write_buf = buf,
		.on_result = collect, .ctx = &run,
	};
	cr_assert_eq(sched_run(&cfg, io, 3, &st), 0);
	cr_expect_eq(run.nres, 3, "the warm-up is not a result");
	cr_expect_eq(st.issued, 3);
	/* two warm-up reads, then the write to both mirrors and two reads */
	cr_assert_eq(nqueued, 2 + 2 + 2);
	for (unsigned i = 0; i < 2; i++) {
		cr_expect_eq(queued[i].op, BPT_OP_READ);
		cr_expect_eq(queued[i].offset, 0);
		cr_expect_eq(queued[i].len, WARMUP_LEN);
		cr_expect_lt(queued[i].at, st.start_mono_ns, "warm-up %u before time 0", i);
	}
	cr_expect_eq(queued[2].op, BPT_OP_WRITE);
	cr_expect_geq(queued[2].at, st.start_mono_ns);
	free(run.res);
	free(run.seen);
}

/* Before a first write the warm-up reads into the write buffer (the
 * buffer that write takes) and puts its bytes back: the data written is
 * the write buffer's, not the device's first 4 KiB. On both real engines,
 * on a file whose first 4 KiB differ from the write buffer. */
Test(sched, warmup_before_a_write_warms_the_write_buffer_and_keeps_its_data)
{
	static const struct engine_ops *const ops[] = { &engine_libaio_ops, &engine_uring_ops };

	for (unsigned k = 0; k < 2; k++) {
		char path[] = "/tmp/blkpeak-sched-XXXXXX", got[4096];
		int fd = mkstemp(path);
		void *rbuf, *wbuf;

		cr_assert_geq(fd, 0);
		unlink(path);
		cr_assert_eq(posix_memalign(&rbuf, 4096, 4096), 0);
		cr_assert_eq(posix_memalign(&wbuf, 4096, 4096), 0);
		memset(rbuf, 0, 4096);
		memset(wbuf, 0x5a, 4096);
		memset(got, 0xab, sizeof(got));
		cr_assert_eq(pwrite(fd, got, 4096, 0), 4096);
		cr_assert_eq(ftruncate(fd, 65536), 0);

		static struct layout one = { .kind = LAYOUT_SINGLE, .nmembers = 1,
					     .member_size = { 65536 } };
		int fdv[1] = { fd }, blkv[1] = { 0 };
		struct sched_target t1 = { .layout = &one, .fd = fdv, .is_blkdev = blkv };
		struct rp_io io[1] = {
			{ .t_ns = 0, .done_ns = 50 * US, .offset = 8192, .len = 4096, .op = BPT_OP_WRITE },
		};
		struct sched_stats st;
		struct run run = { .base = io };

		cr_assert_eq(layout_init(&one), 0);
		run.res = calloc(1, sizeof(*run.res));
		run.seen = calloc(1, 1);
		struct sched_config cfg = {
			.timing = TIMING_ORIGINAL, .speed = 1, .depth = 4, .warmup = 1,
			.ops = ops[k], .targets = &t1, .ntargets = 1,
			.read_buf = rbuf, .write_buf = wbuf, .on_result = collect, .ctx = &run,
		};
		cr_assert_eq(sched_run(&cfg, io, 1, &st), 0, "engine %u", k);
		cr_expect_eq(run.nres, 1);
		cr_expect_eq(run.res[0].error, 0);
		cr_expect_eq(((unsigned char *)rbuf)[0], 0, "engine %u: the warm-up read into the read buffer", k);
		for (unsigned i = 0; i < 4096; i++)
			cr_assert_eq(((unsigned char *)wbuf)[i], 0x5a, "engine %u: write buffer byte %u changed", k, i);
		cr_assert_eq(pread(fd, got, 4096, 8192), 4096);
		for (unsigned i = 0; i < 4096; i++)
			cr_assert_eq((unsigned char)got[i], 0x5a, "engine %u: byte %u written is not the write buffer's", k, i);
		close(fd);
		free(rbuf);
		free(wbuf);
		free(run.res);
		free(run.seen);
	}
}

Test(sched, afap_polling_keeps_depth_and_order)
{
	uint64_t n = 1500;
	struct rp_io *io = random_trace(n, 10 * MS, 1 * MS, 4);
	struct sched_stats st;
	struct run run = { .base = io };

	cr_assert_eq(layout_init(&lay), 0);
	run.res = calloc(n, sizeof(*run.res));
	run.seen = calloc(n, 1);
	struct sched_config cfg = {
		.timing = TIMING_AFAP, .speed = 1, .depth = 8, .poll = 1,
		.ops = &engine_null_ops, .eopts = { .null_latency_ns = 30 * US },
		.targets = &tgt, .ntargets = 1, .read_buf = buf, .write_buf = buf,
		.on_result = collect, .ctx = &run,
	};
	cr_assert_eq(sched_run(&cfg, io, n, &st), 0);
	cr_expect_eq(run.nres, n);
	cr_expect_eq(st.max_outstanding, 8);
	cr_expect_leq(max_overlap(run.res, n), 8);
	for (uint64_t i = 1; i < n; i++)
		cr_assert_geq(run.res[i].issue_ns, run.res[i - 1].issue_ns, "order kept");
	for (uint64_t i = 0; i < n; i++)
		cr_assert_leq(run.res[i].sched_ns, run.res[i].issue_ns, "afap: due when issued");
	free(run.res);
	free(run.seen);
	free(io);
}

/* --speed: a schedule longer than 2^62 ns is refused before it starts
 * (1 s at 1e-15 would be 10^15 s); any speed that fits is accepted. */
Test(sched, speed_schedule_limit)
{
	cr_expect(sched_span_fits(1000000000ull, 1e-15) == 0);
	cr_expect(sched_span_fits(1000000000ull, 1e-10) == 0, "10^19 ns > 2^62");
	cr_expect(sched_span_fits(1000000000ull, 1e-9), "10^18 ns < 2^62");
	cr_expect(sched_span_fits(UINT64_MAX, 1) == 0);
	cr_expect(sched_span_fits(UINT64_MAX, 1e6), "1.8 * 10^13 ns");
	cr_expect(sched_span_fits(0, 1e-300), "an empty trace lasts 0 s at any speed");
	cr_expect(sched_span_fits(1, 0) == 0);
	cr_expect(sched_span_fits(1, -1) == 0);
	cr_expect(sched_span_fits(1, 0.0 / 0.0) == 0, "NaN");
}

/* An I/O whose completion the capture did not see has its bound as
 * done_ns (trace format 1.2: the time its request was used again, or the
 * capture's end). Causal timing counts it as completed at that bound:
 * I/Os issued before the bound do not wait for it, I/Os issued after it
 * (when it had certainly completed) do. */
Test(sched, causal_unseen_completion_counts_at_its_bound)
{
	struct rp_io io[3] = {
		{ .t_ns = 0, .done_ns = 1 * MS, .len = 4096 },        /* bound: reused at 1 ms */
		{ .t_ns = 500 * US, .done_ns = 600 * US, .len = 4096 }, /* before the bound */
		{ .t_ns = 2 * MS, .done_ns = 2100 * US, .len = 4096 },  /* after it */
	};
	struct sched_stats st;
	struct run run = { 0 };

	/* the replay's device takes 30 ms per I/O */
	cr_assert_eq(replay(&run, io, 3, TIMING_CAUSAL, 4, 30 * MS, &st, 1), 0);
	cr_assert_eq(run.nres, 3);
	cr_expect_lt(run.res[1].issue_ns, run.res[0].complete_ns, "1 does not wait for 0");
	cr_expect_geq(run.res[2].issue_ns, run.res[0].complete_ns, "2 waits for 0");
	free(run.res);
	free(run.seen);
}

/* afap with defer_results: a finished request's result is handed over
 * only after the I/O its completion made room for was submitted, so at
 * depth 1 the issuer never does that work between a completion and the
 * next issue; without it, before. Each result once, in completion order,
 * never more than `depth` in flight (the slots are twice the depth). */
struct called { struct run run; uint64_t *at; };

static int collect_when(void *ctx, const struct rp_result *r)
{
	struct called *c = ctx;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	c->at[r->seq] = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return collect(&c->run, r);
}

static void results_after_next_submit(unsigned depth, int defer)
{
	uint64_t n = 400;
	struct rp_io *io = random_trace(n, 10 * MS, 1 * MS, 5);
	struct sched_stats st;
	struct called c = { .run = { .base = io } };

	cr_assert_eq(layout_init(&lay), 0);
	c.run.res = calloc(n, sizeof(*c.run.res));
	c.run.seen = calloc(n, 1);
	c.at = calloc(n, sizeof(*c.at));
	struct sched_config cfg = {
		.timing = TIMING_AFAP, .speed = 1, .depth = depth, .defer_results = defer,
		.ops = &engine_null_ops, .eopts = { .null_latency_ns = 20 * US },
		.targets = &tgt, .ntargets = 1, .read_buf = buf, .write_buf = buf,
		.on_result = collect_when, .ctx = &c,
	};
	cr_assert_eq(sched_run(&cfg, io, n, &st), 0);
	cr_expect_eq(c.run.nres, n);
	cr_expect_eq(st.completed, n);
	cr_expect_eq(st.max_outstanding, depth);
	cr_expect_leq(max_overlap(c.run.res, n), depth);
	for (uint64_t i = 0; i + depth < n; i++) {
		/* I/O i + depth could only start once I/O i (or one before it) was done */
		uint64_t next_issue = st.start_mono_ns + c.run.res[i + depth].issue_ns;

		if (defer)
			cr_assert_geq(c.at[i], next_issue, "I/O %llu's result before I/O %llu was issued",
				      (unsigned long long)i, (unsigned long long)(i + depth));
		else if (depth == 1)
			cr_assert_lt(c.at[i], next_issue, "without defer_results, the result first");
	}
	for (uint64_t i = 1; i < n; i++)
		cr_assert_geq(c.run.res[i].complete_ns, c.run.res[i - 1].complete_ns,
			      "in completion order");
	free(c.run.res);
	free(c.run.seen);
	free(c.at);
	free(io);
}

Test(sched, afap_defer_results_after_the_next_submit)
{
	results_after_next_submit(1, 1);
	results_after_next_submit(4, 1);
	results_after_next_submit(1, 0);
}

/* A mixed replay's source: lane k gives lanes[k][0..n[k]). */
struct lanes_source {
	const struct rp_io *io[2];
	uint64_t n[2], i[2];
};

static int lanes_next(void *ctx, unsigned k, struct rp_io *io)
{
	struct lanes_source *l = ctx;

	if (l->i[k] == l->n[k])
		return 0;
	*io = l->io[k][l->i[k]++];
	return 1;
}

struct lane_run {
	struct rp_result res[8];
	struct rp_io io[8];
	unsigned n;
};

static int collect_lane(void *ctx, const struct rp_result *r)
{
	struct lane_run *lr = ctx;

	cr_assert_lt(lr->n, 8);
	lr->io[lr->n] = *r->io;
	lr->res[lr->n++] = *r;
	return 0;
}

/* Causal dependencies stay within a lane: recording B's I/O at 5 ms has
 * none of its own, so it goes at its think time (5 ms) although A's I/O
 * that completed at 1 ms in A's recording is still in flight (20 ms):
 * one merged stream would hold it until then. A's second I/O still
 * waits for A's first. Original timing interleaves the lanes by time. */
Test(sched, mixed_lanes_keep_causal_dependencies_per_recording)
{
	const struct rp_io a[2] = {
		{ .t_ns = 0, .done_ns = 1 * MS, .len = 4096, .src = 0, .op = BPT_OP_READ },
		{ .t_ns = 2 * MS, .done_ns = 3 * MS, .len = 4096, .src = 1, .op = BPT_OP_READ },
	};
	const struct rp_io b[1] = {
		{ .t_ns = 5 * MS, .done_ns = 6 * MS, .offset = 8192, .len = 4096, .src = 0,
		  .op = BPT_OP_READ },
	};
	const struct rp_io *ia0 = NULL, *ia1 = NULL, *ib = NULL;
	const struct rp_result *ra0 = NULL, *ra1 = NULL, *rb = NULL;

	for (int t = 0; t < 2; t++) {
		struct lanes_source ls = { .io = { a, b }, .n = { 2, 1 } };
		struct sched_source src = { .next_rec = lanes_next, .nrec = 2, .ctx = &ls, .total = 3,
					    .max_rw_len = 4096 };
		struct lane_run lr = { .n = 0 };
		struct sched_config cfg = {
			.timing = t ? TIMING_ORIGINAL : TIMING_CAUSAL, .speed = 1, .depth = 8,
			.ops = &engine_null_ops, .eopts = { .null_latency_ns = 20 * MS },
			.targets = &tgt, .ntargets = 1, .read_buf = buf, .write_buf = buf,
			.on_result = collect_lane, .ctx = &lr,
		};
		struct sched_stats st;

		cr_assert_eq(layout_init(&lay), 0);
		cr_assert_eq(sched_run_source(&cfg, &src, &st), 0);
		cr_assert_eq(lr.n, 3);
		for (unsigned i = 0; i < 3; i++) {
			if (lr.io[i].rec == 1)
				ib = &lr.io[i], rb = &lr.res[i];
			else if (lr.io[i].src == 0)
				ia0 = &lr.io[i], ra0 = &lr.res[i];
			else
				ia1 = &lr.io[i], ra1 = &lr.res[i];
		}
		cr_assert(ia0 && ia1 && ib);
		cr_assert_eq(ib->src, 0);
		if (t == 0) {
			/* A1 after A0 completed; B0 long before A0 completed */
			cr_assert_geq(ra1->issue_ns, ra0->complete_ns);
			cr_assert_geq(rb->sched_ns, 5 * MS);
			cr_assert_lt(rb->issue_ns, ra0->complete_ns,
				     "B waited for A: issued %llu, A done %llu",
				     (unsigned long long)rb->issue_ns,
				     (unsigned long long)ra0->complete_ns);
			cr_assert_lt(rb->seq, ra1->seq);
		} else {
			/* original: due at 0, 2 ms, 5 ms, issued in that order */
			cr_assert_eq(ra0->sched_ns, 0);
			cr_assert_eq(ra1->sched_ns, 2 * MS);
			cr_assert_eq(rb->sched_ns, 5 * MS);
			cr_assert(ra0->seq < ra1->seq && ra1->seq < rb->seq);
		}
	}
}
