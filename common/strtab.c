/*
 * strtab.c — the one string table (strtab.h): ids in arrays, the bytes in
 * chunks that never move, an open addressing hash over the ids for
 * strtab_intern().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "strtab.h"

/* The bytes are carved out of chunks that grow with the table, from 1 KiB
 * (a trace of a few names keeps one small one) to CHUNK; a string of more
 * than a quarter of the next chunk gets one of its own (the one being
 * filled keeps its room). */
#define CHUNK (64u << 10)

struct strtab_chunk {
	struct strtab_chunk *next;
	char b[];
};

void strtab_init(struct strtab *t, uint32_t max_n, uint64_t max_bytes)
{
	memset(t, 0, sizeof(*t));
	t->max_n = max_n < UINT32_MAX ? max_n : UINT32_MAX - 1;
	t->max_bytes = max_bytes;
}

void strtab_free(struct strtab *t)
{
	uint32_t max_n = t->max_n;
	uint64_t max_bytes = t->max_bytes;

	for (struct strtab_chunk *c = t->chunk, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	free(t->str);
	free(t->len);
	free(t->slot);
	strtab_init(t, max_n, max_bytes);
}

/* Eight bytes at a time (the last eight overlapping), then murmur3's
 * finaliser: names are short and looked up once a record, so the hash
 * takes no byte loop. */
static uint64_t hash(const char *s, size_t len)
{
	uint64_t h = (uint64_t)len * 0x9e3779b97f4a7c15ull, w;

	if (len >= 8) {
		const char *last = s + len - 8;

		for (; s < last; s += 8) {
			memcpy(&w, s, 8);
			h = (h ^ w) * 0xff51afd7ed558ccdull;
			h ^= h >> 29;
		}
		memcpy(&w, last, 8);
	} else if (len >= 4) {
		uint32_t a, b;

		memcpy(&a, s, 4);
		memcpy(&b, s + len - 4, 4);
		w = (uint64_t)a << 32 | b;
	} else {
		w = len ? (uint64_t)(uint8_t)s[0] << 16 | (uint64_t)(uint8_t)s[len / 2] << 8 |
				  (uint8_t)s[len - 1]
			: 0;
	}
	h ^= w;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

static void slot_put(uint32_t *slot, uint32_t nslot, uint64_t h, uint32_t id)
{
	uint32_t m = nslot - 1, i = (uint32_t)h & m;

	while (slot[i])
		i = (i + 1) & m;
	slot[i] = id + 1;
}

/* Slots for n + 1 strings (more than twice as many): 0 or -ENOMEM. */
static int slots_fit(struct strtab *t)
{
	uint64_t want = 64;
	uint32_t *s;

	if (t->slot && ((uint64_t)t->n + 1) * 2 < t->nslot)
		return 0;
	while (want <= ((uint64_t)t->n + 1) * 2)
		want *= 2;
	if (want > UINT32_MAX || !(s = calloc(want, sizeof(*s))))
		return -ENOMEM;
	for (uint32_t id = 0; id < t->n; id++)
		slot_put(s, (uint32_t)want, hash(t->str[id], t->len[id]), id);
	free(t->slot);
	t->slot = s;
	t->nslot = (uint32_t)want;
	return 0;
}

/* A copy of s[0..len) and its NUL in a chunk, or NULL. */
static char *keep(struct strtab *t, const char *s, size_t len)
{
	size_t need = len + 1;
	char *p;

	if (need > t->room_left) {
		size_t size = t->bytes < 1024 ? 1024 : t->bytes < CHUNK ? (size_t)t->bytes : CHUNK;
		int alone = need > size / 4;
		struct strtab_chunk *c;

		if (alone)
			size = need;
		if (!(c = malloc(sizeof(*c) + size)))
			return NULL;
		if (alone && t->chunk) { /* behind the one being filled */
			c->next = t->chunk->next;
			t->chunk->next = c;
			p = c->b;
			goto copy;
		}
		c->next = t->chunk;
		t->chunk = c;
		t->room = c->b;
		t->room_left = size;
	}
	p = t->room;
	t->room += need;
	t->room_left -= need;
copy:
	memcpy(p, s, len);
	p[len] = 0;
	return p;
}

/* strtab_add with s's hash known (used only when the table has one). */
static int add(struct strtab *t, const char *s, size_t len, uint64_t h, uint32_t *id)
{
	char *p;

	if (t->n >= t->max_n || len > UINT32_MAX || len > t->max_bytes - t->bytes)
		return -E2BIG;
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? (t->cap < t->max_n / 2 ? t->cap * 2 : t->max_n) : 64;
		char **ps = realloc(t->str, sizeof(*ps) * cap);
		uint32_t *pl;

		if (!ps)
			return -ENOMEM;
		t->str = ps;
		if (!(pl = realloc(t->len, sizeof(*pl) * cap)))
			return -ENOMEM;
		t->len = pl;
		t->cap = cap;
	}
	if (t->slot && slots_fit(t))
		return -ENOMEM;
	if (!(p = keep(t, s, len)))
		return -ENOMEM;
	t->str[t->n] = p;
	t->len[t->n] = (uint32_t)len;
	t->bytes += len;
	if (t->slot)
		slot_put(t->slot, t->nslot, h, t->n);
	*id = t->n++;
	return 0;
}

int strtab_add(struct strtab *t, const char *s, size_t len, uint32_t *id)
{
	return add(t, s, len, t->slot ? hash(s, len) : 0, id);
}

int strtab_intern(struct strtab *t, const char *s, size_t len, uint32_t *id)
{
	if (!t->slot && slots_fit(t))
		return -ENOMEM;

	uint64_t h = hash(s, len);
	uint32_t m = t->nslot - 1, i = (uint32_t)h & m;

	/* by length and bytes: a string may hold a NUL, and a shorter stored
	 * one must not be read past its end */
	for (; t->slot[i]; i = (i + 1) & m) {
		uint32_t c = t->slot[i] - 1;

		if (t->len[c] == len && !memcmp(t->str[c], s, len)) {
			*id = c;
			return 0;
		}
	}
	return add(t, s, len, h, id);
}
