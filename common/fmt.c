/*
 * fmt.c — number, date and string formatting for the trace tools (see
 * fmt.h for the contracts).
 */
#include "fmt.h"

#include <inttypes.h>
#include <string.h>
#include <time.h>

char *fmt_us(uint64_t ns, char *buf)
{
	snprintf(buf, 32, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
	return buf;
}

char *fmt_us_signed(int64_t ns, char *buf)
{
	uint64_t mag = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;

	snprintf(buf, 32, "%s%" PRIu64 ".%03" PRIu64, ns < 0 ? "-" : "",
		 mag / 1000, mag % 1000);
	return buf;
}

char *fmt_wall(int64_t ns, char *buf, int len)
{
	int64_t sec = ns / 1000000000, frac = ns % 1000000000;
	time_t t;
	struct tm tm;
	char date[32];

	if (frac < 0) {
		frac += 1000000000;
		sec--;
	}
	t = (time_t)sec;
	if (!gmtime_r(&t, &tm)) {
		snprintf(buf, len, "(invalid time %" PRId64 " ns)", ns);
		return buf;
	}
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(buf, len, "%s.%06" PRId64 " UTC", date, frac / 1000);
	return buf;
}

/*
 * The UTF-8 sequence at s: its length (1..4) with its code point in *cp,
 * or 0 when s does not start a well-formed sequence (bad lead byte, bad
 * continuation, overlong form, surrogate or beyond U+10FFFF).
 */
static int utf8_seq(const unsigned char *s, uint32_t *cp)
{
	static const uint32_t min[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	int n = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3 :
		(s[0] & 0xf8) == 0xf0 ? 4 : 0;
	uint32_t c;

	if (!n)
		return 0;
	c = n == 1 ? s[0] : s[0] & (0x7f >> n);
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min[n] || (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	*cp = c;
	return n;
}

/* A code point no output may carry raw: C0, DEL, C1, bidi controls. */
static int is_control(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x2066 && c <= 0x2069);
}

/*
 * The text escape of the character at s into out (>= 11 bytes, NUL
 * ended); returns how many bytes of s it covers. `backslash`: escape the
 * backslash too (text), or leave it (CSV, whose readers take it as is).
 */
static int escape_one(const unsigned char *s, char *out, int backslash)
{
	uint32_t c;
	int n = utf8_seq(s, &c);

	if (!n) {
		snprintf(out, 11, "\\x%02x", s[0]);
		return 1;
	}
	if (c == '\\' && backslash)
		strcpy(out, "\\\\");
	else if (c == '\n')
		strcpy(out, "\\n");
	else if (c == '\t')
		strcpy(out, "\\t");
	else if (c == '\r')
		strcpy(out, "\\r");
	else if (c < 0x80 && is_control(c))
		snprintf(out, 11, "\\x%02x", (unsigned)c);
	else if (is_control(c))
		snprintf(out, 11, "\\u%04x", (unsigned)c);
	else {
		memcpy(out, s, (size_t)n);
		out[n] = 0;
	}
	return n;
}

char *fmt_text(const char *s, char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;
	char e[11];

	buf[0] = 0;
	while (*p) {
		int n = escape_one(p, e, 1);
		size_t el = strlen(e);

		if (o + el + 1 > len) {
			/* cut at a whole escape, and say so */
			while (o && o + 4 > len)
				o--;
			while (o && (buf[o] & 0xc0) == 0x80) /* not inside a UTF-8 sequence */
				o--;
			if (o + 4 <= len)
				strcpy(buf + o, "...");
			else
				buf[o] = 0;
			return buf;
		}
		memcpy(buf + o, e, el + 1);
		o += el;
		p += n;
	}
	return buf;
}

void text_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char e[11];

	while (*p) {
		p += escape_one(p, e, 1);
		fputs(e, f);
	}
}

/* 1 if s holds a byte the text escape would change (backslash aside). */
static int needs_escape(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char e[11];

	while (*p) {
		int n = escape_one(p, e, 0);

		if ((size_t)n != strlen(e) || memcmp(e, p, (size_t)n))
			return 1;
		p += n;
	}
	return 0;
}

/* 1 if s is well-formed UTF-8 (no overlong forms check: enough for JSON
 * readers, which only need valid sequences). */
static int utf8_valid(const unsigned char *s)
{
	while (*s) {
		int extra = *s < 0x80 ? 0 : (*s & 0xe0) == 0xc0 ? 1 :
			    (*s & 0xf0) == 0xe0 ? 2 : (*s & 0xf8) == 0xf0 ? 3 : -1;

		if (extra < 0)
			return 0;
		s++;
		for (int i = 0; i < extra; i++, s++)
			if ((*s & 0xc0) != 0x80)
				return 0;
	}
	return 1;
}

void json_str(FILE *f, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t plain = 0;
	int raw_ok;

	/* the common case, printable ASCII with nothing to escape (keys,
	 * op names, most comms): one write */
	while (u[plain] >= 0x20 && u[plain] < 0x7f && u[plain] != '"' && u[plain] != '\\')
		plain++;
	if (!u[plain]) {
		fputc('"', f);
		fwrite(s, 1, plain, f);
		fputc('"', f);
		return;
	}
	/* bytes of a string that is not UTF-8 (a comm can hold anything)
	 * are written as \u00XX so the output stays valid JSON */
	raw_ok = utf8_valid(u);
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		uint32_t cp;
		int n;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c == 0x7f || (c >= 0x80 && !raw_ok))
			fprintf(f, "\\u%04x", c);
		else if (c >= 0x80 && (n = utf8_seq((const unsigned char *)s, &cp)) &&
			 is_control(cp)) {
			fprintf(f, "\\u%04x", (unsigned)cp); /* C1 or bidi control */
			s += n - 1;
		} else
			fputc(c, f);
	}
	fputc('"', f);
}

void csv_str(FILE *f, const char *s)
{
	if (needs_escape(s)) {
		const unsigned char *p = (const unsigned char *)s;
		char e[11];

		fputc('"', f);
		while (*p) {
			p += escape_one(p, e, 0);
			for (char *q = e; *q; q++) {
				if (*q == '"')
					fputc('"', f);
				fputc(*q, f);
			}
		}
		fputc('"', f);
		return;
	}
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void html_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char e[11];

	while (p && *p) {
		p += escape_one(p, e, 1);
		switch (e[1] ? 0 : e[0]) { /* the one-byte characters HTML reserves */
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputs(e, f);
		}
	}
}
