/* dbpath.c — the analysis database's default path (dbpath.h). */
#include "dbpath.h"

#include <stdlib.h>

const char *db_default_path(const char *opt)
{
	const char *env = getenv("BLKPEAK_DB");

	if (opt)
		return opt;
	if (env && *env)
		return env;
	return "blkpeak.db";
}
