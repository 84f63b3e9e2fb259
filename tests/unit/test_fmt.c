/* Unit tests of the formatters shared by info and dump (common/fmt.c) and
 * of the info totals (cli/trace_summary.c). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "fmt.h"
#include "trace_summary.h"

/* Run fn on a memory stream and return what it wrote (caller frees). */
static char *capture(void (*fn)(FILE *, const char *), const char *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	fn(f, arg);
	fclose(f);
	return buf;
}

Test(fmt, microseconds)
{
	char b[32];

	cr_assert_str_eq(fmt_us(0, b), "0.000");
	cr_assert_str_eq(fmt_us(1234567, b), "1234.567");
	cr_assert_str_eq(fmt_us(999, b), "0.999");
	cr_assert_str_eq(fmt_us(UINT64_MAX, b), "18446744073709551.615");
	cr_assert_str_eq(fmt_us_signed(-1500, b), "-1.500");
	cr_assert_str_eq(fmt_us_signed(INT64_MIN, b), "-9223372036854775.808");
}

Test(fmt, wall_clock)
{
	char b[64];

	cr_assert_str_eq(fmt_wall(0, b, sizeof(b)), "1970-01-01 00:00:00.000000 UTC");
	cr_assert_str_eq(fmt_wall(1796024110123456789ll, b, sizeof(b)),
			 "2026-11-30 07:35:10.123456 UTC");
	cr_assert_str_eq(fmt_wall(-1000, b, sizeof(b)), "1969-12-31 23:59:59.999999 UTC");
}

/* fn(in) must write exactly want. */
static void expect(void (*fn)(FILE *, const char *), const char *in, const char *want)
{
	char *s = capture(fn, in);

	cr_assert_str_eq(s, want);
	free(s);
}

Test(fmt, json_strings)
{
	expect(json_str, "plain", "\"plain\"");
	expect(json_str, "a\"b\\c\nd\x01", "\"a\\\"b\\\\c\\nd\\u0001\"");
	expect(json_str, "caf\xc3\xa9", "\"caf\xc3\xa9\""); /* valid UTF-8 passes through */
	expect(json_str, "bad\xff", "\"bad\\u00ff\""); /* not UTF-8: escaped */
}

Test(fmt, csv_fields)
{
	expect(csv_str, "kworker/0:1", "kworker/0:1");
	expect(csv_str, "a,b\"c", "\"a,b\"\"c\"");
}

Test(trace_summary, totals)
{
	struct trace_summary s;
	struct bpt_record r = { 0 };

	trace_summary_init(&s);
	r.op = BPT_OP_READ; r.bytes = 4096; r.dev = 0;
	trace_summary_add(&s, &r);
	r.op = BPT_OP_WRITE; r.bytes = 8192; r.flags = BPT_F_SYNC | BPT_F_FUA; r.dev = 1;
	trace_summary_add(&s, &r);
	r.op = BPT_OP_FLUSH; r.bytes = 0; r.flags = BPT_F_PREFLUSH; r.error = -5; r.dev = BPT_MAX_DEVICES + 4;
	trace_summary_add(&s, &r);
	cr_assert_eq(s.records, 3);
	cr_assert_eq(s.count[BPT_OP_READ], 1);
	cr_assert_eq(s.bytes[BPT_OP_WRITE], 8192);
	cr_assert_eq(s.count[BPT_OP_FLUSH], 1);
	cr_assert_eq(s.flag[0], 1);
	cr_assert_eq(s.flag[1], 1);
	cr_assert_eq(s.flag[2], 1);
	cr_assert_eq(s.errors, 1);
	cr_assert_eq(trace_summary_dev(&s, 0), 1);
	cr_assert_eq(trace_summary_dev(&s, 1), 1);
	cr_assert_eq(trace_summary_dev(&s, 2), 0);
	cr_assert_eq(s.other_dev, 1);
	/* the last index the format holds, counted in memory grown for it */
	r.dev = BPT_MAX_DEVICES - 1;
	cr_assert_eq(trace_summary_add(&s, &r), 0);
	cr_assert_eq(trace_summary_dev(&s, BPT_MAX_DEVICES - 1), 1);
	cr_assert_eq(trace_summary_beyond(&s, 2), 2);
	cr_assert_eq(trace_summary_beyond(&s, BPT_MAX_DEVICES), 1);
	cr_assert_str_eq(summary_flag_name(4), "readahead");
	trace_summary_free(&s);
}

/* A process name built to attack a terminal: colours, a title change
 * (OSC), a C1 CSI, a bidi override, a newline to forge a line. */
static const char evil[] = "a\x1b[31mred\x1b]0;pwned\x07\n\xc2\x9b" "2J\xe2\x80\xaeok\\";

/* No byte that a terminal takes as a control: C0, DEL, C1 (also as UTF-8). */
static void assert_no_control(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		cr_assert(*p >= 0x20 && *p != 0x7f, "control byte 0x%02x in '%s'", *p, s);
		cr_assert(!(p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f), "C1 control in '%s'", s);
		cr_assert(!(p[0] == 0xe2 && p[1] == 0x80 && p[2] >= 0xaa && p[2] <= 0xae),
			  "bidi override in '%s'", s);
	}
}

Test(fmt, text_escapes_every_control)
{
	char b[256], *out;

	cr_assert_str_eq(fmt_text(evil, b, sizeof(b)),
			 "a\\x1b[31mred\\x1b]0;pwned\\x07\\n\\u009b2J\\u202eok\\\\");
	assert_no_control(b);
	out = capture(text_str, evil);
	cr_assert_str_eq(out, b, "text_str and fmt_text agree");
	free(out);
	/* valid UTF-8 and printable ASCII pass, bad bytes become \xHH */
	cr_assert_str_eq(fmt_text("kworker/u8:2 café", b, sizeof(b)), "kworker/u8:2 café");
	cr_assert_str_eq(fmt_text("\xff\xc3(\xe0\x80\x80", b, sizeof(b)), "\\xff\\xc3(\\xe0\\x80\\x80");
	cr_assert_str_eq(fmt_text("\x7f\t\r", b, sizeof(b)), "\\x7f\\t\\r");
	/* cut short at a whole character, with "..." */
	cr_assert_str_eq(fmt_text("abcdefgh", b, 8), "abcd...");
	cr_assert_str_eq(fmt_text("ab\x1b\x1b\x1b", b, 9), "ab\\x1...");
	cr_assert_str_eq(fmt_text("a\xc3\xa9\xc3\xa9\xc3\xa9", b, 7), "a\xc3\xa9...");
	assert_no_control(fmt_text(evil, b, 12));
	cr_assert_str_eq(fmt_text("", b, 1), "");
}

Test(fmt, json_and_csv_let_no_control_through)
{
	char *out = capture(json_str, evil);

	cr_assert_str_eq(out, "\"a\\u001b[31mred\\u001b]0;pwned\\u0007\\n\\u009b2J\\u202eok\\\\\"");
	assert_no_control(out);
	free(out);
	out = capture(csv_str, evil);
	cr_assert_str_eq(out, "\"a\\x1b[31mred\\x1b]0;pwned\\x07\\n\\u009b2J\\u202eok\\\"");
	assert_no_control(out);
	free(out);
	out = capture(csv_str, "say \"hi\"\x1b");
	cr_assert_str_eq(out, "\"say \"\"hi\"\"\\x1b\"");
	free(out);
	/* plain strings keep RFC 4180 as before */
	out = capture(csv_str, "a,b");
	cr_assert_str_eq(out, "\"a,b\"");
	free(out);
	out = capture(csv_str, "C:\\dir");
	cr_assert_str_eq(out, "C:\\dir");
	free(out);
}

/* HTML (and SVG): escaped as text, then the reserved characters as
 * entities; an escape's own backslash is not touched. */
Test(fmt, html_lets_no_control_or_markup_through)
{
	char *out = capture(html_str, evil);

	cr_assert_str_eq(out, "a\\x1b[31mred\\x1b]0;pwned\\x07\\n\\u009b2J\\u202eok\\\\");
	assert_no_control(out);
	free(out);
	out = capture(html_str, "<a href=\"x\">&amp;</a> caf\xc3\xa9");
	cr_assert_str_eq(out, "&lt;a href=&quot;x&quot;&gt;&amp;amp;&lt;/a&gt; caf\xc3\xa9");
	free(out);
	out = capture(html_str, NULL);
	cr_assert_str_eq(out, "");
	free(out);
}
