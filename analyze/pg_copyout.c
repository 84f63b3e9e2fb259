/*
 * pg_copyout.c — the rows of a binary COPY TO STDOUT (pg_copyout.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "pg.h"
#include "pg_copyout.h"

static int from_conn(struct pg_copyout *r, char **msg)
{
	return PQgetCopyData(r->c, msg, 0);
}

static void free_msg(char *msg)
{
	PQfreemem(msg);
}

void pg_copyout_init_from(struct pg_copyout *r, int (*get)(struct pg_copyout *r, char **msg),
			  void (*release)(char *msg), void *arg, const char *what)
{
	memset(r, 0, sizeof(*r));
	r->get = get;
	r->release = release;
	r->arg = arg;
	r->what = what;
	r->header = 1;
}

void pg_copyout_init(struct pg_copyout *r, PGconn *c, const char *what)
{
	pg_copyout_init_from(r, from_conn, free_msg, NULL, what);
	r->c = c;
}

static int need(struct pg_copyout *r, int n, struct bpt_error *err)
{
	if (n < 0 || n > r->len - r->off) /* off <= len */
		return bpt_error_set(err, -EPROTO, "%s: a COPY row is cut short", r->what);
	return 0;
}

static int64_t get(struct pg_copyout *r, int width)
{
	uint64_t v = 0;
	unsigned char b[8];

	memcpy(b, r->msg + r->off, (size_t)width);
	r->off += width;
	for (int i = 0; i < width; i++)
		v = v << 8 | b[i];
	if (width < 8 && (v >> (8 * width - 1) & 1)) /* sign extend */
		v |= ~0ULL << (8 * width);
	return (int64_t)v;
}

/* The next message, its header skipped: 1, 0 at the end, <0. */
static int next_msg(struct pg_copyout *r, struct bpt_error *err)
{
	int rc;

	while (r->off >= r->len) {
		if (r->msg)
			r->release(r->msg);
		r->msg = NULL;
		r->off = 0;
		r->len = r->get(r, &r->msg);
		if (r->len == -1)
			return 0;
		if (r->len < 0)
			return r->c ? pg_fail(r->c, NULL, err, "cannot read the I/Os")
				    : bpt_error_set(err, -EIO, "%s: cannot read the I/Os", r->what);
		if (r->header) {
			if ((rc = need(r, 19, err)) || memcmp(r->msg, "PGCOPY\n\377\r\n\0", 11))
				return rc ? rc : bpt_error_set(err, -EPROTO, "%s: not a binary COPY"
							       " stream", r->what);
			r->off = 15; /* signature, flags */
			int64_t ext = get(r, 4);
			if (ext < 0 || (rc = need(r, (int)ext, err)))
				return rc ? rc : bpt_error_set(err, -EPROTO, "%s: not a binary COPY"
							       " stream", r->what);
			r->off += (int)ext;
			r->header = 0;
		}
	}
	return 1;
}

int pg_copyout_row(struct pg_copyout *r, int n, const unsigned char *width, int64_t *v,
		   unsigned char *null, struct bpt_error *err)
{
	int rc;

	for (;;) {
		if ((rc = next_msg(r, err)) <= 0)
			return rc;
		if ((rc = need(r, 2, err)))
			return rc;
		int64_t fields = get(r, 2);
		if (fields == -1) { /* the trailer */
			r->off = r->len;
			continue;
		}
		if (fields != n)
			return bpt_error_set(err, -EPROTO, "%s: COPY rows of %d fields, expected %d",
					     r->what, (int)fields, n);
		break;
	}
	for (int i = 0; i < n; i++) {
		if ((rc = need(r, 4, err)))
			return rc;
		int64_t len = get(r, 4);
		v[i] = 0;
		null[i] = len == -1;
		if (len == -1)
			continue;
		if (len != width[i])
			return bpt_error_set(err, -EPROTO, "%s: a COPY field of %d bytes, expected %d",
					     r->what, (int)len, width[i]);
		if ((rc = need(r, width[i], err)))
			return rc;
		v[i] = get(r, width[i]);
	}
	return 1;
}

int pg_copyout_end(struct pg_copyout *r, int rc, struct bpt_error *err)
{
	PGresult *res;

	while (r->len >= 0 || r->msg) {
		if (r->msg)
			r->release(r->msg);
		r->msg = NULL;
		if (r->len == -1)
			break;
		r->len = r->get(r, &r->msg);
	}
	while (r->c && (res = PQgetResult(r->c))) {
		if (!rc && PQresultStatus(res) != PGRES_COMMAND_OK)
			rc = pg_fail(r->c, res, err, "cannot read the I/Os");
		PQclear(res);
	}
	return rc;
}
