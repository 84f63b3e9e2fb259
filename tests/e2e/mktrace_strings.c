/*
 * mktrace_strings.c — a test helper of 13-output-safety.sh: write a small
 * trace whose recorded strings (host, device name, model, a meta value
 * and every I/O's comm) are all the one string given, which may hold
 * escape sequences and newlines, as a hostile process or file would.
 *
 *   usage: mktrace_strings OUT.bpt STRING
 *
 * Built by the test against build/libbpt.a (lib.sh cc_libbpt); uses only lib/bpt.h.
 */
#include <stdio.h>
#include <string.h>

#include "bpt.h"

int main(int argc, char **argv)
{
	static struct bpt_header hdr;
	struct bpt_device d = { .major = 7, .minor = 99, .size_bytes = 1ull << 30,
				.logical_block_size = 512, .physical_block_size = 512 };
	struct bpt_writer *w;
	struct bpt_error err = { 0 };
	uint32_t comm;
	int rc;

	if (argc != 3) {
		fprintf(stderr, "usage: mktrace_strings OUT.bpt STRING\n");
		return 2;
	}
	bpt_header_init(&hdr, "capture");
	snprintf(hdr.host, sizeof(hdr.host), "%s", argv[2]);
	snprintf(d.name, sizeof(d.name), "%s", argv[2]);
	snprintf(d.model, sizeof(d.model), "%s", argv[2]);
	if (bpt_header_add_device(&hdr, &d) < 0 || bpt_header_set_meta(&hdr, "note", argv[2]) < 0 ||
	    bpt_writer_create(&w, argv[1], &hdr, NULL, &err) < 0) {
		fprintf(stderr, "mktrace_strings: %s\n", err.msg);
		return 1;
	}
	rc = bpt_writer_intern(w, argv[2], &comm);
	for (int i = 0; !rc && i < 100; i++) {
		struct bpt_record r = {
			.queue_ns = 1000u * i, .issue_ns = 1000u * i, .complete_ns = 1000u * i + 500,
			.sector = 8u * i, .bytes = 4096, .op = BPT_OP_READ, .pid = 4242,
			.comm_id = comm,
		};

		rc = bpt_writer_add(w, &r);
	}
	if (bpt_writer_close(w, &err) || rc) {
		fprintf(stderr, "mktrace_strings: %s\n", err.msg[0] ? err.msg : "cannot write");
		return 1;
	}
	return 0;
}
