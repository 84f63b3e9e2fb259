/*
 * write_blktrace.c — the `blktrace` writer of convert (foreign.h): a
 * directory of DEV.blktrace.0 files, one per device, that blkparse, btt,
 * btrecord/btreplay, iowatcher and fio read (blktrace_writer.h says what
 * is written). `--to blktrace`, or an output named NAME.blktrace.N.
 */
#include "blktrace_writer.h"
#include "foreign.h"

static int wopen(void **state, const char *out, const struct bpt_header *hdr,
		 const char *const *inputs, const struct ff_writer_opts *o, struct bpt_error *err)
{
	int rc = btw_open((struct btw **)state, out, hdr, inputs,
			  o->flags & FF_WOPT_CGROUP_IDS ? BTW_OPT_CGROUP : 0, err);

	if (!rc && (o->flags & FF_WOPT_LAG))
		btw_set_lag(*state, o->lag_ns);
	return rc;
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
	.suffixes = (const char *const[]){ ".blktrace.#", NULL },
	.accepts = FF_WOPT_CGROUP_IDS | FF_WOPT_LAG,
	.open_opts = wopen,
	.add = wadd,
	.close = wclose,
};
