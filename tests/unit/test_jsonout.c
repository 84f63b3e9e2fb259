/* Unit tests of the JSON writer every --json output uses (common/jsonout.c). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonout.h"

struct doc {
	char *buf;
	size_t len;
	FILE *f;
	struct jw w;
};

static void doc_open(struct doc *d, int indent)
{
	d->f = open_memstream(&d->buf, &d->len);
	cr_assert_not_null(d->f);
	jw_init(&d->w, d->f, indent);
}

static char *doc_close(struct doc *d)
{
	fclose(d->f);
	return d->buf;
}

/* Objects inside arrays inside objects, empty ones too: one comma
 * between siblings, none after the last, a newline at the end. */
static void nested(struct jw *w)
{
	jw_obj(w);
	jw_ku64(w, "ios", 3);
	jw_key(w, "list");
	jw_arr(w);
	jw_obj(w);
	jw_kstr(w, "name", "a\"b\n");
	jw_obj_end(w);
	jw_u64(w, 7);
	jw_arr(w);
	jw_arr_end(w);
	jw_obj(w);
	jw_obj_end(w);
	jw_arr_end(w);
	jw_key(w, "none");
	jw_null(w);
	jw_kbool(w, "ok", 1);
	jw_ki64(w, "delta_ns", -5);
	jw_knum(w, "mb_per_s", 1.5, 3);
	jw_knum(w, "whole", 2.0, 3);
	jw_knum(w, "nan", 0.0 / 0.0, 3);
	jw_key(w, "empty_str");
	jw_str_or_null(w, "");
	jw_kraw(w, "issue_us", "1.500");
	jw_key(w, "blob");
	jw_hex(w, "\x01\xab", 2);
	jw_obj_end(w);
	jw_finish(w);
}

Test(jsonout, compact)
{
	struct doc d;

	doc_open(&d, 0);
	nested(&d.w);
	cr_assert_str_eq(doc_close(&d),
			 "{\"ios\":3,\"list\":[{\"name\":\"a\\\"b\\n\"},7,[],{}],\"none\":null,"
			 "\"ok\":true,\"delta_ns\":-5,\"mb_per_s\":1.500,\"whole\":2,\"nan\":null,"
			 "\"empty_str\":null,\"issue_us\":1.500,\"blob\":\"01ab\"}\n");
	free(d.buf);
}

Test(jsonout, indented)
{
	struct doc d;

	doc_open(&d, 2);
	jw_obj(&d.w);
	jw_ku64(&d.w, "a", 1);
	jw_key(&d.w, "b");
	jw_arr(&d.w);
	jw_u64(&d.w, 2);
	jw_obj(&d.w);
	jw_obj_end(&d.w);
	jw_arr_end(&d.w);
	jw_obj_end(&d.w);
	jw_finish(&d.w);
	cr_assert_str_eq(doc_close(&d), "{\n  \"a\": 1,\n  \"b\": [\n    2,\n    {}\n  ]\n}\n");
	free(d.buf);
}

/* A key holding control bytes or quotes is escaped like any string. */
Test(jsonout, keys_escaped)
{
	struct doc d;

	doc_open(&d, 0);
	jw_obj(&d.w);
	jw_kstr(&d.w, "k\x1b[31m\"", "v");
	jw_obj_end(&d.w);
	jw_finish(&d.w);
	cr_assert_str_eq(doc_close(&d), "{\"k\\u001b[31m\\\"\":\"v\"}\n");
	free(d.buf);
}

/* A double far from 1 keeps all its digits, on both paths. */
Test(jsonout, huge_number)
{
	struct doc d;
	char *s;

	doc_open(&d, 0);
	jw_obj(&d.w);
	jw_knum(&d.w, "big", 1.5e300, 6);
	jw_key(&d.w, "big2");
	jw_num(&d.w, -1.5e300, 6);
	jw_obj_end(&d.w);
	jw_finish(&d.w);
	s = doc_close(&d);
	cr_assert_eq(strlen(s), 2 * (301 + 7) + 1 + strlen("{\"big\":,\"big2\":}\n"), "%s", s);
	cr_assert(strstr(s, "{\"big\":15000000000000000"), "%s", s);
	cr_assert(strstr(s, ".000000,\"big2\":-15"), "%s", s);
	free(d.buf);
}
