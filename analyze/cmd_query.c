/* cmd_query.c — placeholder until `blkpeak analyze query` lands; replaced by its real code. */
#include "analyze_commands.h"
#include "cliutil.h"

int analyze_query(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	pr_err("analyze query: not built yet");
	return EXIT_FAIL;
}
