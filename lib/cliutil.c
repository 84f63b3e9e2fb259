/*
 * cliutil.c — parsing of user-typed numbers, clocks and error printing.
 * See cliutil.h for the contracts.
 */
#ifndef _GNU_SOURCE /* the Makefile defines it; stand-alone builds need it */
#define _GNU_SOURCE
#endif
#include "cliutil.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno == ERANGE)
		return -ERANGE;
	if (end == s || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno == ERANGE || !isfinite(v))
		return -ERANGE;
	if (end == s || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

/* Multiply a parsed number by its unit, refusing overflow and fractions
 * that do not come out whole. */
static int scale_u64(double v, double mult, uint64_t *out)
{
	double r = v * mult;

	if (v < 0 || r >= 18446744073709551616.0)
		return -ERANGE;
	if (r != floor(r))
		return -EINVAL;
	*out = (uint64_t)r;
	return 0;
}

int parse_size(const char *s, uint64_t *out)
{
	static const struct { const char *suffix; double mult; } units[] = {
		{ "", 1 }, { "b", 1 },
		{ "k", 1024.0 }, { "kb", 1024.0 }, { "kib", 1024.0 },
		{ "m", 1048576.0 }, { "mb", 1048576.0 }, { "mib", 1048576.0 },
		{ "g", 1073741824.0 }, { "gb", 1073741824.0 }, { "gib", 1073741824.0 },
		{ "t", 1099511627776.0 }, { "tb", 1099511627776.0 }, { "tib", 1099511627776.0 },
	};
	char *end;
	double v;

	if (!s || !*s || !(isdigit((unsigned char)*s) || *s == '.'))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno == ERANGE)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcasecmp(end, units[i].suffix))
			return scale_u64(v, units[i].mult, out);
	return -EINVAL;
}

int parse_duration_ns(const char *s, uint64_t *out)
{
	static const struct { const char *suffix; double mult; } units[] = {
		{ "", 1e9 }, { "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 },
		{ "ns", 1 }, { "m", 60e9 }, { "min", 60e9 }, { "h", 3600e9 },
	};
	char *end;
	double v;

	if (!s || !*s || !(isdigit((unsigned char)*s) || *s == '.'))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno == ERANGE)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].suffix))
			continue;
		double r = v * units[i].mult;
		if (r < 0 || r >= 18446744073709551616.0)
			return -ERANGE;
		*out = (uint64_t)llround(r);
		return 0;
	}
	return -EINVAL;
}

char *fmt_bytes(uint64_t bytes, char *buf, int len)
{
	static const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)bytes;
	int u = 0;

	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%.1f %s", v, unit[u]);
	return buf;
}

uint64_t now_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int64_t now_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

void pr_err(const char *fmt, ...)
{
	va_list ap;

	fputs("blkpeak: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void pr_warn(const char *fmt, ...)
{
	va_list ap;

	fputs("blkpeak: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
