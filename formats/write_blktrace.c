/*
 * write_blktrace.c — the `blktrace` writer of convert (foreign.h): a
 * directory of DEV.blktrace.0 files, one per device, that blkparse, btt,
 * btrecord/btreplay, iowatcher and fio read (blktrace_writer.h says what
 * is written). No file name selects it: `--to blktrace`.
 */
#include "blktrace_writer.h"
#include "foreign.h"

static int wopen(void **state, const char *out, const struct bpt_header *hdr,
		 const char *const *inputs, struct bpt_error *err)
{
	return btw_open((struct btw **)state, out, hdr, inputs, err);
}

static int wadd(void *state, const struct bpt_record *rec, const char *comm,
		struct bpt_error *err)
{
	return btw_add(state, rec, comm, err);
}

static int wclose(void *state, int failed, struct bpt_error *err)
{
	return btw_close(state, failed, err);
}

const struct ff_writer_ops ff_write_blktrace = {
	.name = "blktrace",
	.summary = "blktrace binary: a directory of DEV.blktrace.0 files (blkparse, btt, btreplay)",
	.suffixes = NULL,
	.open = wopen,
	.add = wadd,
	.close = wclose,
};
