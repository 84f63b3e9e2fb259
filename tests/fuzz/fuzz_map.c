/*
 * fuzz_map.c — libFuzzer target for `replay --map` specs: each input line
 * is one --map argument, KEY=SPEC[@OFFSET] with KEY a device, a
 * partition or DEV:START-END, taken apart as replay's parse_map does
 * (region_parse_key, region_parse_at, then target_spec_parse on SPEC).
 * The regions of the lines that parse are checked together
 * (region_check, devices numbered by name) and a few I/Os are cut over
 * them (region_split). Parse only: no target is opened; inputs whose
 * model file= could name a path (a '/') are left out.
 *
 * What must hold: no crash, leak or undefined behaviour; a region has
 * start < end; the pieces of a split I/O cover it exactly, in order.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *argv[MAX_LINES + 2];
	const char *names[MAX_LINES];
	struct region reg[REGION_MAX];
	unsigned nreg = 0, nnames = 0;
	struct bpt_error e = { 0 };

	if (memmem(data, size, "file=", 5) && memchr(data, '/', size))
		return 0;
	int argc = fuzz_argv(data, size, "map", argv, MAX_LINES + 2, &buf);

	for (int a = 1; a < argc; a++) {
		char *arg = argv[a], *eq = strchr(arg, '=');
		uint64_t start, end, at = 0;
		size_t dlen, slen;
		int to_end, rk, ra;
		struct target_spec spec;

		if (!eq || eq == arg || !eq[1])
			continue;
		*eq = 0;
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
		if (to_end) /* to the end of a disk of 1 TiB past START */
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
	if (nreg && region_check(reg, nreg, names, &e) == 0) {
		for (unsigned i = 0; i < nreg; i++) {
			split_check(reg, nreg, reg[i].dev, reg[i].start, 4096);
			if (reg[i].start >= 4096)
				split_check(reg, nreg, reg[i].dev, reg[i].start - 4096, 8192);
			split_check(reg, nreg, reg[i].dev, reg[i].end - 512, 1u << 20);
			split_check(reg, nreg, reg[i].dev, reg[i].start, 0);
		}
	}
	free(buf);
	return 0;
}
