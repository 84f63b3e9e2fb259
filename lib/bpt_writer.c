/*
 * bpt_writer.c — the streaming .bpt writer: the file, the header, the
 * string table, loss entries, closing blocks when they are full or span
 * too much time, the footer and the bookkeeping it needs. The open block
 * and its encoding are in bpt_blockenc.c. Memory is one block of column
 * values plus what the footer needs: 32 bytes per block written, 24 per
 * loss entry, and the string table. Layout: schemas/trace-format.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>

#include "bpt_blockenc.h"
#include "bpt_file.h"

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

	struct bpt_blockenc blk; /* the open block */
	struct bpt_loss *blk_loss;
	uint32_t nblk_loss, cap_blk_loss;

	/* What the footer needs. */
	struct strtab strs;      /* common/strtab.h: interned, ids in order of use */
	uint32_t str_written;    /* strings [0, str_written) are in blocks */
	size_t str_pending_bytes;
	struct bpt_loss *losses;
	size_t nloss, cap_loss;
	struct index_entry *index;
	size_t nblocks, cap_index;
	struct bpt_totals tot;
	uint64_t lost;
	uint64_t digest, offset;
	/* meta known only at the end (bpt_writer_set_end_meta), for the footer */
	struct bpt_meta end_meta[BPT_MAX_META];
	uint32_t nend_meta;
	struct bpt_pathtab paths; /* the path table (1.3), for the footer */
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

int bpt_writer_create(struct bpt_writer **out, const char *path,
		      const struct bpt_header *hdr,
		      const struct bpt_writer_opts *opts, struct bpt_error *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	*out = NULL;
	if (fd < 0) {
		int rc = -errno;

		return bpt_err(err, rc, path, 0, 0, "cannot create: %s", strerror(-rc));
	}
	return bpt_writer_create_fd(out, fd, path, hdr, opts, err);
}

int bpt_writer_create_fd(struct bpt_writer **out, int fd, const char *path,
			 const struct bpt_header *hdr,
			 const struct bpt_writer_opts *opts, struct bpt_error *err)
{
	struct bpt_writer *w = calloc(1, sizeof(*w));
	struct bpt_buf hb = { 0 };
	int rc;

	*out = NULL;
	if (!w || !(w->path = strdup(path))) {
		free(w);
		close(fd);
		return bpt_err(err, -ENOMEM, path, 0, 0, "out of memory");
	}
	w->fd = fd;
	strtab_init(&w->strs, BPT_MAX_STRINGS, UINT32_MAX);
	if (bpt_header_copy(&w->hdr, hdr)) {
		free(w->path);
		free(w);
		close(fd);
		return bpt_err(err, -ENOMEM, path, 0, 0, "out of memory");
	}
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
	rc = bpt_blockenc_init(&w->blk, w->hdr.columns, w->block_records, w->level);
	if (rc) {
		bpt_err(err, rc, path, 0, 0, "out of memory");
		goto fail;
	}
	uint32_t empty;

	/* String 0 is always "": records that leave comm_id at 0 are valid. */
	rc = strtab_intern(&w->strs, "", 0, &empty);
	if (rc) {
		bpt_err(err, rc, path, 0, 0, "out of memory");
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
	uint32_t before = w->strs.n;

	rc = strtab_intern(&w->strs, s, len, id);
	if (rc)
		return rc;
	if (w->strs.n != before)
		w->str_pending_bytes += len + 2;
	return 0;
}

int bpt_writer_add(struct bpt_writer *w, const struct bpt_record *r)
{
	int rc;

	if (w->error)
		return w->error;
	if (r->dev >= w->hdr.ndevices || r->op >= BPT_OP__COUNT ||
	    (r->flags & ~BPT_F__ALL) || r->completion >= BPT_COMPLETION__COUNT ||
	    r->internal > 1 || bpt_file_record_bad(r) ||
	    bpt_cause_record_bad(r, w->strs.n) ||
	    r->comm_id >= w->strs.n || !BPT_SECTOR_END_OK(r->sector, r->bytes))
		return -EINVAL;
	if (w->blk.n) {
		uint64_t lo = r->issue_ns < w->blk.min_issue ? r->issue_ns : w->blk.min_issue;
		uint64_t hi = r->issue_ns > w->blk.max_issue ? r->issue_ns : w->blk.max_issue;

		if (hi - lo >= w->span_ns) {
			rc = bpt_writer_flush(w);
			if (rc)
				return rc;
		}
	}
	if ((rc = bpt_blockenc_add(&w->blk, r)))
		return rc;
	if (w->blk.n >= w->block_records)
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

int bpt_writer_flush(struct bpt_writer *w)
{
	uint8_t bh[BPT_BLOCK_HDR];
	const void *stored;
	size_t stored_len;
	int rc;

	if (w->error)
		return w->error;
	if (!w->blk.n && !w->nblk_loss && w->str_written == w->strs.n)
		return 0;
	if (w->nblocks >= UINT32_MAX)
		return fail(w, -EFBIG, 0, "too many blocks");
	if ((rc = grow_index(w)))
		return fail(w, rc, 0, "out of memory");
	rc = bpt_blockenc_finish(&w->blk, (uint32_t)w->nblocks, &w->strs,
				 w->str_written, w->blk_loss, w->nblk_loss, bh,
				 &stored, &stored_len);
	if (rc)
		return fail(w, rc, 0, rc == -EFBIG ? "block payload too large"
						   : "out of memory");
	uint64_t off = w->offset;
	struct iovec iov[2] = { { bh, sizeof(bh) }, { (void *)stored, stored_len } };

	if ((rc = write_all(w, iov, 2)))
		return rc;
	if (w->sync_blocks && fdatasync(w->fd))
		return fail(w, -errno, 1, "fdatasync failed");
	w->index[w->nblocks++] = (struct index_entry){ off, w->blk.n,
						       get_le64(bh + BPT_BLOCK_MIN_ISSUE_OFF),
						       get_le64(bh + BPT_BLOCK_MAX_ISSUE_OFF) };
	w->digest = bpt_digest_step(w->digest, get_le64(bh + BPT_BLOCK_CKSUM_OFF));
	bpt_totals_add(&w->tot, w->blk.n, get_le64(bh + BPT_BLOCK_MIN_ISSUE_OFF),
		       get_le64(bh + BPT_BLOCK_MAX_ISSUE_OFF),
		       get_le64(bh + BPT_BLOCK_MAX_COMPLETE_OFF));
	for (uint32_t i = 0; i < w->nblk_loss; i++) {
		w->losses[w->nloss++] = w->blk_loss[i];
		w->lost += w->blk_loss[i].count;
	}
	w->nblk_loss = 0;
	w->blk.n = 0;
	w->str_written = w->strs.n;
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
	buf_u64(&f, w->strs.n);
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
	for (uint32_t id = 0; id < w->strs.n; id++) {
		size_t len;
		const char *s = strtab_get(&w->strs, id, &len);

		buf_str16(&f, s, len);
	}
	/* extension of minor 1: the end meta */
	buf_u16(&f, (uint16_t)w->nend_meta);
	for (uint32_t i = 0; i < w->nend_meta; i++) {
		buf_str16(&f, w->end_meta[i].key, strlen(w->end_meta[i].key));
		buf_str16(&f, w->end_meta[i].value, strlen(w->end_meta[i].value));
	}
	/* extension of minor 3: the path table */
	bpt_pathtab_encode(&f, &w->paths);
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
	bpt_blockenc_free(&w->blk);
	free(w->blk_loss);
	free(w->losses);
	free(w->index);
	strtab_free(&w->strs);
	bpt_pathtab_free(&w->paths);
	bpt_header_free(&w->hdr);
	free(w->path);
	free(w);
	return rc;
}

int bpt_writer_add_path(struct bpt_writer *w, uint32_t file_dev, uint64_t inode,
			const char *path)
{
	uint32_t id;
	int rc;

	if (!path[0])
		return -EINVAL;
	if ((rc = bpt_writer_intern(w, path, &id)))
		return rc;
	return bpt_pathtab_add(&w->paths, file_dev, inode, id);
}

int bpt_writer_set_end_meta(struct bpt_writer *w, const char *key, const char *value)
{
	size_t kl = strlen(key), vl = strlen(value);
	uint32_t i, total = w->hdr.nmeta;

	if (!kl || kl >= sizeof(w->end_meta[0].key) || vl >= sizeof(w->end_meta[0].value))
		return -E2BIG;
	for (i = 0; i < w->nend_meta; i++)
		if (!strcmp(w->end_meta[i].key, key))
			break;
	if (i == w->nend_meta) {
		/* the reader shows both sets together: at most BPT_MAX_META keys */
		for (uint32_t j = 0; j < w->nend_meta; j++)
			total += !bpt_header_get_meta(&w->hdr, w->end_meta[j].key);
		if (!bpt_header_get_meta(&w->hdr, key) && total >= BPT_MAX_META)
			return -E2BIG;
		w->nend_meta++;
	}
	memcpy(w->end_meta[i].key, key, kl + 1);
	memcpy(w->end_meta[i].value, value, vl + 1);
	return 0;
}

uint64_t bpt_writer_count(const struct bpt_writer *w)
{
	return w->tot.records + w->blk.n;
}

uint64_t bpt_writer_written(const struct bpt_writer *w)
{
	return w->tot.records;
}

uint64_t bpt_writer_bytes(const struct bpt_writer *w)
{
	return w->offset;
}
