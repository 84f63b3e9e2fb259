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
	/* bytes of a string that is not UTF-8 (a comm can hold anything)
	 * are written as \u00XX so the output stays valid JSON */
	int raw_ok = utf8_valid((const unsigned char *)s);

	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c == 0x7f || (c >= 0x80 && !raw_ok))
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void csv_str(FILE *f, const char *s)
{
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
