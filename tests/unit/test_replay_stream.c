/* Unit tests of replay's bounded-memory input path against the full load
 * it replaced: the issue-ordered stream (replay/load.c) against reading
 * every record and sorting them, causal timing's dependencies
 * (replay/causal.c) against the old arrays sorted by completion, and the
 * results put back in issue order (replay/result_order.c). The traces are
 * written in completion order, as captures are, with I/Os that stay
 * outstanding for most of the trace, so their dependencies and their
 * place in issue order lie far away in the file. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpt.h"
#include "../../replay/causal.h"
#include "../../replay/load.h"
#include "../../replay/result_order.h"
#include "../../replay/result_thread.h"
#include "../../replay/thread_slice.h"

#define NREC 20000

struct rec { uint64_t issue, complete, sector; uint32_t bytes; uint8_t op; };

static int by_complete(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	return x->complete < y->complete ? -1 : x->complete > y->complete;
}

/* NREC I/Os 10 us apart, 50-550 us each, except a few that stay
 * outstanding far longer (one until the end); in completion order. */
static struct rec *make_recs(unsigned seed)
{
	struct rec *r = calloc(NREC, sizeof(*r));

	srand(seed);
	for (uint64_t i = 0; i < NREC; i++) {
		uint64_t t = 1000000 + i * 10000 + (uint64_t)(rand() % 3) * 5000;

		r[i] = (struct rec){ .issue = t, .complete = t + 50000 + (uint64_t)(rand() % 500000),
				     .sector = (uint64_t)(rand() % 100000) * 8,
				     .bytes = 4096u << (rand() % 3), .op = (uint8_t)(rand() % 5) };
		if (i % 997 == 3)
			r[i].complete = t + (uint64_t)(rand() % 100) * 1000000;
		if (i % 13 == 0)
			r[i].complete = t; /* zero latency: ties at the issue */
	}
	r[5].complete = 1000000 + NREC * 10000 + 99000000; /* outstanding to the end */
	r[7].op = BPT_OP_WRITE;
	qsort(r, NREC, sizeof(*r), by_complete);
	return r;
}

static void write_trace(const char *path, const struct rec *r, uint64_t n, uint32_t block)
{
	struct bpt_header *h = calloc(1, sizeof(*h));
	struct bpt_device d = { .name = "sdb", .major = 8, .minor = 16, .size_bytes = 1ull << 30 };
	struct bpt_writer_opts wo = { .block_records = block };
	struct bpt_writer *w;
	struct bpt_error err = { 0 };

	bpt_header_init(h, "capture");
	cr_assert_geq(bpt_header_add_device(h, &d), 0);
	cr_assert_eq(bpt_writer_create(&w, path, h, &wo, &err), 0, "%s", err.msg);
	for (uint64_t i = 0; i < n; i++) {
		struct bpt_record rec = { .issue_ns = r[i].issue, .queue_ns = r[i].issue,
					  .complete_ns = r[i].complete, .sector = r[i].sector,
					  .bytes = r[i].op == BPT_OP_FLUSH ? 0 : r[i].bytes,
					  .op = r[i].op };

		cr_assert_eq(bpt_writer_add(w, &rec), 0);
	}
	cr_assert_eq(bpt_writer_close(w, &err), 0, "%s", err.msg);
	free(h);
}

static int cmp_issue(const void *a, const void *b)
{
	const struct rp_io *x = a, *y = b;

	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return x->src < y->src ? -1 : x->src > y->src;
}

/* The replaced load: every record in memory, sorted by (issue, index). */
static struct rp_io *full_load(const char *path, enum writes_mode mode, uint64_t *n)
{
	struct bpt_reader *r;
	struct bpt_error err = { 0 };
	struct bpt_record rec;
	struct rp_io *io = calloc(NREC, sizeof(*io));
	uint64_t idx = 0, first = UINT64_MAX;

	*n = 0;
	cr_assert_eq(bpt_reader_open(&r, path, &err), 0, "%s", err.msg);
	while (bpt_reader_next(r, &rec, &err) == 1) {
		unsigned op = rec.op, flags = rec.flags;
		int w = op == BPT_OP_WRITE || op == BPT_OP_DISCARD || op == BPT_OP_WRITE_ZEROES;

		idx++;
		if (w && mode != WRITES_REPLAY) {
			if (mode == WRITES_SKIP || op != BPT_OP_WRITE)
				continue;
			op = BPT_OP_READ;
			flags &= ~(unsigned)BPT_F_FUA;
		}
		io[(*n)++] = (struct rp_io){
			.t_ns = rec.issue_ns,
			.done_ns = rec.complete_ns < rec.issue_ns ? rec.issue_ns : rec.complete_ns,
			.offset = rec.sector * 512, .len = rec.bytes, .src = (uint32_t)(idx - 1),
			.op = (uint8_t)op, .flags = (uint8_t)flags,
		};
		if (rec.issue_ns < first)
			first = rec.issue_ns;
	}
	bpt_reader_close(r);
	qsort(io, *n, sizeof(*io), cmp_issue);
	for (uint64_t i = 0; i < *n; i++) {
		io[i].t_ns -= first;
		io[i].done_ns -= first;
	}
	return io;
}

static int same_io(const struct rp_io *a, const struct rp_io *b)
{
	return a->t_ns == b->t_ns && a->done_ns == b->done_ns && a->offset == b->offset &&
	       a->len == b->len && a->src == b->src && a->target == b->target &&
	       a->op == b->op && a->flags == b->flags;
}

/* Open path and scan it onto one target with the --writes policy. */
static void scan_one_target(const char *path, enum writes_mode mode, struct bpt_reader **r,
			    struct loaded_trace *lt)
{
	struct bpt_error err = { 0 };
	struct load_opts lo = { .writes = mode };

	cr_assert_eq(bpt_reader_open(r, path, &err), 0, "%s", err.msg);
	cr_assert_eq(load_opts_init(&lo, 1), 0);
	lo.dev_target[0] = 0;
	cr_assert_eq(load_scan(*r, &lo, lt, &err), 0, "%s", err.msg);
	load_opts_free(&lo);
}

Test(replay_stream, same_order_as_the_full_load)
{
	char path[] = "/tmp/blkpeak-stream-XXXXXX";
	int fd = mkstemp(path);
	struct rec *recs = make_recs(11);
	static const uint64_t windows[] = { 2, 64, 1000, 0 };
	static const enum writes_mode modes[] = { WRITES_REPLAY, WRITES_SKIP, WRITES_AS_READS };

	cr_assert_geq(fd, 0);
	close(fd);
	write_trace(path, recs, NREC, 64);
	for (unsigned m = 0; m < 3; m++) {
		uint64_t n;
		struct rp_io *ref = full_load(path, modes[m], &n);

		for (unsigned w = 0; w < sizeof(windows) / sizeof(*windows); w++) {
			struct bpt_reader *r;
			struct bpt_error err = { 0 };
			struct loaded_trace lt;
			struct load_stream *s;
			struct rp_io io;
			uint64_t i = 0;
			int rc;

			scan_one_target(path, modes[m], &r, &lt);
			cr_assert_eq(lt.n, n);
			cr_assert_eq(lt.skipped, NREC - n);
			cr_assert_not(lt.issue_ordered, "written in completion order");
			uint64_t last_done = 0;

			for (uint64_t k = 0; k < n; k++)
				if (ref[k].done_ns > last_done)
					last_done = ref[k].done_ns;
			cr_assert_eq(lt.recorded_ns, last_done);
			cr_assert_eq(load_stream_open(&s, r, &lt, NULL, windows[w]), 0);
			while ((rc = load_stream_next(s, &io, &err)) == 1) {
				cr_assert_lt(i, n);
				cr_assert(same_io(&io, &ref[i]),
					  "window %llu, mode %u: I/O %llu is record %u, expected %u",
					  (unsigned long long)windows[w], m, (unsigned long long)i,
					  io.src, ref[i].src);
				i++;
			}
			cr_assert_eq(rc, 0, "%s", err.msg);
			cr_assert_eq(i, n);
			if (windows[w] == 1000)
				/* 313 blocks, 40 windows: each block is read once, and
				 * again per window only while it holds one of the 21
				 * long-outstanding I/Os (or straddles a window's edge),
				 * not every block for every window (12520) */
				cr_expect_lt(load_stream_decodes(s), 313 + 40 * (21 + 2),
					     "%llu block reads", (unsigned long long)load_stream_decodes(s));
			load_stream_close(s);
			cr_assert_eq(load_count_outstanding(r, &lt, windows[w], &err), 0, "%s", err.msg);
			cr_assert_eq(lt.max_outstanding, load_max_outstanding(ref, n));
			loaded_trace_free(&lt);
			bpt_reader_close(r);
		}
		free(ref);
	}
	unlink(path);
	free(recs);
}

/* --loop: a stream of 3 passes gives the full load's order 3 times, each
 * I/O with its pass, whatever the window (a window never spans passes). */
Test(replay_stream, passes_repeat_the_order)
{
	char path[] = "/tmp/blkpeak-stream-XXXXXX";
	int fd = mkstemp(path);
	struct rec *recs = make_recs(7);
	static const uint64_t windows[] = { 2, 1000, 0 };
	uint64_t n;

	cr_assert_geq(fd, 0);
	close(fd);
	write_trace(path, recs, NREC, 64);
	struct rp_io *ref = full_load(path, WRITES_REPLAY, &n);

	for (unsigned w = 0; w < sizeof(windows) / sizeof(*windows); w++) {
		struct bpt_reader *r;
		struct bpt_error err = { 0 };
		struct loaded_trace lt;
		struct load_stream *s;
		struct rp_io io;
		uint64_t i = 0;
		int rc;

		scan_one_target(path, WRITES_REPLAY, &r, &lt);
		cr_assert_eq(load_stream_open_passes(&s, r, &lt, NULL, windows[w], 3), 0);
		while ((rc = load_stream_next(s, &io, &err)) == 1) {
			cr_assert_lt(i, 3 * n);
			cr_assert_eq(load_stream_pass(s), i / n);
			cr_assert(same_io(&io, &ref[i % n]), "window %llu: I/O %llu is record %u, "
				  "expected %u", (unsigned long long)windows[w], (unsigned long long)i,
				  io.src, ref[i % n].src);
			i++;
		}
		cr_assert_eq(rc, 0, "%s", err.msg);
		cr_assert_eq(i, 3 * n);
		load_stream_close(s);
		loaded_trace_free(&lt);
		bpt_reader_close(r);
	}
	free(ref);
	unlink(path);
	free(recs);
}

Test(replay_stream, issue_ordered_file_counts_in_one_pass)
{
	char path[] = "/tmp/blkpeak-stream-XXXXXX";
	int fd = mkstemp(path);
	struct rec *recs = make_recs(5);
	struct bpt_reader *r;
	struct bpt_error err = { 0 };
	struct load_opts lo = { .writes = WRITES_REPLAY };
	struct loaded_trace lt;
	uint64_t n;
	struct rp_io *ref;

	cr_assert_geq(fd, 0);
	close(fd);
	/* the same I/Os in issue order (as `blkpeak generate` writes) */
	for (uint64_t i = 1; i < NREC; i++)
		for (uint64_t j = i; j > 0 && recs[j - 1].issue > recs[j].issue; j--) {
			struct rec t = recs[j];

			recs[j] = recs[j - 1];
			recs[j - 1] = t;
		}
	write_trace(path, recs, NREC, 1000);
	ref = full_load(path, WRITES_REPLAY, &n);
	cr_assert_eq(bpt_reader_open(&r, path, &err), 0, "%s", err.msg);
	cr_assert_eq(load_opts_init(&lo, 1), 0);
	lo.dev_target[0] = 0;
	cr_assert_eq(load_scan(r, &lo, &lt, &err), 0, "%s", err.msg);
	load_opts_free(&lo);
	cr_assert(lt.issue_ordered);
	cr_assert(lt.have_max_outstanding);
	cr_assert_eq(lt.max_outstanding, load_max_outstanding(ref, n));
	loaded_trace_free(&lt);
	bpt_reader_close(r);
	free(ref);
	free(recs);
	unlink(path);
}

/* The replaced causal bookkeeping: I/Os sorted by recorded completion,
 * each I/O's number of dependencies, a prefix of completions. */
struct old_causal {
	const struct rp_io *io;
	uint64_t n, q;
	uint32_t *order, *ndeps;
	uint64_t *done_at, *prefix_done;
	uint8_t *completed;
};

static const struct rp_io *sort_io;

static int cmp_done(const void *a, const void *b)
{
	uint64_t x = sort_io[*(const uint32_t *)a].done_ns, y = sort_io[*(const uint32_t *)b].done_ns;

	return x < y ? -1 : x > y;
}

static void old_init(struct old_causal *c, const struct rp_io *io, uint64_t n)
{
	uint64_t j = 0;

	*c = (struct old_causal){ .io = io, .n = n };
	c->order = malloc(n * sizeof(*c->order));
	c->ndeps = malloc(n * sizeof(*c->ndeps));
	c->done_at = calloc(n, sizeof(*c->done_at));
	c->prefix_done = calloc(n + 1, sizeof(*c->prefix_done));
	c->completed = calloc(n, 1);
	for (uint64_t i = 0; i < n; i++)
		c->order[i] = (uint32_t)i;
	sort_io = io;
	qsort(c->order, n, sizeof(*c->order), cmp_done);
	for (uint64_t i = 0; i < n; i++) {
		while (j < n && io[c->order[j]].done_ns < io[i].t_ns)
			j++;
		c->ndeps[i] = (uint32_t)j;
	}
}

static void old_completed(struct old_causal *c, uint64_t idx, uint64_t rel)
{
	c->completed[idx] = 1;
	c->done_at[idx] = rel;
	while (c->q < c->n && c->completed[c->order[c->q]]) {
		uint64_t d = c->done_at[c->order[c->q]];

		c->prefix_done[c->q + 1] = d > c->prefix_done[c->q] ? d : c->prefix_done[c->q];
		c->q++;
	}
}

static int old_ready(const struct old_causal *c, uint64_t i, uint64_t *deps_done, uint64_t *since)
{
	uint32_t k = c->ndeps[i];

	if (c->q < k)
		return 0;
	*deps_done = c->prefix_done[k];
	*since = k ? c->io[c->order[k - 1]].done_ns : 0;
	return 1;
}

Test(replay_stream, causal_dependencies_as_before)
{
	char path[] = "/tmp/blkpeak-stream-XXXXXX";
	int fd = mkstemp(path);
	struct rec *recs = make_recs(7);
	uint64_t n;
	struct rp_io *io;

	cr_assert_geq(fd, 0);
	close(fd);
	write_trace(path, recs, NREC, 4096);
	io = full_load(path, WRITES_REPLAY, &n);
	unlink(path);
	for (unsigned seed = 1; seed <= 3; seed++) {
		struct old_causal oc;
		struct causal c = { 0 };
		uint64_t *inflight = malloc(n * sizeof(*inflight)), nin = 0, next = 0, now = 0;
		uint32_t *slot = malloc(n * sizeof(*slot));
		uint64_t peak_slots = 0;

		old_init(&oc, io, n);
		srand(seed);
		while (next < n || nin) {
			uint64_t od, os, nd, ns;
			int ready = 0;

			if (next < n) {
				int o = old_ready(&oc, next, &od, &os);

				ready = causal_ready(&c, io[next].t_ns, &nd, &ns);
				cr_assert_eq(ready, o, "I/O %llu: ready %d, was %d",
					     (unsigned long long)next, ready, o);
				if (ready) {
					cr_assert_eq(nd, od, "I/O %llu: deps done", (unsigned long long)next);
					cr_assert_eq(ns, os, "I/O %llu: since", (unsigned long long)next);
				}
			}
			/* issue when ready (most of the time), else complete one of
			 * those in flight, picked at random */
			if (ready && (!nin || rand() % 4)) {
				cr_assert_eq(causal_issued(&c, io[next].done_ns, &slot[next]), 0);
				inflight[nin++] = next++;
			} else {
				cr_assert(nin, "nothing in flight and I/O %llu waits",
					  (unsigned long long)next);
				uint64_t k = (uint64_t)rand() % nin, idx = inflight[k];

				now += (uint64_t)(rand() % 1000);
				causal_done(&c, slot[idx], now);
				old_completed(&oc, idx, now);
				inflight[k] = inflight[--nin];
			}
			if (c.nslots - c.nfree > peak_slots)
				peak_slots = c.nslots - c.nfree;
		}
		/* memory follows what is in flight, not the 20000 I/Os */
		cr_expect_lt(peak_slots, 4096, "%llu slots", (unsigned long long)peak_slots);
		causal_free(&c);
		free(oc.order);
		free(oc.ndeps);
		free(oc.done_at);
		free(oc.prefix_done);
		free(oc.completed);
		free(inflight);
		free(slot);
	}
	free(io);
	free(recs);
}

struct emitted { uint64_t seq[64]; unsigned n; };

static void emit(void *ctx, const struct rp_result *r)
{
	struct emitted *e = ctx;

	cr_assert_eq(r->io->src, r->seq * 10, "the I/O travels with its result");
	e->seq[e->n++] = r->seq;
}

static void add(struct result_order *o, uint64_t seq)
{
	struct rp_io io = { .src = (uint32_t)(seq * 10) };
	struct rp_result r = { .io = &io, .seq = seq };

	result_order_add(o, &r);
}

Test(replay_stream, results_in_issue_order)
{
	struct result_order o;
	struct emitted e = { 0 };
	static const uint64_t arrive[] = { 2, 0, 1, 5, 3, 4, 7, 6, 8, 9 };

	cr_assert_eq(result_order_init(&o, 4, emit, &e), 0);
	for (unsigned i = 0; i < 10; i++)
		add(&o, arrive[i]);
	result_order_flush(&o);
	cr_assert_eq(e.n, 10);
	for (unsigned i = 0; i < 10; i++)
		cr_expect_eq(e.seq[i], i);
	cr_expect_eq(o.stragglers, 0);
	result_order_free(&o);

	/* 1 stays out while 8 later ones complete: the ring (4) moves past it */
	memset(&e, 0, sizeof(e));
	cr_assert_eq(result_order_init(&o, 4, emit, &e), 0);
	add(&o, 0);
	for (uint64_t s = 2; s < 10; s++)
		add(&o, s);
	add(&o, 1);
	result_order_flush(&o);
	cr_assert_eq(e.n, 10);
	static const uint64_t want[] = { 0, 2, 3, 4, 5, 6, 7, 8, 9, 1 };
	for (unsigned i = 0; i < 10; i++)
		cr_expect_eq(e.seq[i], want[i], "[%u] %llu", i, (unsigned long long)e.seq[i]);
	cr_expect_eq(o.stragglers, 1);
	result_order_free(&o);
}

struct consumed { uint64_t n, bad; };

static void consume(void *ctx, const struct rp_result *r)
{
	struct consumed *c = ctx;

	if (r->seq != c->n || r->io->src != (uint32_t)r->seq)
		c->bad++;
	c->n++;
}

Test(replay_stream, results_thread_keeps_every_result_in_order)
{
	struct result_thread *t;
	struct consumed c = { 0 };

	/* a ring of 64 for 100000 results: the issuer waits for room often */
	cr_assert_eq(result_thread_start(&t, 64, consume, &c), 0);
	for (uint64_t i = 0; i < 100000; i++) {
		struct rp_io io = { .src = (uint32_t)i };
		struct rp_result r = { .io = &io, .seq = i };

		result_thread_push(t, &r);
	}
	result_thread_stop(t);
	cr_assert_eq(c.n, 100000);
	cr_assert_eq(c.bad, 0);
}

/* The results' thread counts its own voluntary context switches (its
 * sleeps) when it takes a result. */
struct slow_consumed { _Atomic uint64_t n; _Atomic long sleeps; };

static void consume_counting_sleeps(void *ctx, const struct rp_result *r)
{
	struct slow_consumed *c = ctx;
	struct rusage ru;

	(void)r;
	if (!getrusage(RUSAGE_THREAD, &ru))
		atomic_store(&c->sleeps, ru.ru_nvcsw);
	atomic_fetch_add(&c->n, 1);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Results that come slowly (as at depth 1) do not wake the thread one by
 * one: it sleeps until a batch (a quarter of the ring) is there or 20 ms
 * passed. It used to nap 200 us at a time, waking thousands of times a
 * second. The bound grows with the time taken, so a loaded machine that
 * stretches the run cannot break it; it only counts sleeps that ended. */
Test(replay_stream, results_thread_sleeps_per_batch_not_per_result)
{
	struct result_thread *t;
	struct slow_consumed c = { 0 };
	uint64_t start, elapsed;

	cr_assert_eq(result_thread_start(&t, 1024, consume_counting_sleeps, &c), 0);
	start = mono_ns();
	for (uint64_t i = 0; i < 2000; i++) {
		struct rp_io io = { .src = (uint32_t)i };
		struct rp_result r = { .io = &io, .seq = i };

		result_thread_push(t, &r);
		nanosleep(&(struct timespec){ .tv_nsec = 50000 }, NULL);
	}
	result_thread_stop(t);
	elapsed = mono_ns() - start;
	cr_assert_eq(atomic_load(&c.n), 2000);
	/* one sleep per 20 ms, one per batch of 256, and a few to spare */
	cr_expect_leq(atomic_load(&c.sleeps), (long)(elapsed / 20000000u + 2000 / 256 + 8),
		      "%ld sleeps in %.1f ms", atomic_load(&c.sleeps), (double)elapsed / 1e6);
}

/* A few results, fewer than a batch, are still taken without a stop:
 * the thread's sleep has a timeout. */
Test(replay_stream, results_thread_takes_a_few_results_without_a_stop)
{
	struct result_thread *t;
	struct slow_consumed c = { 0 };
	uint64_t start;

	cr_assert_eq(result_thread_start(&t, 16384, consume_counting_sleeps, &c), 0);
	for (uint64_t i = 0; i < 10; i++) {
		struct rp_io io = { .src = (uint32_t)i };
		struct rp_result r = { .io = &io, .seq = i };

		result_thread_push(t, &r);
	}
	start = mono_ns();
	while (atomic_load(&c.n) < 10 && mono_ns() - start < 30000000000ull)
		nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
	cr_expect_eq(atomic_load(&c.n), 10);
	result_thread_stop(t);
}

static uint64_t slice_of(pid_t tid)
{
	struct slice_attr a = { 0 };

	cr_assert_eq(syscall(SYS_sched_getattr, tid, &a, sizeof(a), 0), 0);
	return a.sched_runtime;
}

/* The results' thread runs with the longest slice the kernel takes, so
 * the I/O path's threads waking on its CPU go first (thread_slice.h).
 * A kernel without custom slices (before 6.12) reports none at all. */
Test(replay_stream, results_thread_has_the_long_slice)
{
	struct result_thread *t;
	struct consumed c = { 0 };
	pid_t self = (pid_t)syscall(SYS_gettid);
	unsigned longs = 0, others = 0;
	DIR *d;
	struct dirent *e;

	cr_assert_eq(result_thread_start(&t, 64, consume, &c), 0);
	/* the thread sets its slice first thing: wait for its first result */
	struct rp_io io = { .src = 0 };
	struct rp_result r = { .io = &io, .seq = 0 };
	result_thread_push(t, &r);
	for (uint64_t start = mono_ns(); c.n < 1 && mono_ns() - start < 30000000000ull;)
		nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
	cr_assert_not_null(d = opendir("/proc/self/task"));
	while ((e = readdir(d))) {
		pid_t tid = (pid_t)atoi(e->d_name);

		if (tid <= 0 || tid == self)
			continue;
		if (slice_of(tid) == THREAD_SLICE_LONG_NS)
			longs++;
		else
			others++;
	}
	closedir(d);
	result_thread_stop(t);
	if (slice_of(self)) /* custom slices: a fair task reports its own */
		cr_expect_eq(longs, 1, "%u threads with the long slice, %u others", longs, others);
	cr_expect_neq(slice_of(self), THREAD_SLICE_LONG_NS, "the caller keeps its own");
}
