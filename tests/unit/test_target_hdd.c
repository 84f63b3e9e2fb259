/* Unit tests of the layering engine that holds completions until the
 * emulated disk's finish time (replay/disk/target_hdd.c), over the null engine
 * (no real I/O). Only lower bounds on wall time are asserted: a loaded
 * machine can make the engine late, never early. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "bpt.h"
#include "cliutil.h"
#include "../../replay/engine/engine.h"
#include "../../replay/disk/target_hdd.h"

#define MODEL_FD 5   /* a descriptor number; the null engine never uses it */
#define REAL_FD 6

static struct hdd_set *set_with(const char *spec)
{
	struct hdd_set *s;
	struct disk_params p;
	struct bpt_error why = { 0 };

	cr_assert_eq(hdd_set_create(&s), 0);
	cr_assert_eq(disk_params_parse(spec, &p, &why), 0, "%s", why.msg);
	cr_assert_eq(hdd_set_add(s, MODEL_FD, &p, 1ull << 30), 0);
	cr_expect_eq(hdd_set_add(s, MODEL_FD, &p, 1ull << 30), -EEXIST);
	cr_expect_eq(hdd_set_add(s, -1, &p, 1ull << 30), -EINVAL);
	cr_expect_eq(hdd_set_add(s, REAL_FD, &p, 0), -EINVAL, "an empty disk");
	cr_expect_eq(hdd_set_count(s), 1);
	return s;
}

/* One channel, 3 ms per read: n reads queued at once come back one by
 * one, the last no sooner than n x 3 ms after the commit. */
Test(target_hdd, completions_wait_for_the_model)
{
	struct hdd_set *set = set_with("type=ssd,channels=1,channel_rate=1000,read_lat=3ms");
	struct engine_opts o = { .depth = 8, .inner = &engine_null_ops, .hdd = set };
	struct engine *e;
	struct eng_io io[6];
	uint64_t t0, got_at[6];
	unsigned got = 0;

	cr_assert_eq(engine_hdd_ops.open(&e, &o), 0);
	memset(io, 0, sizeof(io));
	for (int i = 0; i < 6; i++) {
		io[i] = (struct eng_io){ .fd = i == 5 ? REAL_FD : MODEL_FD, .op = BPT_OP_READ,
					 .offset = 4096u * i, .len = 4096 };
		cr_assert_eq(engine_hdd_ops.queue(e, &io[i]), ENG_QUEUED);
	}
	cr_expect_eq(engine_hdd_ops.pending(e), 6);
	t0 = now_mono_ns();
	cr_assert_geq(engine_hdd_ops.commit(e), 0);
	cr_expect_eq(engine_hdd_ops.pending(e), 0);
	while (got < 6) {
		int n = engine_hdd_ops.getevents(e, 1, 6, UINT64_MAX);

		cr_assert_gt(n, 0);
		for (int i = 0; i < n; i++) {
			struct eng_io *x = engine_hdd_ops.event(e, (unsigned)i);

			cr_assert_not_null(x);
			got_at[x - io] = now_mono_ns() - t0;
			got++;
		}
	}
	cr_expect_lt(got_at[5], 3000000, "the unmodelled I/O is not held (%llu ns)",
		     (unsigned long long)got_at[5]);
	for (int i = 0; i < 5; i++) {
		cr_expect_geq(got_at[i], 3000000ull * (i + 1), "read %d back after %llu ns", i,
			      (unsigned long long)got_at[i]);
		/* the completion time handed on is the model's (read i of one
		 * channel ends (i + 1) x 3 ms after the commit), not when it
		 * was reaped */
		cr_expect(io[i].done_ns >= t0 + 3000000ull * (i + 1) &&
				  io[i].done_ns <= t0 + got_at[i],
			  "read %d: done_ns %lld ns after the commit, back after %llu", i,
			  (long long)(io[i].done_ns - t0), (unsigned long long)got_at[i]);
	}
	cr_expect_eq(io[5].done_ns, 0, "the unmodelled I/O carries no time");
	/* a zero timeout returns at once with what is ready (nothing) */
	cr_expect_eq(engine_hdd_ops.getevents(e, 0, 6, 0), 0);
	engine_hdd_ops.close(e);
	hdd_set_free(set);
}

Test(target_hdd, timeout_returns_before_the_model_finishes)
{
	struct hdd_set *set = set_with("type=ssd,channels=1,channel_rate=1000,read_lat=200ms");
	struct engine_opts o = { .depth = 2, .inner = &engine_null_ops, .hdd = set };
	struct engine *e;
	struct eng_io io = { .fd = MODEL_FD, .op = BPT_OP_READ, .len = 4096 };
	uint64_t t0;

	cr_assert_eq(engine_hdd_ops.open(&e, &o), 0);
	cr_assert_eq(engine_hdd_ops.queue(e, &io), ENG_QUEUED);
	cr_assert_geq(engine_hdd_ops.commit(e), 0);
	t0 = now_mono_ns();
	cr_expect_eq(engine_hdd_ops.getevents(e, 1, 1, 5000000), 0, "held past a 5 ms timeout");
	cr_expect_geq(now_mono_ns() - t0, 5000000);
	cr_expect_eq(engine_hdd_ops.getevents(e, 1, 1, UINT64_MAX), 1);
	cr_expect_geq(now_mono_ns() - t0, 200000000);
	cr_expect_eq(engine_hdd_ops.event(e, 0), &io);
	engine_hdd_ops.close(e);
	hdd_set_free(set);
}

Test(target_hdd, open_needs_inner_and_set)
{
	struct engine *e;
	struct engine_opts o = { .depth = 2 };

	cr_expect_eq(engine_hdd_ops.open(&e, &o), -EINVAL);
}
