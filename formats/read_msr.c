/*
 * read_msr.c — MSR Cambridge block traces (SNIA IOTTA, "MSR Cambridge
 * Traces", Narayanan et al., FAST '08), as their README defines them:
 *
 *   Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
 *
 *   Timestamp     when the I/O was issued, Windows FILETIME: 100 ns ticks
 *                 since 1601-01-01 UTC
 *   Hostname      the server ("hm", "src1"); with DiskNumber, one volume
 *   DiskNumber    logical disk number on that server
 *   Type          "Read" or "Write"
 *   Offset        bytes from the start of the volume
 *   Size          bytes
 *   ResponseTime  issue to completion, in 100 ns ticks
 *
 * Each (Hostname, DiskNumber) becomes a device "HOST_DISK" (the files'
 * own naming: hm_0.csv). Times become ns since the Unix epoch, so the
 * trace's start_wall_ns is the first I/O's wall-clock time. The files
 * have no header line; one found anyway (a word in the first field) is
 * skipped. An offset that is not a multiple of 512 cannot be a sector
 * and is a bad line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "foreign.h"

/* FILETIME of 1970-01-01 UTC */
#define FILETIME_UNIX_EPOCH 116444736000000000ull

enum { F_TS, F_HOST, F_DISK, F_TYPE, F_OFF, F_SIZE, F_RESP, F_N };

/* The Type field: the files write "Read" and "Write" exactly; other
 * cases are accepted too (ff_field_is) at the price of a call. */
static int is_word(const struct ff_field *f, const char *w, size_t n)
{
	return f->len == n && (!memcmp(f->p, w, n) || ff_field_is(f, w));
}

static int detect(const char *path, const char *head, size_t len)
{
	struct ff_field f[F_N + 1];
	char line[512];
	const char *nl;
	size_t l, n;
	uint64_t ts;

	(void)path;
	if (!head)
		return 0;
	nl = memchr(head, '\n', len);
	l = nl ? (size_t)(nl - head) : len;
	if (l >= sizeof(line))
		return 0;
	memcpy(line, head, l);
	if (l && line[l - 1] == '\r')
		l--;
	n = ff_split(line, l, ',', f, F_N + 1);
	if (n != F_N)
		return 0;
	if (ff_field_is(&f[F_TS], "Timestamp") && ff_field_is(&f[F_TYPE], "Type"))
		return 90;
	if (ff_u64(&f[F_TS], &ts) || ts < FILETIME_UNIX_EPOCH)
		return 0;
	if (!ff_field_is(&f[F_TYPE], "Read") && !ff_field_is(&f[F_TYPE], "Write"))
		return 0;
	return 90;
}

/* The last (host, disk) seen and its device: files hold one volume,
 * so the name is made once, not per line. */
struct msr {
	char host[48];
	size_t host_len;
	uint64_t disk;
	int dev_idx;
};

static int open_msr(struct ff_ctx *cx, void **state)
{
	struct msr *m = calloc(1, sizeof(*m));

	(void)cx;
	if (!m)
		return -ENOMEM;
	m->dev_idx = -1;
	*state = m;
	return 0;
}

static int next(void *state, struct ff_ctx *cx, struct bpt_record *rec)
{
	struct msr *m = state;
	struct ff_field f[F_N + 1];
	char *line;
	size_t len;
	int rc;

	while ((rc = ff_line(cx, &line, &len)) == 1) {
		uint64_t ts, disk, off, size, resp;
		size_t n = ff_split(line, len, ',', f, F_N + 1);
		int d;

		if (!len)
			continue;
		if (n != F_N) {
			if ((rc = ff_bad(cx, "line", "%zu fields, not %d", n, F_N)))
				return rc;
			continue;
		}
		if (ff_u64(&f[F_TS], &ts)) {
			if (ff_line_no(cx) == 1 && ff_field_is(&f[F_TS], "Timestamp"))
				continue; /* a header line */
			if ((rc = ff_bad(cx, "Timestamp", "not a number")))
				return rc;
			continue;
		}
		if (ts < FILETIME_UNIX_EPOCH) {
			if ((rc = ff_bad(cx, "Timestamp", "before 1970 (not a Windows FILETIME?)")))
				return rc;
			continue;
		}
		/* in ns since 1970 it must fit 63 bits: times past 2262 wrapped */
		if (ts - FILETIME_UNIX_EPOCH > (uint64_t)INT64_MAX / 100) {
			if ((rc = ff_bad(cx, "Timestamp", "after the year 2262 (2^63 ns since 1970)")))
				return rc;
			continue;
		}
		if (is_word(&f[F_TYPE], "Read", 4)) {
			rec->op = BPT_OP_READ;
		} else if (is_word(&f[F_TYPE], "Write", 5)) {
			rec->op = BPT_OP_WRITE;
		} else {
			if ((rc = ff_bad(cx, "Type", "not Read or Write")))
				return rc;
			continue;
		}
		const char *bad = ff_u64(&f[F_DISK], &disk) ? "DiskNumber"
				: ff_u64(&f[F_OFF], &off) ? "Offset"
				: ff_u64(&f[F_SIZE], &size) ? "Size"
				: ff_u64(&f[F_RESP], &resp) ? "ResponseTime" : NULL;

		if (bad) {
			if ((rc = ff_bad(cx, bad, "not a number")))
				return rc;
			continue;
		}
		if (off % 512) {
			if ((rc = ff_bad(cx, "Offset", "not a multiple of 512 bytes")))
				return rc;
			continue;
		}
		if (size > UINT32_MAX) {
			if ((rc = ff_bad(cx, "Size", "more than 4 GiB")))
				return rc;
			continue;
		}
		if (!f[F_HOST].len || f[F_HOST].len > 40) {
			if ((rc = ff_bad(cx, "Hostname", "empty or longer than 40 bytes")))
				return rc;
			continue;
		}
		if (m->dev_idx < 0 || disk != m->disk || f[F_HOST].len != m->host_len ||
		    memcmp(f[F_HOST].p, m->host, m->host_len)) {
			char name[64], host[48];

			memcpy(host, f[F_HOST].p, f[F_HOST].len);
			host[f[F_HOST].len] = '_';
			ff_name_num(name, sizeof(name), host, f[F_HOST].len + 1, disk);
			if ((d = ff_device(cx, name, 0, 0)) < 0)
				return d;
			memcpy(m->host, f[F_HOST].p, f[F_HOST].len);
			m->host_len = f[F_HOST].len;
			m->disk = disk;
			m->dev_idx = d;
		}
		d = m->dev_idx;
		rec->dev = (uint32_t)d;
		rec->issue_ns = (ts - FILETIME_UNIX_EPOCH) * 100;
		if (resp > ((uint64_t)INT64_MAX - rec->issue_ns) / 100) {
			if ((rc = ff_bad(cx, "ResponseTime", "too large")))
				return rc;
			continue;
		}
		rec->complete_ns = rec->issue_ns + resp * 100;
		rec->completion = BPT_COMPLETION_SEEN;
		rec->sector = off / 512;
		rec->bytes = (uint32_t)size;
		return 1;
	}
	return rc;
}

static void close_msr(void *state)
{
	free(state);
}

const struct ff_reader_ops ff_read_msr = {
	.name = "msr",
	.summary = "MSR Cambridge CSV (SNIA IOTTA): FILETIME 100 ns, bytes, response time",
	.flags = FF_WALL_CLOCK,
	.detect = detect,
	.open = open_msr,
	.next = next,
	.close = close_msr,
};
