/*
 * read_spc.c — SPC traces in ASCII (the UMass Trace Repository's
 * Financial1/2 and WebSearch1/2/3 OLTP and search-engine traces), as the
 * SPC "Trace File Format Specification" 1.0.1 defines a record:
 *
 *   ASU,LBA,Size,Opcode,Timestamp[,optional fields...]
 *
 *   ASU        application specific storage unit, a number: one device
 *              each, named "asuN"
 *   LBA        logical block address in 512-byte blocks
 *   Size       bytes
 *   Opcode     "r"/"R" read, "w"/"W" write
 *   Timestamp  seconds (decimal) from the start of the trace, when the
 *              request was issued
 *
 * No completion time. Fields after the fifth are the specification's
 * optional ones and are ignored.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "foreign.h"

enum { F_ASU, F_LBA, F_SIZE, F_OP, F_TS, F_MIN };

static int op_of(const struct ff_field *f)
{
	if (f->len != 1)
		return -1;
	return (f->p[0] | 0x20) == 'r' ? BPT_OP_READ : (f->p[0] | 0x20) == 'w' ? BPT_OP_WRITE : -1;
}

static int detect(const char *path, const char *head, size_t len)
{
	char line[256];
	struct ff_field f[8];
	uint64_t v;
	size_t n;

	(void)path;
	if (ff_head_line(head, len, 0, line, sizeof(line)) < 0)
		return 0;
	n = ff_split(line, strlen(line), ',', f, 8);
	if (n < F_MIN || ff_u64(&f[F_ASU], &v) || ff_u64(&f[F_LBA], &v) ||
	    ff_u64(&f[F_SIZE], &v) || op_of(&f[F_OP]) < 0 ||
	    ff_decimal_scaled(&f[F_TS], 1000000000ull, &v))
		return 0;
	return 70;
}

static int next(void *state, struct ff_ctx *cx, struct bpt_record *rec)
{
	struct ff_field f[F_MIN + 1];
	char *line;
	size_t len;
	int rc;

	(void)state;
	while ((rc = ff_line(cx, &line, &len)) == 1) {
		const char *field = "line", *why = "not ASU,LBA,Size,Opcode,Timestamp";
		uint64_t asu, lba, size, ts;
		int op, d;

		if (!len || line[0] == '#')
			continue;
		if (ff_split(line, len, ',', f, F_MIN + 1) < F_MIN)
			goto bad;
		why = "not a number";
		if (ff_u64(&f[F_ASU], &asu)) {
			field = "ASU";
			goto bad;
		}
		if (ff_u64(&f[F_LBA], &lba)) {
			field = "LBA";
			goto bad;
		}
		if (ff_u64(&f[F_SIZE], &size) || size > UINT32_MAX) {
			field = "Size";
			why = "not a number of bytes below 4 GiB";
			goto bad;
		}
		if ((op = op_of(&f[F_OP])) < 0) {
			field = "Opcode";
			why = "not r or w";
			goto bad;
		}
		if (ff_decimal_scaled(&f[F_TS], 1000000000ull, &ts)) {
			field = "Timestamp";
			why = "not seconds";
			goto bad;
		}
		if ((d = ff_device_num(cx, "asu", asu)) < 0)
			return d;
		rec->dev = (uint16_t)d;
		rec->op = (uint8_t)op;
		rec->sector = lba;
		rec->bytes = (uint32_t)size;
		rec->issue_ns = ts;
		return 1;
bad:
		if ((rc = ff_bad(cx, field, "%s", why)))
			return rc;
	}
	return rc;
}

const struct ff_reader_ops ff_read_spc = {
	.name = "spc",
	.summary = "SPC ASCII (UMass Financial, WebSearch): ASU, 512-byte LBA, bytes, seconds",
	.detect = detect,
	.next = next,
};
