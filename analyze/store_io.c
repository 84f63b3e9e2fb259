/*
 * store_io.c — an I/O as the stores' columns and back (store_io.h).
 */
#include <string.h>

#include "store_io.h"

_Static_assert(ST_C_N == ST_IO_N, "one enum entry per column of ST_IO_COLS");

const unsigned char st_io_width[ST_IO_N] = {
	8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,
	4, 4, 4, 4, 4, 4,
	2, 2, 2, 2,
};

static void set(struct st_io *io, int c, int known, int64_t v)
{
	io->v[c] = known ? v : 0;
	io->null[c] = !known;
}

void st_io_from_record(struct st_io *io, const struct bpt_record *rec, uint32_t cols)
{
	int files = !!(cols & BPT_COL_FILE), data = files && rec->file_class == BPT_FILE_DATA;
	int two = data && rec->file2_bytes, cause = (cols & BPT_COL_CAUSE) && rec->cause_pid;
	int cause2 = two && (cols & BPT_COL_CAUSE) && rec->cause2_pid;

	set(io, ST_C_QUEUE, 1, (int64_t)(rec->queue_ns ? rec->queue_ns : rec->issue_ns));
	set(io, ST_C_ISSUE, 1, (int64_t)rec->issue_ns);
	set(io, ST_C_COMPLETE, 1, (int64_t)rec->complete_ns);
	set(io, ST_C_SECTOR, 1, (int64_t)rec->sector);
	set(io, ST_C_CGROUP, 1, (int64_t)rec->cgroup_id);
	set(io, ST_C_PID, 1, rec->pid);
	set(io, ST_C_BYTES, 1, rec->bytes);
	set(io, ST_C_SCHED, !!(cols & BPT_COL_SCHED), (int64_t)rec->sched_ns);
	set(io, ST_C_SOURCE, !!(cols & BPT_COL_SOURCE), (int64_t)rec->source_index);
	set(io, ST_C_FILE_DEV, files && rec->file_dev, rec->file_dev);
	set(io, ST_C_INODE, data, (int64_t)rec->inode);
	set(io, ST_C_FILE_OFFSET, data && rec->file_offset != BPT_FILE_OFFSET_UNKNOWN,
	    (int64_t)rec->file_offset);
	set(io, ST_C_FILE_BYTES, data, rec->file_bytes);
	set(io, ST_C_FILE2_DEV, two, rec->file2_dev);
	set(io, ST_C_INODE2, two, (int64_t)rec->inode2);
	set(io, ST_C_FILE2_OFFSET, two && rec->file2_offset != BPT_FILE_OFFSET_UNKNOWN,
	    (int64_t)rec->file2_offset);
	set(io, ST_C_FILE2_BYTES, two, rec->file2_bytes);
	set(io, ST_C_CAUSE_PID, cause, rec->cause_pid);
	set(io, ST_C_CAUSE_CGROUP, cause, (int64_t)rec->cause_cgroup);
	set(io, ST_C_CAUSE2_PID, cause2, rec->cause2_pid);
	set(io, ST_C_CAUSE2_CGROUP, cause2, (int64_t)rec->cause2_cgroup);
	set(io, ST_C_COMM, 1, (int32_t)rec->comm_id);
	set(io, ST_C_DEV, 1, (int32_t)rec->dev);
	set(io, ST_C_ERROR, 1, rec->error);
	set(io, ST_C_MEMBER, !!(cols & BPT_COL_MEMBER), (int32_t)rec->member);
	set(io, ST_C_CAUSE_COMM, cause, (int32_t)rec->cause_comm_id);
	set(io, ST_C_CAUSE2_COMM, cause2, (int32_t)rec->cause2_comm_id);
	set(io, ST_C_OP, 1, rec->op);
	set(io, ST_C_FLAGS, 1, rec->flags);
	set(io, ST_C_COMPLETION, 1, rec->completion);
	set(io, ST_C_FILE_CLASS, files, rec->file_class);
}

void st_io_to_record(const struct st_io *io, struct bpt_record *rec)
{
	const int64_t *v = io->v;

	memset(rec, 0, sizeof(*rec));
	rec->queue_ns = (uint64_t)v[ST_C_QUEUE];
	rec->issue_ns = (uint64_t)v[ST_C_ISSUE];
	rec->complete_ns = (uint64_t)v[ST_C_COMPLETE];
	rec->sector = (uint64_t)v[ST_C_SECTOR];
	rec->cgroup_id = (uint64_t)v[ST_C_CGROUP];
	rec->pid = (uint32_t)v[ST_C_PID];
	rec->bytes = (uint32_t)v[ST_C_BYTES];
	rec->sched_ns = (uint64_t)v[ST_C_SCHED];
	rec->source_index = (uint64_t)v[ST_C_SOURCE];
	rec->file_dev = (uint32_t)v[ST_C_FILE_DEV];
	rec->inode = (uint64_t)v[ST_C_INODE];
	rec->file_offset = io->null[ST_C_FILE_OFFSET] ? BPT_FILE_OFFSET_UNKNOWN : (uint64_t)v[ST_C_FILE_OFFSET];
	rec->file_bytes = (uint32_t)v[ST_C_FILE_BYTES];
	rec->file2_dev = (uint32_t)v[ST_C_FILE2_DEV];
	rec->inode2 = (uint64_t)v[ST_C_INODE2];
	rec->file2_offset = io->null[ST_C_FILE2_OFFSET] ? BPT_FILE_OFFSET_UNKNOWN
						     : (uint64_t)v[ST_C_FILE2_OFFSET];
	rec->file2_bytes = (uint32_t)v[ST_C_FILE2_BYTES];
	rec->cause_pid = (uint32_t)v[ST_C_CAUSE_PID];
	rec->cause_cgroup = (uint64_t)v[ST_C_CAUSE_CGROUP];
	rec->cause2_pid = (uint32_t)v[ST_C_CAUSE2_PID];
	rec->cause2_cgroup = (uint64_t)v[ST_C_CAUSE2_CGROUP];
	rec->comm_id = (uint32_t)v[ST_C_COMM];
	rec->dev = (uint32_t)v[ST_C_DEV];
	rec->error = (int32_t)v[ST_C_ERROR];
	rec->member = (uint32_t)v[ST_C_MEMBER];
	rec->cause_comm_id = (uint32_t)v[ST_C_CAUSE_COMM];
	rec->cause2_comm_id = (uint32_t)v[ST_C_CAUSE2_COMM];
	rec->op = (uint8_t)v[ST_C_OP];
	rec->flags = (uint8_t)v[ST_C_FLAGS];
	rec->completion = (uint8_t)v[ST_C_COMPLETION];
	rec->file_class = (uint8_t)v[ST_C_FILE_CLASS];
}
