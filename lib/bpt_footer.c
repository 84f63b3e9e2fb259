/*
 * bpt_footer.c — finding and checking the footer of a .bpt file from its
 * end (the trailer), for bpt_reader_open. A file whose last 8 bytes are
 * not the trailer magic has no footer (a writer was killed, or the file
 * was cut): the reader then walks the blocks. A file that has the magic
 * claims to be complete, so any inconsistency after that is corruption,
 * reported with the offset, never taken for truncation.
 *
 * The footer is read through a small buffer: the index stays on disk
 * (read again entry by entry when seeking), only the string table and
 * the loss list are kept, so memory does not grow with the block count.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bpt_reader_int.h"

/* Sequential reading of a file region through a fixed buffer. */
struct rbuf {
	const struct bpt_reader *r;
	uint64_t off, end;
	uint8_t buf[16384];
	size_t have, pos;
};

static int rb_get(struct rbuf *b, void *dst, size_t n)
{
	uint8_t *d = dst;

	while (n) {
		if (b->pos == b->have) {
			uint64_t left = b->end - b->off;
			size_t take = left < sizeof(b->buf) ? (size_t)left : sizeof(b->buf);

			if (!take)
				return -EBADMSG;
			int rc = bpt_src_read(b->r, b->off, b->buf, take);

			if (rc)
				return rc;
			b->off += take;
			b->have = take;
			b->pos = 0;
		}
		size_t k = b->have - b->pos < n ? b->have - b->pos : n;

		memcpy(d, b->buf + b->pos, k);
		b->pos += k;
		d += k;
		n -= k;
	}
	return 0;
}

static uint64_t rb_tell(const struct rbuf *b)
{
	return b->off - (b->have - b->pos);
}

#define BAD(off, ...) bpt_err(err, -EBADMSG, r->name, 1, (off), __VA_ARGS__)

static int check_index(struct bpt_reader *r, struct rbuf *b,
		       struct bpt_error *err)
{
	uint64_t prev_end = r->hdr_size, sum = 0;
	uint8_t e[BPT_INDEX_ENTRY];

	for (uint64_t i = 0; i < r->ft.nblocks; i++) {
		uint64_t at = rb_tell(b);
		int rc = rb_get(b, e, sizeof(e));

		if (rc)
			return rc == -EBADMSG ? BAD(at, "footer: index cut short") :
			       bpt_err(err, rc, r->name, 1, at, "read failed");
		uint64_t off = get_le64(e), mn = get_le64(e + 16), mx = get_le64(e + 24);
		uint32_t n = get_le32(e + 8);

		if (i == 0 ? off != r->hdr_size : off < prev_end)
			return BAD(at, "footer: index entry %llu: block offset %llu out of order",
				   (unsigned long long)i, (unsigned long long)off);
		if (off > r->ft.off || r->ft.off - off < BPT_BLOCK_HDR)
			return BAD(at, "footer: index entry %llu: block offset %llu past the footer",
				   (unsigned long long)i, (unsigned long long)off);
		if (n > BPT_BLOCK_MAX_RECORDS || get_le32(e + 12) || (n && mn > mx))
			return BAD(at, "footer: index entry %llu malformed",
				   (unsigned long long)i);
		prev_end = off + BPT_BLOCK_HDR;
		sum += n;
	}
	if (sum != r->ft.nrecords)
		return BAD(r->ft.off + 16, "footer: %llu records, index sums to %llu",
			   (unsigned long long)r->ft.nrecords, (unsigned long long)sum);
	if (!r->ft.nblocks && r->ft.off != r->hdr_size)
		return BAD(r->ft.off, "footer: no blocks but data before the footer");
	return 0;
}

/* One str16 of the end meta into out[cap] (NUL-terminated); -1 when it is
 * cut, empty where `nonempty`, or too long. */
static int get_str16(struct rbuf *b, char *out, size_t cap, int nonempty)
{
	uint8_t lb[2];
	size_t n;

	if (rb_get(b, lb, 2))
		return -1;
	n = get_le16(lb);
	if (n >= cap || (nonempty && !n) || rb_get(b, out, n))
		return -1;
	out[n] = 0;
	return memchr(out, 0, n) ? -1 : 0;
}

/*
 * The end meta (format 1.1): u16 count, then key/value str16 pairs, the
 * facts a writer knew only at the end (a replay's outcome). They are shown
 * with the header's meta, replacing a header entry of the same key.
 */
static int read_end_meta(struct bpt_reader *r, struct rbuf *b,
			 struct bpt_error *err)
{
	uint64_t at = rb_tell(b);
	uint8_t nb[2];
	struct bpt_meta m;

	if (rb_get(b, nb, 2) || get_le16(nb) > BPT_MAX_META)
		return BAD(at, "footer: end meta count malformed");
	for (unsigned i = 0; i < get_le16(nb); i++) {
		at = rb_tell(b);
		if (get_str16(b, m.key, sizeof(m.key), 1) ||
		    get_str16(b, m.value, sizeof(m.value), 0))
			return BAD(at, "footer: end meta %u malformed", i);
		if (bpt_header_set_meta(&r->hdr, m.key, m.value))
			return BAD(at, "footer: end meta %u: more than %d meta entries with "
				   "the header's", i, BPT_MAX_META);
	}
	return 0;
}

/*
 * The path table (format 1.3): u32 count, then (u32 file_dev, u64 inode,
 * u32 string id) entries; kept sorted by (file_dev, inode).
 */
static int read_paths(struct bpt_reader *r, struct rbuf *b, struct bpt_error *err)
{
	uint64_t at = rb_tell(b);
	uint8_t nb[4], e[BPT_PATH_ENTRY];
	uint32_t n;

	if (rb_get(b, nb, 4) || (n = get_le32(nb)) > BPT_MAX_PATHS ||
	    n > (b->end - rb_tell(b)) / BPT_PATH_ENTRY)
		return BAD(at, "footer: path table count malformed");
	r->paths.e = malloc(sizeof(*r->paths.e) * (n ? n : 1));
	if (!r->paths.e)
		return bpt_err(err, -ENOMEM, r->name, 0, 0, "out of memory");
	r->paths.cap = n;
	for (uint32_t i = 0; i < n; i++) {
		at = rb_tell(b);
		if (rb_get(b, e, sizeof(e)))
			return BAD(at, "footer: path table cut short");
		struct bpt_path p = { .file_dev = get_le32(e), .inode = get_le64(e + 4),
				      .path_id = get_le32(e + 12) };

		if (p.path_id >= r->strs.n || !r->strs.len[p.path_id])
			return BAD(at, "footer: path %u: bad string id %u", i, p.path_id);
		r->paths.e[r->paths.n++] = p;
	}
	bpt_pathtab_sort(&r->paths);
	return 0;
}

static int read_tables(struct bpt_reader *r, struct rbuf *b,
		       struct bpt_error *err)
{
	uint8_t e[BPT_LOSS_ENTRY];
	uint64_t lost = 0;
	int rc;

	for (uint64_t i = 0; i < r->ft.nloss; i++) {
		uint64_t at = rb_tell(b);

		if ((rc = rb_get(b, e, sizeof(e))))
			return BAD(at, "footer: loss table cut short");
		struct bpt_loss l = { get_le64(e), get_le64(e + 8), get_le64(e + 16) };

		if (l.t1_ns < l.t0_ns || lost + l.count < lost)
			return BAD(at, "footer: loss entry %llu malformed",
				   (unsigned long long)i);
		lost += l.count;
		if ((rc = bpt_reader_add_loss(r, &l)))
			return bpt_err(err, rc, r->name, 0, 0, "out of memory");
	}
	if (lost != r->ft.lost)
		return BAD(r->ft.off + 48, "footer: %llu lost events, loss table sums to %llu",
			   (unsigned long long)r->ft.lost, (unsigned long long)lost);
	for (uint64_t id = 0; id < r->ft.nstrings; id++) {
		uint64_t at = rb_tell(b);
		uint8_t lb[2], s[BPT_STR_MAX];

		if (rb_get(b, lb, 2) || get_le16(lb) > BPT_STR_MAX ||
		    rb_get(b, s, get_le16(lb)))
			return BAD(at, "footer: string %llu malformed",
				   (unsigned long long)id);
		rc = bpt_reader_add_string(r, (uint32_t)id, s, get_le16(lb));
		if (rc)
			return rc == -ENOMEM ? bpt_err(err, rc, r->name, 0, 0, "out of memory")
					     : BAD(at, "footer: string %llu malformed",
						   (unsigned long long)id);
	}
	/* Minor 1 adds the end meta; an older file ends here, and bytes
	 * left after what this reader knows are fields of a newer minor. */
	if (r->hdr.version_minor >= 1 && rb_tell(b) < b->end &&
	    (rc = read_end_meta(r, b, err)))
		return rc;
	/* Minor 3 adds the path table after it. */
	if (rb_tell(b) < b->end)
		return read_paths(r, b, err);
	return 0;
}

int bpt_footer_read(struct bpt_reader *r, struct bpt_error *err)
{
	uint8_t tr[BPT_TRAILER], f[BPT_FOOTER_FIXED];
	struct rbuf *b;
	int rc;

	r->complete = 0;
	if (r->size < (uint64_t)r->hdr_size + BPT_TRAILER)
		return 0;
	uint64_t toff = r->size - BPT_TRAILER;

	if ((rc = bpt_src_read(r, toff, tr, sizeof(tr))))
		return bpt_err(err, rc, r->name, 1, toff, "read failed");
	if (memcmp(tr + 16, BPT_TRAILER_MAGIC, 8))
		return 0; /* no footer: truncated, or the writer was killed */
	uint64_t foff = get_le64(tr);

	if (foff < r->hdr_size || foff > toff || toff - foff < BPT_FOOTER_FIXED)
		return BAD(toff, "trailer: footer offset %llu out of range",
			   (unsigned long long)foff);
	b = calloc(1, sizeof(*b));
	if (!b)
		return bpt_err(err, -ENOMEM, r->name, 0, 0, "out of memory");
	/* Checksum first, streaming: nothing below is trusted before it. */
	struct bpt_xxh64_state hs;

	bpt_xxh64_init(&hs, 0);
	for (uint64_t off = foff; off < toff;) {
		size_t take = toff - off < sizeof(b->buf) ? (size_t)(toff - off)
							  : sizeof(b->buf);

		if ((rc = bpt_src_read(r, off, b->buf, take))) {
			rc = bpt_err(err, rc, r->name, 1, off, "read failed");
			goto out;
		}
		bpt_xxh64_update(&hs, b->buf, take);
		off += take;
	}
	if (!BPT_CKSUM_OK(bpt_xxh64_final(&hs), get_le64(tr + 8))) {
		rc = BAD(toff + 8, "footer checksum mismatch (footer at offset %llu)",
			 (unsigned long long)foff);
		goto out;
	}
	*b = (struct rbuf){ .r = r, .off = foff, .end = toff };
	if ((rc = rb_get(b, f, sizeof(f))))
		goto out;
	if (memcmp(f, BPT_FOOTER_MAGIC, 4) || get_le32(f + 4)) {
		rc = BAD(foff, "footer: bad magic");
		goto out;
	}
	r->ft = (struct bpt_footer){
		.off = foff, .nblocks = get_le64(f + 8), .nrecords = get_le64(f + 16),
		.first_issue = get_le64(f + 24), .last_issue = get_le64(f + 32),
		.last_complete = get_le64(f + 40), .lost = get_le64(f + 48),
		.nloss = get_le64(f + 56), .nstrings = get_le64(f + 64),
		.digest = get_le64(f + 72), .index_off = foff + BPT_FOOTER_FIXED,
	};
	uint64_t room = toff - foff - BPT_FOOTER_FIXED;

	if (r->ft.nblocks > UINT32_MAX || r->ft.nblocks > room / BPT_INDEX_ENTRY ||
	    r->ft.nloss > (room - r->ft.nblocks * BPT_INDEX_ENTRY) / BPT_LOSS_ENTRY ||
	    r->ft.nstrings > BPT_MAX_STRINGS ||
	    r->ft.nstrings > (room - r->ft.nblocks * BPT_INDEX_ENTRY -
			      r->ft.nloss * BPT_LOSS_ENTRY) / 2 ||
	    (r->ft.nrecords && r->ft.first_issue > r->ft.last_issue)) {
		rc = BAD(foff + 8, "footer: counts out of range");
		goto out;
	}
	if ((rc = check_index(r, b, err)) || (rc = read_tables(r, b, err)))
		goto out;
	r->complete = 1;
out:
	free(b);
	return rc;
}

int bpt_footer_entry(const struct bpt_reader *r, uint64_t i, uint64_t *off,
		     uint32_t *nrecords, uint64_t *min_issue,
		     uint64_t *max_issue, struct bpt_error *err)
{
	uint8_t e[BPT_INDEX_ENTRY];
	uint64_t at = r->ft.index_off + i * BPT_INDEX_ENTRY;
	int rc = bpt_src_read(r, at, e, sizeof(e));

	if (rc)
		return bpt_err(err, rc, r->name, 1, at, "read failed");
	*off = get_le64(e);
	*nrecords = get_le32(e + 8);
	*min_issue = get_le64(e + 16);
	*max_issue = get_le64(e + 24);
	return 0;
}
