/*
 * bpt_reader_block.c — block positions: where the record just read lies,
 * and going back to the start of a block seen before. What a reader that
 * re-reads parts of a file needs (replay's issue-ordered stream reads the
 * blocks it needs in any order after one pass in file order).
 */
#include <errno.h>

#include "bpt_reader_int.h"

int bpt_reader_block_pos(const struct bpt_reader *r, struct bpt_block_pos *pos)
{
	const struct bpt_bcur *c = r->cur;

	if (r->src)
		return bpt_source_block_pos(r, pos);
	if (!c->loaded || !c->i)
		return -ENOENT;
	pos->offset = c->blk_off;
	pos->seq = c->seq - 1; /* bpt_block_load moved seq past the loaded block */
	pos->index = c->i - 1;
	return 0;
}

int bpt_reader_seek_block(struct bpt_reader *r, const struct bpt_block_pos *pos,
			  struct bpt_error *err)
{
	struct bpt_bcur *c = r->cur;

	if (r->src)
		return bpt_source_seek_block(r, pos, err);
	if (pos->seq >= r->seen_blocks || pos->offset < r->hdr_size ||
	    pos->offset >= r->size)
		return bpt_err(err, -EINVAL, r->name, 0, 0,
			       "block %u was not read before", pos->seq);
	memset(&r->sticky, 0, sizeof(r->sticky));
	r->seek_filter = 0;
	bpt_bcur_reset(r, c);
	c->off = pos->offset;
	c->seq = pos->seq;
	/* the record index: the records of the blocks before it */
	r->next_first = 0;
	for (uint32_t i = 0; r->complete && i < pos->seq; i++) {
		uint64_t off, mn, mx;
		uint32_t n;
		int rc = bpt_footer_entry(r, i, &off, &n, &mn, &mx, err);

		if (rc)
			return rc;
		r->next_first += n;
	}
	return 0;
}
