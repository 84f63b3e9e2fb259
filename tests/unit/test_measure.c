/*
 * Unit tests of measure/'s arithmetic: a step's figures from units with
 * known times (what the null engine with a fixed latency would give,
 * worked out by hand: IOPS, MB/s, the warm-up left out, percentiles by
 * the nearest-rank rule), the weights from time at each queue depth on
 * hand-drawn timelines, and the option parsers' refusals.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "../../measure/depths.h"
#include "../../measure/figures.h"
#include "../../measure/measure.h"
#include "bpt.h"
#include "bpt_testutil.h"

/* Depth-2 service of n units of 4 KiB, each 100 us, issued in pairs:
 * pair k is issued at k * 100 us and completes 100 us later. */
static void pairs(struct unit *u, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		u[i] = (struct unit){ .issue_ns = (i / 2) * 100000ull,
				      .complete_ns = (i / 2) * 100000ull + 100000, .bytes = 4096 };
}

Test(measure, figures_fixed_latency)
{
	struct unit u[100];
	struct figures f;

	pairs(u, 100);
	cr_assert_eq(figures_compute(u, 100, 0, &f), 0);
	/* 100 units in 50 pairs: window 50 * 100 us = 5 ms */
	cr_assert_eq(f.units, 100);
	cr_assert_eq(f.window_ns, 5000000);
	cr_assert_float_eq(f.iops, 20000.0, 1e-9);
	cr_assert_float_eq(f.mb_per_s, 100 * 4096 / 5e-3 / 1e6, 1e-9);
	cr_assert_eq(f.lat.count, 100);
	cr_assert_float_eq(f.lat.mean_ns, 100000.0, 1e-9);
	for (unsigned i = 0; i < STATS_NPCT; i++)
		cr_assert_eq(f.lat.pct[i], 100000);
	/* Little's law: depth = IOPS * latency = 20000/s * 100 us = 2 */
	cr_assert_float_eq(f.iops * f.lat.mean_ns / 1e9, 2.0, 1e-9);
}

Test(measure, figures_warmup_left_out)
{
	struct unit u[10];
	struct figures f;

	/* units 0..3 are slow (1 ms each, one after another); 4..9 take
	 * 10, 20, ... 60 us back to back from 4 ms */
	uint64_t t = 0;

	for (unsigned i = 0; i < 4; i++, t += 1000000)
		u[i] = (struct unit){ t, t + 1000000, 512, 0 };
	for (unsigned i = 4; i < 10; i++) {
		uint64_t lat = (i - 3) * 10000ull;

		u[i] = (struct unit){ t, t + lat, 512, i == 9 ? -5 : 0 };
		t += lat;
	}
	cr_assert_eq(figures_compute(u, 10, 4, &f), 0);
	cr_assert_eq(f.units, 6);
	cr_assert_eq(f.errors, 1);
	cr_assert_eq(f.bytes, 6 * 512);
	cr_assert_eq(f.window_ns, 210000); /* 10+20+...+60 us */
	cr_assert_float_eq(f.iops, 6 / 210e-6, 1e-6);
	cr_assert_float_eq(f.lat.mean_ns, 35000.0, 1e-9);
	/* nearest rank of 6 values: p50 rank 3, p90 rank ceil(5.4) = 6 */
	cr_assert_eq(f.lat.pct[0], 30000);
	cr_assert_eq(f.lat.pct[1], 60000);
	cr_assert_eq(f.lat.pct[STATS_NPCT - 1], 60000);
	/* every unit a warm-up: nothing to measure */
	cr_assert_eq(figures_compute(u, 10, 10, &f), -EINVAL);
	/* a completion before its issue */
	u[5].complete_ns = u[5].issue_ns - 1;
	cr_assert_eq(figures_compute(u, 10, 4, &f), -EINVAL);
}

Test(measure, depths_parse_and_refuse)
{
	struct depths d;
	struct bpt_error e = { 0 };

	cr_assert_eq(depths_parse("1,2,4,8", &d, &e), 0);
	cr_assert_eq(d.n, 4);
	cr_assert_float_eq(d.weight[3], 0.25, 1e-12);
	cr_assert_eq(depths_parse("0,2", &d, &e), -EINVAL);
	cr_assert(strstr(e.msg, "1..65536"), "%s", e.msg);
	cr_assert_eq(depths_parse("4,2", &d, &e), -EINVAL);
	cr_assert(strstr(e.msg, "increase"), "%s", e.msg);
	cr_assert_eq(depths_parse("1,x", &d, &e), -EINVAL);
	cr_assert_eq(depths_parse("1,2,4", &d, &e), 0);
	cr_assert_eq(depths_weights_parse("1:1,4:3", &d, &e), 0);
	cr_assert_float_eq(d.weight[0], 0.25, 1e-12);
	cr_assert_float_eq(d.weight[1], 0.0, 1e-12);
	cr_assert_float_eq(d.weight[2], 0.75, 1e-12);
	cr_assert_eq(depths_weights_parse("8:1", &d, &e), -EINVAL);
	cr_assert(strstr(e.msg, "not in --depths"), "%s", e.msg);
	cr_assert_eq(depths_weights_parse("1:-1", &d, &e), -EINVAL);
	cr_assert_eq(depths_weights_parse("1:0", &d, &e), -EINVAL);
}

Test(measure, weights_from_time_at_depth)
{
	/* Request A 0..100, B 50..150, C 150..200 (times in ns), D 300..400,
	 * E 310..320, F 315..330.
	 * depth 1: 0..50, 100..150, 150..200 (B ends as C starts: no gap
	 *          and no depth 2), 300..310, 330..400 -> 50+50+50+10+70 = 230
	 * depth 2: 50..100, 310..315, 320..330              -> 50+5+10 = 65
	 * depth 3: 315..320                                 -> 5
	 * idle 200..300 counts for none; busy = 300. */
	const uint64_t t[] = { 0, 100, 50, 150, 150, 200, 300, 400, 310, 320, 315, 330 };
	struct depths d;
	struct bpt_error e = { 0 };

	cr_assert_eq(depths_parse("1,2,4", &d, &e), 0);
	cr_assert_eq(depths_weights_of(t, 6, &d, &e), 0);
	cr_assert_eq(d.busy_ns[0], 230);
	cr_assert_eq(d.busy_ns[1], 65);
	cr_assert_eq(d.busy_ns[2], 5); /* depth 3 counts for 4, the next swept depth up */
	cr_assert_float_eq(d.weight[0], 230.0 / 300, 1e-12);
	cr_assert_float_eq(d.weight[2], 5.0 / 300, 1e-12);
	/* depths above the largest swept count for it */
	cr_assert_eq(depths_parse("1", &d, &e), 0);
	cr_assert_eq(depths_weights_of(t, 6, &d, &e), 0);
	cr_assert_eq(d.busy_ns[0], 300);
	cr_assert_float_eq(d.weight[0], 1.0, 1e-12);
	/* zero-length requests only: no busy time */
	{
		const uint64_t z[] = { 5, 5, 9, 9 };

		cr_assert_eq(depths_weights_of(z, 2, &d, &e), -EINVAL);
	}
}

/* --like: on a trace of 6 reads and writes (and a flush, left out) the
 * read share, the random share (an I/O not starting where the previous
 * one on its device ended; the first counts as random) and the sizes,
 * most frequent first, in parts per million. */
Test(measure, like_takes_the_mix)
{
	const char *path = tu_tmpname("like.bpt");
	/* op, sector, bytes */
	const struct { uint8_t op; uint64_t sector; uint32_t bytes; } io[] = {
		{ BPT_OP_READ, 0, 4096 },     /* random (first) */
		{ BPT_OP_READ, 8, 4096 },     /* sequential */
		{ BPT_OP_FLUSH, 0, 0 },       /* left out */
		{ BPT_OP_WRITE, 16, 65536 },  /* sequential */
		{ BPT_OP_READ, 1000, 4096 },  /* random */
		{ BPT_OP_WRITE, 1008, 4096 }, /* sequential */
		{ BPT_OP_READ, 5, 1000 },     /* random, rounded up to 1024 */
	};
	struct bpt_header h;
	struct bpt_device d = { .name = "d", .size_bytes = 1 << 20, .logical_block_size = 512,
				.physical_block_size = 512 };
	struct bpt_writer *w;
	struct bpt_error e = { 0 };
	double rp, xp;
	char mix[256];

	bpt_header_init(&h, "generate");
	bpt_header_add_device(&h, &d);
	cr_assert_eq(bpt_writer_create(&w, path, &h, NULL, &e), 0, "%s", e.msg);
	for (unsigned i = 0; i < sizeof(io) / sizeof(io[0]); i++) {
		struct bpt_record r = { .issue_ns = i * 10, .complete_ns = i * 10 + 5,
					.queue_ns = i * 10, .sector = io[i].sector,
					.bytes = io[i].bytes, .op = io[i].op };

		cr_assert_eq(bpt_writer_add(w, &r), 0);
	}
	cr_assert_eq(bpt_writer_close(w, &e), 0, "%s", e.msg);
	cr_assert_eq(measure_like(path, &rp, &xp, mix, sizeof(mix), &e), 0, "%s", e.msg);
	cr_assert_float_eq(rp, 400.0 / 6, 1e-9);
	cr_assert_float_eq(xp, 300.0 / 6, 1e-9);
	/* 4096 x4, then 1024 and 65536 once each (equal counts: smaller first) */
	cr_assert_str_eq(mix, "4096:666667,1024:166667,65536:166667");
	tu_cleanup();
}
