/* Unit tests of capture/convert.c: a ring buffer event becomes a trace
 * record; the comm cache interns each (pid, comm) once. No root needed. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../capture/capture.h"

struct fake_interner {
	char strs[16][17];
	int n, calls;
};

static int fake_intern(void *ctx, const char *s, uint32_t *id)
{
	struct fake_interner *fi = ctx;

	fi->calls++;
	for (int i = 0; i < fi->n; i++) {
		if (!strcmp(fi->strs[i], s)) {
			*id = i;
			return 0;
		}
	}
	if (fi->n == 16)
		return -ENOMEM;
	strcpy(fi->strs[fi->n], s);
	*id = fi->n++;
	return 0;
}

static struct capture_event event(uint32_t pid, const char *comm)
{
	struct capture_event e = {
		.queue_ns = 1000500, .issue_ns = 1000700, .complete_ns = 1003000,
		.sector = 123456, .cgroup_id = 42, .bytes = 8192, .pid = pid,
		.dev = capture_kdev(7, 3), .cmd_flags = 1 | (1u << 11), /* write sync */
	};

	memcpy(e.comm, comm, strnlen(comm, sizeof(e.comm) - 1));
	return e;
}

/* Every test: a conversion with start time 1 ms, disks 8:0 and 7:3. */
static struct fake_interner fi;
static struct convert c;
static struct bpt_record r;

static void setup(void)
{
	struct req_bits b;

	memset(&fi, 0, sizeof(fi));
	req_bits_default(&b);
	convert_init(&c, 1000000, &b, fake_intern, &fi);
	cr_assert_eq(convert_add_dev(&c, capture_kdev(8, 0)), 0);
	cr_assert_eq(convert_add_dev(&c, capture_kdev(7, 3)), 0);
}

TestSuite(capture_convert, .init = setup);

Test(capture_convert, fields)
{
	struct capture_event e = event(77, "fio");
	e.status = 10; /* BLK_STS_IOERR */
	cr_assert_eq(convert_event(&c, &e, &r), 0);
	cr_assert_eq(r.queue_ns, 500);
	cr_assert_eq(r.issue_ns, 700);
	cr_assert_eq(r.complete_ns, 3000);
	cr_assert_eq(r.sector, 123456);
	cr_assert_eq(r.bytes, 8192);
	cr_assert_eq(r.dev, 1, "index in the header's device table");
	cr_assert_eq(r.op, BPT_OP_WRITE);
	cr_assert_eq(r.flags, BPT_F_SYNC);
	cr_assert_eq(r.pid, 77);
	cr_assert_eq(r.cgroup_id, 42);
	cr_assert_str_eq(fi.strs[r.comm_id], "fio");
	cr_assert_eq(r.error, -EIO);
	cr_assert_eq(r.member, 0);
	cr_assert_eq(r.sched_ns, 0);
}

Test(capture_convert, comm_cache)
{
	struct capture_event a = event(77, "fio"), b = event(78, "fio"),
			     x = event(77, "kworker/u4:1");
	struct bpt_record r1, r2, r3;

	for (int i = 0; i < 1000; i++)
		cr_assert_eq(convert_event(&c, &a, &r1), 0);
	cr_assert_eq(fi.calls, 1, "one intern for a thousand I/Os of one task");
	cr_assert_eq(convert_event(&c, &b, &r2), 0);
	cr_assert_eq(convert_event(&c, &x, &r3), 0);
	cr_assert_eq(r1.comm_id, r2.comm_id, "same comm, same id");
	cr_assert_neq(r1.comm_id, r3.comm_id);
	cr_assert_str_eq(fi.strs[r3.comm_id], "kworker/u4:1");
}

Test(capture_convert, full_length_comm)
{
	struct capture_event e = event(5, "");
	memcpy(e.comm, "abcdefghijklmno", 16); /* 15 chars + NUL, the maximum */
	cr_assert_eq(convert_event(&c, &e, &r), 0);
	cr_assert_str_eq(fi.strs[r.comm_id], "abcdefghijklmno");
}

Test(capture_convert, unknown_device_and_op)
{
	struct capture_event e = event(5, "dd");
	e.dev = capture_kdev(259, 0);
	cr_assert_eq(convert_event(&c, &e, &r), -ENODEV);
	e = event(5, "dd");
	e.cmd_flags = 34; /* REQ_OP_DRV_IN: pass-through */
	cr_assert_eq(convert_event(&c, &e, &r), -EOPNOTSUPP);
	cr_assert_eq(fi.calls, 0, "nothing interned for dropped events");
}

Test(capture_convert, flush_and_early_times)
{
	struct capture_event e = event(9, "sync");
	e.cmd_flags = 2 | (1u << 18); /* REQ_OP_FLUSH | REQ_PREFLUSH */
	e.bytes = 0;
	e.sector = 0;
	e.queue_ns = 999000; /* before the start: clamped, never wraps */
	cr_assert_eq(convert_event(&c, &e, &r), 0);
	cr_assert_eq(r.op, BPT_OP_FLUSH);
	cr_assert_eq(r.flags, BPT_F_PREFLUSH);
	cr_assert_eq(r.queue_ns, 0);
	cr_assert_eq(r.bytes, 0);
}

Test(capture_convert, device_table_full)
{
	for (int i = 2; i < CAPTURE_MAX_DEVICES; i++)
		cr_assert_eq(convert_add_dev(&c, capture_kdev(7, 100 + i)), 0);
	cr_assert_eq(convert_add_dev(&c, capture_kdev(8, 0)), -E2BIG);
}

/* The one dev_t encoding (bpf/capture_events.h): the kernel's MKDEV. */
Test(capture_convert, kdev_encoding)
{
	cr_assert_eq(capture_kdev(8, 16), (8u << 20) | 16u);
	cr_assert_eq(capture_kdev(CAPTURE_KDEV_MAJORMAX, CAPTURE_KDEV_MINORMASK), UINT32_MAX);
	cr_assert_eq(capture_kdev_major(capture_kdev(259, 1048575)), 259);
	cr_assert_eq(capture_kdev_minor(capture_kdev(259, 1048575)), 1048575);
	cr_assert_eq(capture_kdev_minor(capture_kdev(7, 3)), 3);
}

/* A short event (the first CAPTURE_EVENT_SHORT bytes: no file, no cause)
 * converts without a read past its end: it sits just before a page that
 * cannot be read. */
Test(capture_convert, short_event_reads_only_its_head)
{
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *m = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct capture_event e = event(77, "fio"), *head;
	struct files fs;

	cr_assert_neq(m, MAP_FAILED);
	cr_assert_eq(mprotect(m + page, page, PROT_NONE), 0);
	files_init(&fs);
	c.files = &fs;
	e.file_kind = CAPTURE_FILE_USER;
	e.kthread = 0;
	e.cause_kind = CAPTURE_CAUSE_NONE;
	cr_assert_not(capture_event_needs_tail(e.file_kind, e.cause_kind));
	head = (struct capture_event *)(m + page - CAPTURE_EVENT_SHORT);
	memcpy(head, &e, CAPTURE_EVENT_SHORT);
	cr_assert_eq(convert_event(&c, head, &r), 0);
	cr_assert_eq(r.pid, 77);
	cr_assert_eq(r.bytes, 8192);
	cr_assert_eq(r.cause_pid, 77, "the submitter caused it");
	cr_assert(r.file_class == BPT_FILE_RAW || r.file_class == BPT_FILE_UNKNOWN);
	/* kinds with a file or a cause need the whole event */
	cr_assert(capture_event_needs_tail(CAPTURE_FILE_DATA, CAPTURE_CAUSE_NONE));
	cr_assert(capture_event_needs_tail(CAPTURE_FILE_BDEV, CAPTURE_CAUSE_NONE));
	cr_assert(capture_event_needs_tail(CAPTURE_FILE_NONE, CAPTURE_CAUSE_FSYNC));
	c.files = NULL;
	files_free(&fs);
	munmap(m, 2 * page);
}
