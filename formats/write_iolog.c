/*
 * write_iolog.c — the `fio` writer of convert (foreign.h): a fio iolog
 * version 3 that `fio --read_iolog` replays (iolog_writer.h says what is
 * written). Selected by --to fio or an output name ending in .iolog.
 */
#include "foreign.h"
#include "iolog_writer.h"

static const char *const suffixes[] = { ".iolog", NULL };

static int wopen(void **state, const char *out, const struct bpt_header *hdr,
		 const char *const *inputs, struct bpt_error *err)
{
	return fiow_open((struct fiow **)state, out, hdr, inputs, err);
}

static int wadd(void *state, const struct bpt_record *rec, const char *comm,
		struct bpt_error *err)
{
	return fiow_add(state, rec, comm, err);
}

static int wclose(void *state, int failed, struct bpt_error *err)
{
	return fiow_close(state, failed, err);
}

const struct ff_writer_ops ff_write_fio = {
	.name = "fio",
	.summary = "fio iolog version 3 (fio --read_iolog)",
	.suffixes = suffixes,
	.open = wopen,
	.add = wadd,
	.close = wclose,
};
