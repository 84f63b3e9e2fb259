/* cmd_export.c — placeholder until `blkpeak analyze export` lands; replaced by its real code. */
#include "analyze_commands.h"
#include "cliutil.h"

int analyze_export(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	pr_err("analyze export: not built yet");
	return EXIT_FAIL;
}
