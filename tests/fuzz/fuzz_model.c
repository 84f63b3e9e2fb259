/*
 * fuzz_model.c — libFuzzer target for disk models (replay/disk/disk_model.h):
 * the MODEL of hdd:MODEL:PATH, a list of presets and key=value items
 * separated by ','. The parsed model is checked (disk_params_check),
 * described, and a model that passes runs a few requests of every
 * operation (disk_model_init / submit / advance / pop), so parameters
 * that parse but break the arithmetic are found too. file=NAME reads
 * NAME: the target runs in its temporary folder (fuzz_model_file.c fuzzes
 * the files) and leaves out inputs whose file= could name a path.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "disk/disk_model.h"
#include "fuzz_util.h"
#include "fuzz_model.h"

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
	char *s = fuzz_string(data, size);

	if (!(strstr(s, "file=") && strchr(s, '/')))
		fuzz_model_spec(s);
	free(s);
	return 0;
}
