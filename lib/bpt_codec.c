/*
 * bpt_codec.c — the byte-level coding of the .bpt format: a growable
 * output buffer and a bounds-checked input cursor (LE integers, LEB128
 * varints, length-prefixed strings). The column coding is in
 * bpt_column.c.
 */
#include <errno.h>
#include <stdlib.h>

#include "bpt_internal.h"

void buf_free(struct bpt_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

uint8_t *buf_reserve(struct bpt_buf *b, size_t n)
{
	if (b->oom)
		return NULL;
	if (b->cap - b->len < n) {
		size_t cap = b->cap ? b->cap : 256;

		while (cap - b->len < n) {
			if (cap > SIZE_MAX / 2) {
				b->oom = 1;
				return NULL;
			}
			cap *= 2;
		}
		uint8_t *p = realloc(b->p, cap);

		if (!p) {
			b->oom = 1;
			return NULL;
		}
		b->p = p;
		b->cap = cap;
	}
	return b->p + b->len;
}

void buf_put(struct bpt_buf *b, const void *src, size_t n)
{
	uint8_t *d = buf_reserve(b, n);

	if (!d)
		return;
	if (n)
		memcpy(d, src, n);
	b->len += n;
}

void buf_u8(struct bpt_buf *b, uint8_t v)
{
	buf_put(b, &v, 1);
}

void buf_u16(struct bpt_buf *b, uint16_t v)
{
	uint8_t t[2];

	put_le16(t, v);
	buf_put(b, t, 2);
}

void buf_u32(struct bpt_buf *b, uint32_t v)
{
	uint8_t t[4];

	put_le32(t, v);
	buf_put(b, t, 4);
}

void buf_u64(struct bpt_buf *b, uint64_t v)
{
	uint8_t t[8];

	put_le64(t, v);
	buf_put(b, t, 8);
}

void buf_varint(struct bpt_buf *b, uint64_t v)
{
	uint8_t t[10];
	size_t n = 0;

	while (v >= 0x80) {
		t[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	t[n++] = (uint8_t)v;
	buf_put(b, t, n);
}

void buf_str16(struct bpt_buf *b, const char *s, size_t len)
{
	buf_u16(b, (uint16_t)len);
	buf_put(b, s, len);
}

int cur_bytes(struct bpt_cur *c, const uint8_t **out, size_t n)
{
	if (c->len - c->pos < n)
		return -EBADMSG;
	*out = c->p + c->pos;
	c->pos += n;
	return 0;
}

int cur_u8(struct bpt_cur *c, uint8_t *v)
{
	const uint8_t *p;

	if (cur_bytes(c, &p, 1))
		return -EBADMSG;
	*v = p[0];
	return 0;
}

int cur_u16(struct bpt_cur *c, uint16_t *v)
{
	const uint8_t *p;

	if (cur_bytes(c, &p, 2))
		return -EBADMSG;
	*v = get_le16(p);
	return 0;
}

int cur_u32(struct bpt_cur *c, uint32_t *v)
{
	const uint8_t *p;

	if (cur_bytes(c, &p, 4))
		return -EBADMSG;
	*v = get_le32(p);
	return 0;
}

int cur_u64(struct bpt_cur *c, uint64_t *v)
{
	const uint8_t *p;

	if (cur_bytes(c, &p, 8))
		return -EBADMSG;
	*v = get_le64(p);
	return 0;
}

int cur_varint(struct bpt_cur *c, uint64_t *v)
{
	uint64_t r = 0;

	for (int i = 0; i < 10; i++) {
		if (c->pos >= c->len)
			return -EBADMSG;
		uint8_t byte = c->p[c->pos++];

		if (i == 9 && byte > 1)
			return -EBADMSG; /* more than 64 bits */
		r |= (uint64_t)(byte & 0x7f) << (7 * i);
		if (!(byte & 0x80)) {
			*v = r;
			return 0;
		}
	}
	return -EBADMSG;
}

int cur_str16(struct bpt_cur *c, char *dst, size_t dstsz)
{
	uint16_t len;
	const uint8_t *p;

	if (cur_u16(c, &len) || len >= dstsz || cur_bytes(c, &p, len))
		return -EBADMSG;
	if (memchr(p, 0, len))
		return -EBADMSG;
	memcpy(dst, p, len);
	dst[len] = 0;
	return 0;
}
