/* Unit tests of the emulated-disk model (replay/disk/disk_model.c, presets in
 * replay/disk/disk_presets.c), driven in model time: no clock, no I/O. The
 * anchors are the seeds' numbers: QD 1 random reads at 1 / (seek + half a
 * turn + transfer), one commit per turn with the write cache off, RAID 0
 * of two no faster at depth 1 and about 1.5x at depth 2, RAID 1 near 2x. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bpt.h"
#include "../../replay/disk/disk_model.h"
#include "../../replay/array/layout.h"

#define GB 1000000000ull
#define MIB (1024ull * 1024)
#define HDD_PRESETS { "7200", "5400", "raptor360", "raptor740", "15k" }

static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static struct disk_params preset(const char *name)
{
	struct disk_params p;

	cr_assert_eq(disk_params_preset(name, &p), 0, "preset %s", name);
	return p;
}

/*
 * Closed loop over a layout of nd emulated disks: keep `depth` requests
 * outstanding, each `bs` bytes at a random bs-aligned offset in
 * [lo, hi) of the layout, until n complete. Returns I/Os per second of
 * model time.
 */
static double closed_loop(struct layout *l, struct disk_model *d, unsigned depth, unsigned n,
			  uint64_t bs, uint64_t lo, uint64_t hi)
{
	struct layout_part parts[64][8];
	unsigned left[64], issued = 0, done = 0;
	uint64_t t0 = 1000000000ull, t = t0;

	cr_assert(depth <= 64);
	for (unsigned s = 0; s < depth; s++, issued++) {
		uint64_t off = lo + rnd() % ((hi - lo) / bs) * bs;
		int np = layout_map(l, BPT_OP_READ, off, bs, parts[s], 8);

		cr_assert_gt(np, 0);
		left[s] = (unsigned)np;
		for (int p = 0; p < np; p++) {
			struct dm_req r = { .id = s * 8u + (unsigned)p, .offset = parts[s][p].offset,
					    .len = parts[s][p].len, .op = BPT_OP_READ, .arrival = t };

			cr_assert_eq(disk_model_submit(&d[parts[s][p].member], &r), 0);
		}
	}
	while (done < n) {
		uint64_t next = DM_NEVER;

		for (unsigned i = 0; i < l->nmembers; i++)
			if (disk_model_next_finish(&d[i]) < next)
				next = disk_model_next_finish(&d[i]);
		cr_assert_neq(next, DM_NEVER, "requests outstanding but no disk busy");
		t = next;
		for (unsigned i = 0; i < l->nmembers; i++) {
			struct dm_req r;

			cr_assert_eq(disk_model_advance(&d[i], t), 0);
			while (disk_model_pop(&d[i], &r)) {
				unsigned s = (unsigned)(r.id / 8);

				cr_assert_leq(r.finish, t, "popped before it finished");
				layout_part_done(l, &parts[s][r.id % 8]);
				if (--left[s])
					continue;
				done++;
				if (issued >= n)
					continue;
				issued++;
				uint64_t off = lo + rnd() % ((hi - lo) / bs) * bs;
				int np = layout_map(l, BPT_OP_READ, off, bs, parts[s], 8);

				cr_assert_gt(np, 0);
				left[s] = (unsigned)np;
				for (int p = 0; p < np; p++) {
					struct dm_req q = {
						.id = s * 8u + (unsigned)p, .offset = parts[s][p].offset,
						.len = parts[s][p].len, .op = BPT_OP_READ, .arrival = t,
					};

					cr_assert_eq(disk_model_submit(&d[parts[s][p].member], &q), 0);
				}
			}
		}
	}
	return (double)n / ((double)(t - t0) / 1e9);
}

static struct layout one_disk(uint64_t size)
{
	struct layout l = { .kind = LAYOUT_SINGLE, .nmembers = 1, .member_size = { size } };

	cr_assert_eq(layout_init(&l), 0);
	return l;
}

static double single_iops(const char *name, uint64_t cap, unsigned depth, unsigned n,
			  uint64_t bs, uint64_t lo, uint64_t hi)
{
	struct disk_params p = preset(name);
	struct disk_model m;
	struct layout l = one_disk(cap);
	double iops;

	cr_assert_eq(disk_model_init(&m, &p, cap), 0);
	iops = closed_loop(&l, &m, depth, n, bs, lo, hi);
	disk_model_free(&m);
	return iops;
}

static void near(double got, double want, double tol, const char *what)
{
	cr_expect(fabs(got - want) <= tol * want, "%s: %.2f, want %.2f +-%.0f%%", what, got, want,
		  tol * 100);
}

/* Wait for the one request submitted at time t; returns its finish. */
static uint64_t finish_one(struct disk_model *m, uint64_t t)
{
	struct dm_req r;

	if (disk_model_next_finish(m) != DM_NEVER) /* else done when it arrived */
		t = disk_model_next_finish(m);
	cr_assert_eq(disk_model_advance(m, t), 0);
	cr_assert_eq(disk_model_pop(m, &r), 1);
	cr_assert_eq(r.finish, t);
	return t;
}

Test(disk_model, qd1_random_reads_follow_seek_rotation_transfer)
{
	const char *names[] = HDD_PRESETS;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct disk_params p = preset(names[i]);
		double rot = 60e9 / p.rpm;
		double xfer = 4096 / ((p.rate_outer + p.rate_inner) / 2 * 1e-3);
		double want = 1e9 / (p.overhead_ns + p.seek_avg_ns + rot / 2 + xfer);
		double got = single_iops(names[i], 100 * GB, 1, 20000, 4096, 0, 100 * GB);

		cr_log_info("%s: QD1 random 4 KiB reads %.1f IOPS, formula %.1f", names[i], got, want);
		near(got, want, 0.05, names[i]);
	}
}

Test(disk_model, seek_curve_meets_the_data_sheet_points)
{
	struct disk_params p = preset("7200");
	struct disk_model m;

	cr_assert_eq(disk_model_init(&m, &p, 100 * GB), 0);
	near(disk_model_seek_ns(&m, 1), p.seek_t2t_ns, 0.001, "one cylinder = track-to-track");
	near(disk_model_seek_ns(&m, m.ncyl), p.seek_full_ns, 0.001, "full stroke");
	cr_expect_eq(disk_model_seek_ns(&m, 0), 0, "no move, no seek");
	for (double x = 1; x < m.ncyl; x *= 2)
		cr_expect_leq(disk_model_seek_ns(&m, x), disk_model_seek_ns(&m, 2 * x),
			      "the curve grows with distance");
	disk_model_free(&m);
}

/* Random reads over 1% of the disk: faster than over all of it, by what
 * the curve says the shorter seeks cost. */
Test(disk_model, short_span_seeks_are_faster_by_the_curve)
{
	struct disk_params p = preset("7200");
	struct disk_model m;
	uint64_t cap = 100 * GB, span = cap / 100;
	double rot = 60e9 / p.rpm, sum = 0, want, got, whole;

	cr_assert_eq(disk_model_init(&m, &p, cap), 0);
	for (unsigned i = 0; i < 200; i++)
		for (unsigned j = 0; j < 200; j++) {
			double a = floor(disk_model_cylinder(&m, (uint64_t)((i + 0.5) / 200 * span)));
			double b = floor(disk_model_cylinder(&m, (uint64_t)((j + 0.5) / 200 * span)));

			sum += disk_model_seek_ns(&m, fabs(a - b));
		}
	want = 1e9 / (p.overhead_ns + sum / 40000 + rot / 2 + 4096 / (p.rate_outer * 1e-3));
	got = single_iops("7200", cap, 1, 20000, 4096, 0, span);
	whole = single_iops("7200", cap, 1, 20000, 4096, 0, cap);
	near(got, want, 0.05, "1% span");
	cr_expect_gt(got, 1.4 * whole, "1%% span %.1f IOPS, whole disk %.1f", got, whole);
	disk_model_free(&m);
}

/* Sequential reads (the read-ahead streams them) run at the zone's rate. */
static double seq_rate(const char *name, uint64_t cap, uint64_t from, uint64_t bytes)
{
	struct disk_params p = preset(name);
	struct disk_model m;
	uint64_t t = 1000000000ull, t0 = t;

	cr_assert_eq(disk_model_init(&m, &p, cap), 0);
	for (uint64_t off = from; off < from + bytes; off += 64 * 1024) {
		struct dm_req r = { .offset = off, .len = 64 * 1024, .op = BPT_OP_READ, .arrival = t };

		cr_assert_eq(disk_model_submit(&m, &r), 0);
		t = finish_one(&m, t);
	}
	disk_model_free(&m);
	return (double)bytes / ((double)(t - t0) / 1e3); /* MB/s */
}

Test(disk_model, zcav_outer_and_inner_zone_rates)
{
	const char *names[] = HDD_PRESETS;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct disk_params p = preset(names[i]);
		uint64_t cap = 100 * GB, span = 512 * MIB;

		near(seq_rate(names[i], cap, 0, span), p.rate_outer, 0.03, names[i]);
		near(seq_rate(names[i], cap, cap - span, span), p.rate_inner, 0.03, names[i]);
	}
}

Test(disk_model, zone_table_from_zones_key)
{
	struct disk_params p;
	struct disk_model m;
	struct bpt_error why = { 0 };

	cr_assert_eq(disk_params_parse("7200,zones=60/50/40/30", &p, &why), 0, "%s", why.msg);
	cr_assert_eq(disk_model_init(&m, &p, 100 * GB), 0);
	near(disk_model_zone_rate(&m, 0), 60, 1e-9, "zone 0");
	near(disk_model_zone_rate(&m, 100 * GB - 1), 30, 1e-9, "last zone");
	disk_model_free(&m);
	near(seq_rate("7200", 100 * GB, 0, 256 * MIB), 50, 0.03, "preset's outer rate");
}

/* Write + flush, one at a time, appending like a log. */
static double commit_rate(const char *name, const char *extra)
{
	struct disk_params p;
	struct disk_model m;
	struct bpt_error why = { 0 };
	char spec[64];
	uint64_t t = 1000000000ull, t0 = t, off = 10 * GB;
	unsigned n = 2000;

	snprintf(spec, sizeof(spec), "%s,%s", name, extra);
	cr_assert_eq(disk_params_parse(spec, &p, &why), 0, "%s", why.msg);
	cr_assert_eq(disk_model_init(&m, &p, 100 * GB), 0);
	for (unsigned i = 0; i < n; i++, off += 4096) {
		struct dm_req w = { .offset = off, .len = 4096, .op = BPT_OP_WRITE, .arrival = t };
		struct dm_req f = { .op = BPT_OP_FLUSH };

		cr_assert_eq(disk_model_submit(&m, &w), 0);
		t = finish_one(&m, t);
		f.arrival = t;
		cr_assert_eq(disk_model_submit(&m, &f), 0);
		t = finish_one(&m, t);
	}
	disk_model_free(&m);
	return n / ((double)(t - t0) / 1e9);
}

Test(disk_model, commit_rate_with_write_cache_off_and_on)
{
	const char *names[] = HDD_PRESETS;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		double per_turn = preset(names[i]).rpm / 60;
		double off = commit_rate(names[i], "wcache=off");
		double on = commit_rate(names[i], "wcache=on");

		cr_log_info("%s: %.1f commits/s cache off, %.0f on", names[i], off, on);
		near(off, per_turn, 0.05, names[i]);
		cr_expect_geq(on, 10 * per_turn, "%s: %.0f commits/s with the cache on", names[i], on);
	}
}

/* A write stream larger than the cache runs at the media rate, not the
 * interface's; a burst that fits runs at the interface's. */
Test(disk_model, write_cache_fills_then_drains_at_the_media_rate)
{
	struct disk_params p = preset("7200");
	struct disk_model m;
	uint64_t t = 1000000000ull, t0 = t, off;

	cr_assert_eq(disk_model_init(&m, &p, 100 * GB), 0);
	for (off = 0; off < 1 * MIB; off += 64 * 1024) {
		struct dm_req w = { .offset = off, .len = 64 * 1024, .op = BPT_OP_WRITE, .arrival = t };

		cr_assert_eq(disk_model_submit(&m, &w), 0);
		t = finish_one(&m, t);
	}
	near((double)MIB / ((double)(t - t0) / 1e3), p.bus_rate, 0.01, "a 1 MiB burst");
	for (t0 = t; off < 257 * MIB; off += 64 * 1024) {
		struct dm_req w = { .offset = off, .len = 64 * 1024, .op = BPT_OP_WRITE, .arrival = t };

		cr_assert_eq(disk_model_submit(&m, &w), 0);
		t = finish_one(&m, t);
	}
	near(256.0 * MIB / ((double)(t - t0) / 1e3), p.rate_outer, 0.05, "256 MiB of writes");
	disk_model_free(&m);
}

Test(disk_model, fua_write_waits_for_the_platter_even_with_the_cache_on)
{
	struct disk_params p = preset("7200");
	struct disk_model m;
	struct dm_req w = { .offset = GB, .len = 4096, .op = BPT_OP_WRITE, .arrival = 1000 };
	uint64_t cached, fua;

	cr_assert_eq(disk_model_init(&m, &p, 100 * GB), 0);
	cr_assert_eq(disk_model_submit(&m, &w), 0);
	cached = disk_model_next_finish(&m) - 1000;
	cr_assert_eq(disk_model_advance(&m, DM_NEVER - 1), 0);
	w.flags = BPT_F_FUA;
	w.offset = 50 * GB;
	w.arrival = 1000000000;
	cr_assert_eq(disk_model_submit(&m, &w), 0);
	fua = disk_model_next_finish(&m) - w.arrival;
	cr_expect_lt(cached, 500000, "a cached write takes %llu ns", (unsigned long long)cached);
	cr_expect_gt(fua, 2000000, "a FUA write takes %llu ns", (unsigned long long)fua);
	disk_model_free(&m);
}

Test(disk_model, queuing_drive_gains_with_depth_fifo_does_not)
{
	double fifo1 = single_iops("raptor360", 74 * GB, 1, 10000, 8192, 0, 74 * GB);
	double fifo8 = single_iops("raptor360", 74 * GB, 8, 10000, 8192, 0, 74 * GB);
	double tcq1 = single_iops("raptor740", 74 * GB, 1, 10000, 8192, 0, 74 * GB);
	double tcq8 = single_iops("raptor740", 74 * GB, 8, 10000, 8192, 0, 74 * GB);

	cr_log_info("raptor360 QD1 %.1f QD8 %.1f; raptor740 QD1 %.1f QD8 %.1f", fifo1, fifo8, tcq1,
		    tcq8);
	near(fifo8, fifo1, 0.03, "FIFO drive at depth 8 vs 1");
	cr_expect_geq(tcq8, 1.3 * tcq1, "TCQ drive: %.1f IOPS at depth 8, %.1f at 1", tcq8, tcq1);
}

static double array_iops(enum layout_kind kind, unsigned depth, unsigned n)
{
	uint64_t size = 40 * GB;
	struct layout l = { .kind = kind, .nmembers = 2, .chunk = 64 * 1024,
			    .member_size = { size, size } };
	struct disk_params p = preset("7200");
	struct disk_model d[2];
	double iops;

	cr_assert_eq(layout_init(&l), 0);
	for (int i = 0; i < 2; i++)
		cr_assert_eq(disk_model_init(&d[i], &p, size), 0);
	iops = closed_loop(&l, d, depth, n, 8192, 0, l.capacity);
	for (int i = 0; i < 2; i++)
		disk_model_free(&d[i]);
	return iops;
}

/* Random 8 KiB reads over each target's whole capacity. */
Test(disk_model, raid_of_two_emulated_disks)
{
	double one1 = single_iops("7200", 40 * GB, 1, 20000, 8192, 0, 40 * GB);
	double one2 = single_iops("7200", 40 * GB, 2, 20000, 8192, 0, 40 * GB);
	double r0_1 = array_iops(LAYOUT_RAID0, 1, 20000);
	double r0_2 = array_iops(LAYOUT_RAID0, 2, 20000);
	double r1_2 = array_iops(LAYOUT_RAID1, 2, 20000);

	cr_log_info("7200 model, random 8 KiB reads, IOPS: one disk %.1f (QD1) %.1f (QD2); "
		    "raid0 %.1f %.1f; raid1 QD2 %.1f", one1, one2, r0_1, r0_2, r1_2);
	near(one2, one1, 0.03, "one FIFO disk gains nothing at depth 2");
	near(r0_1, one1, 0.05, "RAID 0 at depth 1 = one disk");
	cr_expect(r0_2 >= 1.4 * one1 && r0_2 <= 1.6 * one1,
		  "RAID 0 at depth 2: %.1f IOPS, %.2fx one disk (want 1.4-1.6x)", r0_2, r0_2 / one1);
	cr_expect_geq(r1_2, 1.7 * one1, "RAID 1 at depth 2: %.2fx one disk", r1_2 / one1);
}

Test(disk_model, ssd_and_instant)
{
	struct disk_params p = preset("ssd");
	double want = 1e9 / (p.read_ns + 4096 / (p.channel_rate * 1e-3));
	struct disk_model m;
	struct dm_req r = { .id = 7, .len = 4096, .op = BPT_OP_READ, .arrival = 123 };

	near(single_iops("ssd", 10 * GB, 1, 1000, 4096, 0, 10 * GB), want, 0.01, "ssd QD1");
	near(single_iops("ssd", 10 * GB, 8, 8000, 4096, 0, 10 * GB), 8 * want, 0.01,
	     "ssd QD8: eight channels");
	p = preset("instant");
	cr_assert_eq(disk_model_init(&m, &p, GB), 0);
	cr_assert_eq(disk_model_submit(&m, &r), 0);
	cr_assert_eq(disk_model_pop(&m, &r), 1);
	cr_expect_eq(r.finish, 123, "instant: done when it arrives");
	cr_expect_eq(r.id, 7);
	disk_model_free(&m);
}

Test(disk_model, same_inputs_same_times)
{
	struct disk_params p = preset("raptor740");
	uint64_t fin[2][50];

	for (int run = 0; run < 2; run++) {
		struct disk_model m;
		uint64_t t = 5000;

		rng = 42;
		cr_assert_eq(disk_model_init(&m, &p, 74 * GB), 0);
		for (int i = 0; i < 50; i++) {
			struct dm_req r = { .id = (uint64_t)i, .offset = rnd() % (74 * GB / 4096) * 4096,
					    .len = 4096, .op = BPT_OP_READ, .arrival = t };

			cr_assert_eq(disk_model_submit(&m, &r), 0);
			t += 1000000;
		}
		cr_assert_eq(disk_model_advance(&m, DM_NEVER - 1), 0);
		for (int i = 0; i < 50; i++) {
			struct dm_req r;

			cr_assert_eq(disk_model_pop(&m, &r), 1);
			fin[run][i] = r.finish;
		}
		disk_model_free(&m);
	}
	cr_expect_eq(memcmp(fin[0], fin[1], sizeof(fin[0])), 0);
}

static void parse_fails(const char *spec, const char *want)
{
	struct disk_params p;
	struct bpt_error why = { 0 };

	cr_expect_lt(disk_params_parse(spec, &p, &why), 0, "'%s' accepted", spec);
	cr_expect(strstr(why.msg, want) != NULL, "'%s': '%s' does not say '%s'", spec, why.msg, want);
}

Test(disk_model, parse_presets_keys_and_errors)
{
	struct disk_params p;
	struct bpt_error why = { 0 };
	char path[] = "/tmp/blkpeak-dm-XXXXXX";
	int fd;

	for (size_t i = 0; disk_preset_name(i); i++) {
		cr_expect_eq(disk_params_parse(disk_preset_name(i), &p, &why), 0,
			     "%s: %s", disk_preset_name(i), why.msg);
		cr_expect_str_eq(p.name, disk_preset_name(i));
	}
	cr_assert_eq(disk_params_parse("7200,wcache=off,queue=8,seek_avg=9ms", &p, &why),
		     0, "%s", why.msg);
	cr_expect_eq(p.wcache, 0);
	cr_expect_eq(p.queue, 8);
	cr_expect_eq(p.seek_avg_ns, 9e6);
	cr_expect_str_eq(p.name, "custom");
	cr_assert_eq(disk_params_parse("rpm=5400,seek_t2t=1ms,seek_avg=12ms,seek_full=20ms,"
				       "rate_outer=30,rate_inner=17",
				       &p, &why),
		     0, "%s", why.msg);
	cr_expect_eq(p.rpm, 5400);
	parse_fails("7200,seek_avg=9", "give a unit");
	parse_fails("7200,seek_avg=30ms", "seek times must grow");
	parse_fails("7200,bogus=1", "unknown model key");
	parse_fails("7300", "not a disk model");
	parse_fails("rpm=7200", "needs seek_t2t");
	parse_fails("7200,wcache=maybe", "on or off");
	parse_fails("7200,rate_outer=20,rate_inner=40", "outer tracks");
	parse_fails("7200,zones=50", "two or more");
	parse_fails("7200,queue=0", "whole number");
	parse_fails("", "empty disk model");

	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert(write(fd, "# a 10k drive\n7200\nrpm = 10000\nseek_avg=5ms # read\n", 50) == 50);
	close(fd);
	char spec[64];

	snprintf(spec, sizeof(spec), "file=%s,queue=4", path);
	cr_assert_eq(disk_params_parse(spec, &p, &why), 0, "%s", why.msg);
	cr_expect_eq(p.rpm, 10000);
	cr_expect_eq(p.seek_avg_ns, 5e6);
	cr_expect_eq(p.queue, 4);
	fd = open(path, O_WRONLY | O_TRUNC);
	cr_assert(write(fd, "7200\nspeed=fast\n", 16) == 16);
	close(fd);
	parse_fails(spec, ":2: 'speed': unknown model key");
	unlink(path);
	parse_fails("file=/nonexistent/disk", "/nonexistent/disk: No such file");
}
