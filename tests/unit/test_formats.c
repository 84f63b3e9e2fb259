/*
 * Unit tests of formats/: the field parsers, the decompressing line
 * input, bad lines (file:line:field, --skip-bad counting into the meta),
 * the reorder window and its limit, devices (the 64-device limit and
 * --device), merging inputs, and the .bpt reader API over a foreign
 * source (the opener hook, seek, block positions, verify, digest).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpt.h"
#include "commands.h"
#include "foreign.h"
#include "input.h"
#include "source_int.h"
#include "source.h"

static char paths[16][96];
static int npaths;

/* A temporary file holding text; removed by cleanup(). */
static const char *text_file(const char *tag, const char *text)
{
	char *p = paths[npaths++ % 16];
	FILE *f;

	snprintf(p, 96, "/dev/shm/ff-unit-%d-%s", (int)getpid(), tag);
	f = fopen(p, "w");
	cr_assert(f);
	fputs(text, f);
	fclose(f);
	return p;
}

static void cleanup(void)
{
	for (int i = 0; i < npaths && i < 16; i++)
		unlink(paths[i]);
	npaths = 0;
}

TestSuite(formats, .fini = cleanup);

static struct ff_field fld(const char *s)
{
	return (struct ff_field){ s, strlen(s) };
}

Test(formats, split_fields)
{
	char a[] = "  8,0   3  11  0.5 [my app]  ";
	char b[] = "a,,b,";
	struct ff_field f[8];

	cr_assert_eq(ff_split(a, strlen(a), ' ', f, 8), 6);
	cr_assert_eq(f[0].len, 3);
	cr_assert(!strncmp(f[4].p, "[my", 3));
	cr_assert_eq(ff_split(a, strlen(a), ' ', f, 5), 5);
	cr_assert_eq(f[4].len, strlen("[my app]"), "the last field takes the rest, trimmed");
	cr_assert_eq(ff_split(b, strlen(b), ',', f, 8), 4);
	cr_assert_eq(f[1].len, 0);
	cr_assert_eq(f[3].len, 0);
	cr_assert_eq(ff_split(b, 0, ' ', f, 8), 0);

	/* separators at every place of an 8-byte word, fields of 0..20 bytes */
	for (size_t a = 0; a < 20; a++)
		for (size_t c = 0; c < 12; c++) {
			char l[64];
			size_t n;

			memset(l, 'x', a);
			l[a] = ',';
			memset(l + a + 1, 'y', c);
			l[a + 1 + c] = 0;
			n = ff_split(l, a + 1 + c, ',', f, 8);
			cr_assert_eq(n, 2);
			cr_assert_eq(f[0].len, a);
			cr_assert_eq(f[1].len, c);
			cr_assert_eq(f[1].p, l + a + 1);
		}
}

Test(formats, numbers_are_exact_or_refused)
{
	struct ff_field f;
	uint64_t v;
	int64_t i;

	f = fld("18446744073709551615");
	cr_assert_eq(ff_u64(&f, &v), 0);
	cr_assert_eq(v, UINT64_MAX);
	f = fld("18446744073709551616");
	cr_assert_eq(ff_u64(&f, &v), -1, "past 64 bits");
	f = fld("12a");
	cr_assert_eq(ff_u64(&f, &v), -1);
	f = fld("");
	cr_assert_eq(ff_u64(&f, &v), -1);
	f = fld("-5");
	cr_assert_eq(ff_i64(&f, &i), 0);
	cr_assert_eq(i, -5);
	f = fld("0x1F");
	cr_assert_eq(ff_hex(&f, &v), 0);
	cr_assert_eq(v, 31);

	f = fld("1.5");
	cr_assert_eq(ff_decimal_scaled(&f, 1000000000ull, &v), 0);
	cr_assert_eq(v, 1500000000ull);
	f = fld("0.0000000019");
	cr_assert_eq(ff_decimal_scaled(&f, 1000000000ull, &v), 0);
	cr_assert_eq(v, 1, "digits past the ns are dropped");
	f = fld(".25");
	cr_assert_eq(ff_decimal_scaled(&f, 1000ull, &v), 0);
	cr_assert_eq(v, 250);
	f = fld("12");
	cr_assert_eq(ff_decimal_scaled(&f, 1000000ull, &v), 0);
	cr_assert_eq(v, 12000000);
	f = fld("1e3");
	cr_assert_eq(ff_decimal_scaled(&f, 1000ull, &v), -1);
	f = fld("1.2.3");
	cr_assert_eq(ff_decimal_scaled(&f, 1000ull, &v), -1);
	f = fld("99999999999999999999");
	cr_assert_eq(ff_decimal_scaled(&f, 1000000000ull, &v), -1, "overflow");
	f = fld("18446744073709551.615");
	cr_assert_eq(ff_decimal_scaled(&f, 1000ull, &v), 0, "2^64 - 1 exactly");
	cr_assert_eq(v, UINT64_MAX);
	f = fld("18446744073709551.616");
	cr_assert_eq(ff_decimal_scaled(&f, 1000ull, &v), -1, "2^64: the fraction overflows");
	f = fld("18446744073709552");
	cr_assert_eq(ff_decimal_scaled(&f, 1000ull, &v), -1, "the whole part overflows");
	f = fld(".");
	cr_assert_eq(ff_decimal_scaled(&f, 1000ull, &v), -1);
}

/* The reference the word-at-a-time parsers must agree with: one byte at
 * a time, as the text says. */
static int ref_u64(const char *p, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (!len || len > 20)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (p[i] < '0' || p[i] > '9' || __builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(p[i] - '0'), &v))
			return -1;
	}
	*out = v;
	return 0;
}

/* DIGITS[.DIGITS] or .DIGITS scaled by unit, each fraction digit worth
 * unit / 10^k as long as that is at least 1 (truncated step by step) */
static int ref_decimal(const char *p, size_t len, uint64_t unit, uint64_t *out)
{
	const char *dot = memchr(p, '.', len);
	size_t wl = dot ? (size_t)(dot - p) : len;
	uint64_t whole = 0, frac = 0, scale = unit, v;

	if (wl ? ref_u64(p, wl, &whole) : len < 2)
		return -1;
	for (size_t i = wl + 1; i < len; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -1;
		if (scale >= 10) {
			scale /= 10;
			frac += (uint64_t)(p[i] - '0') * scale;
		}
	}
	if (__builtin_mul_overflow(whole, unit, &v) || __builtin_add_overflow(v, frac, &v))
		return -1;
	*out = v;
	return 0;
}

static size_t ref_split(const char *line, size_t len, char sep, size_t *starts, size_t *lens,
			size_t max)
{
	size_t n = 0, s = 0;

	for (size_t i = 0; i <= len; i++)
		if (i == len || (line[i] == sep && n < max - 1)) {
			starts[n] = s;
			lens[n++] = i - s;
			s = i + 1;
			if (i == len)
				break;
		}
	return n;
}

/* Random lines of digits, separators, dots, signs and the bytes around
 * '0'-'9' and ',' (the SWAR edges: '/', ':', '-', 0xff, NUL), cut at
 * every length: ff_u64 and ff_split agree with the references. */
Test(formats, word_parsers_agree_with_bytewise)
{
	static const char alphabet[] = "0123456789012345678901234567890123456789,,,,.-/:\xff";
	uint64_t seed = 88172645463325252ull;
	char buf[64];

	for (int round = 0; round < 200000; round++) {
		size_t len, starts[16], lens[16], n, rn;
		struct ff_field f[16], w;
		uint64_t a = 0, b = 0;
		int ra, rb;

		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		len = seed % 40;
		for (size_t i = 0; i < len; i++) {
			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			buf[i] = (seed >> 8) % 97 == 0 ? 0 : alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
		}
		/* mostly digits: long numbers must occur */
		if (round % 3 == 0)
			for (size_t i = 0; i < len; i++)
				if (buf[i] == ',' || buf[i] == '.')
					buf[i] = '7';
		w = (struct ff_field){ buf, len };
		ra = ff_u64(&w, &a);
		rb = ref_u64(buf, len, &b);
		cr_assert_eq(ra, rb, "ff_u64 of %zu bytes '%.*s': %d, the reference %d", len,
			     (int)len, buf, ra, rb);
		cr_assert(ra || a == b, "ff_u64 '%.*s': %llu, the reference %llu", (int)len, buf,
			  (unsigned long long)a, (unsigned long long)b);
		for (unsigned u = 0; u < 4; u++) {
			static const uint64_t units[] = { 1000ull, 1000000ull, 1000000000ull, 250ull };

			ra = ff_decimal_scaled(&w, units[u], &a);
			rb = ref_decimal(buf, len, units[u], &b);
			cr_assert(ra == rb && (ra || a == b), "ff_decimal_scaled '%.*s' unit %llu: %d %llu, "
				  "the reference %d %llu", (int)len, buf, (unsigned long long)units[u], ra,
				  (unsigned long long)a, rb, (unsigned long long)b);
		}
		for (size_t max = 1; max <= 16; max += 5) {
			n = ff_split(buf, len, ',', f, max);
			rn = ref_split(buf, len, ',', starts, lens, max);
			cr_assert_eq(n, rn, "ff_split '%.*s' max %zu: %zu fields, the reference %zu",
				     (int)len, buf, max, n, rn);
			for (size_t k = 0; k < n; k++)
				cr_assert(f[k].p == buf + starts[k] && f[k].len == lens[k],
					  "ff_split '%.*s' field %zu", (int)len, buf, k);
		}
	}
}

Test(formats, rwbs_letters)
{
	struct ff_field f;
	uint8_t op, fl;

	f = fld("WS");
	cr_assert_eq(ff_rwbs(&f, 4096, &op, &fl), 0);
	cr_assert_eq(op, BPT_OP_WRITE);
	cr_assert_eq(fl, BPT_F_SYNC);
	f = fld("FWFSM");
	cr_assert_eq(ff_rwbs(&f, 4096, &op, &fl), 0);
	cr_assert_eq(op, BPT_OP_WRITE);
	cr_assert_eq(fl, BPT_F_PREFLUSH | BPT_F_FUA | BPT_F_SYNC | BPT_F_META);
	f = fld("FWS");
	cr_assert_eq(ff_rwbs(&f, 0, &op, &fl), 0);
	cr_assert_eq(op, BPT_OP_FLUSH, "a preflush write without data is a flush");
	f = fld("RA");
	cr_assert_eq(ff_rwbs(&f, 512, &op, &fl), 0);
	cr_assert_eq(op, BPT_OP_READ);
	cr_assert_eq(fl, BPT_F_READAHEAD);
	f = fld("DE");
	cr_assert_eq(ff_rwbs(&f, 512, &op, &fl), 0);
	cr_assert_eq(op, BPT_OP_DISCARD);
	f = fld("N");
	cr_assert_eq(ff_rwbs(&f, 512, &op, &fl), -1, "another op with data is not known");
	f = fld("WX");
	cr_assert_eq(ff_rwbs(&f, 512, &op, &fl), -1);
	/* to 2.6.35: B (barrier) between A and S */
	f = fld("WBS");
	cr_assert_eq(ff_rwbs(&f, 4096, &op, &fl), 0);
	cr_assert_eq(op, BPT_OP_WRITE);
	cr_assert_eq(fl, BPT_F_PREFLUSH | BPT_F_SYNC);
	f = fld("WBS");
	cr_assert_eq(ff_rwbs(&f, 0, &op, &fl), 0);
	cr_assert_eq(op, BPT_OP_FLUSH, "an empty barrier is a flush");
	f = fld("RAB");
	cr_assert_eq(ff_rwbs(&f, 4096, &op, &fl), 0);
	cr_assert_eq(op, BPT_OP_READ);
	cr_assert_eq(fl, BPT_F_READAHEAD | BPT_F_PREFLUSH);
	f = fld("NB");
	cr_assert_eq(ff_rwbs(&f, 0, &op, &fl), 0);
	cr_assert_eq(op, BPT_OP_FLUSH);
	/* 2.6.36 to 4.9: E (secure) last; a discard may also be W */
	f = fld("DSE");
	cr_assert_eq(ff_rwbs(&f, 4096, &op, &fl), 0);
	cr_assert_eq(op, BPT_OP_DISCARD);
	cr_assert_eq(fl, BPT_F_SYNC);
	f = fld("WD");
	cr_assert_eq(ff_rwbs(&f, 4096, &op, &fl), 0);
	cr_assert_eq(op, BPT_OP_DISCARD);
	f = fld("FWFSM");
	cr_assert_eq(ff_rwbs(&f, 0, &op, &fl), 0);
	cr_assert_eq(op, BPT_OP_FLUSH);
	f = fld("FF");
	cr_assert_eq(ff_rwbs(&f, 0, &op, &fl), 0);
	cr_assert_eq(op, BPT_OP_FLUSH);
	cr_assert_eq(fl, BPT_F_PREFLUSH);
	f = fld("RE");
	cr_assert_eq(ff_rwbs(&f, 4096, &op, &fl), -1, "a read is never secure-erased");
}

/* Every line of path read through ff_input, joined with '|'. */
static void read_lines(const char *path, char *out, size_t size)
{
	struct ff_input *in;
	struct bpt_error e = { 0 };
	char *line;
	size_t len, off = 0;
	int rc;

	cr_assert_eq(ff_input_open(&in, path, &e), 0, "%s", e.msg);
	out[0] = 0;
	while ((rc = ff_input_line(in, &line, &len, &e)) == 1) {
		cr_assert_eq(strlen(line), len);
		off += (size_t)snprintf(out + off, size - off, "%s|", line);
	}
	cr_assert_eq(rc, 0, "%s", e.msg);
	ff_input_close(in);
}

Test(formats, lines_crlf_and_last_line_without_newline)
{
	char got[256];

	read_lines(text_file("crlf", "a,b\r\n\r\nc\nlast"), got, sizeof(got));
	cr_assert_str_eq(got, "a,b||c|last|");
}

Test(formats, every_compression_reads_the_same_lines)
{
	static const char *const tools[][2] = {
		{ "gzip", ".gz" }, { "bzip2", ".bz2" }, { "xz", ".xz" }, { "zstd -q", ".zst" },
	};
	static char text[32 * 1024], want[40 * 1024], got[80 * 1024];
	char cmd[512];
	size_t off = 0;
	const char *plain;

	for (int i = 0; off < sizeof(text) - 32; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off, "line %d,%d\n", i, i * 7);
	plain = text_file("comp", text);
	read_lines(plain, want, sizeof(want));
	for (size_t t = 0; t < 4; t++) {
		char z[128];

		snprintf(z, sizeof(z), "%s%s", plain, tools[t][1]);
		snprintf(cmd, sizeof(cmd), "%s -c %s > %s && %s -c %s >> %s", tools[t][0], plain, z,
			 tools[t][0], plain, z); /* two streams, one after the other */
		cr_assert_eq(system(cmd), 0, "%s", cmd);
		read_lines(z, got, sizeof(got));
		cr_assert_eq(strlen(got), 2 * strlen(want), "%s: concatenated streams read whole",
			     tools[t][1]);
		cr_assert(!strncmp(got, want, strlen(want)), "%s", tools[t][1]);
		unlink(z);
	}
}

Test(formats, cut_compressed_input_is_an_error)
{
	char cmd[512], z[128];
	const char *plain = text_file("cut", "1,2,3\n4,5,6\n7,8,9\n");
	struct ff_input *in;
	struct bpt_error e = { 0 };
	char *line;
	size_t len;
	int rc;

	snprintf(z, sizeof(z), "%s.gz", plain);
	snprintf(cmd, sizeof(cmd), "gzip -c %s | head -c 20 > %s", plain, z);
	cr_assert_eq(system(cmd), 0);
	cr_assert_eq(ff_input_open(&in, z, &e), 0);
	while ((rc = ff_input_line(in, &line, &len, &e)) == 1)
		;
	cr_assert_lt(rc, 0);
	cr_assert(strstr(e.msg, "ends early"), "%s", e.msg);
	ff_input_close(in);
	unlink(z);
}

Test(formats, a_line_too_long_is_refused)
{
	size_t n = FF_LINE_MAX + 100;
	char *big = malloc(n + 1);
	char got[64];
	struct ff_input *in;
	struct bpt_error e = { 0 };
	char *line;
	size_t len;

	memset(big, 'x', n);
	big[n] = 0;
	const char *p = text_file("long", big);

	free(big);
	cr_assert_eq(ff_input_open(&in, p, &e), 0);
	cr_assert_eq(ff_input_line(in, &line, &len, &e), -EBADMSG);
	cr_assert(strstr(e.msg, "longer than"), "%s", e.msg);
	ff_input_close(in);
	(void)got;
}

static const char msr_text[] =
	"128166372003061629,hm,0,Read,3111317504,4096,1290\n"
	"128166372003080017,hm,0,Write,2902736896,8192,2549\n"
	"128166372003100000,hm,1,Write,512,512,100\n";

static int open_src(struct ff_source **s, const char *path, const struct ff_source_opts *o,
		    struct bpt_error *e)
{
	return ff_source_open(s, &path, 1, o, e);
}

Test(formats, bad_line_names_file_line_and_field)
{
	const char *p = text_file("bad.csv",
				  "128166372003061629,hm,0,Read,3111317504,4096,1290\n"
				  "128166372003080017,hm,0,Write,29x2736896,8192,2549\n"
				  "128166372003100000,hm,1,Write,512,512,100\n");
	struct ff_source *s;
	struct bpt_error e = { 0 };
	char want[256];

	cr_assert_eq(open_src(&s, p, NULL, &e), -EBADMSG);
	snprintf(want, sizeof(want), "%s:2: Offset: not a number", p);
	cr_assert(!strncmp(e.msg, want, strlen(want)), "%s", e.msg);
	cr_assert(strstr(e.msg, "--skip-bad"), "%s", e.msg);
}

Test(formats, skip_bad_counts_into_the_meta)
{
	const char *p = text_file("skip.csv",
				  "128166372003061629,hm,0,Read,3111317504,4096,1290\n"
				  "garbage\n"
				  "128166372003080017,hm,0,Wrote,2902736896,8192,2549\n"
				  "128166372003100000,hm,1,Write,512,512,100\n");
	struct ff_source_opts o = { .skip_bad = 1 };
	struct ff_source *s;
	struct bpt_error e = { 0 };
	struct ff_totals t;

	cr_assert_eq(open_src(&s, p, &o, &e), 0, "%s", e.msg);
	ff_source_totals(s, &t);
	cr_assert_eq(t.records, 2);
	cr_assert_eq(t.bad_lines, 2);
	cr_assert_str_eq(bpt_header_get_meta(ff_source_header(s), BPT_META_IMPORT_BAD), "2");
	cr_assert_str_eq(bpt_header_get_meta(ff_source_header(s), BPT_META_IMPORT_FORMAT), "msr");
	ff_source_close(s);
}

/* An SPC trace whose times go 0, 1, ..., n-1 s with each group of `g`
 * lines reversed: out of order by g - 1 records. */
static const char *spc_shuffled(const char *tag, int n, int g)
{
	static char text[1 << 16];
	size_t off = 0;

	for (int i = 0; i < n; i++) {
		int t = (i / g) * g + (g - 1 - i % g);

		off += (size_t)snprintf(text + off, sizeof(text) - off, "0,%d,512,r,%d.0\n", t, t);
	}
	return text_file(tag, text);
}

Test(formats, reorder_window_sorts_within_and_fails_beyond)
{
	const char *p = spc_shuffled("win.spc", 400, 8);
	struct ff_source_opts o = { .window = 8 };
	struct ff_source *s;
	struct bpt_error e = { 0 };
	struct bpt_record r;
	uint64_t n = 0;
	int rc;

	cr_assert_eq(open_src(&s, p, &o, &e), 0, "%s", e.msg);
	while ((rc = ff_source_next(s, &r, &e)) == 1) {
		cr_assert_eq(r.issue_ns, n * 1000000000ull);
		cr_assert_eq(r.sector, n);
		n++;
	}
	cr_assert_eq(rc, 0);
	cr_assert_eq(n, 400);
	ff_source_close(s);

	o.window = 7;
	cr_assert_eq(open_src(&s, p, &o, &e), -ERANGE);
	cr_assert(strstr(e.msg, "line 8: out of time order by more than the reorder window of 7"),
		  "%s", e.msg);
}

Test(formats, devices_limit_and_filter)
{
	static char text[1 << 21];
	size_t off = 0;
	struct ff_source *s;
	struct bpt_error e = { 0 };
	struct ff_totals t;
	const char *keep[] = { "vol3", "vol60", NULL };
	struct ff_source_opts o = { .devices = keep };

	for (int v = 0; v < (int)BPT_MAX_DEVICES + 1; v++)
		off += (size_t)snprintf(text + off, sizeof(text) - off, "1538323200,%d,8,0,%d\n", v, v);
	const char *p = text_file("vols.csv", text);

	cr_assert_eq(open_src(&s, p, NULL, &e), -E2BIG);
	cr_assert(strstr(e.msg, "more than 65536 devices"), "%s", e.msg);
	cr_assert(strstr(e.msg, "--device"), "%s", e.msg);
	cr_assert(strstr(e.msg, "'vol65536' at line 65537"), "%s", e.msg);

	cr_assert_eq(open_src(&s, p, &o, &e), 0, "%s", e.msg);
	ff_source_totals(s, &t);
	cr_assert_eq(ff_source_header(s)->ndevices, 2);
	cr_assert_str_eq(ff_source_header(s)->devices[1].name, "vol60");
	cr_assert_eq(t.records, 2);
	cr_assert_eq(t.dropped, 65535);
	cr_assert_str_eq(bpt_header_get_meta(ff_source_header(s), BPT_META_IMPORT_DROPPED), "65535");
	ff_source_close(s);
}

Test(formats, inputs_merge_by_time)
{
	const char *a = text_file("a.spc", "0,1,512,r,0.5\n0,3,512,r,2.0\n0,5,512,r,4.0\n");
	const char *b = text_file("b.spc", "1,2,512,w,1.0\n1,4,512,w,3.0\n");
	const char *in[] = { a, b };
	struct ff_source *s;
	struct bpt_error e = { 0 };
	struct bpt_record r;
	uint64_t want = 1;

	cr_assert_eq(ff_source_open(&s, in, 2, NULL, &e), 0, "%s", e.msg);
	while (ff_source_next(s, &r, &e) == 1)
		cr_assert_eq(r.sector, want++);
	cr_assert_eq(want, 6);
	cr_assert_eq(ff_source_header(s)->ndevices, 2);
	ff_source_close(s);
}

Test(formats, detection_picks_each_format)
{
	static const struct { const char *text, *fmt; } cases[] = {
		{ "fio version 3 iolog\n0 /dev/sda add\n", "fio" },
		{ "128166372003061629,hm,0,Read,3111317504,4096,1290\n", "msr" },
		{ "0,303567,3584,w,0.000000\n", "spc" },
		{ "3,R,126703644672,4096,1577808144360767\n", "alibaba" },
		{ "1538323200,4840,8,0,1283\n", "tencent" },
		{ "Timestamp,Response,IOType,LUN,Offset,Size\n1.0,0.1,R,4,0,512\n", "systor17" },
		{ "89966527128905 4484 syslogd 58087128 8 W 6 0 8f3a7bd5e2e1ac0ed0bc21ef7d6c2b2d\n", "fiu" },
		{ "TIME(s) COMM PID DISK T SECTOR BYTES LAT(ms)\n", "biosnoop" },
		{ "  8,0    0        1     0.000000000   697  Q  WS 3417048 + 8 [kw]\n", "blkparse" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int best = 0;
		const char *pick = NULL;

		for (size_t k = 0; k < ff_nreaders; k++) {
			int sc = ff_readers[k]->detect("x", cases[i].text, strlen(cases[i].text));

			if (sc > best) {
				best = sc;
				pick = ff_readers[k]->name;
			}
		}
		cr_assert(pick, "%s: nothing", cases[i].fmt);
		cr_assert_str_eq(pick, cases[i].fmt);
	}
}

Test(formats, bpt_reader_api_over_a_foreign_file)
{
	const char *p = spc_shuffled("api.spc", 200, 1);
	const char *txt = text_file("none.txt", "hello, no trace here\n");
	struct bpt_reader *r;
	struct bpt_error e = { 0 };
	struct bpt_record rec;
	struct bpt_block_pos pos;
	struct bpt_stats st;
	uint64_t d1, d2;

	bpt_reader_set_foreign_opener(formats_reader_open);
	cr_assert_eq(bpt_reader_open(&r, txt, &e), -EBADMSG);
	cr_assert(strstr(e.msg, "not a .bpt trace (bad magic), nor a foreign trace (tried blktrace, fio, "),
		  "%s", e.msg);
	cr_assert_eq(bpt_reader_open(&r, p, &e), 0, "%s", e.msg);
	bpt_reader_stats(r, &st);
	cr_assert_eq(st.records, 200);
	cr_assert_eq(st.complete, 1);
	cr_assert_eq(st.last_issue_ns, 199000000000ull);
	cr_assert_str_eq(bpt_reader_header(r)->kind, "import");
	cr_assert_eq(bpt_reader_block_pos(r, &pos), -ENOENT);

	cr_assert_eq(bpt_reader_seek_time(r, 150000000000ull, &e), 0);
	cr_assert_eq(bpt_reader_next(r, &rec, &e), 1);
	cr_assert_eq(rec.sector, 150);
	cr_assert_eq(bpt_reader_block_pos(r, &pos), 0);
	cr_assert_eq(pos.index, 150);

	cr_assert_eq(bpt_reader_digest(r, &d1, &e), 0);
	cr_assert_eq(bpt_reader_verify(r, &e), 0, "%s", e.msg);
	cr_assert_eq(bpt_reader_next(r, &rec, &e), 1, "verify keeps the position");
	cr_assert_eq(rec.sector, 151);
	cr_assert_eq(bpt_reader_seek_block(r, &pos, &e), 0);
	cr_assert_eq(bpt_reader_next(r, &rec, &e), 1);
	cr_assert_eq(rec.sector, 0, "group 0 starts at record 0");
	bpt_reader_close(r);

	cr_assert_eq(bpt_reader_open(&r, p, &e), 0);
	cr_assert_eq(bpt_reader_digest(r, &d2, &e), 0);
	cr_assert_eq(d1, d2, "the digest is the content's");
	bpt_reader_close(r);
	bpt_reader_set_foreign_opener(NULL);
}

Test(formats, msr_times_units_and_devices)
{
	const char *p = text_file("hm.csv", msr_text);
	struct ff_source *s;
	struct bpt_error e = { 0 };
	struct bpt_record r;

	cr_assert_eq(open_src(&s, p, NULL, &e), 0, "%s", e.msg);
	/* FILETIME 128166372003061629 is 2007-02-22 17:00:00.3061629 UTC */
	cr_assert_eq(ff_source_header(s)->start_wall_ns, 1172163600306162900ll);
	cr_assert_eq(ff_source_next(s, &r, &e), 1);
	cr_assert_eq(r.sector, 3111317504ull / 512);
	cr_assert_eq(r.complete_ns - r.issue_ns, 129000);
	cr_assert_eq(r.completion, BPT_COMPLETION_SEEN);
	cr_assert_eq(ff_source_next(s, &r, &e), 1);
	cr_assert_eq(r.issue_ns, (128166372003080017ull - 128166372003061629ull) * 100);
	cr_assert_eq(ff_source_next(s, &r, &e), 1);
	cr_assert_str_eq(ff_source_header(s)->devices[r.dev].name, "hm_1");
	ff_source_close(s);
}

/* The reorder window gives back records in (issue time, arrival) order
 * whatever their disorder, with pops between pushes as convert does
 * (one out whenever the window is full): against a stable sort of the
 * same records, for inputs from sorted to reversed, with ties. */
Test(formats, reorder_window_orders_like_a_stable_sort)
{
	enum { N = 20000 };
	static const uint32_t caps[] = { 1, 7, 1024, 5000, N };
	static const unsigned spread[] = { 0, 3, 100, 100000, 0xffffffffu };
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	for (size_t c = 0; c < sizeof(caps) / sizeof(caps[0]); c++)
		for (size_t d = 0; d < sizeof(spread) / sizeof(spread[0]); d++) {
			static struct bpt_record in[N], out[N];
			struct ff_window w;
			uint32_t n = 0;
			struct bpt_record r;

			for (uint32_t i = 0; i < N; i++) {
				seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
				memset(&in[i], 0, sizeof(in[i]));
				/* rising, minus a random lag; spread 0xffffffff: reversed */
				in[i].issue_ns = spread[d] == 0xffffffffu ? (uint64_t)(N - i) * 10
					: 1000000 + (uint64_t)i * 10 - (spread[d] ? seed % spread[d] : 0);
				in[i].issue_ns -= in[i].issue_ns % 20; /* ties */
				in[i].sector = i; /* the arrival order */
			}
			cr_assert_eq(ff_window_init(&w, caps[c]), 0);
			for (uint32_t i = 0; i < N; i++) {
				if (ff_window_len(&w) == caps[c])
					cr_assert_eq(ff_window_pop(&w, &out[n++]), 1);
				cr_assert_eq(ff_window_push(&w, &in[i]), 0);
			}
			while (ff_window_pop(&w, &r) == 1)
				out[n++] = r;
			cr_assert_eq(n, N);
			/* the window cap bounds how far a record can move: check
			 * the order only where every record had room */
			if (caps[c] == N)
				for (uint32_t i = 1; i < N; i++)
					cr_assert(out[i - 1].issue_ns < out[i].issue_ns ||
						  (out[i - 1].issue_ns == out[i].issue_ns &&
						   out[i - 1].sector < out[i].sector),
						  "cap %u spread %u: record %u out of order", caps[c],
						  spread[d], i);
			/* small windows: each pop is the least record held, as a
			 * naive window finds it */
			if (caps[c] <= 1024) {
				static struct bpt_record held[1024];
				uint32_t nh = 0, k = 0;

				for (uint32_t i = 0; i <= N; i++) {
					while (nh && (nh == caps[c] || i == N)) {
						uint32_t m = 0;

						for (uint32_t j = 1; j < nh; j++)
							if (held[j].issue_ns < held[m].issue_ns ||
							    (held[j].issue_ns == held[m].issue_ns &&
							     held[j].sector < held[m].sector))
								m = j;
						cr_assert_eq(out[k].sector, held[m].sector,
							     "cap %u spread %u: pop %u", caps[c], spread[d], k);
						k++;
						held[m] = held[--nh];
						if (i < N)
							break;
					}
					if (i < N)
						held[nh++] = in[i];
				}
				cr_assert_eq(k, N);
			}
			/* every record once */
			static uint8_t seen[N];

			memset(seen, 0, sizeof(seen));
			for (uint32_t i = 0; i < N; i++) {
				cr_assert_lt(out[i].sector, N);
				cr_assert_not(seen[out[i].sector]++, "record %llu twice",
					      (unsigned long long)out[i].sector);
			}
			/* a cleared window is empty and takes records again */
			ff_window_clear(&w);
			cr_assert_eq(ff_window_len(&w), 0);
			cr_assert_eq(ff_window_push(&w, &in[0]), 0);
			cr_assert_eq(ff_window_pop(&w, &r), 1);
			cr_assert_eq(r.sector, 0);
			ff_window_free(&w);
		}
}
