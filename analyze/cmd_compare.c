/* cmd_compare.c — placeholder until `blkpeak analyze compare` lands; replaced by its real code. */
#include "analyze_commands.h"
#include "cliutil.h"

int analyze_compare(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	pr_err("analyze compare: not built yet");
	return EXIT_FAIL;
}
