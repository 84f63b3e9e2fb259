/*
 * gen_presets.h — the classic Intel IOMeter access specifications that
 * `blkpeak generate --pattern NAME` reproduces (numbers and sources in
 * gen_presets.c and docs/trace-tools.md).
 */
#ifndef BLKPEAK_GEN_PRESETS_H
#define BLKPEAK_GEN_PRESETS_H

#include <stddef.h>

struct gen_preset {
	const char *name;     /* "fileserver", ... */
	const char *bs;       /* size mix in --bs syntax */
	double read_pct;      /* share of reads, percent */
	double random_pct;    /* share of random (vs sequential) I/Os, percent */
	const char *summary;  /* one line for --help */
};

/* The preset called `name`, or NULL. */
const struct gen_preset *gen_preset_find(const char *name);

/* The table, for --help and tests; *n receives its length. */
const struct gen_preset *gen_presets(size_t *n);

#endif
