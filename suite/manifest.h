/*
 * manifest.h — a suite's manifest (schemas/suite-manifest.md): what a
 * benchmark suite runs on every configuration.
 *
 * The manifest is a small INI-like text a person edits: a [suite]
 * section, then one section per workload, in the order they run:
 *   [recording NAME]  a recording of the suite folder replayed, once per
 *                     timing mode, `repeat` times each;
 *   [measure NAME]    a qd-sweep (`blkpeak measure qd-sweep`) with its
 *                     pattern, depths and weights (given, or from one of
 *                     the suite's recordings);
 *   [mix NAME]        two or more of the suite's recordings replayed
 *                     together on one target, each at its offset.
 *
 * manifest_parse() reads the text from memory (the fuzz target calls it
 * so) and never prints: an error is "FILE:LINE: reason" in err. Every
 * string of a parsed manifest is owned by it; manifest_free() frees it
 * all and accepts NULL.
 *
 * Invariants of a parsed manifest:
 *   - names are 1..MANIFEST_NAME_MAX bytes of [A-Za-z0-9._-], unique
 *     over all sections (a name is a workload in the leaderboard);
 *   - a recording's file is a relative path of the suite folder without
 *     ".." components; every timing list holds 1..3 distinct modes;
 *   - repeat is 1..MANIFEST_REPEAT_MAX;
 *   - a measure's weights_from and a mix's members name recording
 *     sections (a mix at least two distinct ones); offsets within a mix
 *     are those of its members.
 */
#ifndef BLKPEAK_SUITE_MANIFEST_H
#define BLKPEAK_SUITE_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#define MANIFEST_NAME_MAX 63
#define MANIFEST_REPEAT_MAX 100
#define MANIFEST_SECTIONS_MAX 256
#define MANIFEST_MIX_MAX 8
#define MANIFEST_DEPTHS_MAX 32
#define MANIFEST_LINE_MAX 4096
#define MANIFEST_ERR_MAX 512

enum manifest_timing {
	MANIFEST_ORIGINAL = 1u << 0,
	MANIFEST_AFAP = 1u << 1,
	MANIFEST_CAUSAL = 1u << 2,
};

enum manifest_kind { MANIFEST_RECORDING, MANIFEST_MEASURE, MANIFEST_MIX };

/* One section after [suite], in the manifest's order. */
struct manifest_entry {
	enum manifest_kind kind;
	char name[MANIFEST_NAME_MAX + 1];
	unsigned line;          /* of its [header] */
	unsigned repeat;        /* 1..MANIFEST_REPEAT_MAX (default 3; measure 1) */
	unsigned timings;       /* recording, mix: enum manifest_timing bits (default causal) */
	double speed;           /* recording, mix: --speed (default 1) */
	int no_idle;            /* recording, mix: causal --no-idle */
	/* recording */
	char *file;             /* relative to the suite folder */
	/* measure (qd-sweep) */
	char *pattern;          /* fileserver, webserver, workstation, database, random, sequential */
	unsigned ndepths;       /* 0: measure's default depths */
	unsigned depths[MANIFEST_DEPTHS_MAX];
	char *weights;          /* DEPTH:WEIGHT,... as measure --weights, or NULL */
	char *weights_from;     /* a recording's name, or NULL */
	uint64_t ios;           /* measure --ios, 0: its default */
	/* mix */
	unsigned nmembers;      /* 2..MANIFEST_MIX_MAX */
	char *members[MANIFEST_MIX_MAX];     /* recording names */
	uint64_t offset_ns[MANIFEST_MIX_MAX]; /* each member's start, 0: aligned at the start */
	char *time_of;          /* time = NAME: the mix's result is that member's own
				 * run (its I/Os alone), NULL: the whole mix's */
	unsigned ref_line;      /* line of weights-from or recordings (for errors) */
};

struct manifest {
	char *name;             /* [suite] name, or NULL (the folder's name is used) */
	size_t n;
	struct manifest_entry *e;
};

/* Parse len bytes of manifest text; `file` names it in errors. Returns 0,
 * or -EINVAL (err: "FILE:LINE: reason") / -ENOMEM. On error *out is NULL. */
int manifest_parse(const char *text, size_t len, const char *file,
		   struct manifest **out, char *err, size_t errlen);
/* Read and parse the file at path (at most 1 MiB). Same returns, plus
 * -errno when it cannot be read (err says so). */
int manifest_load(const char *path, struct manifest **out, char *err, size_t errlen);
void manifest_free(struct manifest *m);

/* The recording section named `name`, or NULL. */
const struct manifest_entry *manifest_find(const struct manifest *m, const char *name);
/* "original", "afap", "causal" for one bit of enum manifest_timing. */
const char *manifest_timing_name(unsigned bit);

#endif
