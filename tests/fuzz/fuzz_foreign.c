/*
 * fuzz_foreign.c — libFuzzer target for every foreign-format reader of
 * formats/registry.c, through the entry `convert`, `info`, `dump`,
 * `replay` and `analyze import` use (formats_reader_open_opts: the input
 * file, its decompression, the reader, devices, names, the time base and
 * the reorder window). The input is written to a file of a private
 * temporary folder (fuzz_util.h) and opened from there.
 *
 * The reader is picked from the registry table, so a format added to it
 * is fuzzed without editing this file:
 *   FUZZ_FORMAT=NAME  the whole input is a file of that format (--from
 *                     NAME); tests/fuzz/corpus/NAME and dict/NAME.dict
 *                     are its seeds and words;
 *   FUZZ_FORMAT=list  print the readers' names and exit (tests/fuzz/run.sh
 *                     makes one target of each);
 *   unset             "foreign": byte 0 picks the row (one past the last:
 *                     the format detected, as `info` does), byte 1 the
 *                     compression (none, gzip, bzip2, xz, zstd: the rest
 *                     of the input is compressed before it is written).
 *
 * What must hold, else the target aborts (a finding): no crash, hang,
 * leak or undefined behaviour; every record within the reader's contract
 * (fuzz_util.h); as many records read as the scan counted; the first
 * record the same after a rewind; an input whose bad lines --skip-bad
 * counted is refused without it. Every reader's detect() is also run on
 * the input's first bytes.
 */
#include <bzlib.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "foreign.h"
#include "fuzz_util.h"
#include "source.h"

static const struct ff_reader_ops *fixed; /* FUZZ_FORMAT, or NULL */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *f = getenv("FUZZ_FORMAT");

	(void)argc;
	(void)argv;
	if (f && !strcmp(f, "list")) {
		for (size_t i = 0; i < ff_nreaders; i++)
			printf("%s\n", ff_readers[i]->name);
		exit(0);
	}
	if (f && *f && !(fixed = ff_reader_find(f))) {
		fprintf(stderr, "fuzz_foreign: FUZZ_FORMAT=%s: no such reader\n", f);
		exit(1);
	}
	return 0;
}

/* data compressed with method 1..4 (gzip, bzip2, xz, zstd) into *out
 * (malloc'd); its size, or 0 when the compressor refused. */
static size_t compress_as(int method, const uint8_t *data, size_t size, uint8_t **out)
{
	size_t cap = size + size / 2 + 1024, n = 0;
	uint8_t *b = malloc(cap);

	*out = b;
	if (!b)
		abort();
	switch (method) {
	case 1: {
		z_stream z = { 0 };

		if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
			abort();
		z.next_in = (Bytef *)data;
		z.avail_in = (uInt)size;
		z.next_out = b;
		z.avail_out = (uInt)cap;
		if (deflate(&z, Z_FINISH) == Z_STREAM_END)
			n = z.total_out;
		deflateEnd(&z);
		break;
	}
	case 2: {
		unsigned len = (unsigned)cap;

		if (BZ2_bzBuffToBuffCompress((char *)b, &len, (char *)data, (unsigned)size, 1, 0, 0) ==
		    BZ_OK)
			n = len;
		break;
	}
	case 3:
		if (lzma_easy_buffer_encode(0, LZMA_CHECK_CRC32, NULL, data, size, b, &n, cap) !=
		    LZMA_OK)
			n = 0;
		break;
	default: {
		size_t r = ZSTD_compress(b, cap, data, size, 1);

		n = ZSTD_isError(r) ? 0 : r;
		break;
	}
	}
	return n;
}

static int open_trace(struct bpt_reader **r, const char *path, const char *from, int skip_bad,
		      uint32_t window, struct bpt_error *e)
{
	const char *paths[] = { path };
	struct ff_source_opts o = { .from = from, .skip_bad = skip_bad, .window = window };

	return formats_reader_open_opts(r, paths, 1, &o, e);
}

static int same(const struct bpt_record *a, const struct bpt_record *b)
{
	return a->queue_ns == b->queue_ns && a->issue_ns == b->issue_ns &&
	       a->complete_ns == b->complete_ns && a->sector == b->sector &&
	       a->bytes == b->bytes && a->pid == b->pid && a->comm_id == b->comm_id &&
	       a->error == b->error && a->dev == b->dev && a->op == b->op &&
	       a->flags == b->flags && a->completion == b->completion;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct ff_reader_ops *rd = fixed;
	const uint8_t *body = data;
	size_t len = size;
	uint8_t *packed = NULL, *denul = NULL;
	char path[128];
	struct bpt_reader *r;
	struct bpt_error e;
	struct bpt_record rec, first;
	struct bpt_stats st;
	uint64_t n = 0, d;
	/* the reorder window: the default, or 4 records so that an input
	 * out of order beyond it is refused (convert --window) */
	uint32_t window = size & 1 ? 4 : 0;
	int comp = 0, rc;

	if (!fixed) {
		if (size < 2)
			return 0;
		size_t row = data[0] % (ff_nreaders + 1);

		rd = row < ff_nreaders ? ff_readers[row] : NULL;
		comp = data[1] % 5;
		body = data + 2;
		len = size - 2;
	}
	const struct ff_reader_ops *best = NULL;
	int best_score = 0;

	for (size_t i = 0; i < ff_nreaders; i++) {
		int score = ff_readers[i]->detect("fuzz.in", (const char *)body,
						  len < FF_DETECT_BYTES ? len : FF_DETECT_BYTES);

		if (score < 0 || score > 100)
			abort();
		if (score > best_score) {
			best = ff_readers[i];
			best_score = score;
		}
	}
	/* known defect "nul" (issue 27, group 1): a NUL byte in a text
	 * trace; made a blank while it is listed */
	const struct ff_reader_ops *eff = rd ? rd : best;

	if (fuzz_avoid("nul") && !(eff && (eff->flags & FF_BINARY)) && memchr(body, 0, len)) {
		denul = malloc(len);
		if (!denul)
			abort();
		for (size_t i = 0; i < len; i++)
			denul[i] = body[i] ? body[i] : ' ';
		body = denul;
	}
	if (comp) {
		len = compress_as(comp, body, len, &packed);
		body = packed;
		if (!len) {
			free(packed);
			free(denul);
			return 0;
		}
	}
	fuzz_write_file("fuzz.in", body, len, path, sizeof(path));
	free(packed);
	free(denul);

	if (open_trace(&r, path, rd ? rd->name : NULL, 1, window, &e))
		return 0;
	while ((rc = bpt_reader_next(r, &rec, &e)) == 1) {
		fuzz_check_record(r, &rec);
		if (!n++)
			first = rec;
	}
	bpt_reader_stats(r, &st);
	if (rc == 0 && n != st.records)
		abort(); /* the scan counted another number of records */
	bpt_reader_digest(r, &d, &e);
	bpt_reader_verify(r, &e);
	if (bpt_reader_rewind(r, &e) == 0 && n && rc == 0) {
		if (bpt_reader_next(r, &rec, &e) != 1 || !same(&rec, &first))
			abort(); /* a second reading differs from the first */
	}
	const char *bad = bpt_header_get_meta(bpt_reader_header(r), "import.bad_lines");
	int had_bad = bad && strcmp(bad, "0");

	bpt_reader_close(r);
	if (had_bad) {
		/* without --skip-bad the first bad line is an error */
		if (open_trace(&r, path, rd ? rd->name : NULL, 0, window, &e) == 0)
			abort();
	}
	return 0;
}
