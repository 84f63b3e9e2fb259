/*
 * bpt_column.c — the coding of one column of a record block: the values
 * of one field for every record of the block, already turned into small
 * unsigned numbers by the column's transform (deltas, zigzag; see
 * bpt_writer.c and the spec's "Columns").
 *
 * Two kinds, the smaller is chosen per column and block:
 *  - planes: the block's minimum is subtracted and the trailing zero bits
 *    common to all values shifted out (a constant column costs nothing,
 *    4 KiB-aligned sizes lose 12 zero bits), then every value is stored
 *    with the same byte width, byte k of all values together (a "plane").
 *    Fixed width decodes without branches, and grouping byte k of all
 *    values hands zstd streams of one statistic each: the low planes of
 *    random offsets stay as they are, the high planes of skewed columns
 *    become nearly constant and shrink to almost nothing. Varints would
 *    lose a bit per byte that zstd cannot win back.
 *  - dict: at most 16 distinct values (a couple of pids, an op mix, a few
 *    request sizes) are stored once and each record keeps a 1, 2 or 4-bit
 *    index: two pids cost about a bit per record instead of a byte-wide
 *    plane that zstd's Huffman coder cannot bring under one bit per byte.
 */
#include <assert.h>
#include <errno.h>
#include <math.h>

#include "bpt_internal.h"

/* Distinct values of v if at most BPT_DICT_MAX, else 0. */
static unsigned distinct(const uint64_t *v, uint32_t n, uint64_t *dict)
{
	unsigned nd = 0;

	for (uint32_t i = 0; i < n; i++) {
		unsigned k = 0;

		while (k < nd && dict[k] != v[i])
			k++;
		if (k == nd) {
			if (nd == BPT_DICT_MAX)
				return 0;
			dict[nd++] = v[i];
		}
	}
	return nd;
}

static void encode_dict(struct bpt_buf *b, const uint64_t *v, uint32_t n,
			const uint64_t *dict, unsigned nd, unsigned bits)
{
	size_t bytes = ((size_t)n * bits + 7) / 8;

	buf_u8(b, (uint8_t)bits);
	buf_u8(b, (uint8_t)nd);
	for (unsigned k = 0; k < nd; k++)
		buf_varint(b, dict[k]);
	uint8_t *d = buf_reserve(b, bytes);

	if (!d)
		return;
	memset(d, 0, bytes);
	for (uint32_t i = 0; i < n; i++) {
		unsigned k = 0;

		while (dict[k] != v[i])
			k++;
		size_t bit = (size_t)i * bits;

		d[bit / 8] |= (uint8_t)(k << (bit % 8));
	}
	b->len += bytes;
}

void bpt_col_encode(struct bpt_buf *b, const uint64_t *v, uint32_t n,
		    uint64_t seed, unsigned *nplanes, size_t *planes_at)
{
	uint64_t min = UINT64_MAX, max = 0, ors = 0, dict[BPT_DICT_MAX];
	unsigned shift = 0, width = 0;

	*nplanes = 0;
	*planes_at = 0;
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
		width = (unsigned)(8 - __builtin_clzll((max - min) >> shift) / 8);
	}
	if (width) {
		unsigned nd = distinct(v, n, dict);
		unsigned bits = nd <= 2 ? 1 : nd <= 4 ? 2 : 4;

		if (nd && (size_t)n * bits / 8 + nd * 10 < (size_t)n * width) {
			buf_u8(b, BPT_COL_DICT);
			buf_varint(b, seed);
			encode_dict(b, v, n, dict, nd, bits);
			return;
		}
	}
	assert(width <= 8 && shift < 64);
	buf_u8(b, BPT_COL_PLANES);
	buf_varint(b, seed);
	buf_u8(b, (uint8_t)width);
	buf_u8(b, (uint8_t)shift);
	buf_varint(b, min);
	uint8_t *d = buf_reserve(b, (size_t)width * n);

	if (!d)
		return;
	*nplanes = width;
	*planes_at = b->len;
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
	size_t need;

	memset(cv, 0, sizeof(*cv));
	cv->n = n;
	if (cur_u8(&c, &cv->kind) || cur_varint(&c, &cv->seed))
		return -EBADMSG;
	if (cv->kind == BPT_COL_PLANES) {
		if (cur_u8(&c, &cv->width) || cur_u8(&c, &cv->shift) ||
		    cur_varint(&c, &cv->base))
			return -EBADMSG;
		if (cv->width > 8 || cv->shift > 63)
			return -EBADMSG;
		need = (size_t)cv->width * n;
	} else if (cv->kind == BPT_COL_DICT) {
		if (cur_u8(&c, &cv->bits) || cur_u8(&c, &cv->ndict))
			return -EBADMSG;
		if ((cv->bits != 1 && cv->bits != 2 && cv->bits != 4) ||
		    !cv->ndict || cv->ndict > (1u << cv->bits))
			return -EBADMSG;
		for (unsigned k = 0; k < cv->ndict; k++)
			if (cur_varint(&c, &cv->dict[k]))
				return -EBADMSG;
		need = ((size_t)n * cv->bits + 7) / 8;
	} else {
		return -EBADMSG;
	}
	if (c.len - c.pos != need)
		return -EBADMSG;
	cv->data = c.p + c.pos;
	return 0;
}

static int decode_dict(const struct bpt_colview *cv, uint32_t i0, uint32_t m,
		       uint64_t *out)
{
	unsigned bits = cv->bits, mask = (1u << bits) - 1, bad = 0;

	for (uint32_t j = 0; j < m; j++) {
		size_t bit = (size_t)(i0 + j) * bits;
		unsigned k = (cv->data[bit / 8] >> (bit % 8)) & mask;

		bad |= k >= cv->ndict;
		out[j] = cv->dict[k & (BPT_DICT_MAX - 1)];
	}
	return bad ? -EBADMSG : 0;
}

int bpt_col_decode(const struct bpt_colview *cv, uint32_t i0, uint32_t m,
		   uint64_t *out)
{
	const uint8_t *pl = cv->data + i0;
	uint64_t base = cv->base;
	unsigned shift = cv->shift;
	size_t n = cv->n;

	if (cv->kind == BPT_COL_DICT)
		return decode_dict(cv, i0, m, out);
	switch (cv->width) {
	case 0:
		for (uint32_t j = 0; j < m; j++)
			out[j] = base;
		break;
	case 1:
		for (uint32_t j = 0; j < m; j++)
			out[j] = base + ((uint64_t)pl[j] << shift);
		break;
	case 2:
		for (uint32_t j = 0; j < m; j++)
			out[j] = base + ((uint64_t)(pl[j] | (uint32_t)pl[j + n] << 8)
					 << shift);
		break;
	case 3:
		for (uint32_t j = 0; j < m; j++)
			out[j] = base + ((uint64_t)(pl[j] | (uint32_t)pl[j + n] << 8 |
						    (uint32_t)pl[j + 2 * n] << 16)
					 << shift);
		break;
	default:
		for (uint32_t j = 0; j < m; j++)
			out[j] = 0;
		for (unsigned k = 0; k < cv->width; k++) {
			const uint8_t *plane = pl + k * n;

			for (uint32_t j = 0; j < m; j++)
				out[j] |= (uint64_t)plane[j] << (8 * k);
		}
		for (uint32_t j = 0; j < m; j++)
			out[j] = base + (out[j] << shift);
		break;
	}
	return 0;
}

double bpt_col_estimate(const uint64_t *v, uint32_t n)
{
	uint64_t min = UINT64_MAX, max = 0, ors = 0;
	uint32_t hist[256];
	double bits = 0;

	for (uint32_t i = 0; i < n; i++) {
		min = v[i] < min ? v[i] : min;
		max = v[i] > max ? v[i] : max;
	}
	for (uint32_t i = 0; i < n; i++)
		ors |= v[i] - min;
	if (!ors)
		return 0;
	unsigned shift = (unsigned)__builtin_ctzll(ors);
	unsigned width = (unsigned)(8 - __builtin_clzll((max - min) >> shift) / 8);

	for (unsigned k = 0; k < width; k++) {
		unsigned s = shift + 8 * k;

		memset(hist, 0, sizeof(hist));
		for (uint32_t i = 0; i < n; i++)
			hist[(uint8_t)((v[i] - min) >> s)]++;
		/* n log2 n - sum c log2 c: what an order-0 coder needs */
		bits += n * log2(n);
		for (int b = 0; b < 256; b++)
			if (hist[b])
				bits -= hist[b] * log2(hist[b]);
	}
	return bits;
}
