/*
 * parse.c — the field helpers every text reader uses (foreign.h). They
 * never allocate and never accept what they cannot represent exactly:
 * a number with a stray character, a sign where none belongs, or a
 * value past 64 bits is an error, so a bad line is caught, not misread.
 */
#include <ctype.h>
#include <string.h>

#include "foreign.h"

/*
 * The first `sep` in line[e..len), or len. Fields are short: on a
 * little-endian machine look 8 bytes at a time (a zero byte of
 * word ^ sep*0x01..01 marks the separator) instead of a memchr call or a
 * compare per byte.
 */
static inline size_t find_sep(const char *line, size_t e, size_t len, char sep)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	const uint64_t pat = ones * (uint8_t)sep;

	for (;;) {
		uint64_t w = 0, x, hit;
		size_t left = len - e;

		if (left >= 8)
			memcpy(&w, line + e, 8); /* one load */
		else
			for (size_t k = 0; k < left; k++)
				w |= (uint64_t)(uint8_t)line[e + k] << (8 * k);
		x = w ^ pat;
		hit = (x - ones) & ~x & highs;
		if (left < 8) /* bytes past the line are not separators */
			hit &= left ? (~0ull >> (64 - 8 * left)) : 0;
		if (hit)
			return e + (size_t)__builtin_ctzll(hit) / 8;
		if (left <= 8)
			return len;
		e += 8;
	}
#else
	while (e < len && line[e] != sep)
		e++;
	return e;
#endif
}

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
	for (;;) {
		size_t e = n == max - 1 ? len : find_sep(line, i, len, sep);

		f[n++] = (struct ff_field){ line + i, e - i };
		if (e >= len)
			return n;
		i = e + 1;
	}
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

int ff_u64(const struct ff_field *f, uint64_t *out)
{
	uint64_t v = 0;

	if (!f->len || f->len > 20)
		return -1;
	/* 19 digits always fit 64 bits; only a 20th can overflow */
	for (size_t i = 0; i < f->len; i++) {
		unsigned d = (unsigned)(f->p[i] - '0');

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

int ff_decimal_scaled(const struct ff_field *f, uint64_t unit, uint64_t *out)
{
	size_t dot = f->len;
	uint64_t whole, frac = 0, scale = unit;

	for (size_t i = 0; i < f->len; i++)
		if (f->p[i] == '.') {
			dot = i;
			break;
		}
	struct ff_field w = { f->p, dot };

	if (dot == 0 && f->len > 1) { /* ".5" */
		whole = 0;
	} else if (ff_u64(&w, &whole)) {
		return -1;
	}
	if (dot < f->len) {
		if (dot + 1 == f->len && !dot)
			return -1; /* "." alone */
		for (size_t i = dot + 1; i < f->len; i++) {
			unsigned d = (unsigned)(f->p[i] - '0');

			if (d > 9)
				return -1;
			if (scale >= 10) { /* digits finer than 1 ns are dropped */
				scale /= 10;
				frac += d * scale;
			}
		}
	}
	/* whole * unit + frac within 64 bits, without a division per call */
	uint64_t v;

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
