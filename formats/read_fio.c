/*
 * read_fio.c — fio's I/O logs (fio HOWTO, "Trace file format"), as
 * written by --write_iolog and replayed by --read_iolog:
 *
 *   version 2: first line "fio version 2 iolog", then
 *     FILENAME ACTION                      add, open, close
 *     FILENAME ACTION OFFSET LENGTH        read, write, trim, sync, datasync
 *     FILENAME wait USECS                  (also with a LENGTH) sleep USECS µs,
 *                                          relative to the previous wait
 *   version 3: first line "fio version 3 iolog", then the same lines
 *     each preceded by a TIMESTAMP in µs from the start of the run
 *     (fio 3.31 on); a wait is then meaningless and ignored.
 *
 * OFFSET and LENGTH are bytes. A version 2 log has no times but its
 * waits: each I/O is placed at the sum of the waits before it, so the
 * I/Os between two waits share a time and keep their order. Each file
 * is one device, named by its last path component ("/dev/nvme0n1" ->
 * "nvme0n1"). sync and datasync are flushes; trim a discard. No
 * completion time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "foreign.h"

struct fiolog {
	int version;
	uint64_t t_ns; /* version 2: the sum of the waits */
};

static int detect(const char *path, const char *head, size_t len)
{
	(void)path;
	if (!head)
		return 0;
	if (len >= 19 && (!memcmp(head, "fio version 2 iolog", 19) ||
			  !memcmp(head, "fio version 3 iolog", 19)))
		return 100;
	return 0;
}

static int open_fio(struct ff_ctx *cx, void **state)
{
	struct fiolog *f = calloc(1, sizeof(*f));
	char *line;
	size_t len;
	int rc;

	if (!f)
		return -ENOMEM;
	*state = f;
	rc = ff_line(cx, &line, &len);
	if (rc < 0)
		return rc;
	if (rc == 1 && !strcmp(line, "fio version 2 iolog"))
		f->version = 2;
	else if (rc == 1 && !strcmp(line, "fio version 3 iolog"))
		f->version = 3;
	else
		return ff_fail(cx, -EBADMSG, "line 1: not 'fio version 2 iolog' or 'fio version 3 iolog'");
	return 0;
}

/* The device name for a file: its last path component. */
static int device_of(struct ff_ctx *cx, const struct ff_field *file)
{
	char name[256];
	size_t l = file->len;
	const char *p = file->p, *slash;

	while (l > 1 && p[l - 1] == '/')
		l--;
	while ((slash = memchr(p, '/', l)) && slash + 1 < p + l) {
		l -= (size_t)(slash + 1 - p);
		p = slash + 1;
	}
	if (l >= sizeof(name))
		l = sizeof(name) - 1;
	memcpy(name, p, l);
	name[l] = 0;
	return ff_device(cx, name, 0, 0);
}

static int next(void *state, struct ff_ctx *cx, struct bpt_record *rec)
{
	struct fiolog *fl = state;
	struct ff_field f[7];
	char *line;
	size_t len, n;
	int rc;

	while ((rc = ff_line(cx, &line, &len)) == 1) {
		const char *field = "line", *why = "not an iolog line";
		struct ff_field *a; /* the fields after the timestamp */
		uint64_t ts = 0, off = 0, length = 0;
		int d;

		if (!len)
			continue;
		n = ff_split(line, len, ' ', f, 7);
		a = f;
		if (fl->version == 3) {
			if (n < 3 || ff_u64(&f[0], &ts) || ts > UINT64_MAX / 1000) {
				field = "timestamp";
				why = "not microseconds";
				goto bad;
			}
			a = f + 1;
			n--;
		}
		if (n != 2 && n != 3 && n != 4)
			goto bad;
		const struct ff_field *act = &a[1];

		if (ff_field_is(act, "add") || ff_field_is(act, "open") || ff_field_is(act, "close")) {
			if (n != 2)
				goto bad;
			if (ff_field_is(act, "add") && (d = device_of(cx, &a[0])) < 0)
				return d;
			continue;
		}
		if (n >= 3 && ff_u64(&a[2], &off)) {
			field = "offset";
			why = "not a number";
			goto bad;
		}
		if (n == 4 && (ff_u64(&a[3], &length) || length > UINT32_MAX)) {
			field = "length";
			why = "not a number of bytes below 4 GiB";
			goto bad;
		}
		if (ff_field_is(act, "wait")) {
			if (n < 3)
				goto bad;
			if (fl->version == 2) {
				if (off > (UINT64_MAX - fl->t_ns) / 1000) {
					field = "offset";
					why = "wait too long";
					goto bad;
				}
				fl->t_ns += off * 1000;
			}
			continue;
		}
		if (ff_field_is(act, "read"))
			rec->op = BPT_OP_READ;
		else if (ff_field_is(act, "write"))
			rec->op = BPT_OP_WRITE;
		else if (ff_field_is(act, "trim"))
			rec->op = BPT_OP_DISCARD;
		else if (ff_field_is(act, "sync") || ff_field_is(act, "datasync"))
			rec->op = BPT_OP_FLUSH;
		else {
			field = "action";
			why = "not add, open, close, read, write, trim, sync, datasync or wait";
			goto bad;
		}
		if (rec->op == BPT_OP_FLUSH) {
			off = length = 0;
		} else if (n != 4) {
			goto bad;
		} else if (off % 512) {
			field = "offset";
			why = "not a multiple of 512 bytes";
			goto bad;
		}
		if ((d = device_of(cx, &a[0])) < 0)
			return d;
		rec->dev = (uint32_t)d;
		rec->sector = off / 512;
		rec->bytes = (uint32_t)length;
		rec->issue_ns = fl->version == 3 ? ts * 1000 : fl->t_ns;
		return 1;
bad:
		if ((rc = ff_bad(cx, field, "%s", why)))
			return rc;
	}
	return rc;
}

static void close_fio(void *state)
{
	free(state);
}

const struct ff_reader_ops ff_read_fio = {
	.name = "fio",
	.summary = "fio iolog v2 (waits in µs) and v3 (µs timestamps): bytes, trims, syncs",
	.detect = detect,
	.open = open_fio,
	.next = next,
	.close = close_fio,
};
