/* engine.c — looking up an I/O engine by the name the user typed. */
#include <string.h>

#include "engine.h"

static const struct engine_ops *const engines[] = {
	&engine_uring_ops,
	&engine_libaio_ops,
	&engine_null_ops,
};

const struct engine_ops *engine_find(const char *name)
{
	for (size_t i = 0; i < sizeof(engines) / sizeof(engines[0]); i++)
		if (!strcmp(engines[i]->name, name))
			return engines[i];
	return NULL;
}

const struct engine_ops *engine_default(char *why, size_t len)
{
	char none[160];

	if (!why) {
		why = none;
		len = sizeof(none);
	}
	why[0] = 0;
	return engine_uring_usable(why, len) ? &engine_uring_ops : &engine_libaio_ops;
}
