/*
 * write_oracle.c — the `oracle` writer of convert (foreign.h): a
 * libCacheSim oracleGeneral trace, one request per 4 KiB block an I/O
 * touches with the number of its block's next request
 * (oracle_writer.h says what is written and the look-ahead's bound).
 * Selected by --to oracle or an output name ending in .oracleGeneral or
 * .oracleGeneral.bin.
 */
#include "foreign.h"
#include "oracle_writer.h"

static const char *const suffixes[] = { ".oracleGeneral", ".oracleGeneral.bin", NULL };

static int wopen(void **state, const char *out, const struct bpt_header *hdr,
		 const char *const *inputs, struct bpt_error *err)
{
	return ogw_open((struct ogw **)state, out, hdr, inputs, 0, err);
}

static int wadd(void *state, const struct bpt_record *rec, const char *comm,
		struct bpt_error *err)
{
	(void)comm;
	return ogw_add(state, rec, err);
}

static int wclose(void *state, int failed, struct bpt_error *err)
{
	return ogw_close(state, failed, err);
}

const struct ff_writer_ops ff_write_oracle = {
	.name = "oracle",
	.summary = "libCacheSim oracleGeneral binary: one request a 4 KiB block, next access",
	.suffixes = suffixes,
	.open = wopen,
	.add = wadd,
	.close = wclose,
};
