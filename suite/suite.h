/*
 * suite.h — a suite folder opened: its manifest, its recordings with
 * their content digests, the suite's digest, and the work a run does on
 * one configuration (schemas/suite-manifest.md, docs/suite.md).
 *
 * suite/ never includes another part's headers: it reads recordings
 * through lib/ (digest, duration) and runs `blkpeak replay`, `measure`,
 * `capture` and `analyze import` as child processes (common/child.h).
 * Functions return 0 or a negative errno with `err` (a line for the
 * user) and never print.
 */
#ifndef BLKPEAK_SUITE_H
#define BLKPEAK_SUITE_H

#include <stddef.h>
#include <stdint.h>

#include "manifest.h"

#define SUITE_MANIFEST "suite.ini"
#define SUITE_RESULTS "results"
#define SUITE_ERR_MAX 1024

/* A [recording] of the manifest as found in the folder. */
struct suite_rec {
	const struct manifest_entry *e;
	char *path;             /* DIR/file */
	char digest[17];        /* its content digest, hex */
	uint64_t ios;
	uint64_t duration_ns;   /* first issue to last completion, as recorded */
};

struct suite {
	char *dir;
	struct manifest *m;
	char name[MANIFEST_NAME_MAX + 1];   /* [suite] name, else the folder's */
	char digest[17];                    /* the suite's digest */
	size_t nrecs;
	struct suite_rec *recs;             /* in the manifest's order */
};

/* One thing a run does: a replay, a mix or a sweep, one repeat. */
struct suite_item {
	const struct manifest_entry *e;
	unsigned timing;        /* one enum manifest_timing bit; 0 for a measure */
	unsigned repeat;        /* 1..e->repeat */
	const char *kind;       /* replay, mix, qd-sweep */
	char key[MANIFEST_NAME_MAX + 32];      /* "photo-edit.causal.2": state and file names */
	char workload[MANIFEST_NAME_MAX + 16]; /* "photo-edit causal", "fileserver" */
	double est_s;           /* a first estimate of its time, 0: unknown */
	double prior_s;         /* its mean time on the other configurations run, 0: none */
};

/* Open DIR: read DIR/suite.ini and every recording it names. */
int suite_open(const char *dir, struct suite **out, char *err, size_t errlen);
void suite_close(struct suite *s);
const struct suite_rec *suite_rec_of(const struct suite *s, const char *name);

/* The items of a run, in order (*items malloc'd, the caller frees). */
int suite_plan(const struct suite *s, struct suite_item **items, size_t *n,
	       char *err, size_t errlen);

/* FNV-1a 64 over len bytes, continuing from h (start: SUITE_FNV_START). */
#define SUITE_FNV_START 0xcbf29ce484222325ull
uint64_t suite_fnv(uint64_t h, const void *p, size_t len);

/* A label as a folder name: [A-Za-z0-9._-] kept, others '_'. */
void suite_label_dir(const char *label, char *out, size_t len);

#endif
