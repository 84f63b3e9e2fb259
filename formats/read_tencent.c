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
#include <string.h>

#include "foreign.h"
#include "line_table.h"

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

static int build(struct ff_ctx *cx, const struct ff_row *row, struct bpt_record *rec)
{
	const uint64_t *v = row->v;

	(void)cx;
	rec->op = v[F_TYPE] ? BPT_OP_WRITE : BPT_OP_READ;
	rec->sector = v[F_OFF];
	rec->bytes = (uint32_t)(v[F_SIZE] * 512);
	rec->issue_ns = v[F_TS] * 1000000000ull;
	return 0;
}

/* in field order: cols[i] is field i */
static const struct ff_column cols[F_N] = {
	{ "Timestamp", F_TS, FF_COL_U64, .max = UINT64_MAX / 1000000000ull, .why = "not a number" },
	{ "Offset", F_OFF, FF_COL_U64, .why = "not a number" },
	{ "Size", F_SIZE, FF_COL_U64, .max = UINT32_MAX / 512,
	  .why = "not a number of sectors below 4 GiB" },
	{ "IOType", F_TYPE, FF_COL_U64, .max = 1, .why = "not 0 (read) or 1 (write)" },
	{ "VolumeID", F_VOL, FF_COL_U64, .why = "not a number" },
};

static const struct ff_line_table table = {
	.sep = ',',
	.split = F_N + 1,
	.min_fields = F_N,
	.max_fields = F_N,
	.shape_why = "not Timestamp,Offset,Size,IOType,VolumeID",
	.cols = cols,
	.ncols = F_N,
	.dev_prefix = "vol",
	.dev_col = F_VOL,
	.build = build,
};

static int next(void *state, struct ff_ctx *cx, struct bpt_record *rec)
{
	(void)state;
	return ff_table_next(&table, cx, rec);
}

const struct ff_reader_ops ff_read_tencent = {
	.name = "tencent",
	.summary = "Tencent CBS (SNIA): Unix seconds, 512-byte sectors, 0 read/1 write, volume",
	.flags = FF_WALL_CLOCK,
	.detect = detect,
	.next = next,
};
