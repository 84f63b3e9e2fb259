/*
 * fuzz_target.c — libFuzzer target for `--target SPEC` (replay, measure,
 * verify): target_spec_parse (replay/target.h) on the input as a string:
 * plain paths, raid0/1/10/5/6 and linear arrays with chunk=, layout=,
 * missing=, cache= and destage=, and hdd:MODEL:PATH members with their model items
 * (disk_models.h). Parse only: no member is opened. A model item
 * file=NAME reads NAME, so the target runs in its temporary folder and
 * leaves out inputs whose file= could name a path (a '/').
 *
 * What must hold: no crash, leak or undefined behaviour; a parsed spec
 * has 1..LAYOUT_MAX_MEMBERS non-empty members, missing= only names
 * members that exist, cache= is 1m..16g in 4k pages, destage= at most
 * 100.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "target.h"
#include "array/wcache.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (chdir(fuzz_tmpdir()))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct target_spec spec;
	struct bpt_error e = { 0 };
	char *s = fuzz_string(data, size);

	if (strstr(s, "file=") && strchr(s, '/')) {
		free(s);
		return 0;
	}
	if (target_spec_parse(s, &spec, &e) == 0) {
		if (!spec.nmembers || spec.nmembers > LAYOUT_MAX_MEMBERS)
			abort();
		for (unsigned i = 0; i < spec.nmembers; i++)
			if (!spec.members[i] || !spec.members[i][0])
				abort();
		if (spec.nmembers < 32 && (spec.missing >> spec.nmembers))
			abort();
		/* cache=: within the controller cache's range, in pages */
		if (spec.cache && (spec.cache < WCACHE_MIN || spec.cache > WCACHE_MAX ||
				   spec.cache % WCACHE_PAGE))
			abort();
		if (spec.destage_pct > 100)
			abort();
		target_spec_free(&spec);
	} else if (!e.msg[0]) {
		abort(); /* refused without a reason */
	}
	free(s);
	return 0;
}
