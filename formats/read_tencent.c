/*
 * read_tencent.c — Tencent Cloud Block Storage traces (SNIA IOTTA,
 * "Tencent CBS", Zhang et al., ATC '20 "OSCA"), whose README defines
 *
 *   Timestamp,Offset,Size,IOType,VolumeID
 *
 *   Timestamp  when the I/O was issued, Unix time in whole seconds
 *   Offset     512-byte sectors from the start of the volume
 *   Size       512-byte sectors
 *   IOType     0 read, 1 write
 *   VolumeID   the cloud virtual volume: one device each, "volN"
 *
 * One-second timestamps: the I/Os of one second keep their file order.
 * A file holds thousands of volumes and a trace at most 64 devices:
 * pick with --device volN.
 */
#include <stdio.h>
#include <string.h>

#include "foreign.h"

enum { F_TS, F_OFF, F_SIZE, F_TYPE, F_VOL, F_N };

static int detect(const char *path, const char *head, size_t len)
{
	char line[256];
	struct ff_field f[F_N + 1];
	uint64_t v, ts;

	(void)path;
	if (ff_head_line(head, len, 0, line, sizeof(line)) < 0)
		return 0;
	if (ff_split(line, strlen(line), ',', f, F_N + 1) != F_N)
		return 0;
	if (ff_u64(&f[F_TS], &ts) || ff_u64(&f[F_OFF], &v) || ff_u64(&f[F_SIZE], &v) ||
	    ff_u64(&f[F_TYPE], &v) || v > 1 || ff_u64(&f[F_VOL], &v))
		return 0;
	/* Unix seconds: ten digits from 2001 to 2286 */
	return f[F_TS].len == 10 ? 80 : 40;
}

static int next(void *state, struct ff_ctx *cx, struct bpt_record *rec)
{
	struct ff_field f[F_N + 1];
	char *line;
	size_t len;
	int rc;

	(void)state;
	while ((rc = ff_line(cx, &line, &len)) == 1) {
		const char *field = "line", *why = "not Timestamp,Offset,Size,IOType,VolumeID";
		uint64_t ts, off, size, type, vol;
		int d;

		if (!len)
			continue;
		if (ff_split(line, len, ',', f, F_N + 1) != F_N)
			goto bad;
		why = "not a number";
		if (ff_u64(&f[F_TS], &ts) || ts > UINT64_MAX / 1000000000ull) {
			field = "Timestamp";
			goto bad;
		}
		if (ff_u64(&f[F_OFF], &off)) {
			field = "Offset";
			goto bad;
		}
		if (ff_u64(&f[F_SIZE], &size) || size > UINT32_MAX / 512) {
			field = "Size";
			why = "not a number of sectors below 4 GiB";
			goto bad;
		}
		if (ff_u64(&f[F_TYPE], &type) || type > 1) {
			field = "IOType";
			why = "not 0 (read) or 1 (write)";
			goto bad;
		}
		if (ff_u64(&f[F_VOL], &vol)) {
			field = "VolumeID";
			goto bad;
		}
		if ((d = ff_device_num(cx, "vol", vol)) < 0)
			return d;
		rec->dev = (uint16_t)d;
		rec->op = type ? BPT_OP_WRITE : BPT_OP_READ;
		rec->sector = off;
		rec->bytes = (uint32_t)(size * 512);
		rec->issue_ns = ts * 1000000000ull;
		return 1;
bad:
		if ((rc = ff_bad(cx, field, "%s", why)))
			return rc;
	}
	return rc;
}

const struct ff_reader_ops ff_read_tencent = {
	.name = "tencent",
	.summary = "Tencent CBS (SNIA): Unix seconds, 512-byte sectors, 0 read/1 write, volume",
	.flags = FF_WALL_CLOCK,
	.detect = detect,
	.next = next,
};
