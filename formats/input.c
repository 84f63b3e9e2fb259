/*
 * input.c — one input file as decompressed bytes and lines (input.h).
 *
 * Two buffers: `raw` holds bytes as read from the file, `out` the
 * decompressed bytes not yet consumed (out[pos..end)). A decoder is one
 * function that turns raw into out; the four compressed formats and the
 * plain copy share the rest. Lines are cut in `out` in place: a line
 * that crosses the end of the buffer is moved to its front first, so a
 * line costs one memchr and no copy.
 */
#include "input.h"

#include <bzlib.h>
#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "filekind.h"

#define RAW_SIZE (256u << 10)
#define OUT_SIZE (FF_LINE_MAX + (256u << 10)) /* a longest line + room to fill */

enum comp { COMP_NONE, COMP_GZIP, COMP_BZIP2, COMP_XZ, COMP_ZSTD };

static const char *const comp_names[] = { "none", "gzip", "bzip2", "xz", "zstd" };

struct ff_input {
	char *path;
	int fd;
	enum comp comp;
	uint64_t file_size, file_pos;
	uint64_t consumed;        /* decompressed bytes handed out */
	uint64_t lines;           /* lines handed out (for messages) */
	uint8_t *raw;
	size_t raw_pos, raw_end;
	int raw_eof;
	char *out;
	size_t pos, end;
	int eof;                  /* the decoder has nothing more */
	z_stream z;
	bz_stream bz;
	lzma_stream xz;
	ZSTD_DStream *zs;
	int dec_live;             /* the decoder's state is set up */
	int dec_done;             /* the last compressed stream ended */
};

static int fail(struct bpt_error *err, int code, const struct ff_input *in,
		const char *what)
{
	return bpt_error_set(err, code, "%s: %s", in->path, what);
}

/* Refill raw from the file; 0, or <0. */
static int raw_fill(struct ff_input *in, struct bpt_error *err)
{
	if (in->raw_pos < in->raw_end || in->raw_eof)
		return 0;
	for (;;) {
		ssize_t n = read(in->fd, in->raw, RAW_SIZE);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return bpt_error_set(err, -errno, "%s: read failed: %s", in->path,
					     strerror(errno));
		in->raw_pos = 0;
		in->raw_end = (size_t)n;
		in->file_pos += (uint64_t)n;
		if (!n)
			in->raw_eof = 1;
		return 0;
	}
}

static void dec_end(struct ff_input *in)
{
	if (!in->dec_live)
		return;
	switch (in->comp) {
	case COMP_GZIP: inflateEnd(&in->z); break;
	case COMP_BZIP2: BZ2_bzDecompressEnd(&in->bz); break;
	case COMP_XZ: lzma_end(&in->xz); break;
	case COMP_ZSTD: ZSTD_initDStream(in->zs); break;
	case COMP_NONE: break;
	}
	in->dec_live = 0;
}

static int dec_begin(struct ff_input *in, struct bpt_error *err)
{
	int ok = 1;

	switch (in->comp) {
	case COMP_GZIP:
		memset(&in->z, 0, sizeof(in->z));
		ok = inflateInit2(&in->z, 15 + 32) == Z_OK; /* gzip or zlib header */
		break;
	case COMP_BZIP2:
		memset(&in->bz, 0, sizeof(in->bz));
		ok = BZ2_bzDecompressInit(&in->bz, 0, 0) == BZ_OK;
		break;
	case COMP_XZ:
		in->xz = (lzma_stream)LZMA_STREAM_INIT;
		ok = lzma_stream_decoder(&in->xz, UINT64_MAX, LZMA_CONCATENATED) == LZMA_OK;
		break;
	case COMP_ZSTD:
		if (!in->zs)
			in->zs = ZSTD_createDStream();
		ok = in->zs && !ZSTD_isError(ZSTD_initDStream(in->zs));
		break;
	case COMP_NONE:
		break;
	}
	if (!ok)
		return fail(err, -ENOMEM, in, "cannot start the decompressor");
	in->dec_live = 1;
	return 0;
}

/* Is there another compressed stream after the one that just ended
 * (concatenated members)? Only non-empty remaining input counts. */
static int more_input(struct ff_input *in, struct bpt_error *err, int *rc)
{
	*rc = raw_fill(in, err);
	return !*rc && in->raw_pos < in->raw_end;
}

/* Decompress into out[end..cap); returns the bytes added (0 = end) or <0. */
static ssize_t decode(struct ff_input *in, char *dst, size_t cap, struct bpt_error *err)
{
	int rc;

	if (in->dec_done)
		return 0;
	for (;;) {
		size_t before_in, used_in, made;

		if ((rc = raw_fill(in, err)))
			return rc;
		size_t avail = in->raw_end - in->raw_pos;
		uint8_t *src = in->raw + in->raw_pos;

		if (in->comp == COMP_NONE) {
			made = avail < cap ? avail : cap;
			memcpy(dst, src, made);
			in->raw_pos += made;
			return (ssize_t)made;
		}
		before_in = avail;
		int stream_end = 0;

		switch (in->comp) {
		case COMP_GZIP: {
			in->z.next_in = src;
			in->z.avail_in = (uInt)avail;
			in->z.next_out = (Bytef *)dst;
			in->z.avail_out = (uInt)cap;
			int zr = inflate(&in->z, Z_NO_FLUSH);

			if (zr == Z_STREAM_END)
				stream_end = 1;
			else if (zr != Z_OK && zr != Z_BUF_ERROR)
				return fail(err, -EBADMSG, in, "gzip data is corrupt");
			used_in = before_in - in->z.avail_in;
			made = cap - in->z.avail_out;
			break;
		}
		case COMP_BZIP2: {
			in->bz.next_in = (char *)src;
			in->bz.avail_in = (unsigned)avail;
			in->bz.next_out = dst;
			in->bz.avail_out = (unsigned)cap;
			int br = BZ2_bzDecompress(&in->bz);

			if (br == BZ_STREAM_END)
				stream_end = 1;
			else if (br != BZ_OK)
				return fail(err, -EBADMSG, in, "bzip2 data is corrupt");
			used_in = before_in - in->bz.avail_in;
			made = cap - in->bz.avail_out;
			break;
		}
		case COMP_XZ: {
			in->xz.next_in = src;
			in->xz.avail_in = avail;
			in->xz.next_out = (uint8_t *)dst;
			in->xz.avail_out = cap;
			lzma_ret xr = lzma_code(&in->xz, in->raw_eof ? LZMA_FINISH : LZMA_RUN);

			if (xr == LZMA_STREAM_END)
				stream_end = 1;
			else if (xr != LZMA_OK && xr != LZMA_BUF_ERROR)
				return fail(err, -EBADMSG, in, "xz data is corrupt");
			used_in = before_in - in->xz.avail_in;
			made = cap - in->xz.avail_out;
			break;
		}
		default: {
			ZSTD_inBuffer ib = { src, avail, 0 };
			ZSTD_outBuffer ob = { dst, cap, 0 };
			size_t zr = ZSTD_decompressStream(in->zs, &ob, &ib);

			if (ZSTD_isError(zr))
				return fail(err, -EBADMSG, in, "zstd data is corrupt");
			stream_end = zr == 0;
			used_in = ib.pos;
			made = ob.pos;
			break;
		}
		}
		in->raw_pos += used_in;
		if (stream_end) {
			/* xz's decoder reads concatenated streams itself */
			if (in->comp != COMP_XZ && more_input(in, err, &rc)) {
				dec_end(in);
				if ((rc = dec_begin(in, err)))
					return rc;
			} else if (rc) {
				return rc;
			} else {
				in->dec_done = 1;
				return (ssize_t)made;
			}
		} else if (!made && !used_in && in->raw_eof) {
			return fail(err, -EBADMSG, in, "compressed data ends early (file cut short?)");
		}
		if (made)
			return (ssize_t)made;
	}
}

/* Make out hold at least `want` unconsumed bytes, or all that remain.
 * Moves the unconsumed tail to the front when needed. */
static int fill(struct ff_input *in, size_t want, struct bpt_error *err)
{
	while (in->end - in->pos < want && !in->eof) {
		if (in->pos && OUT_SIZE - 1 - in->end < (64u << 10)) {
			memmove(in->out, in->out + in->pos, in->end - in->pos);
			in->end -= in->pos;
			in->pos = 0;
		}
		ssize_t n = decode(in, in->out + in->end, OUT_SIZE - 1 - in->end, err);

		if (n < 0)
			return (int)n;
		if (n == 0)
			in->eof = 1;
		in->end += (size_t)n;
	}
	return 0;
}

static enum comp sniff(const uint8_t *p, size_t n)
{
	if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return COMP_GZIP;
	if (n >= 4 && p[0] == 'B' && p[1] == 'Z' && p[2] == 'h' && p[3] >= '1' && p[3] <= '9')
		return COMP_BZIP2;
	if (n >= 6 && !memcmp(p, "\xfd" "7zXZ\0", 6))
		return COMP_XZ;
	if (n >= 4 && !memcmp(p, "\x28\xb5\x2f\xfd", 4))
		return COMP_ZSTD;
	return COMP_NONE;
}

static int start(struct ff_input *in, struct bpt_error *err)
{
	int rc;

	in->raw_pos = in->raw_end = 0;
	in->raw_eof = 0;
	in->pos = in->end = 0;
	in->eof = 0;
	in->dec_done = 0;
	in->consumed = 0;
	in->lines = 0;
	if ((rc = raw_fill(in, err)))
		return rc;
	in->comp = sniff(in->raw, in->raw_end);
	return dec_begin(in, err);
}

int ff_input_open(struct ff_input **out, const char *path, struct bpt_error *err)
{
	struct ff_input *in = calloc(1, sizeof(*in));
	struct stat st;
	int rc;

	*out = NULL;
	if (in)
		in->fd = -1;
	if (!in || !(in->path = strdup(path)) || !(in->raw = malloc(RAW_SIZE)) ||
	    !(in->out = malloc(OUT_SIZE))) {
		rc = bpt_error_set(err, -ENOMEM, "%s: out of memory", path);
		goto fail;
	}
	in->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (in->fd < 0) {
		rc = bpt_error_set(err, -errno, "%s: cannot open: %s", path, strerror(errno));
		goto fail;
	}
	if (fstat(in->fd, &st)) {
		rc = bpt_error_set(err, -errno, "%s: cannot stat: %s", path, strerror(errno));
		goto fail;
	}
	/* A foreign trace is read twice (source.h: the scan, then the
	 * records), so only a regular file will do. */
	if (!S_ISREG(st.st_mode)) {
		rc = bpt_error_set(err, S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL,
				   "%s: %s, not a trace file (a trace is read from a regular file)",
				   path, file_kind(st.st_mode));
		goto fail;
	}
	fcntl(in->fd, F_SETFL, fcntl(in->fd, F_GETFL) & ~O_NONBLOCK);
	in->file_size = (uint64_t)st.st_size;
	if ((rc = start(in, err)))
		goto fail;
	*out = in;
	return 0;
fail:
	ff_input_close(in);
	return rc;
}

void ff_input_close(struct ff_input *in)
{
	if (!in)
		return;
	dec_end(in);
	if (in->zs)
		ZSTD_freeDStream(in->zs);
	if (in->fd >= 0)
		close(in->fd);
	free(in->path);
	free(in->raw);
	free(in->out);
	free(in);
}

int ff_input_rewind(struct ff_input *in, struct bpt_error *err)
{
	dec_end(in);
	if (lseek(in->fd, 0, SEEK_SET) < 0)
		return bpt_error_set(err, -errno, "%s: cannot seek: %s", in->path, strerror(errno));
	in->file_pos = 0;
	return start(in, err);
}

int ff_input_peek(struct ff_input *in, size_t want, const char **head, size_t *len,
		  struct bpt_error *err)
{
	int rc;

	if (want > 65536)
		want = 65536;
	if ((rc = fill(in, want, err)))
		return rc;
	*head = in->out + in->pos;
	*len = in->end - in->pos < want ? in->end - in->pos : want;
	return 0;
}

ssize_t ff_input_read(struct ff_input *in, void *buf, size_t len, struct bpt_error *err)
{
	size_t done = 0;
	int rc;

	while (done < len) {
		if (in->pos == in->end) {
			if ((rc = fill(in, 1, err)))
				return rc;
			if (in->pos == in->end)
				break;
		}
		size_t n = in->end - in->pos;

		if (n > len - done)
			n = len - done;
		memcpy((char *)buf + done, in->out + in->pos, n);
		in->pos += n;
		done += n;
	}
	in->consumed += done;
	return (ssize_t)done;
}

int ff_input_line(struct ff_input *in, char **line, size_t *len, struct bpt_error *err)
{
	size_t scanned = 0;
	int rc;

	for (;;) {
		char *s = in->out + in->pos;
		char *nl = memchr(s + scanned, '\n', in->end - in->pos - scanned);

		if (nl || (in->eof && in->pos < in->end)) {
			size_t l = nl ? (size_t)(nl - s) : in->end - in->pos;

			in->pos += l + (nl != NULL);
			in->consumed += l + (nl != NULL);
			if (l && s[l - 1] == '\r')
				l--;
			s[l] = 0; /* over the '\n', or the spare byte after end */
			*line = s;
			*len = l;
			in->lines++;
			return 1;
		}
		if (in->eof)
			return 0;
		scanned = in->end - in->pos;
		if (scanned >= FF_LINE_MAX)
			return bpt_error_set(err, -EBADMSG,
					     "%s:%llu: a line longer than %u bytes: not a text trace",
					     in->path, (unsigned long long)in->lines + 1, FF_LINE_MAX);
		if ((rc = fill(in, scanned + 1, err)))
			return rc;
	}
}

const char *ff_input_compression(const struct ff_input *in)
{
	return comp_names[in->comp];
}

uint64_t ff_input_offset(const struct ff_input *in)
{
	return in->consumed;
}

uint64_t ff_input_file_pos(const struct ff_input *in)
{
	return in->file_pos;
}

uint64_t ff_input_file_size(const struct ff_input *in)
{
	return in->file_size;
}
