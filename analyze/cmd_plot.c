/* cmd_plot.c — placeholder until `blkpeak analyze plot` lands; replaced by its real code. */
#include "analyze_commands.h"
#include "cliutil.h"

int analyze_plot(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	pr_err("analyze plot: not built yet");
	return EXIT_FAIL;
}
