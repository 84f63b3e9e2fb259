/*
 * bpt_writer.c — the streaming .bpt writer.
 *
 * Records are split into column values as they arrive and held for one
 * block. When the block closes, choose_coding picks the cheapest coding
 * of its times and sectors (issue or completion deltas, sector deltas or
 * absolute sectors) and turns them into stored values; each column is
 * then coded (bpt_column.c), the payload compressed with zstd (one zstd
 * block per byte plane), checksummed and written with one writev. Memory
 * is one block of column values plus the index, string table and loss
 * list that the footer needs (32 bytes per block, 24 per loss entry).
 * Byte layout: schemas/trace-format.md.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>
#include <zstd.h>

#include "bpt_internal.h"
#include "bpt_strtab.h"

/*
 * Each byte plane of a large block starts a new zstd block (a flush), so
 * zstd builds one entropy table per plane instead of one for a mix of
 * planes with different statistics. Below this many records a plane is
 * too small to pay for its own table.
 */
#define PLANE_CUT_MIN 4096
#define EST_SAMPLE 8192

struct index_entry {
	uint64_t off;
	uint32_t nrecords;
	uint64_t min_issue, max_issue;
};

struct bpt_writer {
	int fd;
	char *path;
	struct bpt_header hdr;
	uint32_t block_records;
	uint64_t span_ns;
	int level, sync_blocks;
	int error;              /* first failure, sticky */
	struct bpt_error err;

	/* The open block: one value array per present column. */
	uint64_t *col[COL_KNOWN];
	uint64_t seed[COL_KNOWN];
	uint32_t n;
	uint64_t prev_source;
	uint64_t min_issue, max_issue, max_complete;
	uint64_t est_a[EST_SAMPLE], est_b[EST_SAMPLE], est_c[EST_SAMPLE];
	struct bpt_loss *blk_loss;
	uint32_t nblk_loss, cap_blk_loss;

	/* What the footer needs. */
	struct bpt_strtab strs;
	uint32_t str_written;    /* strings [0, str_written) are in blocks */
	size_t str_pending_bytes;
	struct bpt_loss *losses;
	size_t nloss, cap_loss;
	struct index_entry *index;
	size_t nblocks, cap_index;
	struct bpt_totals tot;
	uint64_t lost;
	uint64_t digest, offset;

	struct bpt_buf payload, colbuf, zbuf;
	size_t cuts[COL_KNOWN * 8 + 1]; /* payload offsets starting a plane */
	unsigned ncuts;
	ZSTD_CCtx *cctx;
};

static int fail(struct bpt_writer *w, int code, int has_off, const char *what)
{
	if (!w->error) {
		w->error = code;
		bpt_err(&w->err, code, w->path, has_off, w->offset, "%s: %s",
			what, strerror(-code));
	}
	return code;
}

static int write_all(struct bpt_writer *w, const struct iovec *iov, int cnt)
{
	struct iovec v[4];
	size_t total = 0;

	memcpy(v, iov, sizeof(*iov) * (size_t)cnt);
	for (int i = 0; i < cnt; i++)
		total += v[i].iov_len;
	while (total) {
		ssize_t n = writev(w->fd, v, cnt);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail(w, n < 0 ? -errno : -EIO, 1, "write failed");
		w->offset += (uint64_t)n;
		total -= (size_t)n;
		while (cnt && (size_t)n >= v[0].iov_len) {
			n -= (ssize_t)v[0].iov_len;
			memmove(v, v + 1, sizeof(*v) * (size_t)--cnt);
		}
		if (cnt) {
			v[0].iov_base = (char *)v[0].iov_base + n;
			v[0].iov_len -= (size_t)n;
		}
	}
	return 0;
}

static int col_present(const struct bpt_writer *w, int id)
{
	return id < COL_MANDATORY ||
	       (w->hdr.columns & (1u << (id - COL_MANDATORY)));
}

int bpt_writer_create(struct bpt_writer **out, const char *path,
		      const struct bpt_header *hdr,
		      const struct bpt_writer_opts *opts, struct bpt_error *err)
{
	struct bpt_writer *w = calloc(1, sizeof(*w));
	struct bpt_buf hb = { 0 };
	int rc;

	*out = NULL;
	if (!w || !(w->path = strdup(path))) {
		free(w);
		return bpt_err(err, -ENOMEM, path, 0, 0, "out of memory");
	}
	w->fd = -1;
	w->hdr = *hdr;
	w->hdr.version_major = BPT_FORMAT_MAJOR;
	w->hdr.version_minor = BPT_FORMAT_MINOR;
	w->block_records = opts && opts->block_records ? opts->block_records
						       : BPT_DEFAULT_BLOCK_RECORDS;
	w->span_ns = opts && opts->block_span_ns ? opts->block_span_ns
						 : BPT_DEFAULT_SPAN_NS;
	w->level = opts && opts->zstd_level ? opts->zstd_level
					    : BPT_DEFAULT_ZSTD_LEVEL;
	w->sync_blocks = opts ? opts->sync_blocks : 0;
	if (w->block_records > BPT_BLOCK_MAX_RECORDS) {
		rc = bpt_err(err, -EINVAL, path, 0, 0,
			     "block_records %u: at most %u", w->block_records,
			     BPT_BLOCK_MAX_RECORDS);
		goto fail;
	}
	rc = bpt_header_encode(&w->hdr, &hb, path, err);
	if (rc)
		goto fail;
	for (int id = 0; id < COL_KNOWN; id++) {
		if (!col_present(w, id))
			continue;
		w->col[id] = malloc(sizeof(uint64_t) * w->block_records);
		if (!w->col[id]) {
			rc = bpt_err(err, -ENOMEM, path, 0, 0, "out of memory");
			goto fail;
		}
	}
	w->cctx = ZSTD_createCCtx();
	if (!w->cctx) {
		rc = bpt_err(err, -ENOMEM, path, 0, 0, "out of memory");
		goto fail;
	}
	uint32_t empty;

	/* String 0 is always "": records that leave comm_id at 0 are valid. */
	rc = bpt_strtab_intern(&w->strs, "", 0, &empty);
	if (rc) {
		bpt_err(err, rc, path, 0, 0, "out of memory");
		goto fail;
	}
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		rc = -errno;
		bpt_err(err, rc, path, 0, 0, "cannot create: %s", strerror(errno));
		goto fail;
	}
	w->digest = get_le64(hb.p + hb.len - 8);
	struct iovec iov = { hb.p, hb.len };

	rc = write_all(w, &iov, 1);
	if (rc) {
		if (err)
			*err = w->err;
		goto fail;
	}
	buf_free(&hb);
	*out = w;
	return 0;
fail:
	buf_free(&hb);
	w->error = rc;
	bpt_writer_close(w, NULL);
	return rc;
}

int bpt_writer_intern(struct bpt_writer *w, const char *s, uint32_t *id)
{
	size_t len = strlen(s);
	int rc;

	if (w->error)
		return w->error;
	if (len > BPT_STR_MAX)
		return -E2BIG;
	/* Keep a block's string additions bounded. */
	if (w->str_pending_bytes > (1u << 20)) {
		rc = bpt_writer_flush(w);
		if (rc)
			return rc;
	}
	uint32_t before = w->strs.count;

	rc = bpt_strtab_intern(&w->strs, s, len, id);
	if (rc)
		return rc;
	if (w->strs.count != before)
		w->str_pending_bytes += len + 2;
	return 0;
}

static inline uint64_t zz32(int32_t v)
{
	return (uint32_t)(((uint32_t)v << 1) ^ (uint32_t)(v >> 31));
}

int bpt_writer_add(struct bpt_writer *w, const struct bpt_record *r)
{
	int rc;

	if (w->error)
		return w->error;
	if (r->dev >= w->hdr.ndevices || r->op >= BPT_OP__COUNT ||
	    (r->flags & ~BPT_F__ALL) || r->comm_id >= w->strs.count)
		return -EINVAL;
	if (w->n) {
		uint64_t lo = r->issue_ns < w->min_issue ? r->issue_ns : w->min_issue;
		uint64_t hi = r->issue_ns > w->max_issue ? r->issue_ns : w->max_issue;

		if (hi - lo >= w->span_ns) {
			rc = bpt_writer_flush(w);
			if (rc)
				return rc;
		}
	}
	uint32_t i = w->n;

	if (i == 0) {
		w->prev_source = w->seed[COL_SOURCE] = r->source_index;
		w->min_issue = w->max_issue = r->issue_ns;
		w->max_complete = r->complete_ns;
	}
	w->min_issue = r->issue_ns < w->min_issue ? r->issue_ns : w->min_issue;
	w->max_issue = r->issue_ns > w->max_issue ? r->issue_ns : w->max_issue;
	w->max_complete = r->complete_ns > w->max_complete ? r->complete_ns
							   : w->max_complete;
	/* Times and sectors are kept raw; flush picks their coding. */
	w->col[COL_ISSUE][i] = r->issue_ns;
	w->col[COL_COMPLETE][i] = r->complete_ns;
	w->col[COL_SECTOR][i] = r->sector;
	w->col[COL_QUEUE][i] = zigzag64((int64_t)(r->issue_ns - r->queue_ns));
	w->col[COL_BYTES][i] = r->bytes;
	w->col[COL_DEV][i] = r->dev;
	w->col[COL_OP][i] = r->op;
	w->col[COL_FLAGS][i] = r->flags;
	w->col[COL_PID][i] = r->pid;
	w->col[COL_COMM][i] = r->comm_id;
	w->col[COL_CGROUP][i] = r->cgroup_id;
	w->col[COL_ERROR][i] = zz32(r->error);
	if (w->col[COL_SCHED])
		w->col[COL_SCHED][i] = zigzag64((int64_t)(r->sched_ns - r->issue_ns));
	if (w->col[COL_SOURCE]) {
		w->col[COL_SOURCE][i] =
			zigzag64((int64_t)(r->source_index - w->prev_source));
		w->prev_source = r->source_index;
	}
	if (w->col[COL_MEMBER])
		w->col[COL_MEMBER][i] = r->member;
	w->n++;
	if (w->n >= w->block_records)
		return bpt_writer_flush(w);
	return 0;
}

int bpt_writer_add_loss(struct bpt_writer *w, uint64_t t0_ns, uint64_t t1_ns,
			uint64_t count)
{
	int rc;

	if (w->error)
		return w->error;
	if (t1_ns < t0_ns)
		return -EINVAL;
	if (w->nblk_loss >= BPT_MAX_LOSSES_PER_BLOCK) {
		rc = bpt_writer_flush(w);
		if (rc)
			return rc;
	}
	if (w->nblk_loss == w->cap_blk_loss) {
		uint32_t cap = w->cap_blk_loss ? w->cap_blk_loss * 2 : 16;
		struct bpt_loss *l = realloc(w->blk_loss, cap * sizeof(*l));

		if (!l)
			return -ENOMEM;
		w->blk_loss = l;
		w->cap_blk_loss = cap;
	}
	if (w->nloss + w->nblk_loss >= w->cap_loss) {
		size_t cap = w->cap_loss ? w->cap_loss * 2 : 16;
		struct bpt_loss *l = realloc(w->losses, cap * sizeof(*l));

		if (!l)
			return -ENOMEM;
		w->losses = l;
		w->cap_loss = cap;
	}
	w->blk_loss[w->nblk_loss++] = (struct bpt_loss){ t0_ns, t1_ns, count };
	return 0;
}

/*
 * Pick the block's coding flags and turn the raw time and sector columns
 * into what is stored. Records in issue order make issue deltas cheap;
 * records in completion order (a capture) make completion deltas cheap,
 * and the issue time is then stored relative to completion; at queue
 * depth 1 each I/O is issued shortly after the previous one completed,
 * so that gap is cheapest (the service time is stored once, not twice,
 * as it would be in the issue delta). Sectors are
 * coded as the distance from the previous request's end, unless storing
 * them as they are is cheaper, as it is for random I/O, where the
 * difference of two random offsets costs a bit more than one offset.
 * "Cheaper" is estimated on the block's first EST_SAMPLE records with
 * bpt_col_estimate (the entropy of the byte planes).
 */
static unsigned choose_coding(struct bpt_writer *w)
{
	uint64_t *is = w->col[COL_ISSUE], *co = w->col[COL_COMPLETE];
	uint64_t *se = w->col[COL_SECTOR], *by = w->col[COL_BYTES];
	uint64_t *a = w->est_a, *b = w->est_b, end;
	uint32_t n = w->n, m = n < EST_SAMPLE ? n : EST_SAMPLE;
	unsigned flags = 0;

	if (!n)
		return 0;
	end = se[0];
	for (uint32_t i = 0; i < m; i++) {
		a[i] = zigzag64((int64_t)(se[i] - end));
		end = se[i] + (by[i] >> 9);
	}
	if (bpt_col_estimate(se, m) < bpt_col_estimate(a, m)) {
		flags |= BPT_CODING_SECTOR_ABS;
		w->seed[COL_SECTOR] = 0;
	} else {
		w->seed[COL_SECTOR] = end = se[0];
		for (uint32_t i = 0; i < n; i++) {
			uint64_t s = se[i];

			se[i] = zigzag64((int64_t)(s - end));
			end = s + (by[i] >> 9);
		}
	}
	/* a: issue deltas, b: completion deltas, c: issue after the
	 * previous completion (what is cheap at queue depth 1) */
	uint64_t *c = w->est_c;

	a[0] = b[0] = c[0] = 0;
	for (uint32_t i = 1; i < m; i++) {
		a[i] = zigzag64((int64_t)(is[i] - is[i - 1]));
		b[i] = zigzag64((int64_t)(co[i] - co[i - 1]));
		c[i] = zigzag64((int64_t)(is[i] - co[i - 1]));
	}
	double ea = bpt_col_estimate(a, m), eb = bpt_col_estimate(b, m);
	double ec = bpt_col_estimate(c, m);

	if (ec < ea && ec < eb) {
		uint64_t prev = is[0];

		flags |= BPT_CODING_TIME_AFTER;
		w->seed[COL_ISSUE] = prev;
		w->seed[COL_COMPLETE] = 0;
		for (uint32_t i = 0; i < n; i++) {
			uint64_t t = is[i];

			is[i] = zigzag64((int64_t)(t - prev));
			prev = co[i];
			co[i] = zigzag64((int64_t)(co[i] - t));
		}
	} else if (eb < ea) {
		uint64_t prev = co[0];

		flags |= BPT_CODING_TIME_COMPLETE;
		w->seed[COL_COMPLETE] = prev;
		w->seed[COL_ISSUE] = 0;
		for (uint32_t i = 0; i < n; i++) {
			uint64_t c = co[i];

			co[i] = zigzag64((int64_t)(c - prev));
			is[i] = zigzag64((int64_t)(c - is[i]));
			prev = c;
		}
	} else {
		uint64_t prev = is[0];

		w->seed[COL_ISSUE] = prev;
		w->seed[COL_COMPLETE] = 0;
		for (uint32_t i = 0; i < n; i++) {
			uint64_t t = is[i];

			is[i] = zigzag64((int64_t)(t - prev));
			co[i] = zigzag64((int64_t)(co[i] - t));
			prev = t;
		}
	}
	return flags;
}

/* The uncompressed block payload: strings, losses, columns. */
static void build_payload(struct bpt_writer *w)
{
	struct bpt_buf *p = &w->payload;
	uint32_t ncols = 0;

	p->len = 0;
	w->ncuts = 0;
	buf_varint(p, w->strs.count - w->str_written);
	buf_varint(p, w->str_written);
	for (uint32_t id = w->str_written; id < w->strs.count; id++) {
		size_t len;
		const char *s = bpt_strtab_get(&w->strs, id, &len);

		buf_str16(p, s, len);
	}
	buf_varint(p, w->nblk_loss);
	for (uint32_t i = 0; i < w->nblk_loss; i++) {
		buf_varint(p, w->blk_loss[i].t0_ns);
		buf_varint(p, w->blk_loss[i].t1_ns - w->blk_loss[i].t0_ns);
		buf_varint(p, w->blk_loss[i].count);
	}
	for (int id = 0; id < COL_KNOWN; id++)
		ncols += w->col[id] != NULL;
	buf_varint(p, ncols);
	for (int id = 0; id < COL_KNOWN; id++) {
		if (!w->col[id])
			continue;
		unsigned nplanes;
		size_t planes_at;

		w->colbuf.len = 0;
		bpt_col_encode(&w->colbuf, w->col[id], w->n, w->seed[id],
			       &nplanes, &planes_at);
		if (w->colbuf.oom) {
			p->oom = 1;
			return;
		}
		buf_varint(p, (uint64_t)id);
		buf_varint(p, w->colbuf.len);
		planes_at += p->len;
		buf_put(p, w->colbuf.p, w->colbuf.len);
		for (unsigned k = 0; k < nplanes && w->n >= PLANE_CUT_MIN; k++) {
			assert(w->ncuts < sizeof(w->cuts) / sizeof(w->cuts[0]));
			w->cuts[w->ncuts++] = planes_at + (size_t)k * w->n;
		}
	}
}

static int grow_index(struct bpt_writer *w)
{
	if (w->nblocks < w->cap_index)
		return 0;
	size_t cap = w->cap_index ? w->cap_index * 2 : 64;
	struct index_entry *e = realloc(w->index, cap * sizeof(*e));

	if (!e)
		return -ENOMEM;
	w->index = e;
	w->cap_index = cap;
	return 0;
}

/* zstd of the payload into zbuf, one zstd block per plane (see cuts). */
static size_t compress(struct bpt_writer *w, size_t bound)
{
	ZSTD_outBuffer out = { w->zbuf.p, bound, 0 };
	size_t from = 0, rc;

	ZSTD_CCtx_reset(w->cctx, ZSTD_reset_session_only);
	rc = ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, w->level);
	if (ZSTD_isError(rc))
		return rc;
	ZSTD_CCtx_setPledgedSrcSize(w->cctx, w->payload.len);
	for (unsigned i = 0; i <= w->ncuts; i++) {
		size_t to = i < w->ncuts ? w->cuts[i] : w->payload.len;
		ZSTD_inBuffer in = { w->payload.p + from, to - from, 0 };
		ZSTD_EndDirective mode = i < w->ncuts ? ZSTD_e_flush : ZSTD_e_end;

		do {
			rc = ZSTD_compressStream2(w->cctx, &out, &in, mode);
			if (ZSTD_isError(rc))
				return rc;
		} while (rc && out.pos < out.size);
		if (rc)
			return (size_t)-1; /* did not fit: store raw */
		from = to;
	}
	return out.pos;
}

int bpt_writer_flush(struct bpt_writer *w)
{
	uint8_t bh[BPT_BLOCK_HDR];
	const void *stored;
	size_t stored_len;
	uint8_t comp = BPT_COMP_ZSTD;
	int rc;

	if (w->error)
		return w->error;
	if (!w->n && !w->nblk_loss && w->str_written == w->strs.count)
		return 0;
	if (w->nblocks >= UINT32_MAX)
		return fail(w, -EFBIG, 0, "too many blocks");
	if ((rc = grow_index(w)))
		return fail(w, rc, 0, "out of memory");
	unsigned coding = choose_coding(w);

	build_payload(w);
	if (w->payload.oom)
		return fail(w, -ENOMEM, 0, "out of memory");
	if (w->payload.len > BPT_BLOCK_MAX_RAW)
		return fail(w, -EFBIG, 0, "block payload too large");
	size_t bound = ZSTD_compressBound(w->payload.len);

	if (!buf_reserve(&w->zbuf, bound))
		return fail(w, -ENOMEM, 0, "out of memory");
	size_t z = compress(w, bound);

	if (ZSTD_isError(z) || z >= w->payload.len) {
		comp = BPT_COMP_NONE;
		stored = w->payload.p;
		stored_len = w->payload.len;
	} else {
		stored = w->zbuf.p;
		stored_len = z;
	}
	if (!w->n)
		w->min_issue = w->max_issue = w->max_complete = 0;
	memcpy(bh, BPT_BLOCK_MAGIC, 4);
	put_le32(bh + 4, (uint32_t)w->nblocks);
	put_le32(bh + 8, w->n);
	put_le32(bh + 12, (uint32_t)stored_len);
	put_le32(bh + 16, (uint32_t)w->payload.len);
	bh[20] = comp;
	bh[21] = (uint8_t)coding;
	bh[22] = bh[23] = 0;
	put_le64(bh + 24, w->min_issue);
	put_le64(bh + 32, w->max_issue);
	put_le64(bh + 40, w->max_complete);
	struct bpt_xxh64_state hs;

	bpt_xxh64_init(&hs, 0);
	bpt_xxh64_update(&hs, bh, BPT_BLOCK_CKSUM_OFF);
	bpt_xxh64_update(&hs, stored, stored_len);
	uint64_t ck = bpt_xxh64_final(&hs);

	put_le64(bh + BPT_BLOCK_CKSUM_OFF, ck);
	uint64_t off = w->offset;
	struct iovec iov[2] = { { bh, sizeof(bh) }, { (void *)stored, stored_len } };

	if ((rc = write_all(w, iov, 2)))
		return rc;
	if (w->sync_blocks && fdatasync(w->fd))
		return fail(w, -errno, 1, "fdatasync failed");
	w->index[w->nblocks++] = (struct index_entry){ off, w->n, w->min_issue,
						       w->max_issue };
	w->digest = bpt_digest_step(w->digest, ck);
	bpt_totals_add(&w->tot, w->n, w->min_issue, w->max_issue, w->max_complete);
	for (uint32_t i = 0; i < w->nblk_loss; i++) {
		w->losses[w->nloss++] = w->blk_loss[i];
		w->lost += w->blk_loss[i].count;
	}
	w->nblk_loss = 0;
	w->n = 0;
	w->str_written = w->strs.count;
	w->str_pending_bytes = 0;
	return 0;
}

static int write_footer(struct bpt_writer *w)
{
	struct bpt_buf f = { 0 };
	uint8_t tr[BPT_TRAILER];
	uint64_t foff = w->offset;
	int rc;

	buf_put(&f, BPT_FOOTER_MAGIC, 4);
	buf_u32(&f, 0);
	buf_u64(&f, w->nblocks);
	buf_u64(&f, w->tot.records);
	buf_u64(&f, w->tot.first_issue);
	buf_u64(&f, w->tot.last_issue);
	buf_u64(&f, w->tot.last_complete);
	buf_u64(&f, w->lost);
	buf_u64(&f, w->nloss);
	buf_u64(&f, w->strs.count);
	buf_u64(&f, w->digest);
	for (size_t i = 0; i < w->nblocks; i++) {
		buf_u64(&f, w->index[i].off);
		buf_u32(&f, w->index[i].nrecords);
		buf_u32(&f, 0);
		buf_u64(&f, w->index[i].min_issue);
		buf_u64(&f, w->index[i].max_issue);
	}
	for (size_t i = 0; i < w->nloss; i++) {
		buf_u64(&f, w->losses[i].t0_ns);
		buf_u64(&f, w->losses[i].t1_ns);
		buf_u64(&f, w->losses[i].count);
	}
	for (uint32_t id = 0; id < w->strs.count; id++) {
		size_t len;
		const char *s = bpt_strtab_get(&w->strs, id, &len);

		buf_str16(&f, s, len);
	}
	if (f.oom) {
		buf_free(&f);
		return fail(w, -ENOMEM, 0, "footer: out of memory");
	}
	put_le64(tr, foff);
	put_le64(tr + 8, bpt_xxh64(f.p, f.len, 0));
	memcpy(tr + 16, BPT_TRAILER_MAGIC, 8);
	struct iovec iov[2] = { { f.p, f.len }, { tr, sizeof(tr) } };

	rc = write_all(w, iov, 2);
	buf_free(&f);
	return rc;
}

int bpt_writer_close(struct bpt_writer *w, struct bpt_error *err)
{
	int rc;

	if (!w)
		return 0;
	if (w->fd >= 0 && !w->error) {
		bpt_writer_flush(w);
		if (!w->error)
			write_footer(w);
		if (!w->error && w->sync_blocks && fsync(w->fd))
			fail(w, -errno, 0, "fsync failed");
	}
	if (w->fd >= 0 && close(w->fd) && !w->error)
		fail(w, -errno, 0, "close failed");
	rc = w->error;
	if (rc && err && w->err.code)
		*err = w->err;
	for (int id = 0; id < COL_KNOWN; id++)
		free(w->col[id]);
	free(w->blk_loss);
	free(w->losses);
	free(w->index);
	bpt_strtab_free(&w->strs);
	buf_free(&w->payload);
	buf_free(&w->colbuf);
	buf_free(&w->zbuf);
	ZSTD_freeCCtx(w->cctx);
	free(w->path);
	free(w);
	return rc;
}

uint64_t bpt_writer_count(const struct bpt_writer *w)
{
	return w->tot.records + w->n;
}

uint64_t bpt_writer_bytes(const struct bpt_writer *w)
{
	return w->offset;
}
