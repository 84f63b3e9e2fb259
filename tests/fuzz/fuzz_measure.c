/*
 * fuzz_measure.c — libFuzzer target for `blkpeak measure`'s option
 * values: each input line is one argument after "measure" (the KIND
 * among them), parsed by measure_opts_parse (measure/measure.h), the
 * function the command runs: counts, sizes, durations, --spans,
 * --depths, --weights, the kinds' defaults and the checks across
 * options. Nothing is measured: --target, --like and -o only name files.
 *
 * What must hold: no crash, leak or undefined behaviour; options that
 * parse give a measurement the run can take (at least one I/O, spans
 * increasing within (0, 100], an I/O size in whole sectors). `measure
 * knee`'s options (knee_opts_parse) too: a trace, a target, latency
 * targets above 0, factors with from <= max.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "knee.h"
#include "measure.h"

#define MAX_ARGS 24

static void usage(FILE *f)
{
	fputs("usage\n", f);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (!freopen("/dev/null", "w", stdout))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *argv[MAX_ARGS + 1];
	struct measure_opts o;
	int argc = fuzz_argv(data, size, "measure", argv, MAX_ARGS + 1, &buf);

	if (argc > 1 && !strcmp(argv[1], "knee")) { /* measure knee's options */
		struct knee_opts k;

		if (knee_opts_parse(argc, argv, &k) < 0) {
			if (!k.trace || !k.target || !k.nslo || !(k.from > 0) || k.from > k.max ||
			    !(k.precision >= 0.001) || k.precision > 1)
				abort();
			for (unsigned i = 0; i < k.nslo; i++)
				if (!k.slo[i].limit_ns || k.slo[i].fig > 6)
					abort();
		}
		free(buf);
		return 0;
	}
	if (measure_opts_parse(argc, argv, &o, usage) < 0) {
		if (!o.target || (!o.ios && !o.time_ns) || !o.bs || o.bs % 512 || !o.nspans)
			abort();
		for (unsigned i = 0; i < o.nspans; i++)
			if (!(o.span_pct[i] > 0) || o.span_pct[i] > 100 ||
			    (i && o.span_pct[i] <= o.span_pct[i - 1]))
				abort();
	}
	free(buf);
	return 0;
}
