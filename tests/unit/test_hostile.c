/*
 * Unit tests of the defects hostile input found (issue 27) in formats/:
 * a NUL byte in a text line, names holding a NUL, a long line's message.
 * Each test failed before its fix.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpt.h"
#include "foreign.h"
#include "input.h"
#include "source.h"
#include "source_int.h"

static char paths[16][96];
static int npaths;

/* A temporary file holding len bytes (NULs allowed); removed by cleanup(). */
static const char *bytes_file(const char *tag, const char *b, size_t len)
{
	char *p = paths[npaths++ % 16];
	FILE *f;

	snprintf(p, 96, "/dev/shm/ff-hostile-%d-%s", (int)getpid(), tag);
	f = fopen(p, "w");
	cr_assert(f);
	cr_assert_eq(fwrite(b, 1, len, f), len);
	fclose(f);
	return p;
}

static void cleanup(void)
{
	for (int i = 0; i < npaths && i < 16; i++)
		unlink(paths[i]);
	npaths = 0;
}

TestSuite(hostile, .fini = cleanup);

#define LIT(s) s, sizeof(s) - 1

static int open1(struct ff_source **s, const char *path, const struct ff_source_opts *o,
		 struct bpt_error *e)
{
	return ff_source_open(s, &path, 1, o, e);
}

/* Group 1: a NUL as the device name crashed (id 0, the table's own "",
 * was taken as mapped); after a /dev/sda line it read an uninitialised
 * index and put the I/O on sda. */
Test(hostile, a_nul_byte_in_a_text_line_is_a_bad_line)
{
	const char *a = bytes_file("n.iolog", LIT("fio version 2 iolog\n\0 read 0 4096\n"));
	const char *b = bytes_file("n2.iolog", LIT("fio version 2 iolog\n/dev/sda add\n/dev/sda open\n"
						   "/dev/sda read 0 4096\n\0 read 0 4096\n"));
	struct ff_source_opts skip = { .skip_bad = 1 };
	struct ff_source *s;
	struct bpt_error e = { 0 };
	struct ff_totals t;
	char want[160];

	cr_assert_eq(open1(&s, a, NULL, &e), -EBADMSG, "%s", e.msg);
	snprintf(want, sizeof(want), "%s:2: line: a NUL byte at column 1", a);
	cr_assert(!strncmp(e.msg, want, strlen(want)), "%s", e.msg);
	cr_assert_eq(open1(&s, b, NULL, &e), -EBADMSG, "%s", e.msg);
	snprintf(want, sizeof(want), "%s:5: line: a NUL byte", b);
	cr_assert(!strncmp(e.msg, want, strlen(want)), "%s", e.msg);
	cr_assert_eq(open1(&s, b, &skip, &e), 0, "%s", e.msg);
	ff_source_totals(s, &t);
	cr_assert_eq(t.records, 1);
	cr_assert_eq(t.bad_lines, 1);
	cr_assert_eq(ff_source_header(s)->ndevices, 1);
	ff_source_close(s);
}

/* Group 1: an empty device name (a reader may give one) is a device of
 * its own, also when it comes first or after another. */
Test(hostile, an_empty_device_name_is_mapped_like_any_other)
{
	const char *a = bytes_file("e.spc", LIT("0,1,512,r,0.5\n"));
	struct ff_source *s;
	struct bpt_error e = { 0 };

	cr_assert_eq(open1(&s, a, NULL, &e), 0, "%s", e.msg);
	struct ff_ctx *cx = &s->cx[0];
	int d0 = ff_device(cx, "", 0, 0);
	int d1 = ff_device(cx, "sdz", 0, 0);
	int d2 = ff_device(cx, "", 0, 0);

	cr_assert_geq(d0, 0);
	cr_assert_geq(d1, 0);
	cr_assert_neq(d0, d1);
	cr_assert_eq(d0, d2);
	cr_assert_eq(ff_source_header(s)->ndevices, 3); /* "asu0" of the file, "", "sdz" */
	cr_assert_str_eq(ff_source_header(s)->devices[d0].name, "");
	ff_source_close(s);
}

/* Group 4: names are compared by length and bytes: two names equal up
 * to a NUL are two names, and a short stored name is not read past. */
Test(hostile, names_holding_a_nul_stay_apart)
{
	struct strtab t;
	uint32_t a, b, c, d;

	cr_assert_eq(ff_names_init(&t), 0);
	cr_assert_eq(strtab_intern(&t, "x", 1, &c), 0);
	cr_assert_eq(strtab_intern(&t, "x\0ab", 4, &a), 0);
	cr_assert_eq(strtab_intern(&t, "x\0cd", 4, &b), 0);
	cr_assert_neq(a, b);
	cr_assert_neq(a, c);
	cr_assert_eq(strtab_intern(&t, "x\0ab", 4, &d), 0);
	cr_assert_eq(a, d);
	cr_assert_eq(strtab_intern(&t, "x", 1, &d), 0);
	cr_assert_eq(c, d);
	strtab_free(&t);
}

/* Group 4: blkparse text with a NUL in a process name. */
Test(hostile, blkparse_process_name_with_a_nul_is_refused)
{
	const char *a = bytes_file("nul.blkparse",
				   LIT("  8,0    1        1     0.000010000  2001  Q   R 100 + 16 [my\0app]\n"
				       "  8,0    1        2     0.000011000  2001  D   R 100 + 16 [my\0app]\n"
				       "  8,0    1        3     0.000300000     0  C   R 100 + 16 [0]\n"));
	struct ff_source_opts o = { .from = "blkparse" };
	struct ff_source *s;
	struct bpt_error e = { 0 };

	cr_assert_eq(open1(&s, a, &o, &e), -EBADMSG, "%s", e.msg);
	cr_assert(strstr(e.msg, ":1: line: a NUL byte at column"), "%s", e.msg);
}

/* Group 10: a line too long is named by its number, not a byte offset. */
Test(hostile, a_long_line_names_its_line_number)
{
	size_t n = FF_LINE_MAX + 100;
	char *big = malloc(n + 40);
	struct ff_source *s;
	struct bpt_error e = { 0 };

	memcpy(big, "0,1,512,r,0.5\n0,2,512,r,0.6\n", 28);
	memset(big + 28, 'x', n);
	const char *p = bytes_file("long.spc", big, n + 28);

	free(big);
	cr_assert_lt(open1(&s, p, NULL, &e), 0);
	cr_assert(strstr(e.msg, ":3: a line longer than"), "%s", e.msg);
}

/* Group 7: QUE(ms) near 2^64 ns wrapped LAT + QUE past the check. */
Test(hostile, biosnoop_queue_time_near_2_64_is_refused)
{
	const char *a = bytes_file("q.biosnoop",
				   LIT("TIME(s)     COMM           PID    DISK    T SECTOR     BYTES  QUE(ms) LAT(ms)\n"
				       "0.000004    supervise      1950   xvda1   W 13092560   4096 "
				       "18446744073709.551 0.01\n"));
	struct ff_source *s;
	struct bpt_error e = { 0 };

	cr_assert_eq(open1(&s, a, NULL, &e), -EBADMSG, "%s", e.msg);
	cr_assert(strstr(e.msg, ":2: QUE(ms): longer than the trace"), "%s", e.msg);
}

/* Group 7: an MSR FILETIME whose ns since 1970 pass 2^63 wrapped. */
Test(hostile, msr_timestamp_past_2262_is_refused)
{
	const char *a = bytes_file("far.csv", LIT("128166372003061629,hm,0,Read,3111317504,4096,1290\n"
						  "18000000000000000000,hm,0,Read,0,4096,10\n"));
	struct ff_source *s;
	struct bpt_error e = { 0 };

	cr_assert_eq(open1(&s, a, NULL, &e), -EBADMSG, "%s", e.msg);
	cr_assert(strstr(e.msg, ":2: Timestamp: after the year 2262"), "%s", e.msg);
}

/* Group 10: --device naming no device of the input gave an empty trace
 * and success; it is refused naming the devices there are. */
Test(hostile, device_filter_naming_nothing_is_refused)
{
	const char *a = bytes_file("dev.spc", LIT("0,1,512,r,0.5\n1,2,512,r,0.6\n"));
	const char *keep[] = { "asu1", "nope", NULL };
	struct ff_source_opts o = { .devices = keep };
	struct ff_source *s;
	struct bpt_error e = { 0 };

	cr_assert_eq(open1(&s, a, &o, &e), -ENODEV, "%s", e.msg);
	cr_assert(strstr(e.msg, "--device nope: no such device in"), "%s", e.msg);
	cr_assert(strstr(e.msg, "(it has: asu0, asu1)"), "%s", e.msg);
	keep[1] = NULL;
	cr_assert_eq(open1(&s, a, &o, &e), 0, "%s", e.msg);
	ff_source_close(s);
}

/* Group 5: blkparse text with issues and no completions. The requests
 * held are bounded by the reorder window: one with that many issues after
 * it is given out as pending (in time order, within the window's reach),
 * and its late C is counted, not given out twice. */
Test(hostile, blkparse_pending_requests_are_bounded_and_in_time_order)
{
	static char text[1 << 16];
	size_t off = 0;

	for (int i = 0; i < 200; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off,
					"  8,0    0 %8d     0.%09d   100  Q   R %d + 8 [fio]\n"
					"  8,0    0 %8d     0.%09d   100  D   R %d + 8 [fio]\n",
					2 * i + 1, 1000 * i + 1000, 8 * i, 2 * i + 2, 1000 * i + 1100, 8 * i);
	const char *a = bytes_file("noc.blkparse", text, off);
	struct ff_source_opts o = { .from = "blkparse", .window = 8 };
	struct ff_source *s;
	struct bpt_error e = { 0 };
	struct bpt_record r;
	uint64_t n = 0, last = 0, end = 0;
	int rc;

	cr_assert_eq(open1(&s, a, &o, &e), 0, "%s", e.msg);
	while ((rc = ff_source_next(s, &r, &e)) == 1) {
		cr_assert_geq(r.issue_ns, last, "record %llu out of time order", (unsigned long long)n);
		cr_assert_eq(r.sector, 8 * n, "%llu", (unsigned long long)n);
		cr_assert_eq(r.completion, BPT_COMPLETION_PENDING);
		if (!n)
			end = r.complete_ns;
		cr_assert_eq(r.complete_ns, end, "pending: at the end of the trace");
		last = r.issue_ns;
		n++;
	}
	cr_assert_eq(rc, 0, "%s", e.msg);
	cr_assert_eq(n, 200);
	cr_assert_eq(end, 199 * 1000 + 100 + 1, "the last D, 1 ns after time 0 (the first Q)");
	ff_source_close(s);
}

Test(hostile, blkparse_late_completion_of_a_pending_request_is_counted)
{
	const char *a = bytes_file("late.blkparse", LIT(
		"  8,0    0        1     0.000001000   100  Q   R 0 + 8 [fio]\n"
		"  8,0    0        2     0.000001100   100  D   R 0 + 8 [fio]\n"
		"  8,0    0        3     0.000002000   100  Q   R 8 + 8 [fio]\n"
		"  8,0    0        4     0.000002100   100  D   R 8 + 8 [fio]\n"
		"  8,0    0        5     0.000003000   100  Q   R 16 + 8 [fio]\n"
		"  8,0    0        6     0.000003100   100  D   R 16 + 8 [fio]\n"
		"  8,0    0        7     0.000004000   100  Q   R 24 + 8 [fio]\n"
		"  8,0    0        8     0.000004100   100  D   R 24 + 8 [fio]\n"
		"  8,0    0        9     0.000005000   100  Q   R 32 + 8 [fio]\n"
		"  8,0    0       10     0.000005100   100  D   R 32 + 8 [fio]\n"
		"  8,0    0       11     0.000006000     0  C   R 0 + 8 [0]\n"
		"  8,0    0       12     0.000007000     0  C   R 16 + 8 [0]\n"));
	struct ff_source_opts o = { .from = "blkparse", .window = 4 };
	struct ff_source *s;
	struct bpt_error e = { 0 };
	struct bpt_record r;
	int n = 0, seen = 0;

	cr_assert_eq(open1(&s, a, &o, &e), 0, "%s", e.msg);
	while (ff_source_next(s, &r, &e) == 1) {
		cr_assert_eq(r.sector, 8 * (uint64_t)n, "in time order");
		n++;
		seen += r.completion == BPT_COMPLETION_SEEN;
		if (r.sector == 0)
			cr_assert_eq(r.completion, BPT_COMPLETION_PENDING, "given out before its C");
		if (r.sector == 16)
			cr_assert_eq(r.completion, BPT_COMPLETION_SEEN);
	}
	cr_assert_eq(n, 5, "one record per request");
	cr_assert_eq(seen, 1);
	cr_assert_str_eq(bpt_header_get_meta(ff_source_header(s), "note.blkparse_late_completions"), "1");
	ff_source_close(s);
}

/* Bounds: the name tables refuse more than FF_NAMES_MAX names or
 * FF_NAMES_BYTES_MAX bytes (memory grew with every distinct name). */
Test(hostile, name_tables_are_bounded)
{
	struct strtab t;
	uint32_t id;
	char name[16];
	size_t big = FF_NAMES_BYTES_MAX + 1;
	char *b = malloc(big);

	cr_assert(b);
	memset(b, 'n', big);
	cr_assert_eq(ff_names_init(&t), 0);
	cr_assert_eq(strtab_intern(&t, b, big, &id), -E2BIG);
	free(b);
	for (uint32_t i = 1; i < FF_NAMES_MAX; i++) {
		int l = snprintf(name, sizeof(name), "p%u", i);

		cr_assert_eq(strtab_intern(&t, name, (size_t)l, &id), 0);
	}
	cr_assert_eq(t.n, FF_NAMES_MAX);
	cr_assert_eq(strtab_intern(&t, "p7", 2, &id), 0, "a known name is found");
	cr_assert_eq(strtab_intern(&t, "one more", 8, &id), -E2BIG);
	strtab_free(&t);
}
