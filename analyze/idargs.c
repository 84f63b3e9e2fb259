/*
 * idargs.c — the trace ids that plot and html take on their command line
 * (idargs.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "cliutil.h"
#include "idargs.h"

int parse_trace_ids(const char *cmd, char **args, int n, int64_t **out)
{
	int64_t *ids = calloc(n ? n : 1, sizeof(*ids));

	if (!ids) {
		pr_err("analyze %s: out of memory", cmd);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		uint64_t v;

		if (parse_u64(args[i], &v) || v == 0 || v > INT64_MAX) {
			pr_err("analyze %s: '%s': not a trace id (a positive number)", cmd, args[i]);
			free(ids);
			return -EINVAL;
		}
		ids[i] = (int64_t)v;
	}
	*out = ids;
	return 0;
}
