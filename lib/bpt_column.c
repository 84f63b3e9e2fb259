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

#include "bpt_internal.h"

/* Bytes a dictionary column's header can take: kind, seed, bits, count,
 * values. */
#define DICT_HDR_MAX (1 + 10 + 1 + 1 + BPT_DICT_MAX * 10)

/*
 * Append v as a dictionary column if it has at most BPT_DICT_MAX distinct
 * values and that is smaller than `planes_bytes`; returns 1 when done, 0
 * with b unchanged otherwise. The indexes are first written one per byte
 * past the room the header can take, then packed forward in place (byte
 * j of the packed form only needs indexes at positions >= j).
 */
static int try_dict(struct bpt_buf *b, const uint64_t *v, uint32_t n,
		    uint64_t seed, size_t planes_bytes)
{
	uint64_t dict[BPT_DICT_MAX];
	unsigned nd = 0;
	uint8_t *idx = buf_reserve(b, DICT_HDR_MAX + (size_t)n);

	if (!idx)
		return 0;
	idx += DICT_HDR_MAX;
	_Static_assert(BPT_DICT_MAX == 16, "the search below takes 4 groups of 4");
	/* Entries past nd hold v[0], entry 0, so a match there is never the
	 * first. Each value is compared with the entries 4 at a time without
	 * a branch: a search that stops at the match, or a test for a run of
	 * one value, mispredicts on mixed values (reads and writes, two
	 * pids), which cost most of the encoder's time in this function. */
	for (unsigned k = 0; k < BPT_DICT_MAX; k++)
		dict[k] = n ? v[0] : 0;
	nd = n ? 1 : 0;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t x = v[i];
		unsigned eq = 0;

		for (unsigned g = 0; g < nd; g += 4)
			eq |= ((unsigned)(dict[g] == x) | (unsigned)(dict[g + 1] == x) << 1 |
			       (unsigned)(dict[g + 2] == x) << 2 |
			       (unsigned)(dict[g + 3] == x) << 3) << g;
		if (!eq) {
			if (nd == BPT_DICT_MAX)
				return 0;
			dict[nd] = x;
			eq = 1u << nd++;
		}
		idx[i] = (uint8_t)__builtin_ctz(eq);
	}
	unsigned bits = nd <= 2 ? 1 : nd <= 4 ? 2 : 4, per = 8 / bits;
	size_t bytes = ((size_t)n * bits + 7) / 8;

	if (!nd || bytes + nd * 10 >= planes_bytes)
		return 0;
	/* the header fits the room reserved above: no reallocation */
	buf_u8(b, BPT_COL_DICT);
	buf_varint(b, seed);
	buf_u8(b, (uint8_t)bits);
	buf_u8(b, (uint8_t)nd);
	for (unsigned k = 0; k < nd; k++)
		buf_varint(b, dict[k]);
	uint8_t *out = b->p + b->len;

	assert(out <= idx);
	for (size_t j = 0; j < bytes; j++) {
		unsigned x = 0;

		for (unsigned q = 0; q < per; q++) {
			size_t i = j * per + q;

			if (i < n)
				x |= (unsigned)idx[i] << (q * bits);
		}
		out[j] = (uint8_t)x;
	}
	b->len += bytes;
	return 1;
}

/*
 * Planes 0..W-1 of v[0..n) less `min`, shifted, into d (plane k at
 * d + k * n), for a width W the compiler knows: the byte stores of one
 * value become W independent stores instead of a loop over k per value.
 */
static inline __attribute__((always_inline)) void
planes_w(uint8_t *d, const uint64_t *v, uint32_t n, uint64_t min,
	 unsigned shift, const unsigned w)
{
	for (uint32_t i = 0; i < n; i++) {
		uint64_t x = (v[i] - min) >> shift;

		for (unsigned k = 0; k < w; k++)
			d[(size_t)k * n + i] = (uint8_t)(x >> (8 * k));
	}
}

/* The planes of v[0..n) less `min`, shifted: the part of kinds 0 and 2
 * after their headers. */
void bpt_col_put_planes(struct bpt_buf *b, const uint64_t *v, uint32_t n,
		       uint64_t min, unsigned width, unsigned shift,
		       unsigned *nplanes, size_t *planes_at)
{
	buf_u8(b, (uint8_t)width);
	buf_u8(b, (uint8_t)shift);
	buf_varint(b, min);
	uint8_t *d = buf_reserve(b, (size_t)width * n);

	if (!d)
		return;
	*nplanes = width;
	*planes_at = b->len;
	switch (width) {
	case 0:
		break;
	case 1:
		planes_w(d, v, n, min, shift, 1);
		break;
	case 2:
		planes_w(d, v, n, min, shift, 2);
		break;
	case 3:
		planes_w(d, v, n, min, shift, 3);
		break;
	case 4:
		planes_w(d, v, n, min, shift, 4);
		break;
	case 5:
		planes_w(d, v, n, min, shift, 5);
		break;
	default: /* 6..8: wide values (raw sectors, 64-bit ids) */
		for (unsigned k = 0; k < width; k++) {
			unsigned s = shift + 8 * k;
			uint8_t *plane = d + (size_t)k * n;

			for (uint32_t i = 0; i < n; i++)
				plane[i] = (uint8_t)((v[i] - min) >> s);
		}
		break;
	}
	b->len += (size_t)width * n;
}

/* The frame of v[0..n): minimum, common trailing zero bits of v - min,
 * bytes per value. */
void bpt_col_frame(const uint64_t *v, uint32_t n, uint64_t *minp,
		  unsigned *shiftp, unsigned *widthp)
{
	uint64_t v0 = n ? v[0] : 0;
	uint64_t mn0 = v0, mn1 = v0, mx0 = v0, mx1 = v0, or0 = 0, or1 = 0;
	uint32_t i = 0;

	*shiftp = *widthp = 0;
	/* Many columns hold one value in a whole block (the disk, the error,
	 * a second file nobody has): while the values equal v[0], only that
	 * is checked, 8 at a time; min and max start where they differ. */
	for (; i + 8 <= n; i += 8) {
		const uint64_t *p = v + i;

		if (((p[0] ^ v0) | (p[1] ^ v0) | (p[2] ^ v0) | (p[3] ^ v0) |
		     (p[4] ^ v0) | (p[5] ^ v0) | (p[6] ^ v0) | (p[7] ^ v0)) != 0)
			break;
	}
	/* v[i] - min has k trailing zero bits for every i exactly when every
	 * v[i] agrees with v[0] in its k low bits: one pass finds both. Two
	 * independent chains of each, merged after: one chain waits for the
	 * previous compare at every value. */
	for (; i + 2 <= n; i += 2) {
		uint64_t x = v[i], y = v[i + 1];

		mn0 = x < mn0 ? x : mn0;
		mx0 = x > mx0 ? x : mx0;
		or0 |= x ^ v0;
		mn1 = y < mn1 ? y : mn1;
		mx1 = y > mx1 ? y : mx1;
		or1 |= y ^ v0;
	}
	if (i < n) {
		mn0 = v[i] < mn0 ? v[i] : mn0;
		mx0 = v[i] > mx0 ? v[i] : mx0;
		or0 |= v[i] ^ v0;
	}
	mn0 = mn1 < mn0 ? mn1 : mn0;
	mx0 = mx1 > mx0 ? mx1 : mx0;
	or0 |= or1;
	*minp = mn0;
	if (or0) {
		*shiftp = (unsigned)__builtin_ctzll(or0);
		*widthp = (unsigned)(8 - __builtin_clzll((mx0 - mn0) >> *shiftp) / 8);
	}
}

void bpt_col_encode(struct bpt_buf *b, const uint64_t *v, uint32_t n,
		    uint64_t seed, unsigned *nplanes, size_t *planes_at)
{
	uint64_t min;
	unsigned shift, width;

	*nplanes = 0;
	*planes_at = 0;
	bpt_col_frame(v, n, &min, &shift, &width);
	if (width && try_dict(b, v, n, seed, (size_t)n * width))
		return;
	assert(width <= 8 && shift < 64);
	buf_u8(b, BPT_COL_PLANES);
	buf_varint(b, seed);
	bpt_col_put_planes(b, v, n, min, width, shift, nplanes, planes_at);
}

void bpt_col_encode_time(struct bpt_buf *b, const uint64_t *v, uint32_t n,
			 uint64_t seed, uint64_t *tmp, struct bpt_tick_hint *hint,
			 unsigned *nplanes, size_t *planes_at)
{
	if (!bpt_col_encode_tick(b, v, n, seed, tmp, hint, nplanes, planes_at))
		bpt_col_encode(b, v, n, seed, nplanes, planes_at);
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
	if (cv->kind == BPT_COL_TICK) {
		uint64_t zoff;

		if (cur_varint(&c, &cv->tick) || cur_varint(&c, &zoff) ||
		    bpt_col_tick_check(cv->tick, zoff))
			return -EBADMSG;
		cv->tick_off = unzigzag64(zoff);
	}
	if (cv->kind == BPT_COL_PLANES || cv->kind == BPT_COL_TICK) {
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
		return -EPROTONOSUPPORT; /* a kind of a newer minor version */
	}
	if (c.len - c.pos != need)
		return -EBADMSG;
	cv->data = c.p + c.pos;
	return 0;
}

/* Dictionary indexes of `bits` bits, values i0..i0+m-1, whole bytes at a
 * time once i0 + j is at a byte's start; ORs 1 << index into *seen.
 * Called with a constant `bits` so each width gets its own loop. */
static inline void dict_indexes(const uint8_t *data, unsigned bits, const uint64_t *d,
				uint32_t i0, uint32_t m, uint64_t *out, unsigned *seen)
{
	const unsigned per = 8 / bits, mask = (1u << bits) - 1;
	unsigned s = 0;
	uint32_t j = 0;

	for (; j < m && (i0 + j) % per; j++) {
		size_t bit = (size_t)(i0 + j) * bits;
		unsigned k = (data[bit / 8] >> (bit % 8)) & mask;

		s |= 1u << k;
		out[j] = d[k];
	}
	for (; j + per <= m; j += per) {
		unsigned b = data[(i0 + j) / per];

		for (unsigned q = 0; q < per; q++) {
			unsigned k = (b >> (q * bits)) & mask;

			s |= 1u << k;
			out[j + q] = d[k];
		}
	}
	for (; j < m; j++) {
		unsigned k = (data[(i0 + j) / per] >> ((i0 + j) % per * bits)) & mask;

		s |= 1u << k;
		out[j] = d[k];
	}
	*seen |= s;
}

static int decode_dict(const struct bpt_colview *cv, uint32_t i0, uint32_t m,
		       uint64_t *out)
{
	uint64_t d[BPT_DICT_MAX]; /* a copy: stores to out cannot change it */
	unsigned seen = 0;

	for (unsigned k = 0; k < BPT_DICT_MAX; k++)
		d[k] = k < cv->ndict ? cv->dict[k] : 0;
	if (cv->bits == 1)
		dict_indexes(cv->data, 1, d, i0, m, out, &seen);
	else if (cv->bits == 2)
		dict_indexes(cv->data, 2, d, i0, m, out, &seen);
	else
		dict_indexes(cv->data, 4, d, i0, m, out, &seen);
	/* an index past the dictionary's entries */
	return seen >> cv->ndict ? -EBADMSG : 0;
}

/* Kinds 0 and 2: base + (the planes' value << shift). */
static void decode_planes(const struct bpt_colview *cv, uint32_t i0, uint32_t m,
			  uint64_t *out)
{
	const uint8_t *pl = cv->data + i0;
	uint64_t base = cv->base;
	unsigned shift = cv->shift;
	size_t n = cv->n;

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
}

int bpt_col_decode(const struct bpt_colview *cv, uint32_t i0, uint32_t m,
		   uint64_t *out)
{
	if (cv->kind == BPT_COL_DICT)
		return decode_dict(cv, i0, m, out);
	if (cv->kind == BPT_COL_TICK) {
		decode_planes(cv, i0, m, out);
		bpt_col_tick_apply(cv, out, m);
		return 0;
	}
	decode_planes(cv, i0, m, out);
	return 0;
}

uint64_t bpt_col_bound(const struct bpt_colview *cv)
{
	uint64_t max = 0, span;

	switch (cv->kind) {
	case BPT_COL_DICT:
		/* an index past the entries is refused by bpt_col_decode */
		for (unsigned k = 0; k < cv->ndict; k++)
			max = cv->dict[k] > max ? cv->dict[k] : max;
		return max;
	case BPT_COL_PLANES:
		if (!cv->width)
			return cv->base;
		if (8u * cv->width + cv->shift > 64)
			return UINT64_MAX; /* the shift drops high bits: no bound */
		span = (cv->width == 8 ? UINT64_MAX : (1ull << (8 * cv->width)) - 1) << cv->shift;
		return cv->base + span < cv->base ? UINT64_MAX : cv->base + span;
	default:
		return UINT64_MAX; /* kind 2 holds times, not bounded here */
	}
}

/* c * log2(c) for c >= 1, within about 0.01 bits per count: the
 * estimate only compares codings, so libm's precision is not needed and
 * its cost (thousands of calls per block) is. */
static double clog2c(uint32_t c)
{
	int e = 31 - __builtin_clz(c);
	double m = (double)c / (double)(1u << e) - 1.0; /* [0, 1) */

	/* log2(1 + m) ~ m * (1.4425 - m * (0.7213 - m * 0.2788)) */
	return c * (e + m * (1.4425 - m * (0.7213 - m * 0.2788)));
}

double bpt_col_estimate(const uint64_t *v, uint32_t n)
{
	uint64_t min = UINT64_MAX, max = 0, ors = 0;
	uint32_t hist[4][256];
	double bits = 0;

	for (uint32_t i = 0; i < n; i++) {
		min = v[i] < min ? v[i] : min;
		max = v[i] > max ? v[i] : max;
		ors |= v[i] ^ v[0];
	}
	if (!ors)
		return 0;
	unsigned shift = (unsigned)__builtin_ctzll(ors);
	unsigned width = (unsigned)(8 - __builtin_clzll((max - min) >> shift) / 8);

	for (unsigned k = 0; k < width; k++) {
		unsigned s = shift + 8 * k;
		uint32_t i = 0;

		/* Four histograms, summed after: a plane that is nearly
		 * constant would otherwise wait for each increment of the
		 * same counter to finish before the next. */
		memset(hist, 0, sizeof(hist));
		for (; i + 4 <= n; i += 4) {
			hist[0][(uint8_t)((v[i] - min) >> s)]++;
			hist[1][(uint8_t)((v[i + 1] - min) >> s)]++;
			hist[2][(uint8_t)((v[i + 2] - min) >> s)]++;
			hist[3][(uint8_t)((v[i + 3] - min) >> s)]++;
		}
		for (; i < n; i++)
			hist[0][(uint8_t)((v[i] - min) >> s)]++;
		/* n log2 n - sum c log2 c: what an order-0 coder needs */
		bits += clog2c(n);
		for (int b = 0; b < 256; b++) {
			uint32_t c = hist[0][b] + hist[1][b] + hist[2][b] + hist[3][b];

			if (c)
				bits -= clog2c(c);
		}
	}
	return bits;
}
