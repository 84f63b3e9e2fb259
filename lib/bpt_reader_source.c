/*
 * bpt_reader_source.c — a reader whose records come from another source
 * than a .bpt file (bpt_reader_open_source; bpt.h, "records from
 * elsewhere"): a foreign trace read by formats/. The source can only go
 * forward or back to its start, so positions are record counts: a
 * "block" is a group of BPT_SOURCE_GROUP records, seeking forward skips
 * records and seeking back rewinds first.
 */
#include <errno.h>
#include <stdlib.h>

#include "bpt_reader_int.h"

int bpt_reader_open_source(struct bpt_reader **out, const char *name,
			   const struct bpt_header *hdr,
			   const struct bpt_source_totals *tot,
			   const struct bpt_source_ops *ops, void *ctx,
			   struct bpt_error *err)
{
	struct bpt_reader *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (r)
		r->name = strdup(name ? name : "trace");
	if (!r || !r->name) {
		free(r);
		ops->close(ctx);
		return bpt_err(err, -ENOMEM, name, 0, 0, "out of memory");
	}
	r->fd = -1;
	strtab_init(&r->strs, BPT_MAX_STRINGS, UINT64_MAX);
	if (bpt_header_copy(&r->hdr, hdr)) {
		free(r->name);
		free(r);
		ops->close(ctx);
		return bpt_err(err, -ENOMEM, name, 0, 0, "out of memory");
	}
	r->complete = 1;
	r->src = ops;
	r->src_ctx = ctx;
	r->src_tot = *tot;
	r->size = tot->file_bytes;
	*out = r;
	return 0;
}

int bpt_source_next(struct bpt_reader *r, struct bpt_record *rec, struct bpt_error *err)
{
	struct bpt_error e = { 0 };
	int rc;

	if (r->sticky.code) {
		if (err)
			*err = r->sticky;
		return r->sticky.code;
	}
	rc = r->src->next(r->src_ctx, rec, &e);
	if (rc == 1) {
		r->src_pos++;
		return 1;
	}
	if (rc < 0) {
		if (!e.msg[0])
			bpt_err(&e, rc, r->name, 0, 0, "read failed");
		e.code = rc;
		r->sticky = e;
		if (err)
			*err = e;
	}
	return rc;
}

int bpt_source_rewind(struct bpt_reader *r, struct bpt_error *err)
{
	struct bpt_error e = { 0 };
	int rc = r->src->rewind(r->src_ctx, &e);

	memset(&r->sticky, 0, sizeof(r->sticky));
	r->src_pos = 0;
	if (rc < 0) {
		e.code = rc;
		r->sticky = e;
		if (err)
			*err = e;
	}
	return rc;
}

/* Read and drop records until src_pos == pos: 0, or the error (-EIO
 * with a message when the source ends first: it changed). */
static int skip_to(struct bpt_reader *r, uint64_t pos, struct bpt_error *err)
{
	struct bpt_record rec;
	int rc;

	if (pos < r->src_pos && (rc = bpt_source_rewind(r, err)))
		return rc;
	while (r->src_pos < pos) {
		rc = bpt_source_next(r, &rec, err);
		if (rc < 0)
			return rc;
		if (rc == 0)
			return bpt_err(err, -EIO, r->name, 0, 0,
				       "record %llu is gone: the file changed while read",
				       (unsigned long long)pos);
	}
	return 0;
}

int bpt_source_seek_time(struct bpt_reader *r, uint64_t t_ns, struct bpt_error *err)
{
	struct bpt_record rec;
	uint64_t n = 0;
	int rc;

	/* Records come in issue-time order: count those before t_ns, then
	 * position on the first at or after it. */
	if ((rc = bpt_source_rewind(r, err)))
		return rc;
	while ((rc = bpt_source_next(r, &rec, err)) == 1 && rec.issue_ns < t_ns)
		n++;
	if (rc < 0)
		return rc;
	return skip_to(r, n, err);
}

int bpt_source_block_pos(const struct bpt_reader *r, struct bpt_block_pos *pos)
{
	uint64_t i;

	if (!r->src_pos)
		return -ENOENT;
	i = r->src_pos - 1;
	pos->seq = (uint32_t)(i / BPT_SOURCE_GROUP);
	pos->offset = (uint64_t)pos->seq * BPT_SOURCE_GROUP;
	pos->index = (uint32_t)(i % BPT_SOURCE_GROUP);
	return 0;
}

int bpt_source_seek_block(struct bpt_reader *r, const struct bpt_block_pos *pos,
			  struct bpt_error *err)
{
	uint64_t first = (uint64_t)pos->seq * BPT_SOURCE_GROUP;

	if (first >= r->src_tot.records)
		return bpt_err(err, -EINVAL, r->name, 0, 0,
			       "block %u was not read before", pos->seq);
	return skip_to(r, first, err);
}

int bpt_source_verify(struct bpt_reader *r, struct bpt_error *err)
{
	uint64_t keep = r->src_pos, n;
	struct bpt_record rec;
	int rc;

	if ((rc = bpt_source_rewind(r, err)))
		return rc;
	while ((rc = bpt_source_next(r, &rec, err)) == 1)
		;
	if (rc < 0)
		return rc;
	n = r->src_pos;
	if (n != r->src_tot.records)
		return bpt_err(err, -EBADMSG, r->name, 0, 0,
			       "%llu records on reading again, %llu when opened: the file changed",
			       (unsigned long long)n, (unsigned long long)r->src_tot.records);
	if (r->src->running_digest(r->src_ctx) != r->src_tot.digest)
		return bpt_err(err, -EBADMSG, r->name, 0, 0,
			       "the records differ on reading again: the file changed");
	return skip_to(r, keep, err);
}
