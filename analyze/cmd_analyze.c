/* cmd_analyze.c — placeholder until `blkpeak analyze` lands; replaced by its real code. */
#include "cliutil.h"
#include "commands.h"

int cmd_analyze(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	pr_err("analyze: not built yet");
	return EXIT_FAIL;
}
