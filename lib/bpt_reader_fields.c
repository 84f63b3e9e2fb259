/*
 * bpt_reader_fields.c — reading column by column (bpt_reader_read_fields,
 * bpt.h): the Python module's path into numpy. A block cursor keeps a
 * chunk of decoded records as columns (vals[COL_*][], bpt_reader_int.h);
 * while such rows are waiting and every record of the block passes the
 * filters (its issue times inside the issue range, none before a seek's
 * time; not a foreign source), they are copied out a column at a time. Everything else — loading and checking a block, decoding
 * its next chunk, the filters, errors — goes through bpt_reader_next()
 * for one record, so both paths return the same records.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "bpt_reader_int.h"

/* A field: its cursor column, width, and place in struct bpt_record. */
struct field {
	uint8_t col, size;
	uint16_t off;
};

#define F(name, col, member) [BPT_FIELD_##name] = { col, sizeof(((struct bpt_record *)0)->member), \
						    offsetof(struct bpt_record, member) }
static const struct field fields[BPT_FIELD__COUNT] = {
	F(QUEUE_NS, COL_QUEUE, queue_ns),
	F(ISSUE_NS, COL_ISSUE, issue_ns),
	F(COMPLETE_NS, COL_COMPLETE, complete_ns),
	F(SECTOR, COL_SECTOR, sector),
	F(CGROUP_ID, COL_CGROUP, cgroup_id),
	F(BYTES, COL_BYTES, bytes),
	F(PID, COL_PID, pid),
	F(COMM_ID, COL_COMM, comm_id),
	F(ERROR, COL_ERROR, error),
	F(DEV, COL_DEV, dev),
	F(OP, COL_OP, op),
	F(FLAGS, COL_FLAGS, flags),
	F(MEMBER, COL_MEMBER, member),
	F(SCHED_NS, COL_SCHED, sched_ns),
	F(SOURCE_INDEX, COL_SOURCE, source_index),
	F(COMPLETION, COL_COMPLETION, completion),
	F(INTERNAL, COL_INTERNAL, internal),
	F(FILE_CLASS, COL_FILE_CLASS, file_class),
	F(FILE_DEV, COL_FILE_DEV, file_dev),
	F(FILE_BYTES, COL_FILE_BYTES, file_bytes),
	F(INODE, COL_INODE, inode),
	F(FILE_OFFSET, COL_FILE_OFF, file_offset),
	F(FILE2_DEV, COL_FILE2_DEV, file2_dev),
	F(FILE2_BYTES, COL_FILE2_BYTES, file2_bytes),
	F(INODE2, COL_INODE2, inode2),
	F(FILE2_OFFSET, COL_FILE2_OFF, file2_offset),
	F(CAUSE_PID, COL_CAUSE_PID, cause_pid),
	F(CAUSE_COMM_ID, COL_CAUSE_COMM, cause_comm_id),
	F(CAUSE_CGROUP, COL_CAUSE_CGROUP, cause_cgroup),
	F(CAUSE2_PID, COL_CAUSE2_PID, cause2_pid),
	F(CAUSE2_COMM_ID, COL_CAUSE2_COMM, cause2_comm_id),
	F(CAUSE2_CGROUP, COL_CAUSE2_CGROUP, cause2_cgroup),
};

unsigned bpt_field_size(unsigned field)
{
	return field < BPT_FIELD__COUNT ? fields[field].size : 0;
}

/* k decoded values from v into dst at row `at`, narrowed to `size` bytes
 * as bpt_block_record() narrows them (a plain cast). */
static void put_column(void *dst, size_t at, unsigned size, const uint64_t *v, uint32_t k)
{
	switch (size) {
	case 8:
		memcpy((uint64_t *)dst + at, v, (size_t)k * 8);
		break;
	case 4: {
		uint32_t *d = (uint32_t *)dst + at;
		for (uint32_t j = 0; j < k; j++)
			d[j] = (uint32_t)v[j];
		break;
	}
	default: {
		uint8_t *d = (uint8_t *)dst + at;
		for (uint32_t j = 0; j < k; j++)
			d[j] = (uint8_t)v[j];
		break;
	}
	}
}

/* Every record of the loaded block passes the filters next() applies:
 * the block's issue times (its header's bounds, which decoding checks)
 * lie inside the issue range and not before a seek's time. */
static int whole_block_passes(const struct bpt_reader *r, const struct bpt_bcur *c)
{
	return (!r->range_set || (r->range_lo <= c->min_issue && c->max_issue <= r->range_hi)) &&
	       (!r->seek_filter || c->min_issue >= r->seek_t);
}

int64_t bpt_reader_read_fields(struct bpt_reader *r, const struct bpt_field_out *out,
			       unsigned nout, size_t n, struct bpt_error *err)
{
	struct bpt_record rec;
	size_t got = 0;

	for (unsigned k = 0; k < nout; k++)
		if (out[k].field >= BPT_FIELD__COUNT || !out[k].data)
			return bpt_err(err, -EINVAL, r->name, 0, 0,
				       "read_fields: output %u: bad field %u or no array", k,
				       out[k].field);
	while (got < n) {
		/* a foreign source has no cursor */
		struct bpt_bcur *c = r->src ? NULL : r->cur;
		uint32_t end = c ? c->chunk_start + c->chunk_len : 0;

		if (c && !r->sticky.code && c->loaded && c->i >= c->chunk_start && c->i < end &&
		    end <= c->n && whole_block_passes(r, c)) {
			uint32_t k = end - c->i;
			uint32_t j0 = c->i - c->chunk_start;

			if (k > n - got)
				k = (uint32_t)(n - got);
			for (unsigned f = 0; f < nout; f++) {
				const struct field *fd = &fields[out[f].field];
				put_column(out[f].data, got, fd->size, &c->vals[fd->col][j0], k);
			}
			c->i += k;
			got += k;
			continue;
		}
		int rc = bpt_reader_next(r, &rec, err);
		if (rc < 0)
			return rc;
		if (rc == 0)
			break;
		for (unsigned f = 0; f < nout; f++) {
			const struct field *fd = &fields[out[f].field];
			memcpy((char *)out[f].data + got * fd->size, (const char *)&rec + fd->off, fd->size);
		}
		got++;
	}
	return (int64_t)got;
}
