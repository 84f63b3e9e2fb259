/*
 * bpt_colsize.c — where the bytes of a .bpt trace go: per column, its
 * share of the compressed size, in bytes per record.
 *
 * usage: bpt_colsize [--level L] FILE.bpt...
 *
 * Each block's payload is decompressed and compressed again as the
 * writer does (zstd, one zstd block per byte plane), with a flush at
 * every column's start as well, so that the output zstd produces between
 * two flushes is the cost of what lies between them: a column's
 * directory entry, header and planes. The strings and loss entries at a
 * payload's start count as "strings+losses"; block headers (56 bytes),
 * the file's header, footer and trailer as "framing". The extra flushes
 * cost a few bytes per column and block: the sum is printed beside the
 * file's size. Reads the format as schemas/trace-format.md gives it,
 * without the library, so it also shows files of codings the library
 * has not got; a malformed file is an error naming the offset.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define NCOL 64
#define CUT_MIN 1024 /* the writer's PLANE_CUT_MIN */

static const char *const names[NCOL] = {
	"issue", "queue", "complete", "sector", "bytes", "dev", "op", "flags",
	"pid", "comm", "cgroup", "error", "sched", "source", "member",
	"sector_ref", "issue_ref", "completion", "internal", "file_class",
	"file_dev", "inode", "file_offset", "file_bytes", "file2_dev", "inode2",
	"file2_offset", "file2_bytes", "cause_pid", "cause_comm", "cause_cgroup",
	"cause2_pid", "cause2_comm", "cause2_cgroup",
};

struct cur {
	const uint8_t *p;
	size_t len, pos;
};

static int varint(struct cur *c, uint64_t *v)
{
	uint64_t r = 0;

	for (int i = 0; i < 10 && c->pos < c->len; i++) {
		uint8_t b = c->p[c->pos++];

		r |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*v = r;
			return 0;
		}
	}
	return -1;
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

struct tally {
	double col[NCOL], strings, framing;
	uint64_t kinds[NCOL][8]; /* blocks per column kind */
	uint64_t coding[8];      /* blocks per coding byte */
	uint64_t records, file_bytes;
};

/* Compress [from, to) of the payload with a flush at its end; the bytes
 * zstd emitted for it are added to *acc. */
static int chunk(ZSTD_CCtx *z, ZSTD_outBuffer *out, const uint8_t *p, size_t from,
		 size_t to, int end, double *acc)
{
	ZSTD_inBuffer in = { p + from, to - from, 0 };
	size_t before = out->pos, rc;

	do {
		rc = ZSTD_compressStream2(z, out, &in, end ? ZSTD_e_end : ZSTD_e_flush);
		if (ZSTD_isError(rc))
			return -1;
	} while (rc && out->pos < out->size);
	*acc += (double)(out->pos - before);
	return rc ? -1 : 0;
}

/* The columns of one payload of n records, compressed with cuts. */
static int block(ZSTD_CCtx *z, const uint8_t *p, size_t len, uint32_t n, int level,
		 struct tally *t)
{
	struct cur c = { p, len, 0 };
	uint64_t ns, first, nl, ncols, v;
	size_t bound = 2 * ZSTD_compressBound(len) + 65536, prev = 0; /* room for the flushes */
	uint8_t *o = malloc(bound);
	ZSTD_outBuffer out = { o, bound, 0 };
	double *acc = &t->strings;
	int rc = -1;

	if (!o)
		return -1;
	ZSTD_CCtx_reset(z, ZSTD_reset_session_only);
	ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, level);
	if (varint(&c, &ns) || varint(&c, &first))
		goto out;
	for (uint64_t k = 0; k < ns; k++) {
		if (c.len - c.pos < 2)
			goto out;
		c.pos += 2 + (c.p[c.pos] | c.p[c.pos + 1] << 8);
		if (c.pos > c.len)
			goto out;
	}
	if (varint(&c, &nl))
		goto out;
	for (uint64_t k = 0; k < 3 * nl; k++)
		if (varint(&c, &v))
			goto out;
	if (varint(&c, &ncols))
		goto out;
	for (uint64_t k = 0; k < ncols; k++) {
		uint64_t id, clen;
		size_t at = c.pos;

		if (varint(&c, &id) || varint(&c, &clen) || clen > c.len - c.pos)
			goto out;
		if (chunk(z, &out, p, prev, at, 0, acc))
			goto out;
		prev = at;
		acc = &t->col[id < NCOL ? id : NCOL - 1];
		/* the planes of a planes column: cut at each, as the writer */
		struct cur cc = { p + c.pos, clen, 0 };
		uint64_t seed, base;

		if (clen && p[c.pos] < 8)
			t->kinds[id < NCOL ? id : NCOL - 1][p[c.pos]]++;
		uint64_t tick, off;
		int head = 0; /* the planes' header found (kinds 0 and 2) */

		cc.pos = 1;
		if (clen >= 3 && p[c.pos] == 0)
			head = !varint(&cc, &seed);
		else if (clen >= 3 && p[c.pos] == 2)
			head = !varint(&cc, &seed) && !varint(&cc, &tick) && !varint(&cc, &off);
		if (head && n >= CUT_MIN && cc.len - cc.pos >= 2) {
			unsigned width = cc.p[cc.pos];

			cc.pos += 2;
			if (!varint(&cc, &base) && cc.len - cc.pos == (size_t)width * n)
				for (unsigned k2 = 0; k2 < width; k2++) {
					size_t cut = c.pos + cc.pos + (size_t)k2 * n;

					if (chunk(z, &out, p, prev, cut, 0, acc))
						goto out;
					prev = cut;
				}
		}
		c.pos += clen;
	}
	if (c.pos != c.len || chunk(z, &out, p, prev, len, 1, acc))
		goto out;
	rc = 0;
out:
	free(o);
	return rc;
}

static int file(const char *path, int level, struct tally *t)
{
	FILE *f = fopen(path, "rb");
	uint8_t *d = NULL, *raw = NULL;
	long size;
	int rc = -1;
	ZSTD_CCtx *z = ZSTD_createCCtx();
	ZSTD_DCtx *dz = ZSTD_createDCtx();

	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 24 || fseek(f, 0, SEEK_SET) ||
	    !(d = malloc(size)) || fread(d, 1, size, f) != (size_t)size) {
		fprintf(stderr, "%s: cannot read: %s\n", path, strerror(errno ? errno : EINVAL));
		goto out;
	}
	if (memcmp(d, "\x89" "BPT\r\n\x1a\n", 8)) {
		fprintf(stderr, "%s: not a .bpt trace\n", path);
		goto out;
	}
	size_t off = le32(d + 12), payload_total = 0;

	t->file_bytes += (uint64_t)size;
	t->framing += off;
	while (off + 56 <= (size_t)size && !memcmp(d + off, "BPTB", 4)) {
		uint32_t n = le32(d + off + 8), stored = le32(d + off + 12), rawsz = le32(d + off + 16);
		const uint8_t *p = d + off + 56;

		if (stored > (size_t)size - off - 56 || rawsz > (32u << 20)) {
			fprintf(stderr, "%s: offset %zu: block malformed\n", path, off);
			goto out;
		}
		if (d[off + 20] == 1) {
			free(raw);
			raw = malloc(rawsz ? rawsz : 1);
			if (!raw || ZSTD_decompressDCtx(dz, raw, rawsz, p, stored) != rawsz) {
				fprintf(stderr, "%s: offset %zu: cannot decompress\n", path, off);
				goto out;
			}
			p = raw;
		}
		if (block(z, p, rawsz, n, level, t)) {
			fprintf(stderr, "%s: offset %zu: payload malformed\n", path, off);
			goto out;
		}
		t->records += n;
		t->coding[d[off + 21] & 7]++;
		t->framing += 56;
		payload_total += stored;
		off += 56 + stored;
	}
	t->framing += (double)((size_t)size - off);
	rc = 0;
out:
	if (f)
		fclose(f);
	free(d);
	free(raw);
	ZSTD_freeCCtx(z);
	ZSTD_freeDCtx(dz);
	return rc;
}

int main(int argc, char **argv)
{
	int level = 3, a = 1;

	if (argc > 2 && !strcmp(argv[1], "--level")) {
		level = atoi(argv[2]);
		a = 3;
	}
	if (a >= argc) {
		fprintf(stderr, "usage: bpt_colsize [--level L] FILE.bpt...\n");
		return 2;
	}
	for (; a < argc; a++) {
		struct tally t;
		double sum;

		memset(&t, 0, sizeof(t));
		if (file(argv[a], level, &t))
			return 1;
		if (!t.records) {
			printf("%s: no records\n", argv[a]);
			continue;
		}
		sum = t.strings + t.framing;
		for (int id = 0; id < NCOL; id++)
			sum += t.col[id];
		printf("%s: %llu records, %llu bytes, %.3f bytes/record "
		       "(sum of the parts %.3f)\n", argv[a],
		       (unsigned long long)t.records, (unsigned long long)t.file_bytes,
		       (double)t.file_bytes / t.records, sum / t.records);
		for (int id = 0; id < NCOL; id++) {
			if (!t.col[id])
				continue;
			printf("  %-14s %7.3f  %5.1f%%  blocks by kind:", names[id] ? names[id] : "(new)",
			       t.col[id] / t.records, 100 * t.col[id] / sum);
			for (int k = 0; k < 8; k++)
				if (t.kinds[id][k])
					printf(" %d:%llu", k, (unsigned long long)t.kinds[id][k]);
			printf("\n");
		}
		printf("  blocks by coding (time mode 0 issue, 1 complete, 4 after, 5 both; +2 sectors absolute):");
		for (int k = 0; k < 8; k++)
			if (t.coding[k])
				printf(" %d:%llu", k, (unsigned long long)t.coding[k]);
		printf("\n  %-14s %7.3f  %5.1f%%\n  %-14s %7.3f  %5.1f%%\n", "strings+losses",
		       t.strings / t.records, 100 * t.strings / sum, "framing",
		       t.framing / t.records, 100 * t.framing / sum);
	}
	return 0;
}
