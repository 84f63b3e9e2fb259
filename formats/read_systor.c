/*
 * read_systor.c — the SNIA IOTTA "SYSTOR '17" enterprise VDI traces (Lee
 * et al., "Understanding storage traffic characteristics on enterprise
 * virtual desktop infrastructure", SYSTOR '17): CSV with a header line
 *
 *   Timestamp,Response,IOType,LUN,Offset,Size
 *
 *   Timestamp  when the I/O arrived, Unix time in decimal seconds
 *              (µs resolution)
 *   Response   its response time, decimal seconds
 *   IOType     "R" or "W"
 *   LUN        the logical unit: one device each, "lunN"
 *   Offset     bytes
 *   Size       bytes
 *
 * The rows are not sorted by time: the reorder window sorts them (and a
 * file out of order by more than the window fails, naming the line).
 */
#include <stdio.h>
#include <string.h>

#include "foreign.h"

enum { F_TS, F_RESP, F_TYPE, F_LUN, F_OFF, F_SIZE, F_N };

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
	if (ff_field_is(&f[F_TS], "Timestamp") && ff_field_is(&f[F_RESP], "Response"))
		return 95;
	if (ff_decimal_scaled(&f[F_TS], 1000000000ull, &v) ||
	    ff_decimal_scaled(&f[F_RESP], 1000000000ull, &v) || f[F_TYPE].len != 1 ||
	    (f[F_TYPE].p[0] != 'R' && f[F_TYPE].p[0] != 'W') || ff_u64(&f[F_LUN], &v) ||
	    ff_u64(&f[F_OFF], &v) || ff_u64(&f[F_SIZE], &v))
		return 0;
	return 60;
}

static int next(void *state, struct ff_ctx *cx, struct bpt_record *rec)
{
	struct ff_field f[F_N + 1];
	char *line;
	size_t len;
	int rc;

	(void)state;
	while ((rc = ff_line(cx, &line, &len)) == 1) {
		const char *field = "line", *why = "not Timestamp,Response,IOType,LUN,Offset,Size";
		uint64_t ts, resp, lun, off, size;
		int d;

		if (!len)
			continue;
		if (ff_split(line, len, ',', f, F_N + 1) != F_N)
			goto bad;
		if (ff_field_is(&f[F_TS], "Timestamp"))
			continue; /* the header line (also where files were joined) */
		why = "not seconds";
		if (ff_decimal_scaled(&f[F_TS], 1000000000ull, &ts)) {
			field = "Timestamp";
			goto bad;
		}
		if (ff_decimal_scaled(&f[F_RESP], 1000000000ull, &resp) || resp > UINT64_MAX - ts) {
			field = "Response";
			goto bad;
		}
		if (f[F_TYPE].len != 1 || (f[F_TYPE].p[0] != 'R' && f[F_TYPE].p[0] != 'W')) {
			field = "IOType";
			why = "not R or W";
			goto bad;
		}
		why = "not a number";
		if (ff_u64(&f[F_LUN], &lun)) {
			field = "LUN";
			goto bad;
		}
		if (ff_u64(&f[F_OFF], &off) || off % 512) {
			field = "Offset";
			why = "not a multiple of 512 bytes";
			goto bad;
		}
		if (ff_u64(&f[F_SIZE], &size) || size > UINT32_MAX) {
			field = "Size";
			why = "not a number of bytes below 4 GiB";
			goto bad;
		}
		if ((d = ff_device_num(cx, "lun", lun)) < 0)
			return d;
		rec->dev = (uint16_t)d;
		rec->op = f[F_TYPE].p[0] == 'W' ? BPT_OP_WRITE : BPT_OP_READ;
		rec->sector = off / 512;
		rec->bytes = (uint32_t)size;
		rec->issue_ns = ts;
		rec->complete_ns = ts + resp;
		rec->completion = BPT_COMPLETION_SEEN;
		return 1;
bad:
		if ((rc = ff_bad(cx, field, "%s", why)))
			return rc;
	}
	return rc;
}

const struct ff_reader_ops ff_read_systor = {
	.name = "systor17",
	.summary = "SNIA SYSTOR'17 VDI CSV: Unix decimal seconds, response, R/W, LUN, bytes",
	.flags = FF_WALL_CLOCK,
	.detect = detect,
	.next = next,
};
