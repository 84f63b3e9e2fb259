/*
 * read_k5cloud.c — the FUJITSU K5 cloud block traces (SNIA IOTTA,
 * "K5cloud", 2018: dataset1..3, one file a virtual volume a day), whose
 * README defines each row as
 *
 *   ID,Timestamp,Type,Offset,Length
 *
 *   ID         the virtual storage volume id (unique within a dataset):
 *              one device each, "volN"
 *   Timestamp  seconds since the first I/O of all the logs, a decimal
 *   Type       'R' read, 'W' write
 *   Offset     bytes from the start of the volume
 *   Length     bytes
 *
 * The capture sat in the network between hypervisors and storage: the
 * time is the request's, no completion. An "ID,..." header line is
 * skipped.
 */
#include <string.h>

#include "foreign.h"
#include "line_table.h"

enum { F_ID, F_TS, F_TYPE, F_OFF, F_LEN, F_N };

static int detect(const char *path, const char *head, size_t len)
{
	char line[256];
	struct ff_field f[F_N + 1];
	uint64_t v;
	int n;

	(void)path;
	if ((n = ff_head_line(head, len, 0, line, sizeof(line))) < 0)
		return 0;
	if (ff_split(line, (size_t)n, ',', f, F_N + 1) != F_N)
		return 0;
	if (ff_field_is(&f[F_ID], "ID") && ff_field_is(&f[F_TS], "Timestamp") &&
	    ff_field_is(&f[F_TYPE], "Type"))
		return 90;
	if (ff_u64(&f[F_ID], &v) || ff_decimal_scaled(&f[F_TS], 1000000000ull, &v) ||
	    f[F_TYPE].len != 1 || (f[F_TYPE].p[0] != 'R' && f[F_TYPE].p[0] != 'W') ||
	    ff_u64(&f[F_OFF], &v) || ff_u64(&f[F_LEN], &v))
		return 0;
	return 75;
}

static int is_header(struct ff_ctx *cx, const struct ff_field *f, size_t n)
{
	(void)n;
	return ff_line_no(cx) == 1 && ff_field_is(&f[F_ID], "ID");
}

static int build(struct ff_ctx *cx, const struct ff_row *row, struct bpt_record *rec)
{
	const uint64_t *v = row->v;

	(void)cx;
	rec->op = (uint8_t)v[F_TYPE];
	rec->sector = v[F_OFF] / 512;
	rec->bytes = (uint32_t)v[F_LEN];
	rec->issue_ns = v[F_TS];
	return 0;
}

static int end_ok(uint64_t len, const uint64_t *vals)
{
	return BPT_SECTOR_END_OK(vals[F_OFF] / 512, len);
}

/* in field order: cols[i] is field i */
static const struct ff_column cols[F_N] = {
	{ "ID", F_ID, FF_COL_U64, .why = "not a volume number" },
	{ "Timestamp", F_TS, FF_COL_SECONDS, .why = "not decimal seconds" },
	{ "Type", F_TYPE, FF_COL_OP, .letters = "RW", .why = "not R or W" },
	{ "Offset", F_OFF, FF_COL_U64, .multiple = 512, .why = "not a multiple of 512 bytes" },
	{ "Length", F_LEN, FF_COL_U64, .max = UINT32_MAX, .check = end_ok,
	  .why = "not a number of bytes below 4 GiB ending before 2^64" },
};

static const struct ff_line_table table = {
	.sep = ',',
	.split = F_N + 1,
	.min_fields = F_N,
	.max_fields = F_N,
	.shape_why = "not ID,Timestamp,Type,Offset,Length",
	.cols = cols,
	.ncols = F_N,
	.skip = is_header,
	.dev_prefix = "vol",
	.dev_col = F_ID,
	.build = build,
};

static int next(void *state, struct ff_ctx *cx, struct bpt_record *rec)
{
	(void)state;
	return ff_table_next(&table, cx, rec);
}

const struct ff_reader_ops ff_read_k5cloud = {
	.name = "k5cloud",
	.summary = "FUJITSU K5 cloud (SNIA): volume, decimal s, R/W, bytes, bytes",
	.detect = detect,
	.next = next,
};
