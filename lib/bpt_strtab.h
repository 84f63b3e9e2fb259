/*
 * bpt_strtab.h — the writer's string table: interning (same string, same
 * id) with an open-addressing hash over ids, strings kept in one arena.
 * Private to the library.
 */
#ifndef BPT_STRTAB_H
#define BPT_STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct bpt_strtab {
	char *arena;          /* NUL-terminated strings back to back */
	size_t arena_len, arena_cap;
	uint32_t *off;        /* off[id]: start of string id in arena */
	uint16_t *len;        /* len[id] */
	uint32_t count, cap;
	uint32_t *slots;      /* hash slots: id + 1, 0 = empty */
	uint32_t nslots;      /* power of two, at least 2 * count */
};

void bpt_strtab_free(struct bpt_strtab *t);
/* Intern s (len bytes, no NUL inside): 0 with *id set, -ENOMEM, or
 * -E2BIG when the table is full. */
int bpt_strtab_intern(struct bpt_strtab *t, const char *s, size_t len,
		      uint32_t *id);

static inline const char *bpt_strtab_get(const struct bpt_strtab *t,
					 uint32_t id, size_t *len)
{
	*len = t->len[id];
	return t->arena + t->off[id];
}

#endif
