/*
 * replay_mktrace.c — a test helper of 34-replay-map-ops.sh: write a trace
 * with two recorded devices and every operation from text lines, which
 * `blkpeak generate` does not make.
 *
 *   usage: replay_mktrace OUT.bpt < lines
 *   line:  dev issue_us complete_us sector bytes op [flags]
 *          dev 0 is "sda" (8:0), 1 is "sdb" (8:16), both 1 GiB;
 *          op is read, write, flush, discard or write-zeroes;
 *          flags are letters S F (sync, FUA) or "-"
 *
 * Built by the test against build/libbpt.a (lib.sh cc_libbpt); uses only lib/bpt.h.
 */
#include <stdio.h>
#include <string.h>

#include "bpt.h"

int main(int argc, char **argv)
{
	static struct bpt_header hdr;
	struct bpt_device a = { .name = "sda", .major = 8, .minor = 0, .size_bytes = 1ull << 30,
				.logical_block_size = 512, .physical_block_size = 512 };
	struct bpt_device b = a;
	struct bpt_writer *w;
	struct bpt_error err = { 0 };
	char line[256], op[32], flags[8];
	unsigned dev;
	unsigned long long t, c, sector, bytes;

	if (argc != 2) {
		fprintf(stderr, "usage: replay_mktrace OUT.bpt < lines\n");
		return 2;
	}
	snprintf(b.name, sizeof(b.name), "sdb");
	b.minor = 16;
	bpt_header_init(&hdr, "capture");
	if (bpt_header_add_device(&hdr, &a) < 0 || bpt_header_add_device(&hdr, &b) < 0 ||
	    bpt_writer_create(&w, argv[1], &hdr, NULL, &err) < 0) {
		fprintf(stderr, "replay_mktrace: %s\n", err.msg);
		return 1;
	}
	while (fgets(line, sizeof(line), stdin)) {
		struct bpt_record r = { 0 };
		int n = sscanf(line, "%u %llu %llu %llu %llu %31s %7s", &dev, &t, &c, &sector,
			       &bytes, op, flags);

		if (n < 6 || dev > 1 || bpt_op_parse(op) < 0) {
			fprintf(stderr, "replay_mktrace: bad line: %s", line);
			return 1;
		}
		r.dev = (uint16_t)dev;
		r.queue_ns = r.issue_ns = t * 1000;
		r.complete_ns = c * 1000;
		r.sector = sector;
		r.bytes = (uint32_t)bytes;
		r.op = (uint8_t)bpt_op_parse(op);
		if (n == 7) {
			r.flags |= strchr(flags, 'S') ? BPT_F_SYNC : 0;
			r.flags |= strchr(flags, 'F') ? BPT_F_FUA : 0;
		}
		if (bpt_writer_add(w, &r) < 0) {
			fprintf(stderr, "replay_mktrace: cannot add a record\n");
			return 1;
		}
	}
	if (bpt_writer_close(w, &err) < 0) {
		fprintf(stderr, "replay_mktrace: %s\n", err.msg);
		return 1;
	}
	return 0;
}
