/*
 * bpt_verify.c — whole-file checks: bpt_reader_verify (every block, every
 * checksum, every record, the footer's totals and digest) and
 * bpt_reader_digest. Both walk the file with their own block cursor, so
 * the position of bpt_reader_next is kept.
 */
#include <errno.h>

#include "bpt_reader_int.h"

struct scan_totals {
	struct bpt_totals t;
	uint64_t blocks, digest, end;
};

/* Walk every block from the start; decode records when `decode`. */
static int scan(struct bpt_reader *r, int decode, struct scan_totals *t,
		struct bpt_error *err)
{
	struct bpt_bcur *c = bpt_bcur_new();
	int rc;

	if (!c)
		return bpt_err(err, -ENOMEM, r->name, 0, 0, "out of memory");
	bpt_bcur_reset(r, c);
	*t = (struct scan_totals){ .digest = r->hdr_checksum, .end = c->off };
	while ((rc = bpt_block_load(r, c, err)) == 1) {
		t->digest = bpt_digest_step(t->digest, c->checksum);
		t->blocks++;
		t->end = c->off;
		bpt_totals_add(&t->t, c->n, c->min_issue, c->max_issue,
			       c->max_complete);
		while (decode && c->chunk_start + c->chunk_len < c->n)
			if ((rc = bpt_block_decode_chunk(r, c, err)))
				goto out;
	}
out:
	bpt_bcur_free(c);
	return rc;
}

int bpt_reader_verify(struct bpt_reader *r, struct bpt_error *err)
{
	struct scan_totals t;
	int rc;

	if (r->src)
		return bpt_source_verify(r, err);
	rc = scan(r, 1, &t, err);
	if (rc)
		return rc;
	if (!r->complete)
		return bpt_err(err, -ENODATA, r->name, 1, t.end,
			       "truncated: no valid footer; the data ends here, "
			       "%llu bytes after it cut off or unreadable",
			       (unsigned long long)(r->size - t.end));
	if (t.blocks != r->ft.nblocks || t.t.records != r->ft.nrecords ||
	    t.t.first_issue != r->ft.first_issue ||
	    t.t.last_issue != r->ft.last_issue ||
	    t.t.last_complete != r->ft.last_complete)
		return bpt_err(err, -EBADMSG, r->name, 1, r->ft.off,
			       "footer totals disagree with the blocks");
	if (t.digest != r->ft.digest)
		return bpt_err(err, -EBADMSG, r->name, 1, r->ft.off + 72,
			       "footer digest disagrees with the blocks");
	return 0;
}

int bpt_reader_digest(struct bpt_reader *r, uint64_t *digest,
		      struct bpt_error *err)
{
	struct scan_totals t;
	int rc;

	if (r->src) {
		*digest = r->src_tot.digest;
		return 0;
	}
	if (r->complete) {
		*digest = r->ft.digest;
		return 0;
	}
	rc = scan(r, 0, &t, err);
	if (rc)
		return rc;
	*digest = t.digest;
	return 0;
}
