/* Unit tests of region maps (replay/region.c): the --map key and @OFFSET
 * forms, overlap checks, and the cutting of I/Os at region bounds, checked
 * against a byte-by-byte model; and the partition tables in the trace
 * header (lib/bpt_partitions.c). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpt.h"
#include "../../replay/load.h"
#include "../../replay/region.h"

Test(region, sizes)
{
	uint64_t v;

	cr_assert_eq(region_parse_size("1G", &v), 0);
	cr_assert_eq(v, 1ull << 30);
	cr_assert_eq(region_parse_size("512M", &v), 0);
	cr_assert_eq(v, 512ull << 20);
	cr_assert_eq(region_parse_size("4k", &v), 0);
	cr_assert_eq(v, 4096);
	cr_assert_eq(region_parse_size("2048s", &v), 0);
	cr_assert_eq(v, 2048 * 512);
	cr_assert_eq(region_parse_size("0", &v), 0);
	cr_assert_eq(v, 0);
	cr_assert_eq(region_parse_size("1000", &v), -EINVAL); /* not whole sectors */
	cr_assert_eq(region_parse_size("s", &v), -EINVAL);
	cr_assert_eq(region_parse_size("-1s", &v), -EINVAL);
	cr_assert_eq(region_parse_size("99999999999999999999s", &v), -EINVAL);
	cr_assert_eq(region_parse_size("1x", &v), -EINVAL);
}

Test(region, keys)
{
	struct bpt_error e;
	uint64_t s, en;
	size_t dl;
	int to_end;

	cr_assert_eq(region_parse_key("sda:1G-2G", &dl, &s, &en, &to_end, &e), 1);
	cr_assert_eq(dl, 3);
	cr_assert_eq(s, 1ull << 30);
	cr_assert_eq(en, 2ull << 30);
	cr_assert_eq(to_end, 0);
	cr_assert_eq(region_parse_key("8:0:2048s-", &dl, &s, &en, &to_end, &e), 1);
	cr_assert_eq(dl, 3); /* major:minor keeps its colon */
	cr_assert_eq(s, 2048 * 512);
	cr_assert_eq(to_end, 1);
	/* not a region: a device, major:minor, a partition */
	cr_assert_eq(region_parse_key("sda", &dl, &s, &en, &to_end, &e), 0);
	cr_assert_eq(region_parse_key("8:0", &dl, &s, &en, &to_end, &e), 0);
	cr_assert_eq(region_parse_key("/dev/sda2", &dl, &s, &en, &to_end, &e), 0);
	/* bad ranges name the part at fault */
	cr_assert_eq(region_parse_key("sda:2G-1G", &dl, &s, &en, &to_end, &e), -EINVAL);
	cr_assert(strstr(e.msg, "empty region"), "%s", e.msg);
	cr_assert_eq(region_parse_key("sda:1G-1G", &dl, &s, &en, &to_end, &e), -EINVAL);
	cr_assert_eq(region_parse_key("sda:1x-2G", &dl, &s, &en, &to_end, &e), -EINVAL);
	cr_assert(strstr(e.msg, "'1x'"), "%s", e.msg);
	cr_assert_eq(region_parse_key("sda:0-1000", &dl, &s, &en, &to_end, &e), -EINVAL);
	cr_assert(strstr(e.msg, "'1000'"), "%s", e.msg);
	cr_assert_eq(region_parse_key("sda:-1G", &dl, &s, &en, &to_end, &e), -EINVAL);
	/* bounds past 2^62 bytes (no disk; sums with them would wrap) */
	cr_assert_eq(region_parse_key("sda:4611686018427387904-", &dl, &s, &en, &to_end, &e), 1);
	cr_assert_eq(region_parse_key("sda:18446744043709551616-", &dl, &s, &en, &to_end, &e),
		     -EINVAL);
	cr_assert(strstr(e.msg, "past 2^62"), "%s", e.msg);
	cr_assert_eq(region_parse_key("sda:0-4611686018427388416", &dl, &s, &en, &to_end, &e),
		     -EINVAL);
}

Test(region, at_offset)
{
	struct bpt_error e;
	uint64_t at = 7;
	size_t n;

	cr_assert_eq(region_parse_at("/dev/sdc@1G", &n, &at, &e), 1);
	cr_assert_eq(n, 8);
	cr_assert_eq(at, 1ull << 30);
	cr_assert_eq(region_parse_at("raid0:chunk=64k:a,b@2048s", &n, &at, &e), 1);
	cr_assert_eq(n, strlen("raid0:chunk=64k:a,b"));
	cr_assert_eq(at, 2048 * 512);
	cr_assert_eq(region_parse_at("/dev/sdc", &n, &at, &e), 0);
	cr_assert_eq(region_parse_at("/tmp/a@b/img", &n, &at, &e), 0); /* part of a path */
	cr_assert_eq(region_parse_at("/dev/sdc@100", &n, &at, &e), -EINVAL);
	cr_assert_eq(region_parse_at("@1M", &n, &at, &e), -EINVAL);
	cr_assert_eq(region_parse_at("/dev/sdc@4611686018427388416", &n, &at, &e), -EINVAL);
	cr_assert(strstr(e.msg, "past 2^62"), "%s", e.msg);
}

Test(region, overlaps)
{
	const char *names[] = { "sda", "sdb" };
	struct bpt_error e;
	struct region r[3] = {
		{ .dev = 0, .start = 4096, .end = 8192 },
		{ .dev = 1, .start = 0, .end = 8192 },    /* another disk: no overlap */
		{ .dev = 0, .start = 0, .end = 4096 },    /* touching: no overlap */
	};

	cr_assert_eq(region_check(r, 3, names, &e), 0);
	cr_assert_eq(r[0].start, 0); /* sorted by (dev, start) */
	cr_assert_eq(r[2].dev, 1);
	r[1].start = 2048;
	r[1].end = 4608;
	cr_assert_eq(region_check(r, 3, names, &e), -EINVAL);
	cr_assert(strstr(e.msg, "sda") && strstr(e.msg, "overlap"), "%s", e.msg);
}

/* The target and target offset of byte b of device dev, by the rules
 * (region.h), from scratch: REGION_NO_TARGET when none. */
static unsigned model(const struct region *r, unsigned n, unsigned dev, unsigned rest,
		      uint64_t b, uint64_t *where)
{
	for (unsigned i = 0; i < n; i++)
		if (r[i].dev == dev && b >= r[i].start && b < r[i].end) {
			*where = b - r[i].start + r[i].at;
			return r[i].target;
		}
	*where = b;
	return rest;
}

/* Cut many random I/Os, some straddling several bounds, and check every
 * sector of each against the model: the pieces tile the I/O exactly. */
Test(region, split_exact)
{
	struct region r[6] = {
		{ .dev = 1, .start = 1 << 20, .end = 3 << 20, .at = 0, .target = 1 },
		{ .dev = 1, .start = 3 << 20, .end = (3 << 20) + 4096, .at = 1 << 30, .target = 2 },
		{ .dev = 1, .start = 5 << 20, .end = 6 << 20, .at = 512, .target = 1 },
		{ .dev = 0, .start = 0, .end = 8 << 20, .target = 3 },  /* other disks */
		{ .dev = 2, .start = 0, .end = 1 << 20, .target = 4 },
		{ .dev = 1, .start = 7 << 20, .end = 8 << 20, .target = 5 },
	};
	const char *names[] = { "a", "b", "c" };
	struct region_piece pc[REGION_MAX_PIECES];
	struct bpt_error e;
	uint64_t miss;

	cr_assert_eq(region_check(r, 6, names, &e), 0);
	srand(7);
	for (int it = 0; it < 20000; it++) {
		uint64_t off = (uint64_t)(rand() % (9 << 11)) * 512;
		uint64_t len = (uint64_t)(1 + rand() % 8192) * 512;
		int np = region_split(r, 6, 1, 9, off, len, pc, &miss);
		uint64_t sum = 0;

		cr_assert_gt(np, 0);
		cr_assert_leq(np, REGION_MAX_PIECES);
		for (int k = 0; k < np; k++) {
			cr_assert_eq(pc[k].src_off, sum, "pieces in byte order, no gap");
			cr_assert_gt(pc[k].len, 0);
			for (uint64_t s = 0; s < pc[k].len; s += 512) {
				uint64_t where;
				unsigned t = model(r, 6, 1, 9, off + pc[k].src_off + s, &where);

				cr_assert_eq(pc[k].target, t, "byte %lu", (unsigned long)(off + sum + s));
				cr_assert_eq(pc[k].offset + s, where);
			}
			if (k) /* a cut only where the target or its offset jumps */
				cr_assert(pc[k].target != pc[k - 1].target ||
					  pc[k].offset != pc[k - 1].offset + pc[k - 1].len);
			sum += pc[k].len;
		}
		cr_assert_eq(sum, len, "the pieces sum to the I/O");
	}
}

Test(region, split_boundaries)
{
	struct region r[1] = { { .dev = 0, .start = 8192, .end = 16384, .at = 4096, .target = 1 } };
	struct region_piece pc[REGION_MAX_PIECES];
	uint64_t miss = 0;

	/* straddles both ends: rest, region, rest */
	cr_assert_eq(region_split(r, 1, 0, 0, 4096, 16384, pc, &miss), 3);
	cr_assert_eq(pc[0].target, 0);
	cr_assert_eq(pc[0].offset, 4096);
	cr_assert_eq(pc[0].len, 4096);
	cr_assert_eq(pc[1].target, 1);
	cr_assert_eq(pc[1].offset, 4096);
	cr_assert_eq(pc[1].len, 8192);
	cr_assert_eq(pc[1].src_off, 4096);
	cr_assert_eq(pc[2].target, 0);
	cr_assert_eq(pc[2].offset, 16384);
	cr_assert_eq(pc[2].len, 4096);
	/* exactly the region: one piece */
	cr_assert_eq(region_split(r, 1, 0, 0, 8192, 8192, pc, &miss), 1);
	cr_assert_eq(pc[0].offset, 4096);
	/* no target for the rest: the first byte outside */
	cr_assert_eq(region_split(r, 1, 0, REGION_NO_TARGET, 12288, 8192, pc, &miss), -ENODEV);
	cr_assert_eq(miss, 16384);
	cr_assert_eq(region_split(r, 1, 0, REGION_NO_TARGET, 8192, 8192, pc, &miss), 1);
	/* a flush goes to every target of the disk once */
	cr_assert_eq(region_split(r, 1, 0, 0, 0, 0, pc, &miss), 2);
	cr_assert_eq(pc[0].target, 0);
	cr_assert_eq(pc[1].target, 1);
	cr_assert_eq(pc[1].len, 0);
	cr_assert_eq(region_split(r, 1, 0, 1, 0, 0, pc, &miss), 1);
	cr_assert_eq(region_split(r, 1, 0, REGION_NO_TARGET, 0, 0, pc, &miss), 1);
}

static void header_with(struct bpt_header *h, const char *name)
{
	struct bpt_device d = { 0 };

	bpt_header_init(h, "capture");
	snprintf(d.name, sizeof(d.name), "%s", name);
	cr_assert_geq(bpt_header_add_device(h, &d), 0);
}

Test(partitions, round_trip_and_names)
{
	struct bpt_partition in[3] = {
		{ .number = 1, .start = 2048, .sectors = 4096, .name = "loop0p1" },
		{ .number = 2, .start = 6144, .sectors = 10240, .name = "loop0p2" },
		{ .number = 5, .start = 20480, .sectors = 2048, .name = "oddname" },
	}, out[8];
	struct bpt_header h;
	char name[32];

	bpt_partition_name("sda", 2, name, sizeof(name));
	cr_assert_str_eq(name, "sda2");
	bpt_partition_name("nvme0n1", 3, name, sizeof(name));
	cr_assert_str_eq(name, "nvme0n1p3");
	header_with(&h, "loop0");
	cr_assert_eq(bpt_partitions_get(&h, 0, out, 8), 0, "none stored: an old trace");
	cr_assert_eq(bpt_partitions_set(&h, 0, in, 3), 0);
	cr_assert_str_eq(bpt_header_get_meta(&h, "partitions.0"),
			 "1:2048:4096 2:6144:10240 5:20480:2048:oddname");
	cr_assert_eq(bpt_partitions_get(&h, 0, out, 8), 3);
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(out[i].number, in[i].number);
		cr_assert_eq(out[i].start, in[i].start);
		cr_assert_eq(out[i].sectors, in[i].sectors);
		cr_assert_str_eq(out[i].name, in[i].name);
	}
	cr_assert_eq(bpt_partitions_get(&h, 0, out, 2), -EBADMSG);
	cr_assert_eq(bpt_partitions_set(&h, 3, in, 3), -EINVAL); /* no such device */
}

Test(partitions, long_tables_continue)
{
	struct bpt_partition in[BPT_MAX_PARTITIONS], out[BPT_MAX_PARTITIONS];
	struct bpt_header h;
	uint32_t before;

	header_with(&h, "sdq");
	for (unsigned i = 0; i < 40; i++)
		in[i] = (struct bpt_partition){ .number = i + 1, .start = 1000000000000ull + i * 1000,
						.sectors = 999 };
	for (unsigned i = 0; i < 40; i++)
		bpt_partition_name("sdq", i + 1, in[i].name, sizeof(in[i].name));
	cr_assert_eq(bpt_partitions_set(&h, 0, in, 40), 0);
	cr_assert_not_null(bpt_header_get_meta(&h, "partitions.0.1"));
	cr_assert_eq(bpt_partitions_get(&h, 0, out, BPT_MAX_PARTITIONS), 40);
	cr_assert_eq(out[39].start, in[39].start);
	cr_assert_str_eq(out[39].name, "sdq40");
	/* too many for the meta: nothing is stored */
	for (unsigned i = 0; i < BPT_MAX_PARTITIONS; i++) {
		in[i] = (struct bpt_partition){ .number = i + 1, .start = 1000000000000ull,
						.sectors = 1000000000000ull };
		snprintf(in[i].name, sizeof(in[i].name), "x%u", i);
	}
	header_with(&h, "sdr");
	for (unsigned i = 0; i < 28; i++) { /* a header with other meta */
		char key[16];

		snprintf(key, sizeof(key), "k%u", i);
		cr_assert_eq(bpt_header_set_meta(&h, key, "v"), 0);
	}
	before = h.nmeta;
	cr_assert_eq(bpt_partitions_set(&h, 0, in, BPT_MAX_PARTITIONS), -E2BIG);
	cr_assert_eq(h.nmeta, before);
}

Test(partitions, malformed)
{
	struct bpt_partition out[8];
	struct bpt_header h;
	const char *bad[] = { "1:2", "x:1:2", "1:2:0", "1:2:3 ", "1:2:3  2:4:5", "1:2:3:",
			      "1:18446744073709551615:2" };

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		header_with(&h, "sda");
		cr_assert_eq(bpt_header_set_meta(&h, "partitions.0", bad[i]), 0);
		cr_assert_eq(bpt_partitions_get(&h, 0, out, 8), -EBADMSG, "'%s'", bad[i]);
	}
}

/* A trace through load_scan and the stream with a region map: a record
 * crossing the region's start becomes two pieces in byte order, a flush
 * one per target, in issue order with everything else. */
Test(region, stream_gives_pieces)
{
	char path[] = "/tmp/blkpeak-region-XXXXXX";
	int fd = mkstemp(path);
	struct bpt_header *h = calloc(1, sizeof(*h));
	struct bpt_device d = { .name = "sdb", .major = 8, .minor = 16, .size_bytes = 8 << 20 };
	/* issue, complete, sector, bytes, op; in completion order */
	static const uint64_t recs[][5] = {
		{ 100, 300, 2040, 8192, BPT_OP_WRITE },  /* 1 MiB - 4 KiB .. 1 MiB + 4 KiB */
		{ 50, 400, 4096, 4096, BPT_OP_READ },    /* 2 MiB: after the region */
		{ 200, 500, 0, 0, BPT_OP_FLUSH },
	};
	struct load_opts lo = { .writes = WRITES_REPLAY, .nregion = 1 };
	struct bpt_error err = { 0 };
	struct loaded_trace lt;
	struct load_stream *ls;
	struct bpt_writer *w;
	struct bpt_reader *r;
	struct rp_io io[8];
	unsigned n = 0;

	cr_assert_geq(fd, 0);
	close(fd);
	bpt_header_init(h, "capture");
	cr_assert_geq(bpt_header_add_device(h, &d), 0);
	cr_assert_eq(bpt_writer_create(&w, path, h, NULL, &err), 0, "%s", err.msg);
	for (unsigned i = 0; i < 3; i++) {
		struct bpt_record rec = { .issue_ns = recs[i][0], .queue_ns = recs[i][0],
					  .complete_ns = recs[i][1], .sector = recs[i][2],
					  .bytes = (uint32_t)recs[i][3], .op = (uint8_t)recs[i][4] };

		cr_assert_eq(bpt_writer_add(w, &rec), 0);
	}
	cr_assert_eq(bpt_writer_close(w, &err), 0, "%s", err.msg);
	cr_assert_eq(load_opts_init(&lo, 1), 0);
	lo.dev_target[0] = 0;
	lo.region[0] = (struct region){ .dev = 0, .start = 1 << 20, .end = 2 << 20, .at = 4096,
					.target = 1 };
	lo.has_region[0] = 1;
	cr_assert_eq(bpt_reader_open(&r, path, &err), 0, "%s", err.msg);
	cr_assert_eq(load_scan(r, &lo, &lt, &err), 0, "%s", err.msg);
	cr_assert_eq(lt.n, 5);
	cr_assert_eq(lt.split, 1);
	cr_assert_eq(lt.tgt[1].extent, 4096 + 4096);
	cr_assert_eq(load_stream_open(&ls, r, &lt, NULL, 2), 0); /* tiny windows */
	while (n < 8 && load_stream_next(ls, &io[n], &err) == 1)
		n++;
	load_stream_close(ls);
	cr_assert_eq(n, 5, "%s", err.msg);
	cr_assert_eq(io[0].src, 1);
	cr_assert_eq(io[1].src, 0);
	cr_assert_eq(io[1].piece, 0);
	cr_assert_eq(io[1].target, 0);
	cr_assert_eq(io[1].offset, (1 << 20) - 4096);
	cr_assert_eq(io[1].len, 4096);
	cr_assert_eq(io[2].src, 0);
	cr_assert_eq(io[2].piece, 1);
	cr_assert_eq(io[2].target, 1);
	cr_assert_eq(io[2].offset, 4096);
	cr_assert_eq(io[2].len, 4096);
	cr_assert_eq(io[2].t_ns, io[1].t_ns, "pieces issue together");
	cr_assert_eq(io[3].op, BPT_OP_FLUSH);
	cr_assert_eq(io[3].target, 0);
	cr_assert_eq(io[4].op, BPT_OP_FLUSH);
	cr_assert_eq(io[4].target, 1);
	loaded_trace_free(&lt);
	/* without a target for the rest, the first I/O outside the region fails */
	lo.dev_target[0] = LOAD_UNMAPPED;
	cr_assert_eq(load_scan(r, &lo, &lt, &err), -ENODEV);
	cr_assert_eq(lt.unmapped_region, 1);
	cr_assert_eq(lt.unmapped_byte, (1 << 20) - 4096);
	load_opts_free(&lo);
	bpt_reader_close(r);
	unlink(path);
	free(h);
}
