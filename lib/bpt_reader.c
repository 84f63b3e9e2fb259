/*
 * bpt_reader.c — opening a .bpt file or buffer, reading its records in
 * file order, seeking to a time, and the reader's accessors. Block
 * loading and decoding live in bpt_block.c, the footer in bpt_footer.c,
 * verify and digest in bpt_verify.c; the state is described in
 * bpt_reader_int.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpt_reader_int.h"
#include "filekind.h"

int bpt_src_read(const struct bpt_reader *r, uint64_t off, void *dst, size_t len)
{
	if (off > r->size || len > r->size - off)
		return -EIO;
	if (!len)
		return 0;
	if (r->fd < 0) {
		memcpy(dst, r->mem + off, len);
		return 0;
	}
	uint8_t *d = dst;

	while (len) {
		ssize_t n = pread(r->fd, d, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO; /* the file shrank under us */
		d += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

const uint8_t *bpt_src_view(const struct bpt_reader *r, uint64_t off,
			    size_t len, struct bpt_buf *buf, int *rc)
{
	if (off > r->size || len > r->size - off) {
		*rc = -EIO;
		return NULL;
	}
	if (r->fd < 0)
		return r->mem + off;
	buf->len = 0;
	if (!buf_reserve(buf, len ? len : 1)) {
		*rc = -ENOMEM;
		return NULL;
	}
	*rc = bpt_src_read(r, off, buf->p, len);
	return *rc ? NULL : buf->p;
}

int bpt_reader_add_string(struct bpt_reader *r, uint32_t id, const uint8_t *s,
			  size_t len)
{
	if (memchr(s, 0, len))
		return -EBADMSG;
	if (id < r->strs.n)
		return r->strs.len[id] == len && !memcmp(r->strs.str[id], s, len) ? 0 : -EBADMSG;
	if (id != r->strs.n)
		return -EBADMSG;
	int rc = strtab_add(&r->strs, (const char *)s, len, &id);

	return rc == -E2BIG ? -EBADMSG : rc;
}

int bpt_reader_add_loss(struct bpt_reader *r, const struct bpt_loss *l)
{
	if (r->nloss == r->cap_loss) {
		size_t cap = r->cap_loss ? r->cap_loss * 2 : 16;
		struct bpt_loss *p = realloc(r->losses, sizeof(*p) * cap);

		if (!p)
			return -ENOMEM;
		r->losses = p;
		r->cap_loss = cap;
	}
	r->losses[r->nloss++] = *l;
	return 0;
}

/* Everything after the source is set: header, footer, first cursor. */
static int open_common(struct bpt_reader *r, struct bpt_error *err)
{
	uint8_t fixed[BPT_HDR_FIXED];
	size_t avail = r->size < sizeof(fixed) ? (size_t)r->size : sizeof(fixed);
	struct bpt_buf hb = { 0 };
	int rc;

	if ((rc = bpt_src_read(r, 0, fixed, avail)))
		return bpt_err(err, rc, r->name, 1, 0, "read failed");
	if ((rc = bpt_header_check_fixed(fixed, avail, r->size, &r->hdr_size,
					 r->name, err)))
		return rc;
	const uint8_t *h = bpt_src_view(r, 0, r->hdr_size, &hb, &rc);

	if (!h)
		return bpt_err(err, rc, r->name, 1, 0, "read failed");
	rc = bpt_header_decode(h, r->hdr_size, &r->hdr, &r->hdr_checksum,
			       r->name, err);
	buf_free(&hb);
	if (rc)
		return rc;
	if ((rc = bpt_footer_read(r, err)))
		return rc;
	r->cur = bpt_bcur_new();
	if (!r->cur)
		return bpt_err(err, -ENOMEM, r->name, 0, 0, "out of memory");
	bpt_bcur_reset(r, r->cur);
	r->valid_bytes = r->hdr_size;
	return 0;
}

static struct bpt_reader *reader_new(const char *name)
{
	struct bpt_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->fd = -1;
	strtab_init(&r->strs, BPT_MAX_STRINGS, UINT64_MAX);
	r->name = strdup(name ? name : "trace");
	if (!r->name) {
		free(r);
		return NULL;
	}
	return r;
}

static bpt_foreign_opener foreign_opener;

void bpt_reader_set_foreign_opener(bpt_foreign_opener fn)
{
	foreign_opener = fn;
}

/* A .bpt file starts with the magic: 1, else 0 (also when unreadable). */
static int has_bpt_magic(int fd)
{
	uint8_t m[BPT_MAGIC_LEN];
	ssize_t n = pread(fd, m, sizeof(m), 0);

	return n > 0 && !memcmp(m, BPT_MAGIC, (size_t)n);
}

/*
 * path is no .bpt file (err holds why): let the foreign opener try. Its
 * -ENOMSG (no format knows the file) keeps our error, with what was tried
 * added when the file is there but not a trace.
 */
static int try_foreign(struct bpt_reader **out, const char *path, int rc,
		       struct bpt_error *err)
{
	struct bpt_error fe = { 0 };
	int frc;

	if (!foreign_opener)
		return rc;
	frc = foreign_opener(out, path, &fe);
	if (frc == -ENOMSG) {
		if (err && rc == -EBADMSG && fe.msg[0]) {
			size_t l = strlen(err->msg);

			snprintf(err->msg + l, sizeof(err->msg) - l,
				 ", nor a foreign trace (%s)", fe.msg);
		}
		return rc;
	}
	if (err)
		*err = fe;
	return frc;
}

int bpt_reader_open(struct bpt_reader **out, const char *path,
		    struct bpt_error *err)
{
	struct bpt_reader *r = reader_new(path);
	struct stat st;
	int rc;

	*out = NULL;
	if (!r)
		return bpt_err(err, -ENOMEM, path, 0, 0, "out of memory");
	/* O_NONBLOCK: opening a FIFO would wait for a writer. The reader
	 * needs the footer at the end and seeks to blocks, so only a regular
	 * file will do; anything else is refused before a byte is read. */
	r->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (r->fd < 0) {
		rc = bpt_err(err, -errno, path, 0, 0, "cannot open: %s", strerror(errno));
		if (rc == -ENOENT) { /* a blktrace prefix names no file */
			bpt_reader_close(r);
			return try_foreign(out, path, rc, err);
		}
		goto fail;
	}
	if (fstat(r->fd, &st)) {
		rc = bpt_err(err, -errno, path, 0, 0, "cannot stat: %s", strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = bpt_err(err, -EINVAL, path, 0, 0,
			     "%s, not a trace file (a trace is read from a regular file: "
			     "its index is at the end)", file_kind(st.st_mode));
		goto fail;
	}
	fcntl(r->fd, F_SETFL, fcntl(r->fd, F_GETFL) & ~O_NONBLOCK);
	r->size = (uint64_t)st.st_size;
	if (foreign_opener && !has_bpt_magic(r->fd)) {
		rc = open_common(r, err); /* the .bpt error, for the message */
		bpt_reader_close(r);
		return try_foreign(out, path, rc, err);
	}
	if ((rc = open_common(r, err)))
		goto fail;
	*out = r;
	return 0;
fail:
	bpt_reader_close(r);
	return rc;
}

int bpt_reader_open_mem(struct bpt_reader **out, const void *data, size_t len,
			const char *name, struct bpt_error *err)
{
	struct bpt_reader *r = reader_new(name);
	int rc;

	*out = NULL;
	if (!r)
		return bpt_err(err, -ENOMEM, name, 0, 0, "out of memory");
	r->mem = data;
	r->size = len;
	if ((rc = open_common(r, err))) {
		bpt_reader_close(r);
		return rc;
	}
	*out = r;
	return 0;
}

void bpt_reader_close(struct bpt_reader *r)
{
	if (!r)
		return;
	if (r->src)
		r->src->close(r->src_ctx);
	if (r->fd >= 0)
		close(r->fd);
	strtab_free(&r->strs);
	free(r->losses);
	bpt_pathtab_free(&r->paths);
	bpt_bcur_free(r->cur);
	bpt_header_free(&r->hdr);
	free(r->name);
	free(r);
}

const struct bpt_header *bpt_reader_header(const struct bpt_reader *r)
{
	return &r->hdr;
}

static int set_sticky(struct bpt_reader *r, int rc, struct bpt_error *e)
{
	if (!e->code)
		bpt_err(e, rc, r->name, 0, 0, "read failed");
	r->sticky = *e;
	r->sticky.code = rc;
	return rc;
}

/* With an issue range on a file with its footer index: move the cursor
 * past the blocks whose issue-time range misses it, without reading
 * them (their strings are in the footer). 0 or <0 with e filled. */
static int skip_blocks(struct bpt_reader *r, struct bpt_bcur *c, struct bpt_error *e)
{
	uint64_t i, off = r->ft.off, mn, mx;
	uint32_t n = 0;
	int rc;

	if (!r->range_set || !r->complete)
		return 0;
	for (i = c->seq; i < r->ft.nblocks; i++) {
		if ((rc = bpt_footer_entry(r, i, &off, &n, &mn, &mx, e)))
			return rc;
		if (n && mx >= r->range_lo && mn <= r->range_hi)
			break;
		r->next_first += n;
	}
	c->off = i < r->ft.nblocks ? off : r->ft.off;
	c->seq = (uint32_t)i;
	return 0;
}

/* Load the reader's next block, keeping the record index: 1, 0 (end) or <0. */
static int load_next(struct bpt_reader *r, struct bpt_bcur *c, struct bpt_error *e)
{
	int rc = bpt_block_load(r, c, e);

	if (rc == 1) {
		r->blk_first = r->next_first;
		r->next_first += c->n;
	}
	return rc;
}

int bpt_reader_next(struct bpt_reader *r, struct bpt_record *rec,
		    struct bpt_error *err)
{
	struct bpt_bcur *c = r->cur;
	struct bpt_error e;
	int rc;

	if (r->src)
		return bpt_source_next(r, rec, err);
	/* Not "= { 0 }": clearing the 528-byte message on every record was
	 * a sixth of a trace_ios() scan's time (perf); what reads e before
	 * a callee fills it reads only these. */
	e.code = 0;
	e.offset = 0;
	e.msg[0] = 0;

	if (r->sticky.code) {
		if (err)
			*err = r->sticky;
		return r->sticky.code;
	}
	for (;;) {
		if (c->loaded && c->i < c->n) {
			if (c->i == c->chunk_start + c->chunk_len &&
			    (rc = bpt_block_decode_chunk(r, c, &e)))
				goto fail;
			bpt_block_record(c, c->i - c->chunk_start, rec);
			c->i++;
			if (r->seek_filter && rec->issue_ns < r->seek_t)
				continue;
			if (r->range_set && (rec->issue_ns < r->range_lo || rec->issue_ns > r->range_hi))
				continue;
			return 1;
		}
		r->seek_filter = 0;
		if ((rc = skip_blocks(r, c, &e)) < 0)
			goto fail;
		rc = load_next(r, c, &e);
		if (rc < 0)
			goto fail;
		if (rc == 0)
			return 0;
	}
fail:
	set_sticky(r, rc, &e);
	if (err)
		*err = r->sticky;
	return rc;
}

int bpt_reader_set_issue_range(struct bpt_reader *r, uint64_t lo_ns, uint64_t hi_ns)
{
	if (lo_ns > hi_ns)
		return -EINVAL;
	r->range_set = 1;
	r->range_lo = lo_ns;
	r->range_hi = hi_ns;
	return 0;
}

uint64_t bpt_reader_record_index(const struct bpt_reader *r)
{
	if (r->src) /* a foreign source: records returned so far, this one last */
		return r->src_pos ? r->src_pos - 1 : 0;
	return r->blk_first + (r->cur->i ? r->cur->i - 1 : 0);
}

int bpt_reader_rewind(struct bpt_reader *r, struct bpt_error *err)
{
	if (r->src)
		return bpt_source_rewind(r, err);
	memset(&r->sticky, 0, sizeof(r->sticky));
	r->seek_filter = 0;
	r->range_set = 0;
	r->blk_first = r->next_first = 0;
	bpt_bcur_reset(r, r->cur);
	return 0;
}

int bpt_reader_seek_time(struct bpt_reader *r, uint64_t t_ns,
			 struct bpt_error *err)
{
	struct bpt_bcur *c = r->cur;
	struct bpt_error e = { 0 };
	int range_set = r->range_set;
	int rc;

	if (r->src)
		return bpt_source_seek_time(r, t_ns, err);
	bpt_reader_rewind(r, err);
	r->range_set = range_set; /* an issue range set before stays */
	if (r->complete) {
		uint64_t i, off = r->ft.off, mn, mx;
		uint32_t n = 0;

		for (i = 0; i < r->ft.nblocks; i++) {
			if ((rc = bpt_footer_entry(r, i, &off, &n, &mn, &mx, &e)))
				goto fail;
			if (n && mx >= t_ns)
				break;
			r->next_first += n;
		}
		c->off = i < r->ft.nblocks ? off : r->ft.off;
		c->seq = (uint32_t)i;
		if (i == r->ft.nblocks)
			return 0;
		if ((rc = skip_blocks(r, c, &e)) < 0)
			goto fail;
		rc = load_next(r, c, &e);
	} else {
		/* No footer: walk the blocks (their strings must be seen). */
		while ((rc = load_next(r, c, &e)) == 1)
			if (c->n && c->max_issue >= t_ns)
				break;
	}
	if (rc < 0)
		goto fail;
	r->seek_filter = rc == 1;
	r->seek_t = t_ns;
	return 0;
fail:
	set_sticky(r, rc, &e);
	if (err)
		*err = r->sticky;
	return rc;
}

const char *bpt_reader_string(const struct bpt_reader *r, uint32_t id)
{
	if (r->src)
		return r->src->string(r->src_ctx, id);
	return id < r->strs.n ? r->strs.str[id] : NULL;
}

void bpt_reader_stats(const struct bpt_reader *r, struct bpt_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->file_bytes = r->size;
	st->complete = r->complete;
	st->truncated = !r->complete;
	st->loss_windows = r->nloss;
	if (r->src) {
		st->records = r->src_tot.records;
		st->blocks = (r->src_tot.records + BPT_SOURCE_GROUP - 1) / BPT_SOURCE_GROUP;
		st->first_issue_ns = r->src_tot.first_issue_ns;
		st->last_issue_ns = r->src_tot.last_issue_ns;
		st->last_complete_ns = r->src_tot.last_complete_ns;
		st->file_bytes = st->valid_bytes = r->src_tot.file_bytes;
		return;
	}
	if (r->complete) {
		st->records = r->ft.nrecords;
		st->blocks = r->ft.nblocks;
		st->first_issue_ns = r->ft.first_issue;
		st->last_issue_ns = r->ft.last_issue;
		st->last_complete_ns = r->ft.last_complete;
		st->lost_events = r->ft.lost;
		st->valid_bytes = r->size;
		return;
	}
	st->records = r->seen.records;
	st->blocks = r->seen_blocks;
	st->first_issue_ns = r->seen.first_issue;
	st->last_issue_ns = r->seen.last_issue;
	st->last_complete_ns = r->seen.last_complete;
	st->lost_events = r->lost;
	st->valid_bytes = r->valid_bytes;
}

size_t bpt_reader_losses(const struct bpt_reader *r, const struct bpt_loss **losses)
{
	*losses = r->losses;
	return r->nloss;
}
