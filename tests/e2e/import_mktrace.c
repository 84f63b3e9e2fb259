/*
 * import_mktrace.c — a test helper of 42-analyze-import-rows.sh: write a
 * trace whose records vary every field the analysis database stores
 * (two devices, every operation, every flag, errors, queue times, large
 * sectors, times and cgroup ids, several processes, every completion
 * kind, and with "replay" the replay columns), which `blkpeak generate`
 * does not make. The same seed gives the same file.
 *
 *   usage: import_mktrace OUT.bpt COUNT SEED [replay]
 *
 * Built by the test against build/libbpt.a (lib.sh cc_libbpt); uses only lib/bpt.h.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpt.h"
#include "mktrace_rng.h"

int main(int argc, char **argv)
{
	static const char *const comms[] = { "fio", "kworker/u8:2", "postgres: writer", "" };
	static const int32_t errors[] = { 0, 0, 0, -5, -28, -4095 };
	static struct bpt_header hdr;
	struct bpt_device a = { .name = "sda", .major = 8, .minor = 0, .size_bytes = 1ull << 40,
				.logical_block_size = 512, .physical_block_size = 4096 };
	struct bpt_device b = a;
	struct bpt_writer *w;
	struct bpt_error err = { 0 };
	uint32_t ids[4];
	uint64_t t = 5000000000000ULL, count;
	int replay;

	if (argc < 4) {
		fprintf(stderr, "usage: import_mktrace OUT.bpt COUNT SEED [replay]\n");
		return 2;
	}
	count = strtoull(argv[2], NULL, 10);
	mktrace_seed(strtoull(argv[3], NULL, 10));
	replay = argc > 4 && !strcmp(argv[4], "replay");
	snprintf(b.name, sizeof(b.name), "nvme0n1");
	b.major = 259;
	b.rotational = 1;
	bpt_header_init(&hdr, replay ? "replay" : "capture");
	hdr.columns = BPT_COL_COMPLETION |
		      (replay ? BPT_COL_SCHED | BPT_COL_SOURCE | BPT_COL_MEMBER : 0);
	if (bpt_header_add_device(&hdr, &a) < 0 || bpt_header_add_device(&hdr, &b) < 0 ||
	    bpt_writer_create(&w, argv[1], &hdr, NULL, &err) < 0) {
		fprintf(stderr, "import_mktrace: %s\n", err.msg);
		return 1;
	}
	for (int i = 0; i < 4; i++)
		if (bpt_writer_intern(w, comms[i], &ids[i]) < 0) {
			fprintf(stderr, "import_mktrace: cannot intern a string\n");
			return 1;
		}
	for (uint64_t i = 0; i < count; i++) {
		struct bpt_record r = { 0 };
		uint64_t x = mktrace_next();

		t += mktrace_next() % 3000000;
		r.dev = (uint16_t)(x & 1);
		r.op = (uint8_t)(x >> 1) % BPT_OP__COUNT;
		r.flags = (uint8_t)((x >> 4) & BPT_F__ALL);
		r.error = errors[(x >> 10) % 6];
		r.pid = (x >> 14) & 1 ? (uint32_t)(x >> 15) % 4000000 : 1;
		r.comm_id = ids[(x >> 40) % 4];
		r.cgroup_id = (x >> 42) & 1 ? mktrace_next() : 0;
		r.bytes = r.op == BPT_OP_FLUSH ? 0 : (uint32_t)(1 + (x >> 43) % 256) * 512;
		r.sector = mktrace_next() % (1ull << 31);
		r.issue_ns = t;
		r.queue_ns = (x >> 52) & 1 ? t - mktrace_next() % 100000 : t;
		r.complete_ns = t + mktrace_next() % 20000000;
		r.completion = (uint8_t)((x >> 53) % 3);
		if (replay) {
			r.sched_ns = t - mktrace_next() % 1000;
			r.source_index = i * 3 + (x >> 55) % 3;
			r.member = (uint32_t)(x >> 57) % 5;
		}
		if (bpt_writer_add(w, &r) < 0) {
			fprintf(stderr, "import_mktrace: cannot add a record\n");
			return 1;
		}
	}
	if (bpt_writer_close(w, &err) < 0) {
		fprintf(stderr, "import_mktrace: %s\n", err.msg);
		return 1;
	}
	return 0;
}
