/*
 * make_corpus.c — writes the fuzzer's seed corpus: a few tiny valid .bpt
 * files covering every part of the format (empty trace, optional
 * columns, several blocks with strings and losses, a file without
 * footer, dictionary and plane columns, reference columns). The output
 * is deterministic (fixed header clocks and host) so the committed files
 * only change when the format does. Rebuild them with:
 *   cc -std=gnu11 -D_GNU_SOURCE -Ilib -Icommon -o build/make_corpus \
 *      tests/fuzz/make_corpus.c build/lib/bpt_*.o -lzstd && \
 *   build/make_corpus tests/fuzz/corpus/bpt
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bpt.h"
#include "corpus_record.h"

static void header(struct bpt_header *h, uint32_t columns, unsigned ndev)
{
	bpt_header_init(h, "generate");
	strcpy(h->host, "fuzzhost");
	strcpy(h->kernel, "6.0.0");
	h->start_wall_ns = 1700000000000000000ll;
	h->start_mono_ns = 1000;
	h->columns = columns;
	for (unsigned i = 0; i < ndev; i++) {
		struct bpt_device d = { .major = 7, .minor = i, .size_bytes = 1 << 30,
					.logical_block_size = 512,
					.physical_block_size = 4096 };

		snprintf(d.name, sizeof(d.name), "loop%u", i);
		bpt_header_add_device(h, &d);
	}
	bpt_header_set_meta(h, "generator", "make_corpus");
}

static int write_one(const char *dir, const char *name, uint32_t columns,
		     int nrec, int per_block, int losses, int truncate_to, int qd)
{
	char path[512];
	struct bpt_header h;
	struct bpt_writer *w;
	struct bpt_writer_opts o = { .block_records = per_block };
	struct bpt_error e;
	uint32_t ids[3] = { 0 };

	snprintf(path, sizeof(path), "%s/%s.bpt", dir, name);
	header(&h, columns, 2);
	if (bpt_writer_create(&w, path, &h, &o, &e)) {
		fprintf(stderr, "make_corpus: %s\n", e.msg);
		return 1;
	}
	bpt_writer_intern(w, "fio", &ids[0]);
	bpt_writer_intern(w, "kworker/1:2", &ids[1]);
	for (int i = 0; i < nrec; i++) {
		struct bpt_record r;

		if (i == nrec / 2)
			bpt_writer_intern(w, "late-comm", &ids[2]);
		corpus_record(i, nrec, ids, qd, &r);
		if (losses && i % 4 == 0)
			bpt_writer_add_loss(w, 1000u * i, 1000u * i + 10, i + 1);
		bpt_writer_add(w, &r);
	}
	if (bpt_writer_close(w, &e)) {
		fprintf(stderr, "make_corpus: %s\n", e.msg);
		return 1;
	}
	if (truncate_to && truncate(path, truncate_to))
		return 1;
	return 0;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "tests/fuzz/corpus/bpt";
	int rc = 0;

	rc |= write_one(dir, "empty", 0, 0, 0, 0, 0, 0);
	rc |= write_one(dir, "one-block", 0, 6, 0, 0, 0, 0);
	rc |= write_one(dir, "all-columns", 7, 9, 0, 1, 0, 0);
	rc |= write_one(dir, "three-blocks", 0, 12, 4, 1, 0, 0);
	rc |= write_one(dir, "queue-depth", 0, 40, 0, 0, 0, 1);
	rc |= write_one(dir, "no-footer", 1, 12, 4, 0, 400, 0);
	return rc;
}
