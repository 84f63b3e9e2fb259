/* Unit tests of the user-typed number parsers in common/cliutil.c. */
#include <criterion/criterion.h>
#include <errno.h>

#include "cliutil.h"

Test(cliutil, sizes)
{
	uint64_t v;

	cr_assert_eq(parse_size("4096", &v), 0); cr_assert_eq(v, 4096);
	cr_assert_eq(parse_size("4k", &v), 0); cr_assert_eq(v, 4096);
	cr_assert_eq(parse_size("64KiB", &v), 0); cr_assert_eq(v, 65536);
	cr_assert_eq(parse_size("1.5M", &v), 0); cr_assert_eq(v, 1572864);
	cr_assert_eq(parse_size("2g", &v), 0); cr_assert_eq(v, 2147483648ull);
	cr_assert_eq(parse_size("4q", &v), -EINVAL);
	cr_assert_eq(parse_size("", &v), -EINVAL);
	cr_assert_eq(parse_size("-1", &v), -EINVAL);
	cr_assert_eq(parse_size("0.3", &v), -EINVAL, "fractional bytes");
	cr_assert_eq(parse_size("99999999999t", &v), -ERANGE);
}

/* Past 2^53 a double drops the low bits of an integer: sizes there are
 * read exactly, or refused when a fraction or exponent would round. */
Test(cliutil, sizes_past_2_to_the_53_are_exact)
{
	uint64_t v;

	cr_assert_eq(parse_size("18446744073706951551", &v), 0);
	cr_assert_eq(v, 18446744073706951551ull);
	cr_assert_eq(parse_size("9007199254740993", &v), 0);
	cr_assert_eq(v, 9007199254740993ull);
	cr_assert_eq(parse_size("18446744073709551615b", &v), 0);
	cr_assert_eq(v, UINT64_MAX);
	cr_assert_eq(parse_size("16777215t", &v), 0);
	cr_assert_eq(v, 16777215ull << 40);
	cr_assert_eq(parse_size("18446744073709551616", &v), -ERANGE);
	cr_assert_eq(parse_size("16777216t", &v), -ERANGE);
	cr_assert_eq(parse_size("9007199254740993.5", &v), -EINVAL);
	cr_assert_eq(parse_size("1e17", &v), -EINVAL);
}

Test(cliutil, durations)
{
	uint64_t v;

	cr_assert_eq(parse_duration_ns("10", &v), 0); cr_assert_eq(v, 10000000000ull);
	cr_assert_eq(parse_duration_ns("1.5s", &v), 0); cr_assert_eq(v, 1500000000ull);
	cr_assert_eq(parse_duration_ns("500ms", &v), 0); cr_assert_eq(v, 500000000ull);
	cr_assert_eq(parse_duration_ns("20us", &v), 0); cr_assert_eq(v, 20000ull);
	cr_assert_eq(parse_duration_ns("2m", &v), 0); cr_assert_eq(v, 120000000000ull);
	cr_assert_eq(parse_duration_ns("5 s", &v), -EINVAL);
	cr_assert_eq(parse_duration_ns("x", &v), -EINVAL);
}

Test(cliutil, numbers)
{
	uint64_t v;
	double d;

	cr_assert_eq(parse_u64("0x10", &v), 0); cr_assert_eq(v, 16);
	cr_assert_eq(parse_u64("18446744073709551615", &v), 0);
	cr_assert_eq(parse_u64("18446744073709551616", &v), -ERANGE);
	cr_assert_eq(parse_u64("-3", &v), -EINVAL);
	cr_assert_eq(parse_u64("12a", &v), -EINVAL);
	cr_assert_eq(parse_double("0.25", &d), 0); cr_assert_float_eq(d, 0.25, 1e-12);
	cr_assert_eq(parse_double("nan", &d), -ERANGE);
}

Test(cliutil, durations_formatted)
{
	char b[32];

	cr_expect_str_eq(fmt_ns(123, b, sizeof(b)), "123 ns");
	cr_expect_str_eq(fmt_ns(45600, b, sizeof(b)), "45.6 us");
	cr_expect_str_eq(fmt_ns(7890000, b, sizeof(b)), "7.89 ms");
	cr_expect_str_eq(fmt_ns(1234000000, b, sizeof(b)), "1.234 s");
}

Test(cliutil, unit_case)
{
	uint64_t v;

	/* sizes take any case; durations do not ("M" would be ambiguous) */
	cr_assert_eq(parse_size("4K", &v), 0); cr_assert_eq(v, 4096);
	cr_assert_eq(parse_size("1MiB", &v), 0); cr_assert_eq(v, 1048576);
	cr_assert_eq(parse_duration_ns("1MS", &v), -EINVAL);
	cr_assert_eq(parse_duration_ns("1min", &v), 0); cr_assert_eq(v, 60000000000ull);
	cr_assert_eq(parse_duration_ns(".5ms", &v), 0); cr_assert_eq(v, 500000ull);
	cr_assert_eq(parse_duration_ns("1e30h", &v), -ERANGE);
	/* past 2^63 ns (292 years) still fits the unsigned result */
	cr_assert_eq(parse_duration_ns("10000000000s", &v), 0);
	cr_assert_eq(v, 10000000000000000000ull);
}

Test(cliutil, timespec_of_ns)
{
	struct timespec ts = timespec_of_ns(2500000001ull);

	cr_assert_eq(ts.tv_sec, 2);
	cr_assert_eq(ts.tv_nsec, 500000001);
	ts = timespec_of_ns(999);
	cr_assert_eq(ts.tv_sec, 0);
	cr_assert_eq(ts.tv_nsec, 999);
}
