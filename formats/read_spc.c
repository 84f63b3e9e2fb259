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
#include <string.h>

#include "foreign.h"
#include "line_table.h"

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

static int build(struct ff_ctx *cx, const struct ff_row *row, struct bpt_record *rec)
{
	const uint64_t *v = row->v;

	(void)cx;
	rec->op = (uint8_t)v[F_OP];
	rec->sector = v[F_LBA];
	rec->bytes = (uint32_t)v[F_SIZE];
	rec->issue_ns = v[F_TS];
	return 0;
}

/* in field order: cols[i] is field i */
static const struct ff_column cols[F_MIN] = {
	{ "ASU", F_ASU, FF_COL_U64, .why = "not a number" },
	{ "LBA", F_LBA, FF_COL_U64, .why = "not a number" },
	{ "Size", F_SIZE, FF_COL_U64, .max = UINT32_MAX, .why = "not a number of bytes below 4 GiB" },
	{ "Opcode", F_OP, FF_COL_OP_ANYCASE, .letters = "rw", .why = "not r or w" },
	{ "Timestamp", F_TS, FF_COL_SECONDS, .why = "not seconds" },
};

/* fields after the fifth (the optional ones) are left in the last */
static const struct ff_line_table table = {
	.sep = ',',
	.split = F_MIN + 1,
	.min_fields = F_MIN,
	.max_fields = F_MIN + 1,
	.shape_why = "not ASU,LBA,Size,Opcode,Timestamp",
	.hash_comments = 1,
	.cols = cols,
	.ncols = F_MIN,
	.dev_prefix = "asu",
	.dev_col = F_ASU,
	.build = build,
};

static int next(void *state, struct ff_ctx *cx, struct bpt_record *rec)
{
	(void)state;
	return ff_table_next(&table, cx, rec);
}

const struct ff_reader_ops ff_read_spc = {
	.name = "spc",
	.summary = "SPC ASCII (UMass Financial, WebSearch): ASU, 512-byte LBA, bytes, seconds",
	.detect = detect,
	.next = next,
};
