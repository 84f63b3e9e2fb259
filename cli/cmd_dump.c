/* cmd_dump.c — placeholder until `blkpeak dump` lands; replaced by its real code. */
#include "cliutil.h"
#include "commands.h"

int cmd_dump(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	pr_err("dump: not built yet");
	return EXIT_FAIL;
}
