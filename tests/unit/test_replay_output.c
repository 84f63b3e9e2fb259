/* Unit tests of what a replay hands back: the run file (replay/run_writer.c
 * read back through the trace library), the summary's counting and
 * percentiles (replay/summary.c) and the recorded queue depth of a trace
 * (replay/load.c). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpt.h"
#include "../../replay/load.h"
#include "../../replay/run_writer.h"
#include "../../replay/summary.h"

Test(replay_output, run_file_round_trip)
{
	char path[] = "/tmp/blkpeak-run-XXXXXX";
	int fd = mkstemp(path);
	struct rp_io io[3] = {
		{ .offset = 8192, .len = 4096, .src = 7, .target = 0, .op = BPT_OP_READ },
		{ .offset = 65536, .len = 131072, .src = 3, .target = 1, .op = BPT_OP_WRITE,
		  .flags = BPT_F_FUA },
		{ .offset = 0, .len = 0, .src = 9, .target = 1, .op = BPT_OP_FLUSH },
	};
	struct rp_result res[3] = {
		{ .io = &io[0], .sched_ns = 1000, .issue_ns = 1500, .complete_ns = 9000,
		  .member_mask = 1 },
		{ .io = &io[1], .sched_ns = 2000, .issue_ns = 2100, .complete_ns = 50000,
		  .member_mask = 3, .error = -EIO, .short_io = 1 },
		{ .io = &io[2], .sched_ns = 3000, .issue_ns = 3000, .complete_ns = 3500,
		  .member_mask = 3 },
	};
	struct run_device devs[2] = {
		{ .name = "loop3", .size_bytes = 1 << 30, .lbs = 512, .major = 7, .minor = 3 },
		{ .name = "raid1:loop4,loop5", .size_bytes = 1 << 29, .lbs = 4096 },
	};
	const char *meta[] = { "source", "t.bpt", "timing", "afap" };
	struct run_writer *w;
	struct bpt_reader *r;
	struct bpt_record rec;
	struct bpt_error err = { 0 };

	cr_assert_geq(fd, 0);
	cr_assert_eq(run_writer_open(&w, fd, path, devs, 2, meta, 2, &err), 0, "%s", err.msg);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(run_writer_add(w, &res[i]), 0);
	cr_assert_eq(run_writer_close(w, &err), 0, "%s", err.msg);

	cr_assert_eq(bpt_reader_open(&r, path, &err), 0, "%s", err.msg);
	const struct bpt_header *h = bpt_reader_header(r);
	cr_expect_str_eq(h->kind, "replay");
	cr_expect_eq(h->columns, BPT_COL_SCHED | BPT_COL_SOURCE | BPT_COL_MEMBER);
	cr_expect_eq(h->ndevices, 2);
	cr_expect_str_eq(h->devices[1].name, "raid1:loop4,loop5");
	cr_expect_eq(h->devices[0].major, 7);
	cr_expect_str_eq(bpt_header_get_meta(h, "timing"), "afap");
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(bpt_reader_next(r, &rec, &err), 1, "%s", err.msg);
		cr_expect_eq(rec.sector, io[i].offset / 512);
		cr_expect_eq(rec.bytes, io[i].len);
		cr_expect_eq(rec.op, io[i].op);
		cr_expect_eq(rec.flags, io[i].flags);
		cr_expect_eq(rec.dev, io[i].target);
		cr_expect_eq(rec.sched_ns, res[i].sched_ns);
		cr_expect_eq(rec.issue_ns, res[i].issue_ns);
		cr_expect_eq(rec.complete_ns, res[i].complete_ns);
		cr_expect_eq(rec.source_index, io[i].src);
		cr_expect_eq(rec.member, res[i].member_mask);
		cr_expect_eq(rec.error, res[i].error);
		cr_expect_eq(rec.pid, (uint32_t)getpid());
		cr_expect_str_eq(bpt_reader_string(r, rec.comm_id), "blkpeak");
	}
	cr_expect_eq(bpt_reader_next(r, &rec, &err), 0);
	bpt_reader_close(r);
	unlink(path);
}

Test(replay_output, summary_counts_and_percentiles)
{
	struct summary s = { 0 };
	struct rp_io rd = { .len = 4096, .op = BPT_OP_READ }, wr = { .len = 8192, .op = BPT_OP_WRITE };

	for (uint64_t i = 1; i <= 1000; i++) {
		struct rp_result r = { .io = &rd, .sched_ns = 0, .issue_ns = i, .complete_ns = i + i * 1000 };

		summary_add(&s, &r);
	}
	struct rp_result bad = { .io = &wr, .issue_ns = 5, .complete_ns = 6, .error = -ENOSPC };
	struct rp_result shrt = { .io = &wr, .issue_ns = 5, .complete_ns = 6, .error = -EIO,
				  .short_io = 1 };
	summary_add(&s, &bad);
	summary_add(&s, &bad);
	summary_add(&s, &shrt);
	cr_expect_eq(s.ios, 1003);
	cr_expect_eq(s.errors, 3);
	cr_expect_eq(s.short_ios, 1);
	cr_expect_eq(s.bytes, 1000 * 4096, "failed I/Os move no bytes");
	cr_expect_eq(s.nerrnos, 2);
	cr_expect_eq(s.errnos[0].code, -ENOSPC);
	cr_expect_eq(s.errnos[0].count, 2);
	summary_finish(&s);
	cr_assert_str_eq(s.failed, "");
	/* nearest rank: reads are 1000, 2000 ... 10^6 ns; p50 rank 500 */
	cr_expect_eq(s.op_lat[BPT_OP_READ].pct[0], 500 * 1000);
	cr_expect_eq(s.op_lat[BPT_OP_READ].pct[STATS_NPCT - 1], 1000 * 1000);
	cr_expect_eq(s.op_lat[BPT_OP_READ].count, 1000);
	cr_expect_eq(s.op_lat[BPT_OP_WRITE].count, 3, "failed I/Os count in the latency");
	cr_expect_eq(s.op_lat[BPT_OP_WRITE].pct[0], 1);
	/* all: three 1s, then the reads; p50 rank ceil(501.5) = 502 */
	cr_expect_eq(s.all_lat.count, 1003);
	cr_expect_eq(s.all_lat.pct[0], 499 * 1000);
	cr_expect_eq(s.late_pct[1], 990, "lateness = issue - sched; rank 993 of 1..1000 and three 5s");
	cr_expect_eq(s.late_pct[2], 1000);
	cr_expect_eq(s.op_lat[BPT_OP_FLUSH].count, 0, "empty");

	char *buf;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	struct summary_ctx c = { .source = "a \"b\".bpt", .target = "/dev/x", .timing = "afap",
				 .speed = 1, .depth = 4, .total_ios = 1003, .elapsed_ns = 1000000000 };
	summary_print_json(&s, &c, f);
	fclose(f);
	cr_expect(strstr(buf, "\"source\":\"a \\\"b\\\".bpt\""), "%s", buf);
	cr_expect(strstr(buf, "\"errnos\":{\"-28\":2,\"-5\":1}"), "%s", buf);
	cr_expect(strstr(buf, "\"ios_per_s\":1003,"), "%s", buf);
	cr_expect(strstr(buf, "\"latency\":{\"service\":{\"all\":{\"count\":1003,\"mean_ns\":"), "%s", buf);
	cr_expect(strstr(buf, "\"read\":{\"count\":1000,\"mean_ns\":500500,\"p50_ns\":500000,"
			      "\"p90_ns\":900000,\"p99_ns\":990000,\"p99_9_ns\":999000,"
			      "\"p99_99_ns\":1000000,\"max_ns\":1000000}"), "%s", buf);
	cr_expect(strstr(buf, "\"lateness\":{\"p50_ns\":"), "%s", buf);
	free(buf);

	/* a path is bytes, not UTF-8: the JSON stays valid (common/fmt.c's json_str) */
	f = open_memstream(&buf, &len);
	c.source = "caf\xe9\n.bpt";
	summary_print_json(&s, &c, f);
	fclose(f);
	cr_expect(strstr(buf, "\"source\":\"caf\\u00e9\\n.bpt\""), "%s", buf);
	free(buf);
	summary_free(&s);
}

/* More results than one buffer of the temporary file (8192), latencies
 * spread so that the exact percentiles take their second pass from the
 * file: they equal a full sort's. */
Test(replay_output, summary_exact_over_the_temporary_file)
{
	enum { N = 50000 };
	static uint64_t lat[N];
	struct summary s = { 0 };
	struct rp_io rd = { .len = 4096, .op = BPT_OP_READ };
	uint64_t x = 0x2545F4914F6CDD1Dull;

	for (uint64_t i = 0; i < N; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		lat[i] = 20000 + x % 3000000;
		struct rp_result r = { .io = &rd, .sched_ns = i, .issue_ns = i + x % 7,
				       .complete_ns = i + x % 7 + lat[i] };

		summary_add(&s, &r);
	}
	summary_finish(&s);
	cr_assert_str_eq(s.failed, "");
	stats_sort_u64_alloc(lat, N);
	for (unsigned p = 0; p < STATS_NPCT; p++)
		cr_expect_eq(s.all_lat.pct[p], stats_percentile(lat, N, stats_pct_ppm[p]), "%s",
			     stats_pct_label[p]);
	cr_expect_eq(s.late_pct[2], 6);
	summary_free(&s);
}

/* No temporary file: the counts stay, the latency says why it is missing. */
Test(replay_output, summary_without_a_temporary_file)
{
	struct summary s = { 0 };
	struct rp_io rd = { .len = 4096, .op = BPT_OP_READ };
	struct rp_result r = { .io = &rd, .issue_ns = 1, .complete_ns = 2 };
	const char *old = getenv("TMPDIR");
	char *saved = old ? strdup(old) : NULL, *buf;
	size_t len;
	FILE *f;

	setenv("TMPDIR", "/nonexistent-blkpeak-dir", 1);
	summary_add(&s, &r);
	summary_add(&s, &r);
	if (saved)
		setenv("TMPDIR", saved, 1);
	else
		unsetenv("TMPDIR");
	free(saved);
	cr_expect_eq(s.ios, 2);
	f = open_memstream(&buf, &len);
	summary_print_json(&s, &(struct summary_ctx){ .source = "t", .target = "x", .timing = "afap" }, f);
	fclose(f);
	cr_expect(strstr(buf, "\"latency\":null,\"lateness\":null,\"latency_error\":\"cannot make a "
			      "temporary file in /nonexistent-blkpeak-dir: No such file or directory\""), "%s", buf);
	free(buf);
	summary_free(&s);
}

Test(replay_output, recorded_queue_depth)
{
	/* a: 0-100, b: 10-50, c: 20-30, d: 60-200, e: 100-110 (a ends as e starts) */
	struct rp_io io[5] = {
		{ .t_ns = 0, .done_ns = 100 }, { .t_ns = 10, .done_ns = 50 },
		{ .t_ns = 20, .done_ns = 30 }, { .t_ns = 60, .done_ns = 200 },
		{ .t_ns = 100, .done_ns = 110 },
	};

	cr_expect_eq(load_max_outstanding(io, 5), 3);
	cr_expect_eq(load_max_outstanding(io, 1), 1);
	cr_expect_eq(load_max_outstanding(io, 0), 0);
}

/* An I/O whose completion the capture did not see stays "in flight" to
 * its bound (fio at iodepth 8 read as depth 13): the recorded depth, and
 * with it --timing afap's default --queue-depth, leave it out. */
Test(replay_output, recorded_queue_depth_counts_seen_completions)
{
	/* two seen at a time; three unseen whose bounds reach 10 ms */
	struct rp_io io[6] = {
		{ .t_ns = 0, .done_ns = 100 }, { .t_ns = 10, .done_ns = 10000000, .unseen = 1 },
		{ .t_ns = 20, .done_ns = 150 }, { .t_ns = 30, .done_ns = 10000000, .unseen = 1 },
		{ .t_ns = 200, .done_ns = 300 }, { .t_ns = 210, .done_ns = 10000000, .unseen = 1 },
	};

	cr_expect_eq(load_max_outstanding(io, 6), 2);
	for (int i = 0; i < 6; i++)
		io[i].unseen = 0;
	cr_expect_eq(load_max_outstanding(io, 6), 4, "all counted: the unseen ones pile up");
}

/* Write records (in completion order), scan them and stream them back
 * sorted into *io. */
static void load_with(enum writes_mode mode, struct loaded_trace *lt, struct rp_io *io)
{
	char path[] = "/tmp/blkpeak-load-XXXXXX";
	int fd = mkstemp(path);
	struct bpt_header *h = calloc(1, sizeof(*h));
	struct bpt_device d = { .name = "sdb", .major = 8, .minor = 16, .size_bytes = 1 << 30 };
	struct bpt_writer *w;
	struct bpt_reader *r;
	struct bpt_error err = { 0 };
	/* issue, complete, sector, bytes, op */
	static const uint64_t recs[][5] = {
		{ 1000300, 1000400, 80, 4096, BPT_OP_WRITE },
		{ 1000000, 1000500, 0, 8192, BPT_OP_READ },
		{ 1000200, 1000600, 8, 4096, BPT_OP_DISCARD },
		{ 1000100, 1000700, 2048, 65536, BPT_OP_READ },
	};
	struct load_opts lo = { .writes = mode };
	struct load_stream *ls;
	uint64_t n = 0;

	cr_assert_geq(fd, 0);
	close(fd);
	bpt_header_init(h, "capture");
	cr_assert_geq(bpt_header_add_device(h, &d), 0);
	cr_assert_eq(bpt_writer_create(&w, path, h, NULL, &err), 0, "%s", err.msg);
	for (unsigned i = 0; i < 4; i++) {
		struct bpt_record rec = { .issue_ns = recs[i][0], .queue_ns = recs[i][0],
					  .complete_ns = recs[i][1], .sector = recs[i][2],
					  .bytes = (uint32_t)recs[i][3], .op = (uint8_t)recs[i][4],
					  .flags = recs[i][4] == BPT_OP_WRITE ? BPT_F_FUA : 0 };

		cr_assert_eq(bpt_writer_add(w, &rec), 0);
	}
	cr_assert_eq(bpt_writer_close(w, &err), 0, "%s", err.msg);
	cr_assert_eq(bpt_reader_open(&r, path, &err), 0, "%s", err.msg);
	cr_assert_eq(load_opts_init(&lo, 1), 0);
	lo.dev_target[0] = 0;
	cr_assert_eq(load_scan(r, &lo, lt, &err), 0, "%s", err.msg);
	load_opts_free(&lo);
	cr_assert_eq(load_stream_open(&ls, r, lt, NULL, 0), 0);
	while (n < 4 && load_stream_next(ls, &io[n], &err) == 1)
		n++;
	cr_assert_eq(n, lt->n, "%s", err.msg);
	cr_assert_eq(load_stream_next(ls, &io[n], &err), 0, "%s", err.msg);
	load_stream_close(ls);
	if (!lt->have_max_outstanding)
		cr_assert_eq(load_count_outstanding(r, lt, 0, &err), 0, "%s", err.msg);
	bpt_reader_close(r);
	unlink(path);
	free(h);
}

Test(replay_output, load_sorts_by_issue_and_applies_writes_mode)
{
	struct loaded_trace lt;
	struct rp_io io[4];

	load_with(WRITES_REPLAY, &lt, io);
	cr_assert_eq(lt.n, 4);
	cr_expect_eq(io[0].src, 1, "earliest issue first");
	cr_expect_eq(io[1].src, 3);
	cr_expect_eq(io[2].src, 2);
	cr_expect_eq(io[3].src, 0);
	cr_expect_eq(io[0].t_ns, 0, "times from the first issue");
	cr_expect_eq(io[3].t_ns, 300);
	cr_expect_eq(io[3].done_ns, 400);
	cr_expect_eq(io[1].offset, 2048 * 512);
	cr_expect_eq(lt.recorded_ns, 700);
	cr_expect_eq(lt.max_outstanding, 4);
	cr_expect_eq(lt.tgt[0].writes, 2, "the write and the discard");
	cr_expect_eq(lt.tgt[0].extent, 2048 * 512 + 65536);
	cr_expect_eq(lt.tgt[0].max_rw_len, 65536);
	loaded_trace_free(&lt);

	load_with(WRITES_SKIP, &lt, io);
	cr_expect_eq(lt.n, 2);
	cr_expect_eq(lt.skipped, 2);
	cr_expect_eq(lt.tgt[0].writes, 0);
	loaded_trace_free(&lt);

	load_with(WRITES_AS_READS, &lt, io);
	cr_assert_eq(lt.n, 3, "the discard cannot become a read");
	cr_expect_eq(io[2].src, 0);
	cr_expect_eq(io[2].op, BPT_OP_READ);
	cr_expect_eq(io[2].flags, 0, "no FUA on a read");
	cr_expect_eq(lt.tgt[0].writes, 0);
	loaded_trace_free(&lt);
}
