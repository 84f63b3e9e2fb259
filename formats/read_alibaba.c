/*
 * read_alibaba.c — Alibaba Cloud block traces (github.com/alibaba/
 * block-traces, "Alibaba Block Traces", 2020: io_traces.csv), whose
 * README defines each row as
 *
 *   device_id,opcode,offset,length,timestamp
 *
 *   device_id  uint32, the virtual disk: one device each, "devN"
 *   opcode     'R' or 'W'
 *   offset     bytes
 *   length     bytes
 *   timestamp  when the server received the I/O, µs since the Unix epoch
 *
 * No completion time. The file holds 1000 disks: --device picks some
 * (a trace keeps at most 64).
 */
#include <stdio.h>
#include <string.h>

#include "foreign.h"

enum { F_DEV, F_OP, F_OFF, F_LEN, F_TS, F_N };

static int op_of(const struct ff_field *f)
{
	if (f->len != 1)
		return -1;
	return f->p[0] == 'R' ? BPT_OP_READ : f->p[0] == 'W' ? BPT_OP_WRITE : -1;
}

static int detect(const char *path, const char *head, size_t len)
{
	char line[256];
	struct ff_field f[F_N + 1];
	uint64_t v;

	(void)path;
	if (ff_head_line(head, len, 0, line, sizeof(line)) < 0)
		return 0;
	if (ff_split(line, strlen(line), ',', f, F_N + 1) != F_N)
		return 0;
	if (ff_field_is(&f[F_DEV], "device_id") && ff_field_is(&f[F_TS], "timestamp"))
		return 90;
	if (ff_u64(&f[F_DEV], &v) || op_of(&f[F_OP]) < 0 || ff_u64(&f[F_OFF], &v) ||
	    ff_u64(&f[F_LEN], &v) || ff_u64(&f[F_TS], &v))
		return 0;
	return 80;
}

static int next(void *state, struct ff_ctx *cx, struct bpt_record *rec)
{
	struct ff_field f[F_N + 1];
	char *line;
	size_t len;
	int rc;

	(void)state;
	while ((rc = ff_line(cx, &line, &len)) == 1) {
		const char *field = "line", *why = "not device_id,opcode,offset,length,timestamp";
		uint64_t dev, off, length, ts;
		int op, d;

		if (!len)
			continue;
		if (ff_split(line, len, ',', f, F_N + 1) != F_N)
			goto bad;
		if (ff_u64(&f[F_DEV], &dev)) {
			if (ff_line_no(cx) == 1 && ff_field_is(&f[F_DEV], "device_id"))
				continue; /* the header line */
			field = "device_id";
			why = "not a number";
			goto bad;
		}
		why = "not a number";
		if ((op = op_of(&f[F_OP])) < 0) {
			field = "opcode";
			why = "not R or W";
			goto bad;
		}
		if (ff_u64(&f[F_OFF], &off) || off % 512) {
			field = "offset";
			why = "not a multiple of 512 bytes";
			goto bad;
		}
		if (ff_u64(&f[F_LEN], &length) || length > UINT32_MAX) {
			field = "length";
			why = "not a number of bytes below 4 GiB";
			goto bad;
		}
		if (ff_u64(&f[F_TS], &ts) || ts > UINT64_MAX / 1000) {
			field = "timestamp";
			why = "not microseconds";
			goto bad;
		}
		if ((d = ff_device_num(cx, "dev", dev)) < 0)
			return d;
		rec->dev = (uint16_t)d;
		rec->op = (uint8_t)op;
		rec->sector = off / 512;
		rec->bytes = (uint32_t)length;
		rec->issue_ns = ts * 1000;
		return 1;
bad:
		if ((rc = ff_bad(cx, field, "%s", why)))
			return rc;
	}
	return rc;
}

const struct ff_reader_ops ff_read_alibaba = {
	.name = "alibaba",
	.summary = "Alibaba block traces (2020): disk id, R/W, bytes, Unix µs",
	.flags = FF_WALL_CLOCK,
	.detect = detect,
	.next = next,
};
