/*
 * fmt.h — small formatters shared by `info` and `dump`: times as
 * microseconds, wall-clock dates, and strings quoted for JSON and CSV.
 * They write into the caller's buffer or FILE and never fail on valid
 * input.
 */
#ifndef BLKPEAK_FMT_H
#define BLKPEAK_FMT_H

#include <stdint.h>
#include <stdio.h>

/* Nanoseconds as microseconds with 3 decimals: 1234567 -> "1234.567".
 * buf must hold 32 bytes. Returns buf. */
char *fmt_us(uint64_t ns, char *buf);
/* The same for a signed difference: -1500 -> "-1.500". */
char *fmt_us_signed(int64_t ns, char *buf);
/* CLOCK_REALTIME ns as "2026-11-30 07:55:10.123456 UTC"; buf >= 48. */
char *fmt_wall(int64_t ns, char *buf, int len);

/* Write s as a JSON string literal, quotes included; a string that is
 * not UTF-8 has its bytes >= 0x80 written as \u00XX. */
void json_str(FILE *f, const char *s);
/* Write s as a CSV field: as is when it holds no comma, quote, CR or LF,
 * else quoted with quotes doubled (RFC 4180). */
void csv_str(FILE *f, const char *s);

#endif
