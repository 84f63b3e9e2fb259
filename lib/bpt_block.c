/*
 * bpt_block.c — loading one record block of a .bpt file and decoding its
 * records, with every length and value checked before use.
 *
 * bpt_block_load reads the 56-byte block header, decides between "end of
 * data", "truncated tail" and "corrupt" (see the spec, "Reading a
 * truncated or damaged file"), checks the checksum before anything in the
 * payload is looked at, decompresses, and parses the string additions,
 * loss entries and column directory. Records are then decoded lazily,
 * BPT_CHUNK at a time, by bpt_block_decode_chunk, which rebuilds the
 * fields from the column transforms and rejects any record whose device,
 * op, flags, string id or 32-bit field is out of range (bpt_block_check.c:
 * once per block where the column's coding bounds its values), whose
 * times leave the block's range, or whose file and cause fields break
 * their rules (bpt_file.c; not looked at in a trace without them).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <zstd.h>

#include "bpt_reader_int.h"

#define BAD(off, ...) bpt_err(err, -EBADMSG, r->name, 1, (off), __VA_ARGS__)

struct bpt_bcur *bpt_bcur_new(void)
{
	struct bpt_bcur *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->dctx = ZSTD_createDCtx();
	if (!c->dctx) {
		free(c);
		return NULL;
	}
	return c;
}

void bpt_bcur_free(struct bpt_bcur *c)
{
	if (!c)
		return;
	buf_free(&c->stored);
	buf_free(&c->raw);
	ZSTD_freeDCtx(c->dctx);
	free(c);
}

void bpt_bcur_reset(const struct bpt_reader *r, struct bpt_bcur *c)
{
	c->off = r->hdr_size;
	c->seq = 0;
	c->loaded = 0;
	c->n = c->i = 0;
	c->chunk_start = c->chunk_len = 0;
}

/*
 * 1 when every byte from off to the end of the file is zero. In a file
 * without footer, a block that fails its header or checksum check and is
 * followed by nothing but zeros is a torn last write (a power cut leaves
 * the file size updated and the data not): the data ends before it. The
 * same damage followed by anything else is corruption.
 */
static int zero_tail(const struct bpt_reader *r, uint64_t off)
{
	uint8_t b[4096];

	while (off < r->size) {
		size_t take = r->size - off < sizeof(b) ? (size_t)(r->size - off)
							 : sizeof(b);

		if (bpt_src_read(r, off, b, take))
			return 0;
		for (size_t i = 0; i < take; i++)
			if (b[i])
				return 0;
		off += take;
	}
	return 1;
}

static int parse_strings(struct bpt_reader *r, struct bpt_cur *c,
			 uint64_t poff, struct bpt_error *err)
{
	uint64_t nstr, first;
	int rc;

	if (cur_varint(c, &nstr) || cur_varint(c, &first) ||
	    nstr > BPT_MAX_STRINGS || first > r->strs.n ||
	    first + nstr > BPT_MAX_STRINGS)
		return BAD(poff, "block payload: string additions malformed");
	for (uint64_t k = 0; k < nstr; k++) {
		uint16_t len;
		const uint8_t *s;

		if (cur_u16(c, &len) || len > BPT_STR_MAX || cur_bytes(c, &s, len))
			return BAD(poff, "block payload: string %llu malformed",
				   (unsigned long long)(first + k));
		rc = bpt_reader_add_string(r, (uint32_t)(first + k), s, len);
		if (rc == -ENOMEM)
			return bpt_err(err, rc, r->name, 0, 0, "out of memory");
		if (rc)
			return BAD(poff, "block payload: string %llu differs from the table",
				   (unsigned long long)(first + k));
	}
	return 0;
}

static int parse_losses(struct bpt_reader *r, struct bpt_cur *c, int is_new,
			uint64_t poff, struct bpt_error *err)
{
	uint64_t n;

	if (cur_varint(c, &n) || n > BPT_MAX_LOSSES_PER_BLOCK)
		return BAD(poff, "block payload: loss entries malformed");
	for (uint64_t k = 0; k < n; k++) {
		struct bpt_loss l;
		uint64_t dt;

		if (cur_varint(c, &l.t0_ns) || cur_varint(c, &dt) ||
		    cur_varint(c, &l.count) || l.t0_ns + dt < l.t0_ns ||
		    r->lost + l.count < r->lost)
			return BAD(poff, "block payload: loss entry %llu malformed",
				   (unsigned long long)k);
		l.t1_ns = l.t0_ns + dt;
		/* A complete file's footer already gave every loss entry. */
		if (is_new && !r->complete) {
			if (bpt_reader_add_loss(r, &l))
				return bpt_err(err, -ENOMEM, r->name, 0, 0, "out of memory");
			r->lost += l.count;
		}
	}
	return 0;
}

static int parse_columns(struct bpt_reader *r, struct bpt_bcur *bc,
			 struct bpt_cur *c, uint64_t poff, struct bpt_error *err)
{
	uint64_t ncols;
	int rc;

	memset(bc->have, 0, sizeof(bc->have));
	if (cur_varint(c, &ncols) || ncols > 1024)
		return BAD(poff, "block payload: column count malformed");
	for (uint64_t k = 0; k < ncols; k++) {
		uint64_t id, len;
		const uint8_t *p;

		if (cur_varint(c, &id) || cur_varint(c, &len) ||
		    cur_bytes(c, &p, len))
			return BAD(poff, "block payload: column directory malformed");
		if (id >= COL_KNOWN)
			continue; /* a column from a newer minor: skipped */
		if (bc->have[id])
			return BAD(poff, "block payload: column %llu twice",
				   (unsigned long long)id);
		if (!bpt_col_wanted(r->hdr.columns, bc->coding, (int)id))
			return BAD(poff, bpt_col_optional((int)id)
				   ? "block payload: column %llu not declared in the header"
				   : "block payload: column %llu not used by the block's coding",
				   (unsigned long long)id);
		if ((rc = bpt_col_parse(p, len, bc->n, &bc->cols[id])) == -EPROTONOSUPPORT)
			return BAD(poff, "block payload: column %llu: coding kind %u unknown "
				   "(written by a newer blkpeak; this one reads format %d.%d)",
				   (unsigned long long)id, len ? p[0] : 0,
				   BPT_FORMAT_MAJOR, BPT_FORMAT_MINOR);
		if (rc)
			return BAD(poff, "block payload: column %llu malformed",
				   (unsigned long long)id);
		bc->have[id] = 1;
	}
	for (int id = 0; id < COL_KNOWN; id++) {
		if (bpt_col_wanted(r->hdr.columns, bc->coding, id) && !bc->have[id])
			return BAD(poff, "block payload: column %d missing", id);
	}
	if (c->pos != c->len)
		return BAD(poff, "block payload: %zu unexpected bytes at its end",
			   c->len - c->pos);
	return 0;
}

/* Compare a loaded block with its footer index entry (complete files). */
static int check_entry(struct bpt_reader *r, struct bpt_bcur *c,
		       struct bpt_error *err)
{
	uint64_t off, mn, mx;
	uint32_t n;
	int rc;

	if (c->seq >= r->ft.nblocks)
		return BAD(c->blk_off, "block %u not in the footer index (%llu blocks)",
			   c->seq, (unsigned long long)r->ft.nblocks);
	rc = bpt_footer_entry(r, c->seq, &off, &n, &mn, &mx, err);
	if (rc)
		return rc;
	if (off != c->blk_off || n != c->n || mn != c->min_issue || mx != c->max_issue)
		return BAD(c->blk_off, "block %u disagrees with the footer index", c->seq);
	return 0;
}

/* The fields of a block header that bpt_block_load checks and uses. */
struct blk_head {
	uint8_t h[BPT_BLOCK_HDR];
	uint64_t off, avail;  /* where the block starts; bytes from there to the end */
	uint32_t seq, n, stored, raw;
	uint8_t comp;
};

/* Read the header of the block at c->off: 1 when there is one, 0 at the
 * end of the blocks or at a truncated tail, or a negative errno. */
static int read_head(struct bpt_reader *r, struct bpt_bcur *c, struct blk_head *b,
		     struct bpt_error *err)
{
	uint64_t off = c->off, limit = r->complete ? r->ft.off : r->size;
	uint8_t *h = b->h;
	int rc;

	if (off == limit) {
		if (r->complete && c->seq != r->ft.nblocks)
			return BAD(off, "footer says %llu blocks, found %u",
				   (unsigned long long)r->ft.nblocks, c->seq);
		return 0;
	}
	b->off = off;
	b->avail = limit - off;
	if (b->avail < BPT_BLOCK_HDR) {
		if (r->complete)
			return BAD(off, "block %u: header runs into the footer", c->seq);
		if ((rc = bpt_src_read(r, off, h, (size_t)b->avail)))
			return bpt_err(err, rc, r->name, 1, off, "read failed");
		size_t m = b->avail < 4 ? (size_t)b->avail : 4;

		if (!memcmp(h, BPT_BLOCK_MAGIC, m) || !memcmp(h, BPT_FOOTER_MAGIC, m) ||
		    zero_tail(r, off))
			return 0; /* truncated tail */
		return BAD(off, "block %u: bad magic", c->seq);
	}
	if ((rc = bpt_src_read(r, off, h, BPT_BLOCK_HDR)))
		return bpt_err(err, rc, r->name, 1, off, "read failed");
	if (!memcmp(h, BPT_FOOTER_MAGIC, 4) && !r->complete)
		return 0; /* truncated: footer cut off or trailer lost */
	if (memcmp(h, BPT_BLOCK_MAGIC, 4)) {
		if (!r->complete && zero_tail(r, off))
			return 0; /* truncated tail */
		return BAD(off, "block %u: bad magic", c->seq);
	}
	return 1;
}

/* Check the header's fields: 1 when they hold, 0 for a torn or truncated
 * last block, or a negative errno. */
static int check_head(struct bpt_reader *r, struct bpt_bcur *c, struct blk_head *b,
		      struct bpt_error *err)
{
	const uint8_t *h = b->h;
	uint64_t off = b->off;

	b->seq = get_le32(h + BPT_BLOCK_SEQ_OFF);
	b->n = get_le32(h + BPT_BLOCK_NRECORDS_OFF);
	b->stored = get_le32(h + BPT_BLOCK_STORED_OFF);
	b->raw = get_le32(h + BPT_BLOCK_RAW_OFF);
	b->comp = h[BPT_BLOCK_COMP_OFF];
	if (b->seq != c->seq)
		return BAD(off + 4, "block sequence number %u, expected %u", b->seq, c->seq);
	if (b->n > BPT_BLOCK_MAX_RECORDS || b->raw > BPT_BLOCK_MAX_RAW ||
	    b->stored > BPT_BLOCK_MAX_STORED || b->comp > BPT_COMP_ZSTD ||
	    (b->comp == BPT_COMP_NONE && b->stored != b->raw) ||
	    (h[BPT_BLOCK_CODING_OFF] & ~BPT_CODING__ALL) || h[22] || h[23]) {
		if (!r->complete && zero_tail(r, off + BPT_BLOCK_HDR))
			return 0; /* torn last block */
		return BAD(off, "block %u: header malformed", b->seq);
	}
	if (b->stored > b->avail - BPT_BLOCK_HDR) {
		if (r->complete)
			return BAD(off, "block %u: runs into the footer", b->seq);
		return 0; /* truncated tail */
	}
	return 1;
}

/* The block's stored bytes, checksummed, with the header's fields copied
 * into c. NULL with *rc 0 for a torn last block, or a negative errno. */
static const uint8_t *read_body(struct bpt_reader *r, struct bpt_bcur *c,
				const struct blk_head *b, int *rc, struct bpt_error *err)
{
	const uint8_t *h = b->h;
	uint64_t off = b->off;
	struct bpt_xxh64_state hs;
	const uint8_t *p = bpt_src_view(r, off + BPT_BLOCK_HDR, b->stored, &c->stored, rc);

	if (!p) {
		*rc = bpt_err(err, *rc, r->name, 1, off + BPT_BLOCK_HDR,
			      *rc == -ENOMEM ? "out of memory" : "read failed");
		return NULL;
	}
	bpt_xxh64_init(&hs, 0);
	bpt_xxh64_update(&hs, h, BPT_BLOCK_CKSUM_OFF);
	bpt_xxh64_update(&hs, p, b->stored);
	c->checksum = get_le64(h + BPT_BLOCK_CKSUM_OFF);
	if (!BPT_CKSUM_OK(bpt_xxh64_final(&hs), c->checksum)) {
		if (!r->complete && zero_tail(r, off + BPT_BLOCK_HDR + b->stored)) {
			*rc = 0; /* torn last block (power cut) */
			return NULL;
		}
		*rc = BAD(off, "block %u: checksum mismatch", b->seq);
		return NULL;
	}
	c->blk_off = off;
	c->n = b->n;
	c->coding = h[BPT_BLOCK_CODING_OFF];
	c->min_issue = get_le64(h + BPT_BLOCK_MIN_ISSUE_OFF);
	c->max_issue = get_le64(h + BPT_BLOCK_MAX_ISSUE_OFF);
	c->max_complete = get_le64(h + BPT_BLOCK_MAX_COMPLETE_OFF);
	if (b->n ? c->min_issue > c->max_issue
		 : c->min_issue || c->max_issue || c->max_complete) {
		*rc = BAD(off + BPT_BLOCK_MIN_ISSUE_OFF, "block %u: time range malformed", b->seq);
		return NULL;
	}
	return p;
}

/* The payload: the stored bytes, or what zstd makes of them in c->raw.
 * NULL with *rc a negative errno on failure. */
static const uint8_t *unpack(struct bpt_reader *r, struct bpt_bcur *c,
			     const struct blk_head *b, const uint8_t *p, int *rc,
			     struct bpt_error *err)
{
	if (b->comp != BPT_COMP_ZSTD)
		return p;
	c->raw.len = 0;
	if (!buf_reserve(&c->raw, b->raw ? b->raw : 1)) {
		*rc = bpt_err(err, -ENOMEM, r->name, 0, 0, "out of memory");
		return NULL;
	}
	size_t got = ZSTD_decompressDCtx(c->dctx, c->raw.p, b->raw, p, b->stored);

	if (ZSTD_isError(got) || got != b->raw) {
		*rc = BAD(b->off + BPT_BLOCK_HDR, "block %u: zstd: %s", b->seq,
			  ZSTD_isError(got) ? ZSTD_getErrorName(got)
					    : "size differs from the header");
		return NULL;
	}
	return c->raw.p;
}

/* Set the cursor at the block's first record, and count a block seen for
 * the first time in the reader's totals. */
static void enter_block(struct bpt_reader *r, struct bpt_bcur *c, const struct blk_head *b,
			int is_new)
{
	c->prev_issue = c->cols[COL_ISSUE].seed;
	c->prev_complete = c->cols[COL_COMPLETE].seed;
	for (int k = 0; k < BPT_REF_WINDOW; k++) {
		c->ring_end[k] = c->cols[COL_SECTOR].seed;
		c->ring_comp[k] = c->prev_issue;
	}
	c->prev_source = c->have[COL_SOURCE] ? c->cols[COL_SOURCE].seed : 0;
	c->i = 0;
	c->chunk_start = c->chunk_len = 0;
	c->loaded = 1;
	c->off = b->off + BPT_BLOCK_HDR + b->stored;
	c->seq++;
	if (is_new) {
		r->seen_blocks = b->seq + 1;
		bpt_totals_add(&r->seen, b->n, c->min_issue, c->max_issue,
			       c->max_complete);
		r->valid_bytes = c->off;
	}
}

int bpt_block_load(struct bpt_reader *r, struct bpt_bcur *c,
		   struct bpt_error *err)
{
	struct blk_head b;
	const uint8_t *p, *payload;
	int rc;

	c->loaded = 0;
	if ((rc = read_head(r, c, &b, err)) <= 0 || (rc = check_head(r, c, &b, err)) <= 0)
		return rc;
	if (!(p = read_body(r, c, &b, &rc, err)) || !(payload = unpack(r, c, &b, p, &rc, err)))
		return rc;

	struct bpt_cur pc = { .p = payload, .len = b.raw };
	uint64_t poff = b.off + BPT_BLOCK_HDR;
	int is_new = b.seq >= r->seen_blocks;

	if ((rc = parse_strings(r, &pc, poff, err)) ||
	    (rc = parse_losses(r, &pc, is_new, poff, err)) ||
	    (rc = parse_columns(r, c, &pc, poff, err)))
		return rc;
	if (r->complete && (rc = check_entry(r, c, err)))
		return rc;
	bpt_block_check_prepare(r, c);
	enter_block(r, c, &b, is_new);
	return 1;
}

/* The columns' values for records i0..i0+m-1 into c->vals, as stored
 * (deltas, zigzag); columns the block lacks read as 0. */
static int decode_columns(struct bpt_reader *r, struct bpt_bcur *c, uint32_t i0, uint32_t m,
			  struct bpt_error *err)
{
	for (int id = 0; id < COL_KNOWN; id++) {
		if (!c->have[id]) {
			if (!c->zeroed[id])
				memset(c->vals[id], 0, sizeof(c->vals[id]));
			c->zeroed[id] = 1;
			continue;
		}
		c->zeroed[id] = 0;
		if (bpt_col_decode(&c->cols[id], i0, m, c->vals[id]))
			return BAD(c->blk_off, "block %u: column %d: dictionary index out of range",
				   c->seq - 1, id);
	}
	return 0;
}

/* Issue and complete times from their deltas, by the block's time coding;
 * *pi, *pc carry the previous issue and complete times. ORs the reference
 * column into *badref. */
static void decode_times(struct bpt_bcur *c, uint32_t i0, uint32_t m, uint64_t *pi,
			 uint64_t *pc, uint64_t *badref)
{
	uint64_t *issue = c->vals[COL_ISSUE], *comp = c->vals[COL_COMPLETE];

	switch (c->coding & BPT_CODING_TIME_MASK) {
	case BPT_CODING_TIME_COMPLETE:
		for (uint32_t j = 0; j < m; j++) {
			*pc += (uint64_t)unzigzag64(comp[j]);
			comp[j] = *pc;
			issue[j] = *pc - (uint64_t)unzigzag64(issue[j]);
		}
		break;
	case BPT_CODING_TIME_AFTER:
		/* relative to the completion of record i-1-k (the seed
		 * before the block), k from the issue_ref column */
		for (uint32_t j = 0; j < m; j++) {
			uint64_t k = c->vals[COL_ISSUE_REF][j];

			*badref |= k;
			issue[j] = c->ring_comp[(i0 + j - 1 - k) % BPT_REF_WINDOW] +
				   (uint64_t)unzigzag64(issue[j]);
			comp[j] = issue[j] + (uint64_t)unzigzag64(comp[j]);
			c->ring_comp[(i0 + j) % BPT_REF_WINDOW] = comp[j];
		}
		break;
	case BPT_CODING_TIME_BOTH:
		for (uint32_t j = 0; j < m; j++) {
			*pi += (uint64_t)unzigzag64(issue[j]);
			*pc += (uint64_t)unzigzag64(comp[j]);
			issue[j] = *pi;
			comp[j] = *pc;
		}
		break;
	default:
		for (uint32_t j = 0; j < m; j++) {
			*pi += (uint64_t)unzigzag64(issue[j]);
			issue[j] = *pi;
			comp[j] = *pi + (uint64_t)unzigzag64(comp[j]);
		}
		break;
	}
}

/* Sectors relative to the end of record i-1-k, k from sector_ref (unless
 * the block stores them absolute). ORs the reference column into *badref. */
static void decode_sectors(struct bpt_bcur *c, uint32_t i0, uint32_t m, uint64_t *badref)
{
	uint64_t *sector = c->vals[COL_SECTOR], *bytes = c->vals[COL_BYTES];

	if (c->coding & BPT_CODING_SECTOR_ABS)
		return;
	for (uint32_t j = 0; j < m; j++) {
		uint64_t k = c->vals[COL_SECTOR_REF][j];

		*badref |= k;
		sector[j] = c->ring_end[(i0 + j - 1 - k) % BPT_REF_WINDOW] +
			    (uint64_t)unzigzag64(sector[j]);
		c->ring_end[(i0 + j) % BPT_REF_WINDOW] = sector[j] + (bytes[j] >> 9);
	}
}

/* The error for a reference column that reaches past the window. */
static int bad_reference(struct bpt_reader *r, struct bpt_bcur *c, uint32_t i0, uint32_t m,
			 struct bpt_error *err)
{
	uint32_t j = 0;

	while (j < m && c->vals[COL_SECTOR_REF][j] < BPT_REF_WINDOW &&
	       c->vals[COL_ISSUE_REF][j] < BPT_REF_WINDOW)
		j++;
	return BAD(c->blk_off, "block %u: record %u: a reference column reaches past %d records",
		   c->seq - 1, i0 + j, BPT_REF_WINDOW);
}

int bpt_block_decode_chunk(struct bpt_reader *r, struct bpt_bcur *c,
			   struct bpt_error *err)
{
	uint32_t i0 = c->chunk_start + c->chunk_len;
	uint32_t m = c->n - i0 < BPT_CHUNK ? c->n - i0 : BPT_CHUNK;
	int rc = decode_columns(r, c, i0, m, err);

	if (rc)
		return rc;
	uint64_t *issue = c->vals[COL_ISSUE], *queue = c->vals[COL_QUEUE];
	uint64_t *comp = c->vals[COL_COMPLETE], *sector = c->vals[COL_SECTOR];
	uint64_t *bytes = c->vals[COL_BYTES], *sched = c->vals[COL_SCHED];
	uint64_t *src = c->vals[COL_SOURCE], *errv = c->vals[COL_ERROR];
	uint64_t pi = c->prev_issue, pc = c->prev_complete;
	uint64_t ps = c->prev_source;
	uint64_t badref = 0;
	/* the stored values of the range-checked columns, before the
	 * transforms below change the error column's */
	int bad = bpt_block_chunk_out_of_range(r, c, m);

	decode_times(c, i0, m, &pi, &pc, &badref);
	decode_sectors(c, i0, m, &badref);
	if (badref >= BPT_REF_WINDOW)
		return bad_reference(r, c, i0, m, err);
	/* the other fields, and the checks of times and sectors */
	for (uint32_t j = 0; j < m; j++) {
		uint64_t t = issue[j], e = errv[j];

		queue[j] = t - (uint64_t)unzigzag64(queue[j]);
		errv[j] = (uint64_t)(int64_t)(int32_t)((uint32_t)(e >> 1) ^ -(uint32_t)(e & 1));
		bad |= t < c->min_issue || t > c->max_issue || comp[j] > c->max_complete ||
		       !BPT_SECTOR_END_OK(sector[j], bytes[j]);
	}
	if (c->have[COL_SCHED])
		for (uint32_t j = 0; j < m; j++)
			sched[j] = issue[j] + (uint64_t)unzigzag64(sched[j]);
	if (c->have[COL_SOURCE])
		for (uint32_t j = 0; j < m; j++) {
			ps += (uint64_t)unzigzag64(src[j]);
			src[j] = ps;
		}
	/* a block without file or cause columns reads them as zeros, which
	 * pass their checks */
	if (c->have[COL_FILE_CLASS])
		bad |= bpt_file_chunk_bad(c, m);
	if (c->have[COL_CAUSE_PID])
		bad |= bpt_cause_chunk_bad(c, m, r->strs.n);
	if (bad)
		return bpt_block_bad_record(r, c, i0, m, err);
	c->prev_issue = pi;
	c->prev_complete = pc;
	c->prev_source = ps;
	c->chunk_start = i0;
	c->chunk_len = m;
	return 0;
}

void bpt_block_record(const struct bpt_bcur *c, uint32_t j,
		      struct bpt_record *rec)
{
	rec->issue_ns = c->vals[COL_ISSUE][j];
	rec->queue_ns = c->vals[COL_QUEUE][j];
	rec->complete_ns = c->vals[COL_COMPLETE][j];
	rec->sector = c->vals[COL_SECTOR][j];
	rec->cgroup_id = c->vals[COL_CGROUP][j];
	rec->bytes = (uint32_t)c->vals[COL_BYTES][j];
	rec->pid = (uint32_t)c->vals[COL_PID][j];
	rec->comm_id = (uint32_t)c->vals[COL_COMM][j];
	rec->error = (int32_t)c->vals[COL_ERROR][j];
	rec->dev = (uint32_t)c->vals[COL_DEV][j];
	rec->op = (uint8_t)c->vals[COL_OP][j];
	rec->flags = (uint8_t)c->vals[COL_FLAGS][j];
	rec->member = (uint32_t)c->vals[COL_MEMBER][j];
	rec->sched_ns = c->vals[COL_SCHED][j];
	rec->source_index = c->vals[COL_SOURCE][j];
	rec->completion = (uint8_t)c->vals[COL_COMPLETION][j];
	rec->internal = (uint8_t)c->vals[COL_INTERNAL][j];
	/* the file and cause fields, or zeros when the block has none */
	if (c->have[COL_FILE_CLASS])
		bpt_file_decode(c, j, rec);
	else
		memset(&rec->file_class, 0, offsetof(struct bpt_record, cause_pid) -
						    offsetof(struct bpt_record, file_class));
	if (c->have[COL_CAUSE_PID])
		bpt_cause_decode(c, j, rec);
	else
		memset(&rec->cause_pid, 0, sizeof(*rec) - offsetof(struct bpt_record, cause_pid));
}
