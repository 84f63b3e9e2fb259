/*
 * fuzz_model.h — what fuzz_model.c and fuzz_model_file.c do with a model
 * spec: parse, check, describe and, when it passes, run a few requests.
 */
#ifndef BLKPEAK_FUZZ_MODEL_H
#define BLKPEAK_FUZZ_MODEL_H

#include <stdlib.h>
#include <string.h>

#include "disk/disk_model.h"

static inline void fuzz_model_spec(const char *spec)
{
	struct disk_params p;
	struct disk_model m;
	struct bpt_error e = { 0 };
	struct dm_req r, done;
	char line[512];

	if (disk_params_parse(spec, &p, &e)) {
		if (!e.msg[0])
			abort(); /* refused without a reason */
		return;
	}
	if (disk_params_check(&p, &e))
		return;
	disk_params_describe(&p, line, sizeof(line));
	if (disk_model_init(&m, &p, 1ull << 30))
		return;
	for (unsigned i = 0; i < 8; i++) {
		r = (struct dm_req){ .id = i, .offset = (i * 0x2345678ull) % (1ull << 29) & ~511ull,
				     .len = i == 3 ? 0 : 4096u << (i % 6), .op = (uint8_t)(i % BPT_OP__COUNT),
				     .flags = i == 5 ? BPT_F_FUA : 0, .arrival = i * 100000ull };
		if (disk_model_submit(&m, &r))
			break;
	}
	for (unsigned i = 0; i < 64; i++) {
		uint64_t t = disk_model_next_finish(&m);

		if (t == DM_NEVER)
			break;
		disk_model_advance(&m, t);
		while (disk_model_pop(&m, &done))
			if (done.finish < done.arrival)
				abort(); /* finished before it arrived */
	}
	disk_model_free(&m);
}

#endif
