/*
 * parse.c — the field helpers every text reader uses (foreign.h). They
 * never allocate and never accept what they cannot represent exactly:
 * a number with a stray character, a sign where none belongs, or a
 * value past 64 bits is an error, so a bad line is caught, not misread.
 */
#include <ctype.h>
#include <string.h>

#include "foreign.h"

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/*
 * The bytes of w equal to sep, as the high bit of each such byte: exact
 * (no false hits above a match, unlike the (x - 0x01..) & ~x trick), so
 * every bit of the mask is a separator.
 */
static inline uint64_t sep_mask(uint64_t w, uint64_t pat)
{
	const uint64_t low7 = 0x7f7f7f7f7f7f7f7full;
	uint64_t x = w ^ pat;

	return ~(((x & low7) + low7) | x | low7);
}

/*
 * ff_split for a one-byte separator other than ' ': one pass over the
 * line, 8 bytes at a time, each separator found in a word ending a field
 * (a line of 13 short fields costs about len / 8 loads, not a search
 * per field).
 */
static size_t split_words(char *line, size_t len, char sep, struct ff_field *f, size_t max)
{
	const uint64_t pat = 0x0101010101010101ull * (uint8_t)sep;
	size_t n = 0, start = 0, e = 0;

	if (max == 1)
		goto last;
	for (; e < len; e += 8) {
		uint64_t w = 0, hit;
		size_t left = len - e;

		if (left >= 8) {
			memcpy(&w, line + e, 8); /* one load */
		} else {
			for (size_t k = 0; k < left; k++)
				w |= (uint64_t)(uint8_t)line[e + k] << (8 * k);
		}
		hit = sep_mask(w, pat);
		if (left < 8) /* bytes past the line are not separators */
			hit &= ~0ull >> (64 - 8 * left);
		while (hit) {
			size_t at = e + (size_t)__builtin_ctzll(hit) / 8;

			f[n++] = (struct ff_field){ line + start, at - start };
			start = at + 1;
			if (n == max - 1)
				goto last;
			hit &= hit - 1;
		}
	}
last:
	f[n++] = (struct ff_field){ line + start, len - start };
	return n;
}
#endif

size_t ff_split(char *line, size_t len, char sep, struct ff_field *f, size_t max)
{
	size_t n = 0, i = 0;

	if (!max)
		return 0;
	if (sep == ' ') {
		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i == len)
			return 0;
		while (i < len) {
			size_t s = i;

			if (n == max - 1) {
				size_t e = len;

				while (e > s && (line[e - 1] == ' ' || line[e - 1] == '\t'))
					e--;
				f[n++] = (struct ff_field){ line + s, e - s };
				return n;
			}
			while (i < len && line[i] != ' ' && line[i] != '\t')
				i++;
			f[n++] = (struct ff_field){ line + s, i - s };
			while (i < len && (line[i] == ' ' || line[i] == '\t'))
				i++;
		}
		return n;
	}
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return split_words(line, len, sep, f, max);
#else
	for (;;) {
		size_t e = i;

		if (n < max - 1)
			while (e < len && line[e] != sep)
				e++;
		else
			e = len;
		f[n++] = (struct ff_field){ line + i, e - i };
		if (e >= len)
			return n;
		i = e + 1;
	}
#endif
}

size_t ff_name_num(char *buf, size_t size, const char *prefix, size_t plen, uint64_t num)
{
	char digits[20];
	size_t nd = 0;

	do {
		digits[nd++] = (char)('0' + num % 10);
		num /= 10;
	} while (num);
	if (plen + nd + 1 > size)
		plen = size - 1 - nd; /* callers give room; never overflow */
	memcpy(buf, prefix, plen);
	for (size_t i = 0; i < nd; i++)
		buf[plen + i] = digits[nd - 1 - i];
	buf[plen + nd] = 0;
	return plen + nd;
}

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/*
 * Eight ASCII digits at p (the first the most significant) as a number:
 * 0, or -1 when one of them is no digit. A byte is a digit when its high
 * nibble is 3 and adding 6 leaves it 3 (0x30-0x39); the value is built
 * in three multiplies, pairs, then fours, then the eight.
 */
static inline int digits8(const char *p, uint64_t *out)
{
	const uint64_t highs = 0xf0f0f0f0f0f0f0f0ull, threes = 0x3030303030303030ull;
	uint64_t w;

	memcpy(&w, p, 8);
	if ((w & highs) != threes || ((w + 0x0606060606060606ull) & highs) != threes)
		return -1;
	w -= threes;
	w = (w * 10 + (w >> 8)) & 0x00ff00ff00ff00ffull;
	w = (w * 100 + (w >> 16)) & 0x0000ffff0000ffffull;
	*out = (w * 10000 + (w >> 32)) & 0xffffffffull;
	return 0;
}
#endif

int ff_u64(const struct ff_field *f, uint64_t *out)
{
	const char *p = f->p;
	size_t len = f->len, i = 0;
	uint64_t v = 0;

	if (!len || len > 20)
		return -1;
	/* 19 digits always fit 64 bits; only a 20th can overflow */
	if (len == 20) {
		for (; i < len; i++) {
			unsigned d = (unsigned)(p[i] - '0');

			if (d > 9)
				return -1;
			if (i < 19)
				v = v * 10 + d;
			else if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, d, &v))
				return -1;
		}
		*out = v;
		return 0;
	}
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (; len - i >= 8; i += 8) {
		uint64_t e;

		if (digits8(p + i, &e))
			return -1;
		v = v * 100000000ull + e;
	}
#endif
	for (; i < len; i++) {
		unsigned d = (unsigned)(p[i] - '0');

		if (d > 9)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int ff_i64(const struct ff_field *f, int64_t *out)
{
	struct ff_field m = *f;
	uint64_t v;
	int neg = 0;

	if (m.len && (m.p[0] == '-' || m.p[0] == '+')) {
		neg = m.p[0] == '-';
		m.p++;
		m.len--;
	}
	if (ff_u64(&m, &v) || v > (uint64_t)INT64_MAX + neg)
		return -1;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

int ff_hex(const struct ff_field *f, uint64_t *out)
{
	size_t i = 0;
	uint64_t v = 0;

	if (f->len >= 2 && f->p[0] == '0' && (f->p[1] == 'x' || f->p[1] == 'X'))
		i = 2;
	if (i == f->len || f->len - i > 16)
		return -1;
	for (; i < f->len; i++) {
		int c = (unsigned char)f->p[i];

		if (!isxdigit(c))
			return -1;
		v = v * 16 + (unsigned)(isdigit(c) ? c - '0' : (c | 0x20) - 'a' + 10);
	}
	*out = v;
	return 0;
}

static const uint64_t pow10_of[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
	100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
	10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
	100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull,
};

/* k when unit is 10^k (k >= 1), else 0: the fraction digits that count. */
static inline size_t pow10_digits(uint64_t unit)
{
	switch (unit) { /* the readers' units first */
	case 1000000000ull: return 9;
	case 1000000ull: return 6;
	case 1000ull: return 3;
	}
	for (size_t k = 1; k < 20; k++)
		if (pow10_of[k] == unit)
			return k;
	return 0;
}

int ff_decimal_scaled(const struct ff_field *f, uint64_t unit, uint64_t *out)
{
	size_t dot = 0;
	uint64_t whole = 0, frac = 0, scale = unit, v;

	/* the whole part's digits, up to the dot, read once */
	while (dot < f->len && (unsigned)(f->p[dot] - '0') <= 9)
		dot++;
	if (dot < f->len && f->p[dot] != '.')
		return -1;
	if (dot) {
		struct ff_field w = { f->p, dot };

		if (ff_u64(&w, &whole))
			return -1;
	} else if (f->len < 2) {
		return -1; /* "" or "." alone; ".5" is 0.5 */
	}
	if (dot + 1 < f->len) {
		size_t i = dot + 1, k = pow10_digits(unit), keep = i + k;
		uint64_t acc = 0;

		if (k) { /* unit = 10^k: the first k digits as one integer */
			for (; i < f->len && i < keep; i++) {
				unsigned d = (unsigned)(f->p[i] - '0');

				if (d > 9)
					return -1;
				acc = acc * 10 + d;
			}
			frac = acc * pow10_of[keep - i];
		}
		for (; i < f->len; i++) {
			unsigned d = (unsigned)(f->p[i] - '0');

			if (d > 9)
				return -1;
			if (scale >= 10 && !k) { /* digits finer than 1 ns are dropped */
				scale /= 10;
				frac += d * scale;
			}
		}
	}
	/* whole * unit + frac within 64 bits, without a division per call */
	if (__builtin_mul_overflow(whole, unit, &v) || __builtin_add_overflow(v, frac, &v))
		return -1;
	*out = v;
	return 0;
}

int ff_field_is(const struct ff_field *f, const char *word)
{
	size_t n = strlen(word);

	return f->len == n && !strncasecmp(f->p, word, n);
}

int ff_head_line(const char *head, size_t len, unsigned nth, char *buf, size_t size)
{
	size_t i = 0;

	if (!head)
		return -1;
	while (i < len) {
		const char *nl = memchr(head + i, '\n', len - i);
		size_t l;

		/* a line cut off by the detect window is unknown; a last line
		 * without newline in a file shorter than the window is a line */
		if (!nl && len >= FF_DETECT_BYTES)
			return -1;
		l = nl ? (size_t)(nl - (head + i)) : len - i;
		if (l && head[i + l - 1] == '\r')
			l--;
		if (l && head[i] != '#') {
			if (!nth--) {
				if (l >= size)
					return -1;
				memcpy(buf, head + i, l);
				buf[l] = 0;
				return (int)l;
			}
		}
		if (!nl)
			break;
		i = (size_t)(nl - head) + 1;
	}
	return -1;
}

int ff_rwbs(const struct ff_field *f, uint64_t bytes, uint8_t *op, uint8_t *flags)
{
	const char *p = f->p, *e = f->p + f->len;
	uint8_t fl = 0;
	int o;

	if (p < e && *p == 'F' && p + 1 < e && strchr("WRDFN", p[1])) {
		fl |= BPT_F_PREFLUSH;
		p++;
	}
	if (p == e)
		return -1;
	switch (*p++) {
	case 'W': o = BPT_OP_WRITE; break;
	case 'R': o = BPT_OP_READ; break;
	case 'D':
		o = BPT_OP_DISCARD;
		if (p < e && *p == 'E') /* secure erase, 4.10+ */
			p++;
		break;
	case 'F': o = BPT_OP_FLUSH; break;
	case 'N':
		if (bytes) /* write-zeroes, zone append, driver ops: unknown */
			return -1;
		o = BPT_OP_FLUSH;
		break;
	default: return -1;
	}
	for (; p < e; p++) {
		switch (*p) {
		case 'F': fl |= BPT_F_FUA; break;
		case 'A': fl |= BPT_F_READAHEAD; break;
		case 'S': fl |= BPT_F_SYNC; break;
		case 'M': fl |= BPT_F_META; break;
		case 'B': fl |= BPT_F_PREFLUSH; break; /* barrier, to 2.6.36 */
		case 'E':                              /* secure, 2.6.36 to 4.9 */
		case 'D':                              /* a discard also flagged W */
			if (o != BPT_OP_WRITE && o != BPT_OP_DISCARD)
				return -1;
			o = BPT_OP_DISCARD;
			break;
		default: return -1;
		}
	}
	/* an empty preflush (or barrier) write is a flush */
	if (o == BPT_OP_WRITE && !bytes && (fl & BPT_F_PREFLUSH))
		o = BPT_OP_FLUSH;
	*op = (uint8_t)o;
	*flags = fl;
	return 0;
}
