/*
 * jsonout.h — the small text writers the analyze commands share: JSON
 * string escaping, CSV field quoting, numbers that are valid JSON.
 */
#ifndef BLKPEAK_ANALYZE_JSONOUT_H
#define BLKPEAK_ANALYZE_JSONOUT_H

#include <stdio.h>

/* Write s as a JSON string literal, quotes included (NULL -> null).
 * Control characters are escaped; bytes >= 0x80 are copied as they are
 * (the strings are UTF-8 or treated as such). */
void json_str(FILE *f, const char *s);

/* Write a double as a JSON number (NaN and infinities -> null), with
 * up to `prec` digits after the point, trailing zeros kept short. */
void json_num(FILE *f, double v, int prec);

/* Write s as one CSV field (RFC 4180): quoted only when it holds a comma,
 * quote, CR or LF; NULL -> empty field. */
void csv_field(FILE *f, const char *s);

#endif
