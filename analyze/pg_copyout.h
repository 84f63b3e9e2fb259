/*
 * pg_copyout.h — reading the rows of a COPY ... TO STDOUT (FORMAT binary)
 * that the caller started on a connection (PQexec gave PGRES_COPY_OUT).
 */
#ifndef BLKPEAK_ANALYZE_PG_COPYOUT_H
#define BLKPEAK_ANALYZE_PG_COPYOUT_H

#include <libpq-fe.h>
#include <stdint.h>

#include "bpt.h"

struct pg_copyout {
	PGconn *c;        /* NULL: messages from get (a test, a fuzz target) */
	/* the next message, as PQgetCopyData (its length, -1 at the end, -2
	 * on an error) and how to free it */
	int (*get)(struct pg_copyout *r, char **msg);
	void (*release)(char *msg);
	void *arg;
	const char *what; /* for messages: "trace 3" */
	char *msg;        /* the current message of PQgetCopyData */
	int len, off;
	int header;       /* 1: the file header is still to skip */
};

/* Start reading: the COPY's PGRES_COPY_OUT result is cleared. */
void pg_copyout_init(struct pg_copyout *r, PGconn *c, const char *what);
/* The same over messages that get gives (c NULL). */
void pg_copyout_init_from(struct pg_copyout *r, int (*get)(struct pg_copyout *r, char **msg),
			  void (*release)(char *msg), void *arg, const char *what);

/* The next row's n fields, each of width[i] bytes (8, 4 or 2; v[i] sign
 * extended) or NULL (null[i] 1, v[i] 0): 1, 0 at the end, or <0 with err
 * filled (-EPROTO: not the expected shape). */
int pg_copyout_row(struct pg_copyout *r, int n, const unsigned char *width, int64_t *v,
		   unsigned char *null, struct bpt_error *err);

/* Read what is left of the stream and its result: 0, or pg_fail() when
 * the COPY failed (rc: the caller's error so far, kept). */
int pg_copyout_end(struct pg_copyout *r, int rc, struct bpt_error *err);

#endif
