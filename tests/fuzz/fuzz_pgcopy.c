/*
 * fuzz_pgcopy.c — libFuzzer target for the reader of a binary COPY
 * stream from a PostgreSQL server (analyze/pg_copyout.c: the PostgreSQL
 * store's rows for reports and the working copy). No connection: the
 * input is the stream's messages, each a 2-byte big-endian length and
 * its bytes (a length past the end: the rest); its first byte chooses
 * how many fields a row must have and their widths, as the callers ask.
 *
 * What must hold: no crash, leak or undefined behaviour; every row read
 * has the fields asked, each NULL or of its width; the reader ends (end
 * of stream or an error) within one row per 2 bytes of input.
 */
#include <stdlib.h>
#include <string.h>

#include "pg_copyout.h"

struct feed {
	const unsigned char *p;
	size_t left;
};

static int next(struct pg_copyout *r, char **msg)
{
	struct feed *f = r->arg;
	size_t len;

	if (f->left < 2)
		return -1;
	len = (size_t)f->p[0] << 8 | f->p[1];
	f->p += 2;
	f->left -= 2;
	if (len > f->left)
		len = f->left;
	if (!(*msg = malloc(len ? len : 1)))
		return -2;
	memcpy(*msg, f->p, len);
	f->p += len;
	f->left -= len;
	return (int)len;
}

static void release(char *msg)
{
	free(msg);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static const unsigned char shapes[4][8] = {
		{ 8, 8, 8, 4, 4, 4 }, { 8, 8, 8 }, { 8, 8 }, { 8, 8, 8, 8, 8, 8, 8, 4 },
	};
	static const int fields[4] = { 6, 3, 2, 8 };
	struct bpt_error err = { 0 };
	struct pg_copyout r;
	struct feed f;
	int64_t v[8];
	unsigned char null[8];
	size_t rows = 0;
	int rc, shape;

	if (size < 1)
		return 0;
	shape = data[0] & 3;
	f = (struct feed){ data + 1, size - 1 };
	pg_copyout_init_from(&r, next, release, &f, "fuzz");
	while ((rc = pg_copyout_row(&r, fields[shape], shapes[shape], v, null, &err)) == 1) {
		for (int i = 0; i < fields[shape]; i++)
			if (null[i] && v[i])
				abort();
		if (++rows > size / 2 + 1)
			abort();
	}
	if (rc < 0 && !err.msg[0])
		abort();
	(void)pg_copyout_end(&r, rc, &err);
	return 0;
}
