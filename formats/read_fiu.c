/*
 * read_fiu.c — the FIU SRCMap / I/O deduplication block traces (SNIA
 * IOTTA; Verma et al., "SRCMap", EuroSys '10; Koller and Rangaswami,
 * "I/O Deduplication", FAST '10: homes, mail, web-vm), whose README
 * defines each line as, separated by spaces:
 *
 *   ts pid process lba size op major minor md5
 *
 *   ts       ns (the machine's clock)
 *   pid      the submitting process; process its name, which may hold
 *            spaces (the fields are taken from both ends)
 *   lba      512-byte blocks
 *   size     512-byte blocks
 *   op       "W" or "R"
 *   major, minor  the device: one device each, named "MAJ,MIN"
 *   md5      content digest(s), ignored
 *
 * No completion time.
 */
#include <stdio.h>
#include <string.h>

#include "foreign.h"
#include "line_table.h"

#define NF_MAX 64

/* the columns parsed (the values build() receives) */
enum { C_TS, C_PID, C_LBA, C_SIZE, C_OP, C_MAJOR, C_MINOR, C_N };

/* Fields of a line from both ends: f[0..n); the process name is
 * f[2] .. f[n-7]. 0 or -1 when there are fewer than 9. */
static int shape(size_t n)
{
	return n >= 9 ? 0 : -1;
}

static int op_of(const struct ff_field *f)
{
	if (f->len != 1)
		return -1;
	return (f->p[0] | 0x20) == 'r' ? BPT_OP_READ : (f->p[0] | 0x20) == 'w' ? BPT_OP_WRITE : -1;
}

static int detect(const char *path, const char *head, size_t len)
{
	char line[1024];
	struct ff_field f[NF_MAX];
	uint64_t v;
	size_t n;

	(void)path;
	if (ff_head_line(head, len, 0, line, sizeof(line)) < 0)
		return 0;
	n = ff_split(line, strlen(line), ' ', f, NF_MAX);
	if (shape(n) || ff_u64(&f[0], &v) || ff_u64(&f[1], &v) || ff_u64(&f[n - 6], &v) ||
	    ff_u64(&f[n - 5], &v) || op_of(&f[n - 4]) < 0 || ff_u64(&f[n - 3], &v) ||
	    ff_u64(&f[n - 2], &v) || f[n - 1].len < 32 || ff_hex(&(struct ff_field){ f[n - 1].p, 16 }, &v))
		return 0;
	return 80;
}

/* the process name runs from field 2 to field n-7, spaces kept; the
 * device is named "MAJ,MIN" */
static int build(struct ff_ctx *cx, const struct ff_row *row, struct bpt_record *rec)
{
	const uint64_t *v = row->v;
	const struct ff_field *f = row->f;
	size_t n = row->n;
	const char *c0 = f[2].p, *c1 = f[n - 7].p + f[n - 7].len;
	char name[48];
	int rc, d;

	if ((rc = ff_intern(cx, c0, (size_t)(c1 - c0), &rec->comm_id)))
		return rc;
	snprintf(name, sizeof(name), "%llu,%llu", (unsigned long long)v[C_MAJOR],
		 (unsigned long long)v[C_MINOR]);
	if ((d = ff_device(cx, name, (uint32_t)v[C_MAJOR], (uint32_t)v[C_MINOR])) < 0)
		return d;
	rec->dev = (uint32_t)d;
	rec->op = (uint8_t)v[C_OP];
	rec->pid = (uint32_t)v[C_PID];
	rec->sector = v[C_LBA];
	rec->bytes = (uint32_t)(v[C_SIZE] * 512);
	rec->issue_ns = v[C_TS];
	return 0;
}

/* the fields from both ends (the process name between them) */
static const struct ff_column cols[C_N] = {
	{ "ts", 0, FF_COL_U64, .why = "not a number" },
	{ "pid", 1, FF_COL_U64, .max = UINT32_MAX, .why = "not a number" },
	{ "lba", -6, FF_COL_U64, .why = "not a number" },
	{ "size", -5, FF_COL_U64, .max = UINT32_MAX / 512, .why = "not a number of blocks below 4 GiB" },
	{ "op", -4, FF_COL_OP_ANYCASE, .letters = "rw", .why = "not W or R" },
	{ "major", -3, FF_COL_U64, .max = UINT32_MAX, .why = "not a number" },
	{ "minor", -2, FF_COL_U64, .max = UINT32_MAX, .why = "not a number" },
};

static const struct ff_line_table table = {
	.sep = ' ',
	.split = NF_MAX,
	.min_fields = 9,
	.max_fields = NF_MAX,
	.shape_why = "not 'ts pid process lba size op major minor md5'",
	.hash_comments = 1,
	.cols = cols,
	.ncols = C_N,
	.build = build,
};

static int next(void *state, struct ff_ctx *cx, struct bpt_record *rec)
{
	(void)state;
	return ff_table_next(&table, cx, rec);
}

const struct ff_reader_ops ff_read_fiu = {
	.name = "fiu",
	.summary = "FIU SRCMap/dedup traces: ns, pid, process, 512-byte lba and size, W/R, maj min",
	.detect = detect,
	.next = next,
};
