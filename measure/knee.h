/*
 * knee.h — `blkpeak measure knee TRACE --target SPEC --slo p99=5ms`: the
 * largest speed factor at which a trace's replay still meets a latency
 * target (knee.c has the search).
 */
#ifndef BLKPEAK_MEASURE_KNEE_H
#define BLKPEAK_MEASURE_KNEE_H

#include <stdint.h>

#define KNEE_MAX_SLO 8
#define KNEE_MAX_STEPS 64

struct knee_slo {
	unsigned fig;        /* index into knee.c's figures: mean, p50, p90, p99, p99.9, p99.99, max */
	uint64_t limit_ns;
	const char *text;    /* as typed */
};

struct knee_opts {
	const char *trace, *target, *engine, *timing, *output;
	const char *db, *label;   /* --db (NULL: analyze's default), --label */
	struct knee_slo slo[KNEE_MAX_SLO];
	unsigned nslo;
	double from, max, precision;
	int allow_write, json, no_store;
};

/* The command line (argv[0] "measure", argv[1] "knee") into *o: -1 when
 * the search is to run, else the exit code (usage printed, or the reason
 * on stderr). Kept apart for tests/fuzz/fuzz_measure.c. */
int knee_opts_parse(int argc, char **argv, struct knee_opts *o);

/* argv[0] is "measure", argv[1] "knee". Returns the exit code. */
int measure_knee(int argc, char **argv);

#endif
