/* Unit tests of the one string table (common/strtab.c): the .bpt writer
 * and reader and the foreign readers' names use it. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strtab.h"

Test(strtab, same_bytes_same_id_in_order_of_first_use)
{
	struct strtab t;
	uint32_t a, b, c, d;
	size_t len;

	strtab_init(&t, 100, 1000);
	cr_assert_eq(strtab_intern(&t, "fio", 3, &a), 0);
	cr_assert_eq(strtab_intern(&t, "postgres", 8, &b), 0);
	cr_assert_eq(strtab_intern(&t, "fio", 3, &c), 0);
	cr_assert_eq(strtab_intern(&t, "fi", 2, &d), 0, "a prefix is another string");
	cr_assert_eq(a, 0);
	cr_assert_eq(b, 1);
	cr_assert_eq(c, 0);
	cr_assert_eq(d, 2);
	cr_assert_eq(t.n, 3);
	cr_assert_eq(t.bytes, 13);
	cr_assert_str_eq(strtab_get(&t, 1, &len), "postgres");
	cr_assert_eq(len, 8);
	strtab_free(&t);
	cr_assert_eq(t.n, 0);
	cr_assert_eq(strtab_intern(&t, "again", 5, &a), 0, "a freed table is empty and usable");
	cr_assert_eq(a, 0);
	strtab_free(&t);
}

/* A reader hands str[id] out as a record's name: it must not move when
 * later strings are added, small (chunks filled) or large (a chunk of
 * their own). */
Test(strtab, strings_never_move)
{
	struct strtab t;
	uint32_t id, first;
	const char *p0, *pbig;
	size_t big = 100000, len;
	char *b = malloc(big), name[32];

	cr_assert(b);
	memset(b, 'b', big);
	strtab_init(&t, 1u << 20, 1ull << 30);
	cr_assert_eq(strtab_intern(&t, "first", 5, &first), 0);
	p0 = t.str[first];
	cr_assert_eq(strtab_intern(&t, b, big, &id), 0);
	pbig = t.str[id];
	for (unsigned i = 0; i < 200000; i++) {
		int l = snprintf(name, sizeof(name), "process-%u", i);

		cr_assert_eq(strtab_intern(&t, name, (size_t)l, &id), 0);
		cr_assert_eq(id, i + 2);
	}
	cr_assert_eq(t.str[first], p0);
	cr_assert_str_eq(p0, "first");
	cr_assert_eq(t.str[1], pbig);
	cr_assert_eq(t.len[1], big);
	cr_assert_eq(memcmp(pbig, b, big), 0);
	cr_assert_eq(pbig[big], 0, "a NUL after the bytes");
	cr_assert_str_eq(strtab_get(&t, 2 + 123456, &len), "process-123456");
	cr_assert_eq(strtab_intern(&t, "process-777", 11, &id), 0);
	cr_assert_eq(id, 2 + 777, "found again after the hash grew");
	free(b);
	strtab_free(&t);
}

/* strtab_add always adds (the reader's file numbers its strings); an
 * intern after adds builds the hash over them. */
Test(strtab, add_then_intern)
{
	struct strtab t;
	uint32_t a, b, c;

	strtab_init(&t, 10, 100);
	cr_assert_eq(strtab_add(&t, "x", 1, &a), 0);
	cr_assert_eq(strtab_add(&t, "x", 1, &b), 0);
	cr_assert_eq(a, 0);
	cr_assert_eq(b, 1);
	cr_assert_eq(strtab_intern(&t, "x", 1, &c), 0);
	cr_assert(c == 0 || c == 1, "found, not added");
	cr_assert_eq(t.n, 2);
	cr_assert_eq(strtab_intern(&t, "y", 1, &c), 0);
	cr_assert_eq(c, 2);
	cr_assert_eq(strtab_add(&t, "y", 1, &c), 0, "an add after the hash is built");
	cr_assert_eq(c, 3);
	strtab_free(&t);
}

/* Past either bound: -E2BIG and nothing added; what is there is found. */
Test(strtab, bounds)
{
	struct strtab t;
	uint32_t id;

	strtab_init(&t, 3, 10);
	cr_assert_eq(strtab_intern(&t, "0123456789x", 11, &id), -E2BIG, "bytes");
	cr_assert_eq(t.n, 0);
	cr_assert_eq(strtab_intern(&t, "0123456", 7, &id), 0);
	cr_assert_eq(strtab_intern(&t, "abcd", 4, &id), -E2BIG, "7 + 4 bytes");
	cr_assert_eq(strtab_add(&t, "abc", 3, &id), 0, "7 + 3 bytes");
	cr_assert_eq(strtab_intern(&t, "", 0, &id), 0);
	cr_assert_eq(t.n, 3);
	cr_assert_eq(strtab_intern(&t, "", 0, &id), 0, "a known string past the count");
	cr_assert_eq(id, 2);
	cr_assert_eq(strtab_add(&t, "", 0, &id), -E2BIG, "strings");
	cr_assert_eq(t.n, 3);
	cr_assert_eq(t.bytes, 10);
	strtab_free(&t);
}
