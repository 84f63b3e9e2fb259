/* cmd_replay.c — placeholder until `blkpeak replay` lands; replaced by its real code. */
#include "cliutil.h"
#include "commands.h"

int cmd_replay(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	pr_err("replay: not built yet");
	return EXIT_FAIL;
}
