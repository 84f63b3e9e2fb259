/*
 * read_disksim.c — the ASCII block traces of the SSD simulator MQSim
 * and of the disk simulator DiskSim, one I/O a line, fields separated
 * by blanks:
 *
 *   TIME DEVICE LBA SIZE TYPE
 *
 * `mqsim`: MQSim's "ASCII disk trace" (github.com/CMU-SAFARI/MQSim,
 * README "Trace-based workloads"; IO_Flow_Trace_Based.cpp): TIME the
 * request's arrival in ns (MQSim's default <Time_Unit> NANOSECOND; a
 * workload file may say MICROSECOND or PICOSECOND, which the trace does
 * not record), DEVICE the device number, LBA the first 512-byte sector,
 * SIZE in 512-byte sectors, TYPE 0 write, 1 read.
 *
 * `disksim`: DiskSim 4.0's default "ascii" input trace (The DiskSim
 * Simulation Environment Version 4.0 Reference Manual, CMU-PDL-08-101,
 * "Input trace formats"): TIME the arrival in milliseconds, a decimal
 * ("1.234567"), DEVICE the device number, LBA the first block and SIZE
 * in blocks, blocks of 512 bytes, TYPE the request flags, of which bit
 * 0 set means a read (other bits are DiskSim's own and ignored).
 *
 * The two differ only in TIME's unit: a line whose TIME has a decimal
 * point is detected as DiskSim, one of five whole numbers as MQSim;
 * --from picks either. No completion time. Device N is named "devN".
 */
#include <string.h>

#include "foreign.h"
#include "line_table.h"

enum { F_TIME, F_DEV, F_LBA, F_SIZE, F_TYPE, F_N };

/* 0: not five blank-separated numbers; 1: whole numbers, type 0/1
 * (MQSim); 2: the first has a decimal point (DiskSim). */
static int shape(const char *head, size_t len)
{
	char line[256];
	struct ff_field f[F_N + 1];
	uint64_t v;
	int n;

	if ((n = ff_head_line(head, len, 0, line, sizeof(line))) < 0)
		return 0;
	if (ff_split(line, (size_t)n, ' ', f, F_N + 1) != F_N)
		return 0;
	for (int i = F_DEV; i < F_N; i++)
		if (ff_u64(&f[i], &v))
			return 0;
	if (!ff_u64(&f[F_TIME], &v))
		return !ff_u64(&f[F_TYPE], &v) && v <= 1 ? 1 : 0;
	if (memchr(f[F_TIME].p, '.', f[F_TIME].len) && !ff_decimal_scaled(&f[F_TIME], 1000000000, &v))
		return 2;
	return 0;
}

static int detect_mqsim(const char *path, const char *head, size_t len)
{
	(void)path;
	return shape(head, len) == 1 ? 40 : 0;
}

static int detect_disksim(const char *path, const char *head, size_t len)
{
	(void)path;
	return shape(head, len) == 2 ? 40 : 0;
}

static int build_mqsim(struct ff_ctx *cx, const struct ff_row *row, struct bpt_record *rec)
{
	const uint64_t *v = row->v;

	(void)cx;
	rec->op = v[F_TYPE] ? BPT_OP_READ : BPT_OP_WRITE;
	rec->sector = v[F_LBA];
	rec->bytes = (uint32_t)(v[F_SIZE] * 512);
	rec->issue_ns = v[F_TIME];
	return 0;
}

static int build_disksim(struct ff_ctx *cx, const struct ff_row *row, struct bpt_record *rec)
{
	const uint64_t *v = row->v;

	(void)cx;
	rec->op = v[F_TYPE] & 1 ? BPT_OP_READ : BPT_OP_WRITE;
	rec->sector = v[F_LBA];
	rec->bytes = (uint32_t)(v[F_SIZE] * 512);
	/* TIME is ms: the seconds column scaled it by 1e9, 1000 too many
	 * (the digits it dropped past 1e-9 are below 1 ns of ms) */
	rec->issue_ns = v[F_TIME] / 1000;
	return 0;
}

/* The LBA's last byte must stay below 2^64 (BPT_SECTOR_END_OK). */
static int sector_end_ok(uint64_t size, const uint64_t *vals)
{
	return BPT_SECTOR_END_OK(vals[F_LBA], size * 512);
}

static const struct ff_column mqsim_cols[F_N] = {
	{ "time", F_TIME, FF_COL_U64, .why = "not whole nanoseconds" },
	{ "device", F_DEV, FF_COL_U64, .why = "not a device number" },
	{ "lba", F_LBA, FF_COL_U64, .why = "not a sector number" },
	{ "size", F_SIZE, FF_COL_U64, .max = UINT32_MAX / 512, .check = sector_end_ok,
	  .why = "not a number of sectors below 4 GiB ending before 2^64 bytes" },
	{ "type", F_TYPE, FF_COL_U64, .max = 1, .why = "not 0 (write) or 1 (read)" },
};

/* DiskSim: TIME in ms read as seconds (x 1e9), which build() divides by
 * 1000: exact to the ns, up to 1.8e10 ms (208 days). */
static const struct ff_column disksim_cols[F_N] = {
	{ "time", F_TIME, FF_COL_SECONDS, .why = "not decimal milliseconds below 1.8e10" },
	{ "device", F_DEV, FF_COL_U64, .why = "not a device number" },
	{ "lba", F_LBA, FF_COL_U64, .why = "not a block number" },
	{ "size", F_SIZE, FF_COL_U64, .max = UINT32_MAX / 512, .check = sector_end_ok,
	  .why = "not a number of blocks below 4 GiB ending before 2^64 bytes" },
	{ "flags", F_TYPE, FF_COL_U64, .why = "not a number (bit 0: read)" },
};

static const struct ff_line_table mqsim_table = {
	.sep = ' ',
	.split = F_N + 1,
	.min_fields = F_N,
	.max_fields = F_N,
	.shape_why = "not TIME DEVICE LBA SIZE TYPE",
	.hash_comments = 1,
	.cols = mqsim_cols,
	.ncols = F_N,
	.dev_prefix = "dev",
	.dev_col = F_DEV,
	.build = build_mqsim,
};

static const struct ff_line_table disksim_table = {
	.sep = ' ',
	.split = F_N + 1,
	.min_fields = F_N,
	.max_fields = F_N,
	.shape_why = "not TIME DEVICE BLOCK SIZE FLAGS",
	.hash_comments = 1,
	.cols = disksim_cols,
	.ncols = F_N,
	.dev_prefix = "dev",
	.dev_col = F_DEV,
	.build = build_disksim,
};

static int next_mqsim(void *state, struct ff_ctx *cx, struct bpt_record *rec)
{
	(void)state;
	return ff_table_next(&mqsim_table, cx, rec);
}

static int next_disksim(void *state, struct ff_ctx *cx, struct bpt_record *rec)
{
	(void)state;
	return ff_table_next(&disksim_table, cx, rec);
}

const struct ff_reader_ops ff_read_mqsim = {
	.name = "mqsim",
	.summary = "MQSim ASCII (time dev lba size type): ns, 512-byte sectors, 0 write/1 read",
	.detect = detect_mqsim,
	.next = next_mqsim,
};

const struct ff_reader_ops ff_read_disksim = {
	.name = "disksim",
	.summary = "DiskSim ASCII (time dev block size flags): decimal ms, 512-byte blocks, bit 0 read",
	.detect = detect_disksim,
	.next = next_disksim,
};
