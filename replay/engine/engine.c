/* engine.c — the I/O engines replay offers, and looking one up by the
 * name the user typed. A new engine adds its row here and nothing else
 * changes: --engine, --list (and the man page made from it), measure's
 * --engine, the errors and the completion read this table. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
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

const struct engine_ops *engine_at(size_t i)
{
	return i < sizeof(engines) / sizeof(engines[0]) ? engines[i] : NULL;
}

/* For measure (common/commands.h): it checks --engine before it runs
 * replay as its child. */
const char *replay_engine_name(size_t i)
{
	return engine_at(i) ? engine_at(i)->name : NULL;
}

void engine_names(char *buf, size_t len)
{
	size_t n = 0;

	if (!len)
		return;
	buf[0] = 0;
	for (size_t i = 0; engine_at(i) && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", engine_at(i)->name);
}

const struct engine_ops *engine_default(char *why, size_t len)
{
	/* libaio: the bench measured it ahead of io_uring here, in CPU and
	 * wall time per I/O afap (bench/RESULTS.md, "afap against fio and
	 * btreplay (issue 17)"); io_uring is one --engine away. */
	if (why && len)
		why[0] = 0;
	return &engine_libaio_ops;
}
