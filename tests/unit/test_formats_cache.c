/*
 * Unit tests of the readers and writers of issue 24: detection of vscsi
 * (binary, by its version bytes), MQSim, DiskSim, K5cloud, io-tracer and
 * blkpeak's own CSV through the registry; their units (vscsi µs and response time, DiskSim
 * ms exact to the ns, io-tracer dates across a leap day); the
 * oracleGeneral writer's next-access numbers against a brute-force
 * reference with a small look-ahead (the bound, and the hash's deletes).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpt.h"
#include "foreign.h"
#include "oracle_writer.h"
#include "source.h"

static char paths[8][96];
static int npaths;

static const char *tmp_file(const char *tag, const void *data, size_t len)
{
	char *p = paths[npaths++ % 8];
	FILE *f;

	snprintf(p, 96, "/dev/shm/ff-cache-unit-%d-%s", (int)getpid(), tag);
	f = fopen(p, "wb");
	cr_assert(f);
	cr_assert_eq(fwrite(data, 1, len, f), len);
	fclose(f);
	return p;
}

static void cleanup(void)
{
	for (int i = 0; i < npaths && i < 8; i++)
		unlink(paths[i]);
	npaths = 0;
}

TestSuite(formats_cache, .fini = cleanup);

static void le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A vscsi v2 record: cmd, len, lbn, ts µs, rt µs. */
static void v2(uint8_t *p, unsigned cmd, uint32_t len, uint64_t lbn, uint64_t ts, uint64_t rt)
{
	memset(p, 0, 40);
	le(p, cmd, 2);
	le(p + 2, 0x0200, 2);
	le(p + 8, len, 4);
	le(p + 16, lbn, 8);
	le(p + 24, ts, 8);
	le(p + 32, rt, 8);
}

static const char *best(const char *head, size_t len)
{
	int top = 0;
	const char *pick = NULL;

	for (size_t k = 0; k < ff_nreaders; k++) {
		int sc = ff_readers[k]->detect("x", head, len);

		if (sc > top) {
			top = sc;
			pick = ff_readers[k]->name;
		}
	}
	return pick ? pick : "(none)";
}

Test(formats_cache, detection_picks_each_new_format)
{
	static const struct { const char *text, *fmt; } cases[] = {
		{ "4851300 1 524288 16 0\n4864300 1 524304 16 0\n", "mqsim" },
		{ "0.000000 0 1000 8 1\n1.25 0 2000 16 0\n", "disksim" },
		{ "ID,Timestamp,Type,Offset,Length\n12,0.0,R,4096,4096\n", "k5cloud" },
		{ "12,0.000152,W,8192,8192\n", "k5cloud" },
		{ "timestamp,pid,command,sector,operation,size,latency_ms,tid,nr_sectors,cpu_id,ppid\n",
		  "iotracer" },
		{ "2025-06-01 08:00:00.000100,500,fio,8192,read,4096,0.100,501,3,1,259:0,0.010,REQ_SYNC\n",
		  "iotracer" },
		{ "queue_ns,issue_ns,complete_ns,dev,sector,bytes,op,flags,pid,comm,cgroup,error,completion\n",
		  "csv" },
	};
	uint8_t bin[4 * 40];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_assert_str_eq(best(cases[i].text, strlen(cases[i].text)), cases[i].fmt, "%s", cases[i].text);
	for (int i = 0; i < 4; i++)
		v2(bin + 40 * i, 0x28, 4096, (uint64_t)i * 8, 1000 + (uint64_t)i, 100);
	cr_assert_str_eq(best((const char *)bin, sizeof(bin)), "vscsi");
	/* v1: the version byte at offset 15 of each 32-byte record */
	memset(bin, 0, sizeof(bin));
	for (int i = 0; i < 4; i++)
		le(bin + 32 * i + 14, 0x0100, 2);
	cr_assert_str_eq(best((const char *)bin, 128), "vscsi");
	/* zeros are no vscsi */
	memset(bin, 0, sizeof(bin));
	cr_assert_str_neq(best((const char *)bin, sizeof(bin)), "vscsi");
}

Test(formats_cache, vscsi_units_and_commands)
{
	uint8_t bin[5 * 40];
	struct ff_source *s;
	struct bpt_error e = { 0 };
	struct bpt_record r;
	const char *p;

	v2(bin, 0x2a, 8192, 1000, 5000000, 250);      /* WRITE(10) */
	v2(bin + 40, 0x00, 0, 0, 5000001, 1);          /* TEST UNIT READY: skipped */
	v2(bin + 80, 0x88, 4096, 1ull << 40, 5000010, 30); /* READ(16) */
	v2(bin + 120, 0x41, 4096, 8, 5000020, 5);      /* WRITE SAME(10) */
	v2(bin + 160, 0x35, 0, 0, 5000030, 700);       /* SYNCHRONIZE CACHE */
	p = tmp_file("v2.bin", bin, sizeof(bin));
	cr_assert_eq(ff_source_open(&s, &p, 1, NULL, &e), 0, "%s", e.msg);
	cr_assert_eq(ff_source_next(s, &r, &e), 1);
	cr_assert_eq(r.op, BPT_OP_WRITE);
	cr_assert_eq(r.sector, 1000);
	cr_assert_eq(r.bytes, 8192);
	cr_assert_eq(r.complete_ns - r.issue_ns, 250000, "rt is µs");
	cr_assert_eq(r.completion, BPT_COMPLETION_SEEN);
	cr_assert_eq(ff_source_next(s, &r, &e), 1);
	cr_assert_eq(r.op, BPT_OP_READ);
	cr_assert_eq(r.sector, 1ull << 40);
	cr_assert_eq(r.issue_ns, 10000, "ts is µs, from the first I/O");
	cr_assert_eq(ff_source_next(s, &r, &e), 1);
	cr_assert_eq(r.op, BPT_OP_WRITE_ZEROES);
	cr_assert_eq(ff_source_next(s, &r, &e), 1);
	cr_assert_eq(r.op, BPT_OP_FLUSH);
	cr_assert_eq(r.bytes, 0);
	cr_assert_eq(ff_source_next(s, &r, &e), 0);
	cr_assert_str_eq(bpt_header_get_meta(ff_source_header(s), "note.vscsi_other_commands"), "1");
	ff_source_close(s);
}

Test(formats_cache, disksim_ms_and_iotracer_dates)
{
	static const char ds[] = "0.001 0 8 8 1\n1234.5678909 0 16 8 0\n";
	static const char it[] = "2024-02-28 23:59:59.5,1,a,0,read,512,0.5,1,1,0,0\n"
				 "2024-03-01 00:00:00.5,1,a,8,write,512,5e-01,1,1,0,0\n";
	struct ff_source *s;
	struct bpt_error e = { 0 };
	struct bpt_record r;
	const char *p;

	p = tmp_file("ds.txt", ds, strlen(ds));
	cr_assert_eq(ff_source_open(&s, &p, 1, NULL, &e), 0, "%s", e.msg);
	cr_assert_eq(ff_source_next(s, &r, &e), 1);
	cr_assert_eq(ff_source_next(s, &r, &e), 1);
	cr_assert_eq(r.issue_ns, 1234567890ull - 1000, "ms to ns, digits past 1 ns dropped");
	cr_assert_eq(r.op, BPT_OP_WRITE);
	ff_source_close(s);

	p = tmp_file("it.csv", it, strlen(it));
	cr_assert_eq(ff_source_open(&s, &p, 1, NULL, &e), 0, "%s", e.msg);
	cr_assert_eq(ff_source_next(s, &r, &e), 1);
	cr_assert_eq(r.complete_ns - r.issue_ns, 500000);
	cr_assert_eq(ff_source_next(s, &r, &e), 1);
	cr_assert_eq(r.issue_ns, (86400ull + 1) * 1000000000ull, "2024-02-29 lies between");
	cr_assert_eq(r.complete_ns - r.issue_ns, 500000, "5e-01 ms");
	ff_source_close(s);
}

/* The oracleGeneral file for objects obj[0..n) (one 4 KiB block each,
 * device 0) through a writer of look-ahead `window`, and its
 * next_access_vtime values checked against brute force: the 1-based
 * number of the next request for the same block when it is fewer than
 * `window` requests ahead, else -1. */
static void oracle_case(const uint64_t *obj, size_t n, uint32_t window)
{
	char path[96];
	struct bpt_header h = { .ndevices = 1 };
	struct ogw *w;
	struct bpt_error e = { 0 };
	uint8_t rec[OGW_RECORD];
	FILE *f;

	snprintf(path, sizeof(path), "/dev/shm/ff-cache-unit-%d-og", (int)getpid());
	cr_assert_eq(ogw_open(&w, path, &h, NULL, window, &e), 0, "%s", e.msg);
	for (size_t i = 0; i < n; i++) {
		struct bpt_record r = { .sector = obj[i] * 8, .bytes = 4096, .issue_ns = i * 1000000000ull };

		cr_assert_eq(ogw_add(w, &r, &e), 0, "%s", e.msg);
	}
	cr_assert_eq(ogw_close(w, 0, &e), 0, "%s", e.msg);
	cr_assert(f = fopen(path, "rb"));
	for (size_t i = 0; i < n; i++) {
		int64_t want = -1, got;
		uint64_t id = 0;

		for (size_t j = i + 1; j < n && j - i < window; j++)
			if (obj[j] == obj[i]) {
				want = (int64_t)j + 1;
				break;
			}
		cr_assert_eq(fread(rec, 1, sizeof(rec), f), sizeof(rec));
		for (int k = 7; k >= 0; k--)
			id = id << 8 | rec[4 + k];
		got = 0;
		for (int k = 7; k >= 0; k--)
			got = (int64_t)((uint64_t)got << 8 | rec[16 + k]);
		cr_assert_eq(id, obj[i]);
		cr_assert_eq(rec[0] | rec[1] << 8, (unsigned)i, "clock_time: whole seconds");
		cr_assert_eq(rec[12] | rec[13] << 8, 4096 & 0xffff);
		cr_assert_eq(got, want, "request %zu (block %llu), window %u", i + 1,
			     (unsigned long long)obj[i], window);
	}
	cr_assert_eq(fread(rec, 1, 1, f), 0);
	fclose(f);
	unlink(path);
}

Test(formats_cache, oracle_next_access_within_the_look_ahead)
{
	static const uint64_t a[] = { 1, 2, 3, 4, 5, 1, 2, 1, 1, 7, 3 };
	uint64_t *r = malloc(5000 * sizeof(*r));

	oracle_case(a, sizeof(a) / sizeof(a[0]), 64); /* exact: all in the window */
	oracle_case(a, sizeof(a) / sizeof(a[0]), 4);  /* 1 -> 1 is 5 ahead: -1 */
	srand(7);
	for (size_t i = 0; i < 5000; i++)
		r[i] = (uint64_t)(rand() % 40) * 977; /* clusters in the hash */
	oracle_case(r, 5000, 8);
	oracle_case(r, 5000, 32);
	oracle_case(r, 5000, 8192);
	free(r);
}

Test(formats_cache, oracle_blocks_of_an_io)
{
	char path[96];
	struct bpt_header h = { .ndevices = 2 };
	struct ogw *w;
	struct bpt_error e = { 0 };
	uint8_t b[3 * OGW_RECORD];
	FILE *f;
	/* device 1, bytes 3584..12287: blocks 0, 1 and 2; a flush: none */
	struct bpt_record io = { .dev = 1, .sector = 7, .bytes = 8704 };
	struct bpt_record fl = { .op = BPT_OP_FLUSH };

	snprintf(path, sizeof(path), "/dev/shm/ff-cache-unit-%d-og2", (int)getpid());
	cr_assert_eq(ogw_open(&w, path, &h, NULL, 0, &e), 0, "%s", e.msg);
	cr_assert_eq(ogw_add(w, &io, &e), 0);
	cr_assert_eq(ogw_add(w, &fl, &e), 0);
	cr_assert_eq(ogw_close(w, 0, &e), 0);
	cr_assert(f = fopen(path, "rb"));
	cr_assert_eq(fread(b, 1, sizeof(b), f), sizeof(b));
	cr_assert_eq(fread(b, 1, 1, f), 0, "three requests, no more");
	fclose(f);
	unlink(path);
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(b[i * 24 + 4], i, "block %d", i);
		cr_assert_eq(b[i * 24 + 4 + 6], 1, "device 1 in bits 48..63");
	}
}
