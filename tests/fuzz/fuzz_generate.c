/*
 * fuzz_generate.c — libFuzzer target for `blkpeak generate`'s option
 * values: each input line is one argument after "generate" (so
 * "--bs\n4k:3,64k:1\n--iops\n1e9" is `generate --bs 4k:3,64k:1 --iops
 * 1e9`), parsed by gen_options_parse (generate/gen_options.h), the
 * function the command runs. Options that parse are described (the
 * header's meta line) and the model draws its first 256 I/Os, which
 * must keep the parameters' promises (sizes from the mix, offsets in the
 * span). Nothing is written: -o only names a file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "gen_options.h"

#define MAX_ARGS 24

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* the usage and option errors go to stdout/stderr: not findings */
	if (!freopen("/dev/null", "w", stdout))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *argv[MAX_ARGS + 1], line[4096];
	struct gen_options o;
	struct bpt_error e = { 0 };
	int argc = fuzz_argv(data, size, "generate", argv, MAX_ARGS + 1, &buf);

	if (gen_options_parse(argc, argv, &o, &e) == GEN_OPT_RUN) {
		struct gen_model *m;
		struct bpt_record rec;

		gen_options_describe(&o, line, sizeof(line));
		if (gen_model_create(&m, &o.p) == 0) {
			for (int i = 0; i < 256 && gen_model_next(m, &rec) == 1; i++)
				if (rec.bytes && (rec.sector * 512 < o.p.offset ||
				    rec.sector * 512 + rec.bytes > o.p.offset + o.p.span))
					abort(); /* an I/O outside --offset/--span */
			gen_model_free(m);
		}
	}
	free(buf);
	return 0;
}
