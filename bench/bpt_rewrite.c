/*
 * bpt_rewrite.c — write a .bpt trace again with this build's writer: the
 * same header, records, strings, losses and paths, with a block closed
 * wherever the input's closes (so a capture's one-second blocks stay as
 * they were). For comparing the sizes two codings give on the very same
 * records (bench/bench-size.sh, bench/RESULTS.md) and for making fuzz
 * seeds with a new writer.
 *
 * usage: bpt_rewrite [--level L] [--count N] [--block N] IN.bpt OUT.bpt
 *   --count N  only the first N records (fuzz seeds: tests/fuzz/corpus/bpt)
 *   --block N  blocks of at most N records
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpt.h"

/* The writer's id for the reader's string `id`. */
static int map_string(struct bpt_reader *r, struct bpt_writer *w, uint32_t id, uint32_t *out)
{
	const char *s = bpt_reader_string(r, id);

	return s ? bpt_writer_intern(w, s, out) : -1;
}

int main(int argc, char **argv)
{
	struct bpt_writer_opts o = { 0 };
	struct bpt_reader *r;
	struct bpt_writer *w;
	struct bpt_error err;
	struct bpt_record rec;
	struct bpt_block_pos pos;
	uint32_t seq = 0;
	uint64_t count = UINT64_MAX, done = 0;
	int a = 1, rc;

	for (; a + 1 < argc && argv[a][0] == '-'; a += 2) {
		if (!strcmp(argv[a], "--level"))
			o.zstd_level = atoi(argv[a + 1]);
		else if (!strcmp(argv[a], "--count"))
			count = strtoull(argv[a + 1], NULL, 10);
		else if (!strcmp(argv[a], "--block"))
			o.block_records = (uint32_t)strtoul(argv[a + 1], NULL, 10);
		else
			break;
	}
	if (argc - a != 2) {
		fprintf(stderr, "usage: bpt_rewrite [--level L] [--count N] [--block N] "
			"IN.bpt OUT.bpt\n");
		return 2;
	}
	if (bpt_reader_open(&r, argv[a], &err)) {
		fprintf(stderr, "bpt_rewrite: %s\n", err.msg);
		return 1;
	}
	if (bpt_writer_create(&w, argv[a + 1], bpt_reader_header(r), &o, &err)) {
		fprintf(stderr, "bpt_rewrite: %s\n", err.msg);
		bpt_reader_close(r);
		return 1;
	}
	while (done++ < count && (rc = bpt_reader_next(r, &rec, &err)) == 1) {
		if (!bpt_reader_block_pos(r, &pos) && pos.seq != seq) {
			seq = pos.seq;
			if (bpt_writer_flush(w))
				break;
		}
		if (map_string(r, w, rec.comm_id, &rec.comm_id) ||
		    map_string(r, w, rec.cause_comm_id, &rec.cause_comm_id) ||
		    map_string(r, w, rec.cause2_comm_id, &rec.cause2_comm_id) ||
		    bpt_writer_add(w, &rec)) {
			rc = -1;
			break;
		}
	}
	if (rc == 1)
		rc = 0; /* stopped at --count */
	if (rc) {
		fprintf(stderr, "bpt_rewrite: %s\n", rc < -1 ? err.msg : "cannot write a record");
		bpt_writer_close(w, &err);
		bpt_reader_close(r);
		return 1;
	}
	const struct bpt_loss *l;
	const struct bpt_path *p;
	size_t nl = bpt_reader_losses(r, &l), np = bpt_reader_paths(r, &p);

	for (size_t i = 0; i < nl; i++)
		if (bpt_writer_add_loss(w, l[i].t0_ns, l[i].t1_ns, l[i].count))
			rc = -1;
	for (size_t i = 0; i < np; i++)
		if (bpt_writer_add_path(w, p[i].file_dev, p[i].inode,
					bpt_reader_string(r, p[i].path_id)))
			rc = -1;
	bpt_reader_close(r);
	if (bpt_writer_close(w, &err) || rc) {
		fprintf(stderr, "bpt_rewrite: %s\n", rc ? "cannot copy losses or paths" : err.msg);
		return 1;
	}
	return 0;
}
