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
#include <string.h>

#include "foreign.h"
#include "line_table.h"

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

static int is_header(struct ff_ctx *cx, const struct ff_field *f, size_t n)
{
	(void)n;
	return ff_line_no(cx) == 1 && ff_field_is(&f[F_DEV], "device_id");
}

static int build(struct ff_ctx *cx, const struct ff_row *row, struct bpt_record *rec)
{
	const uint64_t *v = row->v;

	(void)cx;
	rec->op = (uint8_t)v[F_OP];
	rec->sector = v[F_OFF] / 512;
	rec->bytes = (uint32_t)v[F_LEN];
	rec->issue_ns = v[F_TS] * 1000;
	return 0;
}

/* in field order: cols[i] is field i */
static const struct ff_column cols[F_N] = {
	{ "device_id", F_DEV, FF_COL_U64, .why = "not a number" },
	{ "opcode", F_OP, FF_COL_OP, .letters = "RW", .why = "not R or W" },
	{ "offset", F_OFF, FF_COL_U64, .multiple = 512, .why = "not a multiple of 512 bytes" },
	{ "length", F_LEN, FF_COL_U64, .max = UINT32_MAX, .why = "not a number of bytes below 4 GiB" },
	{ "timestamp", F_TS, FF_COL_U64, .max = UINT64_MAX / 1000, .why = "not microseconds" },
};

static const struct ff_line_table table = {
	.sep = ',',
	.split = F_N + 1,
	.min_fields = F_N,
	.max_fields = F_N,
	.shape_why = "not device_id,opcode,offset,length,timestamp",
	.cols = cols,
	.ncols = F_N,
	.skip = is_header,
	.dev_prefix = "dev",
	.dev_col = F_DEV,
	.build = build,
};

static int next(void *state, struct ff_ctx *cx, struct bpt_record *rec)
{
	(void)state;
	return ff_table_next(&table, cx, rec);
}

const struct ff_reader_ops ff_read_alibaba = {
	.name = "alibaba",
	.summary = "Alibaba block traces (2020): disk id, R/W, bytes, Unix µs",
	.flags = FF_WALL_CLOCK,
	.detect = detect,
	.next = next,
};
