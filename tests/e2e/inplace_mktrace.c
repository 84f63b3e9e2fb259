/*
 * inplace_mktrace.c — a test helper of 42-analyze-inplace.sh: a trace
 * with every operation, every flag, errors, unknown queue times, three
 * devices (spinning, solid state, a 31-character name), odd process
 * names, and either a capture's completion column and losses or a
 * replay run's columns (sched, source, member) and partial-run meta.
 * `blkpeak generate` makes none of these.
 *
 *   usage: inplace_mktrace OUT.bpt N capture|replay BLOCK_RECORDS
 *
 * Records come in rising issue time with jitter (blocks overlap a
 * little), BLOCK_RECORDS to a block. Deterministic.
 * Built by the test against build/libbpt.a (lib.sh cc_libbpt); uses only lib/bpt.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpt.h"

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

int main(int argc, char **argv)
{
	static struct bpt_header hdr;
	static const char *const comms[] = { "fio", "kworker/u8:2", "a,\"quoted\" name", "tab\there" };
	struct bpt_device d[3] = {
		{ .name = "sda", .major = 8, .minor = 0, .size_bytes = 1ull << 40, .rotational = 1,
		  .logical_block_size = 512, .physical_block_size = 4096, .model = "spinner" },
		{ .name = "nvme0n1", .major = 259, .minor = 0, .size_bytes = 1ull << 39,
		  .logical_block_size = 4096, .physical_block_size = 4096 },
		{ .name = "a-device-name-of-31-characters!", .major = 7, .minor = 3,
		  .size_bytes = 1ull << 30, .logical_block_size = 512, .physical_block_size = 512 },
	};
	struct bpt_writer_opts o = { 0 };
	struct bpt_error err = { 0 };
	struct bpt_writer *w;
	uint32_t ids[4];
	uint64_t seed = 88172645463325252ull, n;
	int replay;

	if (argc != 5 || (strcmp(argv[3], "capture") && strcmp(argv[3], "replay"))) {
		fprintf(stderr, "usage: inplace_mktrace OUT.bpt N capture|replay BLOCK_RECORDS\n");
		return 2;
	}
	n = strtoull(argv[2], NULL, 10);
	replay = !strcmp(argv[3], "replay");
	o.block_records = (uint32_t)strtoul(argv[4], NULL, 10);
	bpt_header_init(&hdr, replay ? "replay" : "capture");
	if (replay) {
		hdr.columns = BPT_COL_SCHED | BPT_COL_SOURCE | BPT_COL_MEMBER;
		bpt_header_set_meta(&hdr, BPT_META_SOURCE_DIGEST, "00c0ffee00c0ffee");
		bpt_header_set_meta(&hdr, BPT_META_TARGET, "raid0:/dev/a,/dev/b");
		bpt_header_set_meta(&hdr, BPT_META_TIMING, "afap");
		/* run.ios without run.status: a run file cut before the end */
		char total[32];

		snprintf(total, sizeof(total), "%llu", (unsigned long long)n * 2);
		bpt_header_set_meta(&hdr, BPT_META_RUN_IOS, total);
	} else {
		hdr.columns = BPT_COL_COMPLETION;
	}
	for (int i = 0; i < 3; i++)
		if (bpt_header_add_device(&hdr, &d[i]) < 0)
			return 1;
	if (bpt_writer_create(&w, argv[1], &hdr, &o, &err) < 0) {
		fprintf(stderr, "inplace_mktrace: %s\n", err.msg);
		return 1;
	}
	for (int i = 0; i < 4; i++)
		if (bpt_writer_intern(w, comms[i], &ids[i]) < 0)
			return 1;
	for (uint64_t i = 0; i < n; i++) {
		struct bpt_record r = { 0 };
		uint64_t x = rnd(&seed);

		r.issue_ns = 1000000 + i * 1000 + x % 3000;
		r.queue_ns = i % 7 == 0 ? 0 : r.issue_ns - (x >> 12) % 500;
		r.complete_ns = r.issue_ns + 1000 + (x >> 20) % 100000;
		r.dev = (uint16_t)(i % 3);
		r.op = (uint8_t)((x >> 30) % BPT_OP__COUNT);
		r.flags = (uint8_t)((x >> 33) % 32);
		r.bytes = r.op == BPT_OP_FLUSH ? 0 : (uint32_t)(512u << ((x >> 38) % 16));
		r.sector = (x >> 8) % (1ull << 28);
		r.error = i % 11 == 0 ? -5 : i % 13 == 0 ? -28 : 0;
		r.pid = 1 + (uint32_t)((x >> 44) % 5);
		r.comm_id = (x >> 47) % 5 ? ids[(x >> 50) % 4] : 0;
		r.cgroup_id = (x >> 2) % (1ull << 40);
		if (replay) {
			r.sched_ns = r.issue_ns - (x >> 24) % 800;
			r.source_index = i * 2;
			r.member = (uint32_t)(i % 4);
		} else {
			r.completion = i % 17 == 0 ? BPT_COMPLETION_REUSED
				     : i % 19 == 0 ? BPT_COMPLETION_PENDING : BPT_COMPLETION_SEEN;
		}
		if (bpt_writer_add(w, &r) < 0) {
			fprintf(stderr, "inplace_mktrace: cannot add record %llu\n", (unsigned long long)i);
			return 1;
		}
		if (!replay && i % 9000 == 4500)
			bpt_writer_add_loss(w, r.issue_ns, r.issue_ns + 5000, 3);
	}
	if (bpt_writer_close(w, &err) < 0) {
		fprintf(stderr, "inplace_mktrace: %s\n", err.msg);
		return 1;
	}
	return 0;
}
