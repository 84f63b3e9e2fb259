/*
 * cliutil.c — parsing of user-typed numbers, clocks, and the error and
 * usage-error lines.
 * See cliutil.h for the contracts.
 */
#ifndef _GNU_SOURCE /* the Makefile defines it; stand-alone builds need it */
#define _GNU_SOURCE
#endif
#include "cliutil.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
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

struct unit {
	const char *suffix;
	double mult;
};

/* Parse "1.5ms": a number and a unit suffix from units[] (compared
 * case-insensitively when nocase), into *out = number * unit.
 * -EINVAL when it does not start with a digit or '.' or the suffix is not
 * in the table, -ERANGE when the product does not fit 64 bits. */
static int parse_unit(const char *s, const struct unit *units, size_t n,
		      int nocase, double *out)
{
	char *end;
	double v;

	if (!s || !*s || !(isdigit((unsigned char)*s) || *s == '.'))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno == ERANGE)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (nocase ? strcasecmp(end, units[i].suffix) : strcmp(end, units[i].suffix))
			continue;
		*out = v * units[i].mult;
		return *out >= 18446744073709551616.0 ? -ERANGE : 0;
	}
	return -EINVAL;
}

int parse_size(const char *s, uint64_t *out)
{
	static const struct unit units[] = {
		{ "", 1 }, { "b", 1 },
		{ "k", 1024.0 }, { "kb", 1024.0 }, { "kib", 1024.0 },
		{ "m", 1048576.0 }, { "mb", 1048576.0 }, { "mib", 1048576.0 },
		{ "g", 1073741824.0 }, { "gb", 1073741824.0 }, { "gib", 1073741824.0 },
		{ "t", 1099511627776.0 }, { "tb", 1099511627776.0 }, { "tib", 1099511627776.0 },
	};
	double r;
	int rc = parse_unit(s, units, sizeof(units) / sizeof(units[0]), 1, &r);

	if (rc && rc != -ERANGE)
		return rc;
	if (!rc && r != floor(r)) /* whole bytes: "1.5k" yes, "1.5" no */
		return -EINVAL;
	/* A double holds every integer only up to 2^53: past it (or past
	 * 2^64 once rounded), read the digits and the unit again as
	 * integers ("18446744073706951551" came back as ...0656), and refuse
	 * a fraction or an exponent, whose value would be rounded. */
	if (rc || r >= 9007199254740992.0) {
		size_t digits = strspn(s, "0123456789");
		uint64_t v = 0;

		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			uint64_t mult = (uint64_t)units[i].mult;

			if (!digits || strcasecmp(s + digits, units[i].suffix))
				continue;
			for (size_t k = 0; k < digits; k++) {
				if (v > (UINT64_MAX - (uint64_t)(s[k] - '0')) / 10)
					return -ERANGE;
				v = v * 10 + (uint64_t)(s[k] - '0');
			}
			if (v > UINT64_MAX / mult)
				return -ERANGE;
			*out = v * mult;
			return 0;
		}
		return rc ? rc : -EINVAL;
	}
	*out = (uint64_t)r;
	return 0;
}

const char *parse_size_why(const char *s, char *buf, size_t len)
{
	uint64_t v;
	char *end;
	int rc;

	if (!s || !*s || !(isdigit((unsigned char)*s) || *s == '.'))
		return "not a number";
	errno = 0;
	(void)strtod(s, &end);
	if (end == s)
		return "not a number";
	if ((rc = parse_size(s, &v)) == -ERANGE || errno == ERANGE)
		return "too large (64 bits)";
	if (!rc)
		return "no reason";
	if (*end == 'e' || *end == 'E')
		return "not a number (an exponent without digits)";
	static const char *const known[] = { "", "b", "k", "kb", "kib", "m", "mb", "mib",
					     "g", "gb", "gib", "t", "tb", "tib" };
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcasecmp(end, known[i]))
			return "not a whole number of bytes";
	snprintf(buf, len, "unknown unit '%.16s' (none for bytes, or k, m, g, t)", end);
	return buf;
}

int parse_duration_ns(const char *s, uint64_t *out)
{
	static const struct unit units[] = {
		{ "", 1e9 }, { "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 },
		{ "ns", 1 }, { "m", 60e9 }, { "min", 60e9 }, { "h", 3600e9 },
	};
	double r;
	int rc = parse_unit(s, units, sizeof(units) / sizeof(units[0]), 0, &r);

	if (rc)
		return rc;
	*out = (uint64_t)round(r); /* llround would overflow above 2^63 */
	return 0;
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

char *fmt_ns(double ns, char *buf, int len)
{
	if (ns < 1e3)
		snprintf(buf, len, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", ns / 1e9);
	return buf;
}

uint64_t now_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct timespec timespec_of_ns(uint64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / 1000000000ull),
				  .tv_nsec = (long)(ns % 1000000000ull) };
}

void sleep_until_mono_ns(uint64_t t_ns)
{
	struct timespec ts = timespec_of_ns(t_ns);

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
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

int usage_bad_option(const char *cmd, int c, char **argv)
{
	const char *tok = optind > 0 ? argv[optind - 1] : "";
	int is_long = !strncmp(tok, "--", 2);
	int namelen = (int)strcspn(tok, "=");

	if (c == ':')
		pr_err("%s: %s: needs a value", cmd, is_long ? tok : (char[]){ '-', (char)optopt, 0 });
	else if (is_long && optopt)
		pr_err("%s: '%.*s': takes no value", cmd, namelen, tok);
	else if (is_long)
		pr_err("%s: '%.*s': unknown option; see 'blkpeak %s --help'", cmd, namelen, tok, cmd);
	else
		pr_err("%s: '-%c': unknown option; see 'blkpeak %s --help'", cmd, optopt, cmd);
	return EXIT_USAGE;
}

int opt_next(struct opt_loop *l, int argc, char **argv, const char *optstring,
	     const struct option *longopts)
{
	int c;

	if (!l->started) {
		optind = 0;
		opterr = 0;
		l->started = 1;
	}
	c = getopt_long(argc, argv, optstring, longopts, NULL);
	l->ret = -1;
	if (c == 'h') {
		l->usage(stdout);
		l->ret = EXIT_OK;
		return -1;
	}
	if (c == '?' || c == ':') {
		l->ret = usage_bad_option(l->cmd, c, argv);
		return -1;
	}
	return c;
}
