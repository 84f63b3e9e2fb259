/* cmd_info.c — placeholder until `blkpeak info` lands; replaced by its real code. */
#include "cliutil.h"
#include "commands.h"

int cmd_info(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	pr_err("info: not built yet");
	return EXIT_FAIL;
}
