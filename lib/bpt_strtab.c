/*
 * bpt_strtab.c — interning strings for the writer (see bpt_strtab.h).
 * Ids are dense from 0 in order of first use, which is what the file's
 * string table stores, so a reader needs no hash at all.
 */
#include <errno.h>
#include <stdlib.h>

#include "bpt_internal.h"
#include "bpt_strtab.h"

void bpt_strtab_free(struct bpt_strtab *t)
{
	free(t->arena);
	free(t->off);
	free(t->len);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

static int rehash(struct bpt_strtab *t, uint32_t nslots)
{
	uint32_t *s = calloc(nslots, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (uint32_t id = 0; id < t->count; id++) {
		uint64_t h = bpt_xxh64(t->arena + t->off[id], t->len[id], 0);
		uint32_t i = (uint32_t)h & (nslots - 1);

		while (s[i])
			i = (i + 1) & (nslots - 1);
		s[i] = id + 1;
	}
	free(t->slots);
	t->slots = s;
	t->nslots = nslots;
	return 0;
}

int bpt_strtab_intern(struct bpt_strtab *t, const char *s, size_t len,
		      uint32_t *id)
{
	uint64_t h = bpt_xxh64(s, len, 0);

	if (t->nslots) {
		uint32_t i = (uint32_t)h & (t->nslots - 1);

		for (; t->slots[i]; i = (i + 1) & (t->nslots - 1)) {
			uint32_t k = t->slots[i] - 1;

			if (t->len[k] == len && !memcmp(t->arena + t->off[k], s, len)) {
				*id = k;
				return 0;
			}
		}
	}
	if (t->count >= BPT_MAX_STRINGS)
		return -E2BIG;
	if (t->count == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 64;
		uint32_t *off = realloc(t->off, cap * sizeof(*off));

		if (!off)
			return -ENOMEM;
		t->off = off;
		uint16_t *l = realloc(t->len, cap * sizeof(*l));

		if (!l)
			return -ENOMEM;
		t->len = l;
		t->cap = cap;
	}
	if (t->arena_cap - t->arena_len < len + 1) {
		size_t cap = t->arena_cap ? t->arena_cap : 1024;

		while (cap - t->arena_len < len + 1)
			cap *= 2;
		if (cap > UINT32_MAX)
			return -E2BIG;
		char *a = realloc(t->arena, cap);

		if (!a)
			return -ENOMEM;
		t->arena = a;
		t->arena_cap = cap;
	}
	if ((t->count + 1) * 2 > t->nslots) {
		int rc = rehash(t, t->nslots ? t->nslots * 2 : 128);

		if (rc)
			return rc;
	}
	uint32_t k = t->count;

	t->off[k] = (uint32_t)t->arena_len;
	t->len[k] = (uint16_t)len;
	memcpy(t->arena + t->arena_len, s, len);
	t->arena[t->arena_len + len] = 0;
	t->arena_len += len + 1;
	t->count++;
	uint32_t i = (uint32_t)h & (t->nslots - 1);

	while (t->slots[i])
		i = (i + 1) & (t->nslots - 1);
	t->slots[i] = k + 1;
	*id = k;
	return 0;
}
