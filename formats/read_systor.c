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
#include <string.h>

#include "foreign.h"
#include "line_table.h"

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

/* the header line (also where files were joined) */
static int is_header(struct ff_ctx *cx, const struct ff_field *f, size_t n)
{
	(void)cx;
	(void)n;
	return ff_field_is(&f[F_TS], "Timestamp");
}

/* the completion time Timestamp + Response must fit */
static int response_fits(uint64_t resp, const uint64_t *v)
{
	return resp <= UINT64_MAX - v[F_TS];
}

static int build(struct ff_ctx *cx, const struct ff_row *row, struct bpt_record *rec)
{
	const uint64_t *v = row->v;

	(void)cx;
	rec->op = (uint8_t)v[F_TYPE];
	rec->sector = v[F_OFF] / 512;
	rec->bytes = (uint32_t)v[F_SIZE];
	rec->issue_ns = v[F_TS];
	rec->complete_ns = v[F_TS] + v[F_RESP];
	rec->completion = BPT_COMPLETION_SEEN;
	return 0;
}

/* in field order: cols[i] is field i */
static const struct ff_column cols[F_N] = {
	{ "Timestamp", F_TS, FF_COL_SECONDS, .why = "not seconds" },
	{ "Response", F_RESP, FF_COL_SECONDS, .check = response_fits, .why = "not seconds" },
	{ "IOType", F_TYPE, FF_COL_OP, .letters = "RW", .why = "not R or W" },
	{ "LUN", F_LUN, FF_COL_U64, .why = "not a number" },
	{ "Offset", F_OFF, FF_COL_U64, .multiple = 512, .why = "not a multiple of 512 bytes" },
	{ "Size", F_SIZE, FF_COL_U64, .max = UINT32_MAX, .why = "not a number of bytes below 4 GiB" },
};

static const struct ff_line_table table = {
	.sep = ',',
	.split = F_N + 1,
	.min_fields = F_N,
	.max_fields = F_N,
	.shape_why = "not Timestamp,Response,IOType,LUN,Offset,Size",
	.cols = cols,
	.ncols = F_N,
	.skip = is_header,
	.dev_prefix = "lun",
	.dev_col = F_LUN,
	.build = build,
};

static int next(void *state, struct ff_ctx *cx, struct bpt_record *rec)
{
	(void)state;
	return ff_table_next(&table, cx, rec);
}

const struct ff_reader_ops ff_read_systor = {
	.name = "systor17",
	.summary = "SNIA SYSTOR'17 VDI CSV: Unix decimal seconds, response, R/W, LUN, bytes",
	.flags = FF_WALL_CLOCK,
	.detect = detect,
	.next = next,
};
