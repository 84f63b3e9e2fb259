/*
 * pg_copyin.c — a binary COPY FROM STDIN stream (pg_copyin.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "pg.h"
#include "pg_copyin.h"

int pg_copyin_reserve(struct pg_copyin *b, size_t more)
{
	if (b->len + more <= b->cap)
		return 0;
	size_t cap = b->cap ? 2 * b->cap : COPY_FLUSH + 4096;
	while (cap < b->len + more)
		cap *= 2;
	unsigned char *n = realloc(b->buf, cap);
	if (!n)
		return -ENOMEM;
	b->buf = n;
	b->cap = cap;
	return 0;
}

static const char copy_signature[11] = "PGCOPY\n\377\r\n\0";

void pg_copyin_header(struct pg_copyin *b)
{
	memcpy(b->buf + b->len, copy_signature, sizeof(copy_signature));
	b->len += sizeof(copy_signature);
	pg_copyin_put32(b, 0);
	pg_copyin_put32(b, 0);
}

int pg_copyin_spill(struct pg_copyin *b, struct bpt_error *err)
{
	if (!b->spill && !(b->spill = tmpfile()))
		return bpt_error_set(err, -errno, "cannot make a temporary file: %s", strerror(errno));
	if (b->len && fwrite(b->buf, 1, b->len, b->spill) != b->len)
		return bpt_error_set(err, -EIO, "cannot write a temporary file: %s", strerror(errno));
	b->len = 0;
	return 0;
}

int pg_copyin_start(PGconn *c, const char *table, const char *cols, int freeze,
		    struct bpt_error *err)
{
	char sql[512];
	PGresult *r;
	int rc = 0;

	snprintf(sql, sizeof(sql), "COPY %s (%s) FROM STDIN (FORMAT binary%s)", table, cols,
		 freeze ? ", FREEZE" : "");
	r = PQexec(c, sql);
	if (PQresultStatus(r) != PGRES_COPY_IN)
		rc = pg_fail(c, r, err, "cannot start the copy of the I/Os");
	PQclear(r);
	return rc;
}

int pg_copyin_end(PGconn *c, const char *abort_msg, struct bpt_error *err)
{
	PGresult *r;
	int rc = 0;

	if (!abort_msg) {
		static const unsigned char trailer[2] = { 0xff, 0xff };

		if (PQputCopyData(c, (const char *)trailer, 2) != 1) {
			rc = pg_fail(c, NULL, err, "cannot send I/Os");
			abort_msg = "send failed";
		}
	}
	if (PQputCopyEnd(c, abort_msg) != 1 && !rc)
		rc = pg_fail(c, NULL, err, "cannot end the copy of the I/Os");
	while ((r = PQgetResult(c))) {
		if (!rc && !abort_msg && PQresultStatus(r) != PGRES_COMMAND_OK)
			rc = pg_fail(c, r, err, "cannot copy the I/Os");
		PQclear(r);
	}
	return rc;
}

/* Send stream b (its rows spilled to a file, then those in memory) as a
 * COPY into `table`. */
int pg_copyin_stream(PGconn *c, const char *table, const char *cols, int freeze,
		     struct pg_copyin *b, struct bpt_error *err)
{
	char chunk[1 << 16];
	unsigned char head[19];
	struct pg_copyin h = { .buf = head, .cap = sizeof(head) };
	int rc;

	if ((rc = pg_copyin_start(c, table, cols, freeze, err)))
		return rc;
	pg_copyin_header(&h);
	rc = PQputCopyData(c, (const char *)h.buf, (int)h.len) == 1 ? 0 :
		pg_fail(c, NULL, err, "cannot send I/Os");
	if (!rc && b->spill) {
		size_t n;

		rewind(b->spill);
		while (!rc && (n = fread(chunk, 1, sizeof(chunk), b->spill)) > 0)
			if (PQputCopyData(c, chunk, (int)n) != 1)
				rc = pg_fail(c, NULL, err, "cannot send I/Os");
		if (!rc && ferror(b->spill))
			rc = bpt_error_set(err, -EIO, "cannot read a temporary file");
	}
	if (!rc && b->len && PQputCopyData(c, (const char *)b->buf, (int)b->len) != 1)
		rc = pg_fail(c, NULL, err, "cannot send I/Os");
	int crc = pg_copyin_end(c, rc ? "import failed" : NULL, rc ? NULL : err);
	return rc ? rc : crc;
}

