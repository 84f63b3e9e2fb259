/*
 * bpt_from_text.c — a benchmark helper: write the I/Os given as text lines
 * on stdin into a .bpt trace, so bench-size.sh can store the very I/Os a
 * blktrace recording holds and compare the two formats' sizes.
 *
 *   usage: bpt_from_text OUT.bpt < lines
 *   line:  queue_ns issue_ns complete_ns sector bytes op pid comm
 *          (times from the recording's start; op is blkparse's RWBS:
 *          R.. read, W.. write, F flush, D discard; an S in it sets sync)
 *
 * Built by bench-size.sh against build/libbpt.a (lib.sh cc_libbpt); uses only lib/bpt.h.
 */
#include <stdio.h>
#include <string.h>

#include "bpt.h"

/* The op and flags of a blkparse RWBS string such as "WS" or "RA". */
static void parse_rwbs(const char *s, struct bpt_record *r)
{
	r->op = BPT_OP_READ;
	if (strchr(s, 'W'))
		r->op = BPT_OP_WRITE;
	else if (strchr(s, 'D'))
		r->op = BPT_OP_DISCARD;
	else if (s[0] == 'F' || s[0] == 'N')
		r->op = BPT_OP_FLUSH;
	r->flags = 0;
	if (strchr(s, 'S'))
		r->flags |= BPT_F_SYNC;
	if (strchr(s, 'A'))
		r->flags |= BPT_F_READAHEAD;
	if (strchr(s, 'M'))
		r->flags |= BPT_F_META;
}

int main(int argc, char **argv)
{
	struct bpt_header hdr;
	struct bpt_device dev = { .name = "loop", .logical_block_size = 512,
				  .physical_block_size = 512 };
	struct bpt_writer *w;
	struct bpt_error err = { 0 };
	unsigned long long q, d, c, sector;
	unsigned bytes, pid;
	char rwbs[16], comm[64];
	int ret = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: bpt_from_text OUT.bpt < lines\n");
		return 2;
	}
	bpt_header_init(&hdr, "import");
	bpt_header_add_device(&hdr, &dev);
	bpt_header_set_meta(&hdr, "source", "blkparse text (bench/bpt_from_text)");
	if (bpt_writer_create(&w, argv[1], &hdr, NULL, &err)) {
		fprintf(stderr, "bpt_from_text: %s\n", err.msg);
		return 1;
	}
	while (!ret && scanf("%llu %llu %llu %llu %u %15s %u %63s", &q, &d, &c, &sector,
			     &bytes, rwbs, &pid, comm) == 8) {
		struct bpt_record r = { .queue_ns = q, .issue_ns = d, .complete_ns = c,
					.sector = sector, .bytes = bytes, .pid = pid };

		parse_rwbs(rwbs, &r);
		ret = bpt_writer_intern(w, comm, &r.comm_id);
		if (!ret)
			ret = bpt_writer_add(w, &r);
	}
	if (ret)
		fprintf(stderr, "bpt_from_text: %s: %s\n", argv[1], strerror(-ret));
	if (bpt_writer_close(w, &err)) {
		fprintf(stderr, "bpt_from_text: %s\n", err.msg);
		ret = -1;
	}
	return ret ? 1 : 0;
}
