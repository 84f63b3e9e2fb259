/*
 * strtab.h — the one string table: strings by dense id (0, 1, 2, ... in
 * the order they were added), each a run of bytes that may hold a NUL
 * (an untrusted input's), stored with a NUL after it so that a string
 * without one reads as C text.
 *
 * Two ways in: strtab_intern() finds a string already there (an open
 * addressing hash over the ids, built on its first call) or adds it, so
 * the same bytes get the same id (the .bpt writer's string table, a
 * foreign reader's process and device names); strtab_add() always adds
 * (a .bpt reader, whose file numbers its strings itself, needs no hash).
 *
 * The bytes live in chunks that never move: str[id] stays valid until
 * strtab_free(), however many strings come after (a reader hands them
 * out as record names).
 *
 * Bounds, from strtab_init(): at most max_n strings and max_bytes bytes
 * of them (the lengths summed); one past either is -E2BIG and changes
 * nothing.
 */
#ifndef BLKPEAK_STRTAB_H
#define BLKPEAK_STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct strtab_chunk;

struct strtab {
	char **str;            /* str[id]: the bytes, then a NUL */
	uint32_t *len;         /* len[id]: their count (a NUL inside counted) */
	uint32_t n, cap;       /* strings held, room in str and len */
	uint64_t bytes;        /* the lengths summed */
	uint32_t max_n;        /* bounds (strtab_init) */
	uint64_t max_bytes;
	uint32_t *slot;        /* hash: id + 1, 0 empty; NULL before the first intern */
	uint32_t nslot;        /* a power of two, more than 2 n */
	struct strtab_chunk *chunk; /* where the bytes are (a list, to free) */
	char *room;            /* the free end of the chunk being filled */
	size_t room_left;      /* and its size */
};

/* An empty table with these bounds (max_n at most UINT32_MAX - 1). */
void strtab_init(struct strtab *t, uint32_t max_n, uint64_t max_bytes);
/* Everything freed; the table is empty (and keeps its bounds). */
void strtab_free(struct strtab *t);

/* The id of s[0..len), added when new: 0, -ENOMEM or -E2BIG (nothing
 * added then). */
int strtab_intern(struct strtab *t, const char *s, size_t len, uint32_t *id);
/* Add s[0..len) as a new id even if the same bytes are there: 0, -ENOMEM
 * or -E2BIG. */
int strtab_add(struct strtab *t, const char *s, size_t len, uint32_t *id);

/* String id (< t->n) and its length. */
static inline const char *strtab_get(const struct strtab *t, uint32_t id, size_t *len)
{
	*len = t->len[id];
	return t->str[id];
}

#endif
