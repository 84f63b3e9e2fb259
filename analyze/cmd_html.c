/* cmd_html.c — placeholder until `blkpeak analyze html` lands; replaced by its real code. */
#include "analyze_commands.h"
#include "cliutil.h"

int analyze_html(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	pr_err("analyze html: not built yet");
	return EXIT_FAIL;
}
