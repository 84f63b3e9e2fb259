/*
 * jsonout.c — JSON and CSV text writers shared by report, compare, query
 * and export (see jsonout.h).
 */
#include <math.h>
#include <string.h>

#include "jsonout.h"

void json_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	putc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				putc(*p, f);
		}
	}
	putc('"', f);
}

void json_num(FILE *f, double v, int prec)
{
	if (!isfinite(v)) {
		fputs("null", f);
		return;
	}
	if (v == (double)(long long)v && fabs(v) < 9e15)
		fprintf(f, "%lld", (long long)v);
	else
		fprintf(f, "%.*f", prec, v);
}

void csv_field(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	putc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', f);
		putc(*s, f);
	}
	putc('"', f);
}
