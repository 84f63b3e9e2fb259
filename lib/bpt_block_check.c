/*
 * bpt_block_check.c — the range checks of decoded records: a device the
 * header lists, a known op, flag bits, completion and internal flag, a
 * string id the table holds, 32-bit fields that fit 32 bits.
 *
 * Most blocks need none of them record by record: a column's coding
 * bounds its values (a dictionary's largest entry, the planes' base
 * plus their widest value, bpt_col_bound), and a column that stays
 * inside its range by that bound is checked once, when the block is
 * loaded. Only the others are checked value by value, chunk by chunk,
 * and a failure is then explained record by record
 * (bpt_block_bad_record), so a damaged file gets the same error either
 * way. The times, sectors and the file and cause columns, which depend
 * on each other, are checked in bpt_block.c and bpt_file.c.
 */
#include <errno.h>

#include "bpt_reader_int.h"

#define BAD(off, ...) bpt_err(err, -EBADMSG, r->name, 1, (off), __VA_ARGS__)

/* flags are valid below BPT_F__ALL + 1 only while they are the low bits */
_Static_assert((BPT_F__ALL & (BPT_F__ALL + 1)) == 0, "bpt_flag bits are not the low bits");

/* The columns with a range, checked in this order. */
static const uint8_t ranged[] = {
	COL_DEV, COL_OP, COL_FLAGS, COL_COMM, COL_COMPLETION, COL_INTERNAL,
	COL_BYTES, COL_PID, COL_MEMBER, COL_ERROR,
};

/* A column's values must be below this. The string table only grows, so
 * a string id valid when the block was loaded stays valid. */
static uint64_t limit(const struct bpt_reader *r, int col)
{
	switch (col) {
	case COL_DEV:
		return r->hdr.ndevices;
	case COL_OP:
		return BPT_OP__COUNT;
	case COL_FLAGS:
		return BPT_F__ALL + 1ull;
	case COL_COMM:
		return r->strs.n;
	case COL_COMPLETION:
		return BPT_COMPLETION__COUNT;
	case COL_INTERNAL:
		return 2;
	default:
		return 1ull << 32; /* bytes, pid, member, error as stored (zigzag) */
	}
}

void bpt_block_check_prepare(const struct bpt_reader *r, struct bpt_bcur *c)
{
	c->nchk = 0;
	for (size_t k = 0; k < sizeof(ranged); k++) {
		int col = ranged[k];
		uint64_t bound = c->have[col] ? bpt_col_bound(&c->cols[col]) : 0;

		if (bound >= limit(r, col))
			c->chk[c->nchk++] = (uint8_t)col;
	}
}

int bpt_block_chunk_out_of_range(const struct bpt_reader *r, const struct bpt_bcur *c,
				 uint32_t m)
{
	int bad = 0;

	for (unsigned k = 0; k < c->nchk; k++) {
		const uint64_t *v = c->vals[c->chk[k]];
		uint64_t lim = limit(r, c->chk[k]);

		for (uint32_t j = 0; j < m; j++)
			bad |= v[j] >= lim;
	}
	return bad;
}

/* The error naming the first record whose fields are out of range. */
int bpt_block_bad_record(struct bpt_reader *r, struct bpt_bcur *c, uint32_t i0, uint32_t m,
				 struct bpt_error *err)
{
	uint64_t *issue = c->vals[COL_ISSUE], *comp = c->vals[COL_COMPLETE];
	uint64_t *sector = c->vals[COL_SECTOR], *bytes = c->vals[COL_BYTES];

	for (uint32_t j = 0; j < m; j++) {
		if (issue[j] < c->min_issue || issue[j] > c->max_issue ||
		    comp[j] > c->max_complete)
			return BAD(c->blk_off, "block %u: record %u: time outside the block's range",
				   c->seq - 1, i0 + j);
		if (c->vals[COL_DEV][j] >= r->hdr.ndevices)
			return BAD(c->blk_off, "block %u: record %u: device %llu, trace has %u",
				   c->seq - 1, i0 + j,
				   (unsigned long long)c->vals[COL_DEV][j], r->hdr.ndevices);
		if (c->vals[COL_OP][j] >= BPT_OP__COUNT ||
		    (c->vals[COL_FLAGS][j] & ~(uint64_t)BPT_F__ALL))
			return BAD(c->blk_off, "block %u: record %u: bad op or flags",
				   c->seq - 1, i0 + j);
		if (c->vals[COL_COMM][j] >= r->strs.n)
			return BAD(c->blk_off, "block %u: record %u: unknown string id %llu",
				   c->seq - 1, i0 + j,
				   (unsigned long long)c->vals[COL_COMM][j]);
		if (!BPT_SECTOR_END_OK(sector[j], bytes[j]))
			return BAD(c->blk_off, "block %u: record %u: sector %llu + %llu bytes "
				   "ends past 2^64 bytes", c->seq - 1, i0 + j,
				   (unsigned long long)sector[j],
				   (unsigned long long)bytes[j]);
		if (c->vals[COL_COMPLETION][j] >= BPT_COMPLETION__COUNT)
			return BAD(c->blk_off, "block %u: record %u: bad completion %llu",
				   c->seq - 1, i0 + j,
				   (unsigned long long)c->vals[COL_COMPLETION][j]);
		if (c->vals[COL_INTERNAL][j] > 1)
			return BAD(c->blk_off, "block %u: record %u: bad internal flag %llu",
				   c->seq - 1, i0 + j,
				   (unsigned long long)c->vals[COL_INTERNAL][j]);
		if (bpt_cause_bad(c, j, r->strs.n))
			return BAD(c->blk_off, "block %u: record %u: bad cause (pid %llu, "
				   "string %llu)", c->seq - 1, i0 + j,
				   (unsigned long long)c->vals[COL_CAUSE_PID][j],
				   (unsigned long long)c->vals[COL_CAUSE_COMM][j]);
		if (bpt_file_bad(c, j))
			return BAD(c->blk_off, "block %u: record %u: bad file columns "
				   "(class %llu, %llu of %llu bytes)", c->seq - 1, i0 + j,
				   (unsigned long long)c->vals[COL_FILE_CLASS][j],
				   (unsigned long long)c->vals[COL_FILE_BYTES][j],
				   (unsigned long long)bytes[j]);
	}
	return BAD(c->blk_off, "block %u: a 32-bit field out of range", c->seq - 1);
}
