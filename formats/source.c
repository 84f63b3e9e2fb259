/*
 * source.c — several foreign inputs as one time-ordered stream of .bpt
 * records (source.h). Opening scans everything once (checks, devices,
 * names, totals, time base); reading goes through the reorder window
 * and merges the inputs by time. The running digest is taken over the
 * records as the readers gave them (before the time base is applied),
 * so the scan and every later reading agree.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "source_int.h"

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 32);
}

/* One record's share of the digest. The digest is the sum of the shares
 * of all records: the scan, which does not order them, and every later
 * reading, which does, agree. Each field goes through its own odd
 * multiplier (independent multiplies, cheap), then one final mix. */
static uint64_t digest_of(const struct bpt_record *r)
{
	uint64_t h = r->queue_ns * 0x9e3779b97f4a7c15ull;

	h ^= r->issue_ns * 0xc2b2ae3d27d4eb4full;
	h ^= r->complete_ns * 0x165667b19e3779f9ull;
	h ^= r->sector * 0xd6e8feb86659fd93ull;
	h ^= (((uint64_t)r->bytes << 32) | r->pid) * 0xff51afd7ed558ccdull;
	h ^= (((uint64_t)r->comm_id << 32) | (uint32_t)r->error) * 0xc4ceb9fe1a85ec53ull;
	h ^= (((uint64_t)r->dev << 32) | ((uint64_t)r->op << 16) | ((uint64_t)r->flags << 8) |
	      r->completion) * 0x94d049bb133111ebull;
	return mix(h, 0x2545f4914f6cdd1dull);
}

/* The input to read from next: the one furthest behind in time (so that
 * several sorted inputs merge within a window of one record each), or
 * -1 when all are done. */
static int pick_input(const struct ff_source *s)
{
	int best = -1;

	if (s->n == 1)
		return s->cx[0].done ? -1 : 0;
	for (size_t i = 0; i < s->n; i++)
		if (!s->cx[i].done &&
		    (best < 0 || s->cx[i].last_issue < s->cx[best].last_issue))
			best = (int)i;
	return best;
}

/* A record the reader gave: check what the .bpt format needs. 1 keep,
 * 0 skipped (dropped device or a bad line under --skip-bad), <0. */
static int accept(struct ff_source *s, struct ff_ctx *cx, struct bpt_record *rec)
{
	if (rec->dev == FF_DEV_DROPPED) {
		s->dropped++;
		return 0;
	}
	if (!BPT_SECTOR_END_OK(rec->sector, rec->bytes)) {
		int rc = ff_bad(cx, "offset", "ends past 2^64 bytes");

		return rc ? rc : 0;
	}
	if (rec->completion != FF_NO_COMPLETION && rec->complete_ns < rec->issue_ns) {
		int rc = ff_bad(cx, "completion", "before the issue");

		return rc ? rc : 0;
	}
	return 1;
}

static int too_late(struct ff_source *s, struct ff_ctx *cx, uint64_t issue_ns)
{
	char where[40] = "";

	/* a binary input has no lines to name */
	if (!(cx->ops->flags & FF_BINARY))
		snprintf(where, sizeof(where), "line %" PRIu64 ": ", cx->line_no);
	return ff_fail(cx, -ERANGE,
		       "%sout of time order by more than the reorder window "
		       "of %u records (its I/O was issued %" PRIu64 " ns before one already "
		       "passed on); a larger --window may do",
		       where, s->win.cap, s->last_out - issue_ns);
}

/* The next accepted record of the inputs in merge order, and its input:
 * 1, 0 at the end, <0 (err set). */
static int pull(struct ff_source *s, struct bpt_record *rec, struct ff_ctx **from,
		struct bpt_error *err)
{
	int i, rc;

	while ((i = pick_input(s)) >= 0) {
		struct ff_ctx *cx = &s->cx[i];

		rc = ff_ctx_next(cx, rec, err);
		if (rc < 0)
			return rc;
		if (rc == 0)
			continue;
		cx->last_issue = rec->issue_ns;
		rc = accept(s, cx, rec);
		if (rc < 0) {
			*err = cx->err;
			return rc;
		}
		if (rc) {
			*from = cx;
			return 1;
		}
	}
	return 0;
}

/* The next record by raw time: 1, 0 at the end, <0 (err set). An input
 * the scan found sorted skips the window. */
static int next_raw(struct ff_source *s, struct bpt_record *rec, struct bpt_error *err)
{
	struct ff_ctx *cx;
	int rc;

	if (s->sorted) {
		rc = pull(s, rec, &cx, err);
		if (rc != 1)
			return rc;
		if (s->any_out && rec->issue_ns < s->last_out) { /* not as scanned */
			rc = ff_fail(cx, -EIO, "line %" PRIu64 ": the file changed while read",
				     cx->line_no);
			*err = cx->err;
			return rc;
		}
	} else {
		uint64_t head;

		while (ff_window_len(&s->win) < s->win.cap) {
			/* The earliest held record goes now when none to come
			 * is earlier (one as early comes after it, by arrival):
			 * the order is the same as with a full window, and the
			 * window stays small enough for the cache. */
			size_t c = s->pulled / FF_CHUNK;

			if (c < s->nchunks && ff_window_peek(&s->win, &head) &&
			    head <= s->later_min[c])
				break;
			rc = pull(s, rec, &cx, err);
			if (rc < 0)
				return rc;
			if (rc == 0)
				break;
			s->pulled++;
			if (s->any_out && rec->issue_ns < s->last_out) {
				rc = too_late(s, cx, rec->issue_ns);
				*err = cx->err;
				return rc;
			}
			if ((rc = ff_window_push(&s->win, rec)))
				return bpt_error_set(err, rc, "%s: out of memory", cx->path);
		}
		if (!ff_window_pop(&s->win, rec))
			return 0;
	}
	s->last_out = rec->issue_ns;
	s->any_out = 1;
	s->digest += digest_of(rec);
	return 1;
}

static void to_relative(const struct ff_source *s, struct bpt_record *rec)
{
	rec->issue_ns -= s->base;
	if (rec->queue_ns)
		rec->queue_ns -= s->base;
	if (rec->completion == FF_NO_COMPLETION) {
		rec->completion = BPT_COMPLETION_PENDING;
		rec->complete_ns = rec->issue_ns;
	} else {
		rec->complete_ns -= s->base;
		/* pending means "at the end of the capture": a reader that
		 * gives a request out as pending before its input ends
		 * (read_blkparse.c) knows only a time it was still pending */
		if (rec->completion == BPT_COMPLETION_PENDING && s->scanned &&
		    rec->complete_ns < s->tot.last_complete_ns)
			rec->complete_ns = s->tot.last_complete_ns;
	}
}

static void reset_reading(struct ff_source *s)
{
	ff_window_clear(&s->win);
	s->last_out = 0;
	s->any_out = 0;
	s->digest = 0;
	s->dropped = 0;
	s->nread = 0;
	s->pulled = 0;
}

int ff_source_rewind(struct ff_source *s, struct bpt_error *err)
{
	int rc;

	reset_reading(s);
	for (size_t i = 0; i < s->n; i++)
		if ((rc = ff_ctx_rewind(&s->cx[i], err)))
			return rc;
	return 0;
}

static void progress(struct ff_source *s, const char *phase)
{
	uint64_t done = 0, total = 0;

	if (!s->opts.progress)
		return;
	for (size_t i = 0; i < s->n; i++)
		if (s->cx[i].in) {
			done += ff_input_file_pos(s->cx[i].in);
			total += ff_input_file_size(s->cx[i].in);
		}
	s->opts.progress(s->opts.progress_arg, phase, done, total);
}

int ff_source_next(struct ff_source *s, struct bpt_record *rec, struct bpt_error *err)
{
	int rc = next_raw(s, rec, err);

	if (rc == 1) {
		to_relative(s, rec);
		if (!(++s->nread & 0xffff))
			progress(s, "converting");
	}
	return rc;
}

static int join_meta(struct ff_source *s, const char *key, int formats)
{
	char v[sizeof(((struct bpt_meta *)0)->value)];
	size_t off = 0;

	v[0] = 0;
	for (size_t i = 0; i < s->n; i++) {
		const char *w = formats ? s->cx[i].ops->name : s->cx[i].path;
		int dup = 0;

		for (size_t j = 0; formats && j < i; j++)
			dup |= !strcmp(s->cx[j].ops->name, w);
		if (dup)
			continue;
		if (off + strlen(w) + 5 >= sizeof(v)) {
			snprintf(v + off, sizeof(v) - off, "%s...", off ? " " : "");
			break;
		}
		off += (size_t)snprintf(v + off, sizeof(v) - off, "%s%s", off ? " " : "", w);
	}
	return bpt_header_set_meta(&s->hdr, key, v);
}

static int set_meta_u64(struct ff_source *s, const char *key, uint64_t v)
{
	char b[24];

	snprintf(b, sizeof(b), "%" PRIu64, v);
	return bpt_header_set_meta(&s->hdr, key, b);
}

/* The scan's record number n has issue time t: the minimum of its chunk. */
static int note_chunk_min(struct ff_source *s, uint64_t n, uint64_t t)
{
	size_t c = (size_t)(n / FF_CHUNK);

	if (c == s->nchunks) {
		if (c == s->chunks_cap) {
			size_t cap = s->chunks_cap ? s->chunks_cap * 2 : 256;
			uint64_t *p = realloc(s->later_min, cap * sizeof(*p));

			if (!p)
				return -ENOMEM;
			s->later_min = p;
			s->chunks_cap = cap;
		}
		s->later_min[s->nchunks++] = t;
	} else if (t < s->later_min[c]) {
		s->later_min[c] = t;
	}
	return 0;
}

/* Read everything once: totals, base, the header, and whether the
 * window suffices. Only the issue times go through a window here (a key
 * window: 8 bytes a record, not the record), which gives the same
 * verdict as the reading would; an input in time order is marked sorted
 * and later read without a window. */
/* Every --device name is a device of the inputs: else -ENODEV, naming
 * the devices there are (an empty trace is no answer to a typo). */
static int check_kept(const struct ff_source *s, struct bpt_error *err)
{
	const struct ff_devmap *m = &s->devs;

	for (const char *const *k = s->keep; k && *k; k++) {
		char have[400];
		size_t off = 0;
		uint32_t shown = 0, id;

		for (id = 0; id < m->nidx; id++)
			if (m->idx[id] != FF_DEV_UNSEEN && !strcmp(m->names.str[id], *k))
				break;
		if (id < m->nidx)
			continue;
		have[0] = 0;
		for (id = 0; id < m->nidx && off < sizeof(have) - 40; id++) {
			if (m->idx[id] == FF_DEV_UNSEEN)
				continue;
			off += (size_t)snprintf(have + off, sizeof(have) - off, "%s%s", shown++ ? ", " : "",
						m->names.str[id]);
		}
		if (id < m->nidx)
			snprintf(have + off, sizeof(have) - off, ", ...");
		return bpt_error_set(err, -ENODEV, "--device %s: no such device in %s (%s%s)", *k,
				     s->n > 1 ? "the inputs" : s->cx[0].path, shown ? "it has: " : "no devices",
				     have);
	}
	return 0;
}

static int scan(struct ff_source *s, struct bpt_error *err)
{
	struct bpt_record rec;
	struct ff_keywin kw;
	struct ff_ctx *cx;
	uint64_t min_t = UINT64_MAX, first_issue = UINT64_MAX, last_issue = 0, last_complete = 0;
	uint64_t n = 0, max_seen = 0;
	int rc, wall = 1, min_is_queue = 0, sorted = 1;

	ff_keywin_init(&kw, s->win.cap, 0);
	while ((rc = pull(s, &rec, &cx, err)) == 1) {
		uint64_t out;

		if (ff_keywin_len(&kw) == kw.cap && ff_keywin_pop(&kw, &out)) {
			s->last_out = out;
			s->any_out = 1;
		}
		if (s->any_out && rec.issue_ns < s->last_out) {
			rc = too_late(s, cx, rec.issue_ns);
			*err = cx->err;
			break;
		}
		if ((rc = ff_keywin_push(&kw, rec.issue_ns))) {
			rc = bpt_error_set(err, rc, "out of memory");
			break;
		}
		if (rec.issue_ns < max_seen)
			sorted = 0;
		else
			max_seen = rec.issue_ns;
		if (rec.queue_ns && rec.queue_ns < rec.issue_ns && rec.queue_ns <= min_t) {
			min_t = rec.queue_ns;
			min_is_queue = 1;
		} else if (rec.issue_ns < min_t) {
			min_t = rec.issue_ns;
			min_is_queue = 0;
		}
		if (rec.issue_ns < first_issue)
			first_issue = rec.issue_ns;
		if (rec.issue_ns > last_issue)
			last_issue = rec.issue_ns;
		if (rec.completion != FF_NO_COMPLETION && rec.complete_ns > last_complete)
			last_complete = rec.complete_ns;
		if ((rc = note_chunk_min(s, n, rec.issue_ns))) {
			rc = bpt_error_set(err, rc, "out of memory");
			break;
		}
		s->digest += digest_of(&rec);
		n++;
		if (!(n & 0xffff))
			progress(s, "checking");
	}
	ff_keywin_free(&kw);
	if (rc < 0)
		return rc;
	if ((rc = check_kept(s, err)))
		return rc;
	for (size_t c = s->nchunks; c-- > 1;) /* each chunk's min and later */
		if (s->later_min[c] < s->later_min[c - 1])
			s->later_min[c - 1] = s->later_min[c];
	/* A queue time of 0 reads as "none" (bpt.h): when the earliest time
	 * is a queue time, time 0 is 1 ns before it. */
	s->base = !n ? 0 : min_is_queue && min_t ? min_t - 1 : min_t;
	s->tot.records = n;
	s->tot.dropped = s->dropped;
	for (size_t i = 0; i < s->n; i++) {
		s->tot.bad_lines += s->cx[i].bad;
		wall &= !!(s->cx[i].ops->flags & FF_WALL_CLOCK);
	}
	if (n) {
		s->tot.first_issue_ns = first_issue - s->base;
		s->tot.last_issue_ns = last_issue - s->base;
		s->tot.last_complete_ns = (last_complete > last_issue ? last_complete : last_issue) - s->base;
	}
	s->tot.digest = s->digest;
	s->hdr.start_wall_ns = wall && n ? (int64_t)s->base : 0;
	if ((rc = join_meta(s, BPT_META_IMPORT_FORMAT, 1)) ||
	    (rc = join_meta(s, BPT_META_IMPORT_SOURCE, 0)) ||
	    (s->opts.skip_bad && (rc = set_meta_u64(s, BPT_META_IMPORT_BAD, s->tot.bad_lines))) ||
	    (s->keep && (rc = set_meta_u64(s, BPT_META_IMPORT_DROPPED, s->tot.dropped))) ||
	    (rc = set_meta_u64(s, BPT_META_IMPORT_WINDOW, s->win.cap)))
		return bpt_error_set(err, rc, "%s: header meta too long", s->cx[0].path);
	s->scanned = 1;
	s->sorted = sorted;
	return ff_source_rewind(s, err);
}

int ff_source_open(struct ff_source **out, const char *const *paths, size_t n,
		   const struct ff_source_opts *opts, struct bpt_error *err)
{
	static const struct ff_source_opts none;
	const struct ff_reader_ops *forced = NULL;
	struct ff_source *s;
	int rc;

	*out = NULL;
	if (!opts)
		opts = &none;
	if (!n)
		return bpt_error_set(err, -EINVAL, "no input");
	if (opts->from && !(forced = ff_reader_find(opts->from)))
		return bpt_error_set(err, -EINVAL, "'%s' is not a format blkpeak reads", opts->from);
	if (opts->window > FF_WINDOW_MAX)
		return bpt_error_set(err, -EINVAL, "a reorder window of more than %u records", FF_WINDOW_MAX);
	s = calloc(1, sizeof(*s));
	if (!s || !(s->cx = calloc(n, sizeof(*s->cx)))) {
		free(s);
		return bpt_error_set(err, -ENOMEM, "out of memory");
	}
	s->opts = *opts;
	s->keep = opts->devices && opts->devices[0] ? opts->devices : NULL;
	bpt_header_init(&s->hdr, "import");
	s->hdr.host[0] = 0;   /* not captured on this machine */
	s->hdr.kernel[0] = 0;
	s->hdr.start_mono_ns = 0;
	s->hdr.columns = BPT_COL_COMPLETION;
	if ((rc = ff_names_init(&s->names)) || (rc = ff_names_init(&s->devs.names))) {
		rc = bpt_error_set(err, rc, "out of memory");
		goto fail;
	}
	ff_window_init(&s->win, opts->window ? opts->window : FF_WINDOW_DEFAULT);
	for (size_t i = 0; i < n; i++) {
		struct stat a, b;

		/* the same file twice would double every I/O */
		for (size_t j = 0; j < i; j++)
			if (!stat(paths[i], &a) && !stat(paths[j], &b) && a.st_dev == b.st_dev &&
			    a.st_ino == b.st_ino) {
				rc = bpt_error_set(err, -EINVAL, "%s: the same file as %s, given twice",
						   paths[i], paths[j]);
				goto fail;
			}
		s->n = i + 1;
		if ((rc = ff_ctx_open(s, &s->cx[i], paths[i], forced, err)))
			goto fail;
		if (s->cx[i].in)
			s->file_bytes += ff_input_file_size(s->cx[i].in);
	}
	if ((rc = scan(s, err)))
		goto fail;
	*out = s;
	return 0;
fail:
	ff_source_close(s);
	return rc;
}

void ff_source_close(struct ff_source *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		ff_ctx_close(&s->cx[i]);
	free(s->cx);
	strtab_free(&s->names);
	strtab_free(&s->devs.names);
	free(s->devs.idx);
	ff_window_free(&s->win);
	free(s->later_min);
	bpt_header_free(&s->hdr);
	free(s);
}

int ff_names_init(struct strtab *t)
{
	uint32_t id;

	strtab_init(t, FF_NAMES_MAX, FF_NAMES_BYTES_MAX);
	return strtab_intern(t, "", 0, &id);
}

const struct bpt_header *ff_source_header(const struct ff_source *s)
{
	return &s->hdr;
}

void ff_source_totals(const struct ff_source *s, struct ff_totals *t)
{
	*t = s->tot;
}

const char *ff_source_format(const struct ff_source *s, size_t i)
{
	return i < s->n ? s->cx[i].ops->name : NULL;
}

const char *ff_source_string(const struct ff_source *s, uint32_t id)
{
	return id < s->names.n ? s->names.str[id] : NULL;
}

uint32_t ff_source_nstrings(const struct ff_source *s)
{
	return s->names.n;
}

uint64_t ff_source_digest(const struct ff_source *s)
{
	return s->digest;
}

uint64_t ff_source_file_bytes(const struct ff_source *s)
{
	return s->file_bytes;
}
