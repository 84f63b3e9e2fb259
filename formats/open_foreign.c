/*
 * open_foreign.c — foreign trace files behind the .bpt reader API:
 * formats_reader_open() is the opener blkpeak's main registers with
 * bpt_reader_set_foreign_opener(), so `info`, `dump`, `replay`,
 * `analyze import` and every other reader of traces take an MSR CSV or a
 * blktrace set as they take a .bpt file (bpt.h, "records from
 * elsewhere"). It reads with the defaults: the format detected, every
 * device, no bad line tolerated, the default reorder window; `blkpeak
 * convert` offers the choices.
 */
#include <errno.h>

#include "commands.h"
#include "source.h"

static int src_next(void *ctx, struct bpt_record *rec, struct bpt_error *err)
{
	return ff_source_next(ctx, rec, err);
}

static int src_rewind(void *ctx, struct bpt_error *err)
{
	return ff_source_rewind(ctx, err);
}

static const char *src_string(void *ctx, uint32_t id)
{
	return ff_source_string(ctx, id);
}

static uint64_t src_digest(void *ctx)
{
	return ff_source_digest(ctx);
}

static void src_close(void *ctx)
{
	ff_source_close(ctx);
}

static const struct bpt_source_ops source_ops = {
	.next = src_next,
	.rewind = src_rewind,
	.string = src_string,
	.running_digest = src_digest,
	.close = src_close,
};

int formats_reader_open_opts(struct bpt_reader **out, const char *const *paths, size_t n,
			     const struct ff_source_opts *opts, struct bpt_error *err)
{
	struct ff_source *s;
	struct ff_totals t;
	int rc = ff_source_open(&s, paths, n, opts, err);

	*out = NULL;
	if (rc)
		return rc;
	ff_source_totals(s, &t);
	struct bpt_source_totals bt = {
		.records = t.records,
		.first_issue_ns = t.first_issue_ns,
		.last_issue_ns = t.last_issue_ns,
		.last_complete_ns = t.last_complete_ns,
		.digest = t.digest,
		.file_bytes = ff_source_file_bytes(s),
	};
	return bpt_reader_open_source(out, paths[0], ff_source_header(s), &bt, &source_ops, s, err);
}

static uint32_t window; /* formats_set_window(); 0: the default */

int formats_set_window(unsigned long long n)
{
	if (n < 1 || n > FORMATS_WINDOW_MAX)
		return -ERANGE;
	window = (uint32_t)n;
	return 0;
}

int formats_reader_open(struct bpt_reader **out, const char *path, struct bpt_error *err)
{
	struct ff_source_opts o = { .window = window };

	return formats_reader_open_opts(out, &path, 1, &o, err);
}
