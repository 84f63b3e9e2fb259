/* cmd_generate.c — placeholder until `blkpeak generate` lands; replaced by its real code. */
#include "cliutil.h"
#include "commands.h"

int cmd_generate(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	pr_err("generate: not built yet");
	return EXIT_FAIL;
}
