/*
 * fuzz_model_file.c — libFuzzer target for disk-model files
 * (hdd:file=PATH: lines of key=value or preset names, '#' comments,
 * nested file= up to 4 deep): the input is written to the file "model"
 * of the target's temporary folder and read as file=model, then checked
 * and run as fuzz_model.h does. A file= line inside may only name a file
 * of that folder (no '/').
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_model.h"
#include "fuzz_util.h"

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
	char path[128];

	if (memmem(data, size, "file=", 5) && memchr(data, '/', size))
		return 0;
	fuzz_write_file("model", data, size, path, sizeof(path));
	fuzz_model_spec("file=model");
	return 0;
}
