/*
 * fmt.h — small formatters shared by the parts: times as microseconds,
 * wall-clock dates, and strings escaped for text, JSON, CSV and HTML.
 * They write into the caller's buffer or FILE and never fail on valid
 * input.
 */
#ifndef BLKPEAK_FMT_H
#define BLKPEAK_FMT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Nanoseconds as microseconds with 3 decimals: 1234567 -> "1234.567".
 * buf must hold 32 bytes. Returns buf. */
char *fmt_us(uint64_t ns, char *buf);
/* The same for a signed difference: -1500 -> "-1.500". */
char *fmt_us_signed(int64_t ns, char *buf);
/* CLOCK_REALTIME ns as "2026-11-30 07:55:10.123456 UTC"; buf >= 48. */
char *fmt_wall(int64_t ns, char *buf, int len);

/*
 * Recorded strings are untrusted: any process names itself (prctl
 * PR_SET_NAME needs no privilege), and a trace file can hold any bytes in
 * its host, device names, models and meta. The writers below are
 * the only way such a string reaches output, and none lets a control
 * byte through (C0, DEL, the C1 controls U+0080..U+009F, which start
 * terminal escape sequences too, or the bidirectional overrides
 * U+202A..U+202E and U+2066..U+2069, which reorder what a reader sees).
 *
 * Text (fmt_text, text_str): printable ASCII and valid UTF-8 as they are;
 * a backslash as \\, newline, tab and CR as \n \t \r; other control
 * bytes and bytes that are not UTF-8 as \xHH; C1 and bidi controls as
 * \uHHHH. The escape is reversible.
 */

/* s escaped as text into buf (len >= 1). An escape that does not fit is
 * left out whole and the text ends with "..." instead. Returns buf. */
char *fmt_text(const char *s, char *buf, size_t len);
/* s escaped as text to f. */
void text_str(FILE *f, const char *s);

/* Write s as a JSON string literal, quotes included, with every control
 * character escaped (\n, \t, \uXXXX, C1 and bidi controls too); a
 * string that is not UTF-8 has its bytes >= 0x80 written as \u00XX. */
void json_str(FILE *f, const char *s);
/* Write s as a CSV field (RFC 4180): as is when it holds no comma, quote,
 * CR or LF, else quoted with quotes doubled. A field holding control
 * bytes is written escaped as in text (no CR or LF is left) and quoted,
 * so that no control byte reaches a terminal showing the CSV. */
void csv_str(FILE *f, const char *s);
/* Write s as HTML (or XML: SVG) text or attribute value: escaped as text
 * (fmt_text), then &, <, > and " as entities. NULL writes nothing. */
void html_str(FILE *f, const char *s);

#endif
