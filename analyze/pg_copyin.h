/*
 * pg_copyin.h — building a COPY ... FROM STDIN (FORMAT binary) stream
 * and sending it (the PostgreSQL store's import, pg_import.c): rows are
 * appended to a buffer, which the caller sends in pieces or keeps in a
 * temporary file to send later (one COPY at a time on a connection).
 */
#ifndef BLKPEAK_ANALYZE_PG_COPYIN_H
#define BLKPEAK_ANALYZE_PG_COPYIN_H

#include <arpa/inet.h>
#include <libpq-fe.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bpt.h"

/* Where a full buffer of a stream kept for later goes (pg_copyin_spill). */
#define COPY_FLUSH (1 << 20)

/* A binary COPY stream being built: sent to the server (main) or kept
 * in a temporary file (the side tables) when it reaches COPY_FLUSH. */
struct pg_copyin {
	unsigned char *buf;
	size_t len, cap;
	FILE *spill;    /* side tables: where full buffers go */
	uint64_t rows;
};

/* Room for `more` bytes after len: 0 or -ENOMEM. The put and field
 * functions below write without checking: reserve first (a field takes
 * at most 12 bytes, a row's field count 2). */
int pg_copyin_reserve(struct pg_copyin *b, size_t more);

static inline void pg_copyin_put16(struct pg_copyin *b, int16_t v)
{
	uint16_t n = htons((uint16_t)v);

	memcpy(b->buf + b->len, &n, 2);
	b->len += 2;
}

static inline void pg_copyin_put32(struct pg_copyin *b, int32_t v)
{
	uint32_t n = htonl((uint32_t)v);

	memcpy(b->buf + b->len, &n, 4);
	b->len += 4;
}

static inline void pg_copyin_put64(struct pg_copyin *b, int64_t v)
{
	pg_copyin_put32(b, (int32_t)((uint64_t)v >> 32));
	pg_copyin_put32(b, (int32_t)(uint32_t)v);
}

/* One field: its length, then the value (big-endian); NULL: length -1. */
static inline void pg_copyin_f64(struct pg_copyin *b, int64_t v) { pg_copyin_put32(b, 8); pg_copyin_put64(b, v); }
static inline void pg_copyin_f32(struct pg_copyin *b, int32_t v) { pg_copyin_put32(b, 4); pg_copyin_put32(b, v); }
static inline void pg_copyin_f16(struct pg_copyin *b, int16_t v) { pg_copyin_put32(b, 2); pg_copyin_put16(b, v); }
static inline void pg_copyin_null(struct pg_copyin *b) { pg_copyin_put32(b, -1); }

/* A field of `width` bytes, or NULL. */
static inline void pg_copyin_field(struct pg_copyin *b, int width, int null, int64_t v)
{
	if (null)
		pg_copyin_null(b);
	else if (width == 8)
		pg_copyin_f64(b, v);
	else if (width == 4)
		pg_copyin_f32(b, (int32_t)v);
	else
		pg_copyin_f16(b, (int16_t)v);
}

/* The stream's header: signature, flags, no extension (19 bytes). */
void pg_copyin_header(struct pg_copyin *b);

/* b's buffer appended to its temporary file (made on first use). */
int pg_copyin_spill(struct pg_copyin *b, struct bpt_error *err);

/* COPY `table` (`cols`) FROM STDIN (FORMAT binary[, FREEZE]) started. */
int pg_copyin_start(PGconn *c, const char *table, const char *cols, int freeze,
		    struct bpt_error *err);

/* End the COPY on c: its trailer sent (abort_msg NULL) or aborted with
 * abort_msg; its result read. */
int pg_copyin_end(PGconn *c, const char *abort_msg, struct bpt_error *err);

/* All of stream b (its temporary file, then its buffer) as one COPY into
 * `table`, header and trailer included. */
int pg_copyin_stream(PGconn *c, const char *table, const char *cols, int freeze,
		     struct pg_copyin *b, struct bpt_error *err);

#endif
