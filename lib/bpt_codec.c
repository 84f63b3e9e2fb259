/*
 * bpt_codec.c — the byte-level coding of the .bpt format: a growable
 * output buffer, a bounds-checked input cursor (LE integers, LEB128
 * varints, length-prefixed strings) and the column coding
 * ("frame of reference, shift, byte planes") that every record column
 * uses. See schemas/trace-format.md, "Column coding".
 *
 * Why byte planes rather than varints: the values of a column are turned
 * into small unsigned numbers (deltas, zigzag), then the block's minimum
 * is subtracted and common trailing zero bits are shifted out, so a
 * constant column costs nothing and 4 KiB-aligned sizes lose their 12
 * zero bits. The remaining numbers are stored with a fixed width, byte k
 * of every value together (a "plane"). Fixed width decodes without
 * branches; grouping byte k of all values gives zstd's entropy coder
 * streams of one statistic each (the high planes of skewed columns are
 * nearly constant and shrink to almost nothing), which is where varints
 * lose a bit per byte that zstd cannot win back.
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

void bpt_col_encode(struct bpt_buf *b, const uint64_t *v, uint32_t n,
		    uint64_t seed)
{
	uint64_t min = UINT64_MAX, max = 0, ors = 0;
	unsigned shift = 0, width = 0;

	for (uint32_t i = 0; i < n; i++) {
		min = v[i] < min ? v[i] : min;
		max = v[i] > max ? v[i] : max;
	}
	if (!n)
		min = 0;
	for (uint32_t i = 0; i < n; i++)
		ors |= v[i] - min;
	if (ors) {
		shift = (unsigned)__builtin_ctzll(ors);
		uint64_t range = (max - min) >> shift;

		width = (unsigned)(8 - __builtin_clzll(range) / 8);
	}
	buf_u8(b, (uint8_t)width);
	buf_u8(b, (uint8_t)shift);
	buf_varint(b, min);
	buf_varint(b, seed);
	uint8_t *d = buf_reserve(b, (size_t)width * n);

	if (!d)
		return;
	for (unsigned k = 0; k < width; k++) {
		unsigned s = shift + 8 * k;
		uint8_t *plane = d + (size_t)k * n;

		for (uint32_t i = 0; i < n; i++)
			plane[i] = (uint8_t)((v[i] - min) >> s);
	}
	b->len += (size_t)width * n;
}

int bpt_col_parse(const uint8_t *p, size_t len, uint32_t n,
		  struct bpt_colview *cv)
{
	struct bpt_cur c = { .p = p, .len = len };
	const uint8_t *planes;

	if (cur_u8(&c, &cv->width) || cur_u8(&c, &cv->shift) ||
	    cur_varint(&c, &cv->base) || cur_varint(&c, &cv->seed))
		return -EBADMSG;
	if (cv->width > 8 || cv->shift > 63)
		return -EBADMSG;
	if (c.len - c.pos != (size_t)cv->width * n)
		return -EBADMSG;
	if (cur_bytes(&c, &planes, (size_t)cv->width * n))
		return -EBADMSG;
	cv->planes = planes;
	cv->n = n;
	return 0;
}

void bpt_col_decode(const struct bpt_colview *cv, uint32_t i0, uint32_t m,
		    uint64_t *out)
{
	const uint8_t *pl = cv->planes + i0;
	uint64_t base = cv->base;
	unsigned shift = cv->shift;

	switch (cv->width) {
	case 0:
		for (uint32_t j = 0; j < m; j++)
			out[j] = base;
		return;
	case 1:
		for (uint32_t j = 0; j < m; j++)
			out[j] = base + ((uint64_t)pl[j] << shift);
		return;
	case 2:
		for (uint32_t j = 0; j < m; j++)
			out[j] = base + ((uint64_t)(pl[j] |
				 (uint32_t)pl[j + cv->n] << 8) << shift);
		return;
	case 3:
		for (uint32_t j = 0; j < m; j++)
			out[j] = base + ((uint64_t)(pl[j] |
				 (uint32_t)pl[j + cv->n] << 8 |
				 (uint32_t)pl[j + 2 * cv->n] << 16) << shift);
		return;
	default:
		for (uint32_t j = 0; j < m; j++)
			out[j] = 0;
		for (unsigned k = 0; k < cv->width; k++) {
			const uint8_t *plane = pl + (size_t)k * cv->n;

			for (uint32_t j = 0; j < m; j++)
				out[j] |= (uint64_t)plane[j] << (8 * k);
		}
		for (uint32_t j = 0; j < m; j++)
			out[j] = base + (out[j] << shift);
		return;
	}
}
