/* cmd_import.c — placeholder until `blkpeak analyze import` lands; replaced by its real code. */
#include "analyze_commands.h"
#include "cliutil.h"

int analyze_import(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	pr_err("analyze import: not built yet");
	return EXIT_FAIL;
}
