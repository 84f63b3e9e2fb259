/*
 * fuzz_map.c — libFuzzer target for `replay --map` specs: each input line
 * is one --map argument, KEY=SPEC[@OFFSET] with KEY a device, a
 * partition, DEV:START-END, path:GLOB or comm:NAME, taken apart as
 * replay's parse_map does (filemap_parse_key, region_parse_key,
 * region_parse_at, then target_spec_parse on SPEC).
 * The regions of the lines that parse are checked together
 * (region_check, devices numbered by name) and a few I/Os are cut over
 * them (region_split); the path:/comm: lines become file and task maps
 * (filemap_add), planned over a small trace whose paths and task names
 * are fixed ones plus the input's globs themselves, and its records are
 * cut (filemap_split) over the same regions. Parse only: no target is
 * opened; inputs whose model file= could name a path (a '/') are left
 * out.
 *
 * What must hold: no crash, leak or undefined behaviour; a region has
 * start < end; the pieces of a split I/O cover it exactly, in order; a
 * packed map's pieces lie inside its area.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filemap.h"
#include "fuzz_util.h"
#include "region.h"
#include "target.h"

#define MAX_LINES 16

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (chdir(fuzz_tmpdir()))
		abort();
	return 0;
}

static void split_check(const struct region *r, unsigned n, unsigned dev, uint64_t off,
			uint64_t len)
{
	struct region_piece p[REGION_MAX_PIECES];
	uint64_t miss, at = 0;
	int k = region_split(r, n, dev, 0, off, len, p, &miss);

	if (k < 0 || k > REGION_MAX_PIECES)
		abort();
	if (!len)
		return;
	for (int i = 0; i < k; i++) {
		if (p[i].src_off != at || !p[i].len)
			abort();
		at += p[i].len;
	}
	if (at != len)
		abort();
}

#define NPATH 4
static const char *fixed[] = { "", "convert", "kworker/u8:1", "/mnt/scratch/magick-1",
			       "/mnt/a.mpc", "/tmp/x", "/mnt/scratch/sub/y" };
static const char *strs[sizeof(fixed) / sizeof(fixed[0]) + MAX_LINES];
static unsigned nstrs;

static const char *str(void *ctx, uint32_t id)
{
	(void)ctx;
	return id < nstrs ? strs[id] : NULL;
}

/* The pieces of rec cover [0, len) in order; packed ones lie in their area. */
static void pieces_check(const struct filemap *fm, const struct bpt_record *rec, uint64_t len,
			 const struct region *r, unsigned nr)
{
	struct region_piece p[FILEMAP_MAX_PIECES];
	uint64_t miss, at = 0;
	int k = filemap_split(fm, rec, len, r, nr, 0, p, &miss);

	if (k < 0 || k > FILEMAP_MAX_PIECES)
		abort();
	for (int i = 0; len && i < k; i++) {
		struct filemap_rule_info fi;

		if (p[i].src_off != at || !p[i].len || p[i].placement > filemap_count(fm))
			abort();
		if (p[i].placement) {
			filemap_rule_info(fm, p[i].placement - 1u, &fi);
			if (fi.packed && (p[i].offset < fi.at || p[i].offset + p[i].len > fi.end))
				abort();
		}
		at += p[i].len;
	}
	if (len && at != len)
		abort();
}

/* Plan fm over a small trace (paths: the fixed ones and the globs) and
 * cut its records over the regions. */
static void filemap_check(struct filemap *fm, char **globs, unsigned nglobs,
			  const struct region *r, unsigned nr)
{
	struct bpt_path paths[NPATH + MAX_LINES];
	const char *devnames[] = { "d0", "d1" };
	struct filemap_trace t = { .name = "fuzz", .columns = BPT_COL_FILE | BPT_COL_CAUSE,
				   .paths = paths, .string = str, .ndevices = 2,
				   .dev_names = devnames };
	struct bpt_record rec[6];
	struct bpt_error e;
	unsigned np = 0;
	int rc;

	nstrs = 0;
	for (unsigned i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		strs[nstrs++] = fixed[i];
	for (unsigned i = 0; i < NPATH; i++)
		paths[np++] = (struct bpt_path){ .file_dev = 1, .inode = 10 + i, .path_id = 3 + i };
	for (unsigned i = 0; i < nglobs; i++) {
		paths[np++] = (struct bpt_path){ .file_dev = 1, .inode = 20 + i, .path_id = nstrs };
		strs[nstrs++] = globs[i];
	}
	t.npaths = np;
	for (unsigned i = 0; i < 6; i++)
		rec[i] = (struct bpt_record){
			.issue_ns = 6 - i, .sector = 8 * i + 1000 * (i & 1), .bytes = 16384,
			.op = BPT_OP_WRITE, .dev = i & 1, .comm_id = 2,
			.file_class = BPT_FILE_DATA, .file_dev = 1, .inode = 10 + i % 4,
			.file_offset = i == 4 ? BPT_FILE_OFFSET_UNKNOWN : 4096 * i,
			.file_bytes = 8192, .file2_dev = 1, .inode2 = 20 + i % (nglobs ? nglobs : 1),
			.file2_offset = 1u << 20, .file2_bytes = i == 2 ? 0 : 4096,
			.cause_pid = 1, .cause_comm_id = 1 + (i & 1),
		};
	rec[3].file_class = BPT_FILE_JOURNAL;
	rec[3].inode = rec[3].file_offset = rec[3].file_bytes = 0;
	rec[3].file2_dev = rec[3].file2_bytes = 0;
	rec[3].inode2 = rec[3].file2_offset = 0;
	rec[5].op = BPT_OP_FLUSH;
	rec[5].bytes = 0;
	rec[5].file_class = BPT_FILE_UNKNOWN;
	rec[5].inode = rec[5].file_offset = rec[5].file_bytes = 0;
	rec[5].file2_dev = rec[5].file2_bytes = 0;
	rec[5].inode2 = rec[5].file2_offset = 0;
	rc = filemap_plan_begin(fm, &t, &e);
	for (unsigned i = 0; !rc && i < 6; i++)
		rc = filemap_plan_record(fm, &rec[i], i, &e);
	if (!rc)
		rc = filemap_plan_end(fm, &e);
	if (rc)
		return;
	for (unsigned i = 0; i < 6; i++)
		pieces_check(fm, &rec[i], rec[i].op == BPT_OP_FLUSH ? 0 : rec[i].bytes, r, nr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct filemap *fm = filemap_new();
	char *globs[MAX_LINES];
	unsigned nglobs = 0;
	char *buf, *argv[MAX_LINES + 2];
	const char *names[MAX_LINES];
	struct region reg[REGION_MAX];
	unsigned nreg = 0, nnames = 0;
	struct bpt_error e = { 0 };

	if (!fm)
		abort();
	if (memmem(data, size, "file=", 5) && memchr(data, '/', size)) {
		filemap_free(fm);
		return 0;
	}
	int argc = fuzz_argv(data, size, "map", argv, MAX_LINES + 2, &buf);

	for (int a = 1; a < argc; a++) {
		char *arg = argv[a], *eq = strchr(arg, '=');
		uint64_t start, end, at = 0;
		size_t dlen, slen;
		int to_end, rk, ra;
		struct target_spec spec;

		enum filemap_kind kind;
		const char *glob;
		int rf;

		if (!eq || eq == arg || !eq[1])
			continue;
		*eq = 0;
		rf = filemap_parse_key(arg, &kind, &glob, &e);
		if (rf < 0)
			continue;
		if (rf == 1) {
			ra = region_parse_at(eq + 1, &slen, &at, &e);
			if (ra < 0)
				continue;
			if (!glob[0])
				abort(); /* filemap_parse_key promises a glob */
			if (ra == 1)
				eq[1 + slen] = 0;
			if (target_spec_parse(eq + 1, &spec, &e))
				continue;
			target_spec_free(&spec);
			/* targets 1.. by line; packed with @OFFSET */
			if (filemap_add(fm, arg, (unsigned)(a % 16), ra == 1, at, &e) == 0)
				globs[nglobs++] = (char *)glob;
			continue;
		}
		rk = region_parse_key(arg, &dlen, &start, &end, &to_end, &e);
		if (rk < 0)
			continue;
		ra = region_parse_at(eq + 1, &slen, &at, &e);
		if (ra < 0)
			continue;
		if (ra == 1) {
			if (!slen)
				abort(); /* an empty SPEC before '@' */
			eq[1 + slen] = 0;
		}
		if (target_spec_parse(eq + 1, &spec, &e))
			continue;
		target_spec_free(&spec);
		if (rk != 1 || nreg == REGION_MAX)
			continue;
		if (to_end) /* to the end of a disk of 1 TiB past START (which
			     * region_parse_key keeps below 2^62) */
			end = start + (1ull << 40);
		if (start >= end)
			abort(); /* region_parse_key promises a range */
		arg[dlen] = 0;
		unsigned d = 0;

		while (d < nnames && strcmp(names[d], arg))
			d++;
		if (d == nnames)
			names[nnames++] = arg;
		reg[nreg] = (struct region){ .start = start, .end = end, .at = at,
					     .dev = (uint8_t)d, .target = (uint8_t)(nreg + 1) };
		nreg++;
	}
	int regions_ok = !nreg || region_check(reg, nreg, names, &e) == 0;

	if (nreg && regions_ok) {
		for (unsigned i = 0; i < nreg; i++) {
			split_check(reg, nreg, reg[i].dev, reg[i].start, 4096);
			if (reg[i].start >= 4096)
				split_check(reg, nreg, reg[i].dev, reg[i].start - 4096, 8192);
			split_check(reg, nreg, reg[i].dev, reg[i].end - 512, 1u << 20);
			split_check(reg, nreg, reg[i].dev, reg[i].start, 0);
		}
	}
	for (unsigned i = 0; i < nreg; i++)
		reg[i].dev &= 1; /* onto the small trace's two devices */
	if (filemap_count(fm) && regions_ok && region_check(reg, nreg, names, &e) == 0)
		filemap_check(fm, globs, nglobs, reg, nreg);
	filemap_free(fm);
	free(buf);
	return 0;
}
