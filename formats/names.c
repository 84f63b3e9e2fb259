/*
 * names.c — interned strings (source_int.h, struct ff_names): process
 * names and device names, each stored once, found again by an open
 * addressing hash so that a trace of thousands of volumes or processes
 * costs one lookup per record.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "source_int.h"

static uint64_t hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
	return h;
}

static int add_slot(struct ff_names *t, uint32_t id)
{
	uint32_t m = t->nslot - 1, i = (uint32_t)hash(t->str[id], t->len[id]) & m;

	while (t->slot[i])
		i = (i + 1) & m;
	t->slot[i] = id + 1;
	return 0;
}

static int grow_slots(struct ff_names *t)
{
	uint32_t n = t->nslot ? t->nslot * 2 : 64;
	uint32_t *p = calloc(n, sizeof(*p));

	if (!p)
		return -ENOMEM;
	free(t->slot);
	t->slot = p;
	t->nslot = n;
	for (uint32_t id = 0; id < t->n; id++)
		add_slot(t, id);
	return 0;
}

int ff_names_init(struct ff_names *t)
{
	uint32_t id;

	memset(t, 0, sizeof(*t));
	return ff_names_id(t, "", 0, &id);
}

void ff_names_free(struct ff_names *t)
{
	for (uint32_t i = 0; i < t->n; i++)
		free(t->str[i]);
	free(t->str);
	free(t->len);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

int ff_names_id(struct ff_names *t, const char *s, size_t len, uint32_t *id)
{
	if (t->nslot) {
		uint32_t m = t->nslot - 1, i = (uint32_t)hash(s, len) & m;

		for (; t->slot[i]; i = (i + 1) & m) {
			uint32_t c = t->slot[i] - 1;

			/* by length and bytes: a name may hold a NUL (an
			 * untrusted input's), and a shorter stored name must
			 * not be read past its end */
			if (t->len[c] == len && !memcmp(t->str[c], s, len)) {
				*id = t->slot[i] - 1;
				return 0;
			}
		}
	}
	if (t->n >= FF_NAMES_MAX || len > FF_NAMES_BYTES_MAX - t->bytes)
		return -E2BIG;
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 64;
		char **p = realloc(t->str, sizeof(*p) * cap);
		uint32_t *l;

		if (!p)
			return -ENOMEM;
		t->str = p;
		if (!(l = realloc(t->len, sizeof(*l) * cap)))
			return -ENOMEM;
		t->len = l;
		t->cap = cap;
	}
	char *c = malloc(len + 1);

	if (!c)
		return -ENOMEM;
	memcpy(c, s, len);
	c[len] = 0;
	t->str[t->n] = c;
	t->len[t->n] = (uint32_t)len;
	t->bytes += len;
	*id = t->n++;
	if (t->n * 2 >= t->nslot)
		return grow_slots(t);
	return add_slot(t, *id);
}
