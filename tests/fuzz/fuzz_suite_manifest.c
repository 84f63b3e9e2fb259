/*
 * fuzz_suite_manifest.c — libFuzzer target for a suite's manifest
 * (suite/manifest.h, schemas/suite-manifest.md): the input is the
 * manifest's text, parsed by manifest_parse, the function `suite init`,
 * `suite run` and `analyze leaderboard` read a suite with.
 *
 * What must hold: no crash, leak or undefined behaviour; an error is
 * "FILE:LINE: reason"; a parsed manifest keeps manifest.h's invariants
 * (names, paths inside the folder, repeat and timing ranges, references
 * to recordings that exist, depths increasing).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "manifest.h"

static int name_ok(const char *s)
{
	size_t n = strlen(s);

	return n && n <= MANIFEST_NAME_MAX && strspn(s, "abcdefghijklmnopqrstuvwxyz"
						 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

static void check(const struct manifest *m)
{
	if (!m->n || m->n > MANIFEST_SECTIONS_MAX || (m->name && !name_ok(m->name)))
		abort();
	for (size_t i = 0; i < m->n; i++) {
		const struct manifest_entry *e = &m->e[i];

		if (!name_ok(e->name) || !e->repeat || e->repeat > MANIFEST_REPEAT_MAX)
			abort();
		for (size_t j = 0; j < i; j++)
			if (!strcmp(m->e[j].name, e->name))
				abort();
		switch (e->kind) {
		case MANIFEST_RECORDING:
			if (!e->file || e->file[0] == '/' || !strcmp(e->file, "..") ||
			    !strncmp(e->file, "../", 3) || strstr(e->file, "/../"))
				abort();
			/* fall through */
		case MANIFEST_MIX:
			if (!e->timings || e->timings > 7 || !(e->speed > 0))
				abort();
			break;
		case MANIFEST_MEASURE:
			if (!e->pattern || (e->weights && e->weights_from) ||
			    (e->weights_from && !manifest_find(m, e->weights_from)))
				abort();
			for (unsigned j = 1; j < e->ndepths; j++)
				if (e->depths[j] <= e->depths[j - 1])
					abort();
			break;
		}
		if (e->kind == MANIFEST_MIX && (e->nmembers < 2 || e->nmembers > MANIFEST_MIX_MAX))
			abort();
		for (unsigned j = 0; j < e->nmembers; j++)
			if (!manifest_find(m, e->members[j]))
				abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct manifest *m;
	char err[MANIFEST_ERR_MAX];
	int rc = manifest_parse((const char *)data, size, "suite.ini", &m, err, sizeof(err));

	if (rc == 0)
		check(m);
	else if (m || strncmp(err, "suite.ini:", 10))
		abort();
	manifest_free(m);
	return 0;
}
