/* cmd_report.c — placeholder until `blkpeak analyze report` lands; replaced by its real code. */
#include "analyze_commands.h"
#include "cliutil.h"

int analyze_report(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	pr_err("analyze report: not built yet");
	return EXIT_FAIL;
}
