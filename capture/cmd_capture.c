/* cmd_capture.c — placeholder until `blkpeak capture` lands; replaced by its real code. */
#include "cliutil.h"
#include "commands.h"

int cmd_capture(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	pr_err("capture: not built yet");
	return EXIT_FAIL;
}
