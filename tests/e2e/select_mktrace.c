/*
 * select_mktrace.c — a test helper of 39-replay-select-path.sh: a trace
 * with file columns (format 1.3) and a path table, as a capture of files
 * would have them, without a capture: data I/Os of six files (one
 * renamed during the capture: two paths, the first is its name; two
 * files of the same inode number on two file systems), requests holding
 * two files' data (merged writeback: the second file in file2_*),
 * metadata, journal and unknown I/Os, reads and writes, at random
 * offsets, and a window of 3 lost events. The same seed gives the same
 * file.
 *
 *   usage: select_mktrace OUT.bpt COUNT SEED
 *
 * Built by the test against build/libbpt.a (lib.sh cc_libbpt); uses only lib/bpt.h.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "bpt.h"
#include "mktrace_rng.h"

static const struct {
	uint32_t dev;
	uint64_t inode;
	const char *path, *path2; /* path2: a later name (a rename), or NULL */
} files[] = {
	{ 8u << 20 | 1, 11, "/data/a.db", NULL },
	{ 8u << 20 | 1, 12, "/data/b.log", NULL },
	{ 8u << 20 | 1, 13, "/tmp/c.tmp", NULL },
	{ 8u << 20 | 1, 14, "/data/sub/d.db", NULL },
	{ 8u << 20 | 1, 15, "/data/old.db", "/data/new.log" },
	{ 8u << 20 | 2, 11, "/other/a.db.bak", NULL }, /* inode 11 of another file system */
};
#define NFILES (sizeof(files) / sizeof(files[0]))

int main(int argc, char **argv)
{
	static struct bpt_header hdr;
	struct bpt_device d = { .name = "sda", .major = 8, .minor = 0, .size_bytes = 1ull << 30,
				.logical_block_size = 512, .physical_block_size = 4096 };
	struct bpt_writer *w;
	struct bpt_error err = { 0 };
	uint32_t comm;
	uint64_t t = 1000000000ULL, count;

	if (argc < 4) {
		fprintf(stderr, "usage: select_mktrace OUT.bpt COUNT SEED\n");
		return 2;
	}
	count = strtoull(argv[2], NULL, 10);
	mktrace_seed(strtoull(argv[3], NULL, 10));
	bpt_header_init(&hdr, "capture");
	hdr.columns = BPT_COL_COMPLETION | BPT_COL_FILE;
	if (bpt_header_add_device(&hdr, &d) < 0 || bpt_writer_create(&w, argv[1], &hdr, NULL, &err) < 0 ||
	    bpt_writer_intern(w, "app", &comm) < 0) {
		fprintf(stderr, "select_mktrace: %s\n", err.msg[0] ? err.msg : "cannot start");
		return 1;
	}
	for (unsigned i = 0; i < NFILES; i++)
		if (bpt_writer_add_path(w, files[i].dev, files[i].inode, files[i].path) < 0 ||
		    (files[i].path2 &&
		     bpt_writer_add_path(w, files[i].dev, files[i].inode, files[i].path2) < 0)) {
			fprintf(stderr, "select_mktrace: cannot add a path\n");
			return 1;
		}
	for (uint64_t i = 0; i < count; i++) {
		struct bpt_record r = { 0 };
		uint64_t x = mktrace_next();
		unsigned f = (unsigned)(x >> 8) % NFILES, kind = (unsigned)(x >> 16) % 10;

		t += 100000 + mktrace_next() % 400000;
		r.op = (x & 1) ? BPT_OP_WRITE : BPT_OP_READ;
		r.bytes = (uint32_t)(1 + (x >> 20) % 8) * 4096;
		r.sector = (mktrace_next() % ((1ull << 30) - r.bytes)) / 4096 * 8;
		r.issue_ns = r.queue_ns = t;
		r.complete_ns = t + 50000 + mktrace_next() % 200000;
		r.pid = 100 + (uint32_t)(x >> 30) % 3;
		r.comm_id = comm;
		r.completion = BPT_COMPLETION_SEEN;
		if (kind < 7) { /* a file's data */
			r.file_class = BPT_FILE_DATA;
			r.file_dev = files[f].dev;
			r.inode = files[f].inode;
			r.file_offset = mktrace_next() % 1000 * 4096;
			r.file_bytes = r.bytes;
			if (kind == 6 && r.bytes > 4096) { /* merged writeback: a second file */
				unsigned g = (f + 1) % NFILES;

				r.file_bytes = 4096;
				r.file2_dev = files[g].dev;
				r.inode2 = files[g].inode;
				r.file2_offset = 0;
				r.file2_bytes = r.bytes - 4096;
			}
		} else {
			r.file_class = kind == 7 ? BPT_FILE_META : kind == 8 ? BPT_FILE_JOURNAL
									 : BPT_FILE_UNKNOWN;
		}
		if (bpt_writer_add(w, &r) < 0) {
			fprintf(stderr, "select_mktrace: cannot add a record\n");
			return 1;
		}
	}
	if (bpt_writer_add_loss(w, 1000000000ULL, 1100000000ULL, 3) < 0) {
		fprintf(stderr, "select_mktrace: cannot add a loss\n");
		return 1;
	}
	if (bpt_writer_close(w, &err) < 0) {
		fprintf(stderr, "select_mktrace: %s\n", err.msg);
		return 1;
	}
	return 0;
}
