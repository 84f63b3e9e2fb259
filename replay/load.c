/*
 * load.c — a trace file as replay reads it (load.h).
 *
 * The scan reads the file once in file order: the sums replay needs
 * before it starts (per-target extent and writes for the safety and fit
 * checks, the count, the recorded duration) and, per block, how many I/Os
 * it holds and the range of their keys. A key is (issue time, record
 * index), the order the I/Os are replayed in; keys are unique.
 *
 * The stream then gives the I/Os in key order a window at a time. All I/Os
 * up to key E have been given out; the next window collects those in
 * (E, X] from every block whose key range meets it, sorts them and gives
 * them out. X is chosen from the block index so that about half the
 * window is used: blocks already begun ("touched", their smallest key at
 * or below E) are counted whole, then blocks not begun are added in the
 * order of their smallest key, at least one, and X stops just before the
 * next one. If the window fills anyway, the larger half is dropped and X
 * lowered to the largest key kept; the dropped I/Os come again with the
 * next window. Only the blocks of one window are decoded for it, so a
 * file in issue order (generated traces) or nearly so (captures: a block
 * reaches back by the longest latency in it) is decoded about once; a
 * block holding one I/O that stayed outstanding for a long time is decoded
 * again for each window until its last I/O has been given out.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"
#include "thread_slice.h"

typedef unsigned __int128 key128;

#define KEY_MAX (~(key128)0)

/* (issue time, record index, piece): the pieces of a record cut at
 * region bounds (region.h) share its time and index. */
#define KEY_TIME_SHIFT 40

static key128 key_of(uint64_t t_ns, uint64_t src, unsigned piece)
{
	return (key128)t_ns << KEY_TIME_SHIFT | (key128)src << 8 | piece;
}

static key128 io_key(const struct rp_io *io)
{
	return key_of(io->t_ns, io->src, io->piece);
}

struct load_block {
	struct bpt_block_pos pos;
	uint64_t first_src;      /* record index of the block's first record */
	uint32_t nrec;           /* records in the block */
	uint32_t n;              /* of them, I/Os to replay */
	key128 kmin, kmax;       /* their keys (times relative to first_ns) */
};

/* convert(): left out by the transforms (not by --writes) */
#define LOAD_DESELECTED (-1000)

static int is_write_op(unsigned op)
{
	return op == BPT_OP_WRITE || op == BPT_OP_DISCARD || op == BPT_OP_WRITE_ZEROES;
}

/* Record `idx` as I/Os to replay (times as recorded) in io[0..
 * FILEMAP_MAX_PIECES): how many (1, or the pieces of a record cut at
 * region bounds and file or task maps' parts), 0 when the --writes policy
 * leaves it out, -ENODEV on a device or a byte with no target (*miss:
 * that byte, -1 for the whole device), -EBADMSG for a record the file
 * maps' plan did not see. */
static int convert(const struct bpt_record *rec, uint64_t idx, const struct load_opts *o,
		   struct rp_io *io, uint64_t *miss)
{
	struct bpt_record tr;
	unsigned op, flags;
	struct region_piece pc[FILEMAP_MAX_PIECES];
	int np;

	*miss = UINT64_MAX;
	if (o->xf) { /* the transforms first: on a copy */
		int k;

		tr = *rec;
		if ((k = xform_record(o->xf, &tr)) <= 0)
			return k == 0 ? LOAD_DESELECTED : k;
		rec = &tr;
	}
	op = rec->op;
	flags = rec->flags;
	if (rec->dev >= o->ndev ||
	    (o->dev_target[rec->dev] == LOAD_UNMAPPED && !o->has_region[rec->dev]))
		return -ENODEV;
	if (is_write_op(op) && o->writes != WRITES_REPLAY) {
		if (o->writes == WRITES_SKIP || op != BPT_OP_WRITE)
			return 0;
		op = BPT_OP_READ;
		flags &= ~(unsigned)BPT_F_FUA;
	}
	io[0] = (struct rp_io){
		.t_ns = rec->issue_ns,
		.done_ns = rec->complete_ns < rec->issue_ns ? rec->issue_ns : rec->complete_ns,
		.offset = rec->sector * 512,
		.len = rec->bytes,
		.src = (uint32_t)idx,
		.target = o->dev_target[rec->dev],
		.op = (uint8_t)op,
		.flags = (uint8_t)flags,
		.unseen = rec->completion != BPT_COMPLETION_SEEN,
	};
	if (!o->has_region[rec->dev] && !o->fmap)
		return 1;
	if (o->fmap)
		np = filemap_split(o->fmap, rec, op == BPT_OP_FLUSH ? 0 : io[0].len, o->region,
				   o->nregion, o->dev_target[rec->dev], pc, miss);
	else
		np = region_split(o->region, o->nregion, rec->dev, o->dev_target[rec->dev],
				  op == BPT_OP_FLUSH ? 0 : io[0].offset,
				  op == BPT_OP_FLUSH ? 0 : io[0].len, pc, miss);
	if (np < 0)
		return np;
	for (int k = np - 1; k >= 0; k--) {
		io[k] = io[0];
		io[k].target = pc[k].target;
		io[k].offset = pc[k].offset;
		io[k].len = (uint32_t)pc[k].len;
		io[k].piece = (uint8_t)k;
		io[k].placement = pc[k].placement;
	}
	return np;
}

int inflight_add(struct inflight_count *c, uint64_t t_ns, uint64_t done_ns)
{
	/* completions at or before this issue have left the queue; an I/O
	 * completing at its own issue time never joins it */
	while (c->done.n && minheap_top(&c->done)->key <= t_ns)
		minheap_pop(&c->done);
	if (done_ns > t_ns && minheap_push(&c->done, done_ns, 0))
		return -ENOMEM;
	if (c->done.n > c->best)
		c->best = (unsigned)c->done.n;
	return 0;
}

void inflight_free(struct inflight_count *c)
{
	minheap_free(&c->done);
}

unsigned load_max_outstanding(const struct rp_io *io, uint64_t n)
{
	struct inflight_count c = { 0 };
	unsigned best;

	for (uint64_t i = 0; i < n; i++)
		if (!io[i].unseen && inflight_add(&c, io[i].t_ns, io[i].done_ns))
			break;
	best = c.best;
	inflight_free(&c);
	return best;
}

void loaded_trace_free(struct loaded_trace *lt)
{
	free(lt->blk);
	load_opts_free(&lt->opts);
	memset(lt, 0, sizeof(*lt));
}

static void add_target_stats(struct load_target_stats *ts, const struct rp_io *io)
{
	ts->ios++;
	if (is_write_op(io->op))
		ts->writes++;
	if (io->op != BPT_OP_FLUSH) {
		if (io->offset + io->len > ts->extent)
			ts->extent = io->offset + io->len;
		if (io->len > ts->max_len)
			ts->max_len = io->len;
		if ((io->op == BPT_OP_READ || io->op == BPT_OP_WRITE) && io->len > ts->max_rw_len)
			ts->max_rw_len = io->len;
	}
}

/* A new block entry for the record at pos (record index idx). */
static struct load_block *new_block(struct loaded_trace *lt, uint64_t *cap,
				    const struct bpt_block_pos *pos, uint64_t idx)
{
	if (lt->nblk == *cap) {
		uint64_t ncap = *cap ? *cap * 2 : 256;
		struct load_block *p = realloc(lt->blk, ncap * sizeof(*p));

		if (!p)
			return NULL;
		lt->blk = p;
		*cap = ncap;
	}
	lt->blk[lt->nblk] = (struct load_block){
		.pos = *pos, .first_src = idx - pos->index, .kmin = KEY_MAX,
	};
	return &lt->blk[lt->nblk++];
}

int load_opts_init(struct load_opts *o, uint32_t ndev)
{
	if (!ndev)
		ndev = 1;
	o->ndev = 0;
	o->dev_target = malloc(ndev);
	o->has_region = calloc(ndev, 1);
	if (!o->dev_target || !o->has_region) {
		load_opts_free(o);
		return -ENOMEM;
	}
	memset(o->dev_target, LOAD_UNMAPPED, ndev);
	o->ndev = ndev;
	return 0;
}

void load_opts_free(struct load_opts *o)
{
	free(o->dev_target);
	free(o->has_region);
	o->dev_target = o->has_region = NULL;
	o->ndev = 0;
}

/* dst = src with arrays of its own; 0 or -ENOMEM. */
static int load_opts_copy(struct load_opts *dst, const struct load_opts *src)
{
	*dst = *src;
	dst->dev_target = malloc(src->ndev ? src->ndev : 1);
	dst->has_region = malloc(src->ndev ? src->ndev : 1);
	if (!dst->dev_target || !dst->has_region) {
		load_opts_free(dst);
		return -ENOMEM;
	}
	memcpy(dst->dev_target, src->dev_target, src->ndev);
	memcpy(dst->has_region, src->has_region, src->ndev);
	return 0;
}

int load_scan(struct bpt_reader *r, const struct load_opts *opts,
	      struct loaded_trace *lt, struct bpt_error *err)
{
	struct bpt_record rec;
	struct inflight_count inflight = { 0 };
	uint64_t cap = 0, first = UINT64_MAX, last_done = 0, last_t = 0, idx = 0;
	struct load_block *b = NULL;
	int rc;

	memset(lt, 0, sizeof(*lt));
	if (load_opts_copy(&lt->opts, opts))
		return -ENOMEM;
	lt->issue_ordered = 1;
	rc = bpt_reader_rewind(r, err);
	while (!rc && (rc = bpt_reader_next(r, &rec, err)) == 1) {
		struct bpt_block_pos pos;
		struct rp_io io[FILEMAP_MAX_PIECES];
		uint64_t miss;
		int np;

		idx = lt->source_records++;
		if (idx > UINT32_MAX) {
			rc = -EFBIG;
			break;
		}
		bpt_reader_block_pos(r, &pos);
		if (b && b->pos.seq == pos.seq)
			b->nrec = pos.index + 1;
		rc = 0;
		np = convert(&rec, idx, opts, io, &miss);
		if (np == LOAD_DESELECTED) {
			lt->deselected++;
			continue;
		}
		if (np == -ERANGE) { /* --spread/--shift moved it past 2^62 */
			lt->xf_bad_src = idx;
			rc = np;
			break;
		}
		if (np == -ENODEV) {
			lt->unmapped_dev = rec.dev;
			lt->unmapped_byte = miss;
			lt->unmapped_region = miss != UINT64_MAX;
			rc = np;
			break;
		}
		if (np < 0) {
			rc = bpt_error_set(err, np, "%s", "the trace changed while it was "
					   "being read");
			break;
		}
		if (np == 0) {
			lt->skipped++;
			continue;
		}
		if (np > 1 && io[0].op != BPT_OP_FLUSH)
			lt->split++; /* (a flush to several targets is no cut) */
		if (!b || b->pos.seq != pos.seq) {
			b = new_block(lt, &cap, &pos, idx);
			if (!b) {
				rc = -ENOMEM;
				break;
			}
			b->nrec = pos.index + 1;
		}
		b->n += (uint32_t)np;
		if (io_key(&io[0]) < b->kmin)
			b->kmin = io_key(&io[0]);
		if (io_key(&io[np - 1]) > b->kmax)
			b->kmax = io_key(&io[np - 1]);
		/* a record's pieces are requests of their own, in flight together */
		if (lt->n && io[0].t_ns < last_t)
			lt->issue_ordered = 0;
		for (int k = 0; k < np && lt->issue_ordered && !io[k].unseen; k++)
			if (inflight_add(&inflight, io[k].t_ns, io[k].done_ns))
				lt->issue_ordered = 0; /* out of memory: count it in a second pass */
		last_t = io[0].t_ns;
		lt->n += (uint64_t)np;
		if (io[0].t_ns < first)
			first = io[0].t_ns;
		if (io[0].done_ns > last_done)
			last_done = io[0].done_ns;
		for (int k = 0; k < np; k++)
			add_target_stats(&lt->tgt[io[k].target], &io[k]);
	}
	if (rc < 0) {
		int dev = lt->unmapped_dev, in_region = lt->unmapped_region;
		uint64_t byte = lt->unmapped_byte, bad_src = lt->xf_bad_src;

		inflight_free(&inflight);
		loaded_trace_free(lt);
		lt->unmapped_dev = dev;
		lt->unmapped_byte = byte;
		lt->unmapped_region = in_region;
		lt->xf_bad_src = bad_src;
		return rc;
	}
	for (uint64_t i = 0; i < lt->nblk; i++) { /* keys from the first issue */
		lt->blk[i].kmin -= (key128)first << KEY_TIME_SHIFT;
		lt->blk[i].kmax -= (key128)first << KEY_TIME_SHIFT;
	}
	lt->first_ns = lt->n ? first : 0;
	lt->n_pass = lt->n;
	lt->recorded_ns = lt->n ? last_done - first : 0;
	if (lt->issue_ordered) {
		lt->max_outstanding = inflight.best;
		lt->have_max_outstanding = 1;
	}
	inflight_free(&inflight);
	return 0;
}

struct load_stream {
	struct bpt_reader *r;
	const struct loaded_trace *lt;
	struct fit fit[LOAD_MAX_TARGETS];
	int have_fit;
	uint32_t *left;          /* per block: I/Os not given out yet */
	uint64_t *by_kmin;       /* block indexes by smallest key */
	uint64_t untouched;      /* by_kmin[untouched..]: smallest key > E */
	uint64_t *touched, ntouched; /* begun blocks with I/Os left */
	uint64_t *scan;          /* blocks to read for this window */
	key128 e;                /* every I/O with a key <= e was given out */
	int began;               /* e is meaningful */
	struct rp_io *buf;       /* the window being filled */
	uint64_t cap, cnt, decodes;
	/* Two windows: a thread fills one while the other is given out, so
	 * reading and sorting the next window never delays an issue. The
	 * filling state above belongs to the thread; the rest is shared
	 * under `mu`, or the consumer's alone. */
	pthread_t thread;
	int have_thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct rp_io *win[2];
	uint64_t win_n[2];
	unsigned passes, fill_pass, win_pass[2], cur_pass; /* --loop (load_stream_open_passes) */
	int win_ready[2], win_rc[2], quit;
	struct bpt_error win_err[2];
	/* the consumer's */
	int cur, began_out, end_rc, ended;
	uint64_t pos, have, given;
};

static int cmp_kmin(const void *a, const void *b, void *blocks)
{
	const struct load_block *blk = blocks;
	key128 x = blk[*(const uint64_t *)a].kmin, y = blk[*(const uint64_t *)b].kmin;

	return x < y ? -1 : x > y;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_io(const void *a, const void *b)
{
	key128 x = io_key(a), y = io_key(b);

	return x < y ? -1 : x > y;
}

static void sort_window(struct rp_io *v, uint64_t n)
{
	for (uint64_t i = 1; i < n; i++)
		if (io_key(&v[i - 1]) > io_key(&v[i])) {
			qsort(v, n, sizeof(*v), cmp_io);
			return;
		}
}

static int fill(struct load_stream *s, struct bpt_error *err);

/* The filling state back at the trace's start (a new pass of --loop). */
static void restart(struct load_stream *s)
{
	for (uint64_t i = 0; i < s->lt->nblk; i++)
		s->left[i] = s->lt->blk[i].n;
	s->untouched = 0;
	s->ntouched = 0;
	s->began = 0;
	s->e = 0;
}

/* The thread: fill the windows in turn until the end or an error. */
static void *filler(void *arg)
{
	struct load_stream *s = arg;

	/* filling a window is milliseconds of decoding: the threads of
	 * the I/O path that wake on this CPU go first (thread_slice.h) */
	thread_slice_long();
	for (int k = 0;; k ^= 1) {
		struct bpt_error err = { 0 };
		int rc, quit;

		pthread_mutex_lock(&s->mu);
		while (s->win_ready[k] && !s->quit)
			pthread_cond_wait(&s->cv, &s->mu);
		quit = s->quit;
		pthread_mutex_unlock(&s->mu);
		if (quit)
			break;
		s->buf = s->win[k];
		rc = fill(s, &err);
		if (rc == 0 && s->fill_pass + 1 < s->passes) { /* the next pass, from its start */
			restart(s);
			s->fill_pass++;
			rc = fill(s, &err);
		}
		pthread_mutex_lock(&s->mu);
		s->win_pass[k] = s->fill_pass;
		s->win_n[k] = rc > 0 ? s->cnt : 0;
		s->win_rc[k] = rc;
		s->win_err[k] = err;
		s->win_ready[k] = 1;
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
		if (rc <= 0)
			break;
	}
	return NULL;
}

int load_stream_open(struct load_stream **out, struct bpt_reader *r,
		     const struct loaded_trace *lt, const struct fit *fit,
		     uint64_t window)
{
	return load_stream_open_passes(out, r, lt, fit, window, 1);
}

unsigned load_stream_pass(const struct load_stream *s)
{
	return s->cur_pass;
}

int load_stream_open_passes(struct load_stream **out, struct bpt_reader *r,
			    const struct loaded_trace *lt, const struct fit *fit,
			    uint64_t window, unsigned passes)
{
	struct load_stream *s = calloc(1, sizeof(*s));
	uint64_t nb = lt->nblk ? lt->nblk : 1;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->passes = passes ? passes : 1;
	s->r = r;
	s->lt = lt;
	s->cap = window ? window : LOAD_WINDOW_DEFAULT;
	if (s->cap < 2)
		s->cap = 2;
	if (fit) {
		memcpy(s->fit, fit, sizeof(s->fit));
		s->have_fit = 1;
	}
	s->left = malloc(nb * sizeof(*s->left));
	s->by_kmin = malloc(nb * sizeof(*s->by_kmin));
	s->touched = malloc(nb * sizeof(*s->touched));
	s->scan = malloc(nb * sizeof(*s->scan));
	s->win[0] = malloc(s->cap * sizeof(*s->win[0]));
	s->win[1] = malloc(s->cap * sizeof(*s->win[1]));
	if (!s->left || !s->by_kmin || !s->touched || !s->scan || !s->win[0] || !s->win[1]) {
		load_stream_close(s);
		return -ENOMEM;
	}
	for (uint64_t i = 0; i < lt->nblk; i++) {
		s->left[i] = lt->blk[i].n;
		s->by_kmin[i] = i;
	}
	qsort_r(s->by_kmin, lt->nblk, sizeof(*s->by_kmin), cmp_kmin, lt->blk);
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	if (pthread_create(&s->thread, NULL, filler, s)) {
		load_stream_close(s);
		return -EAGAIN;
	}
	s->have_thread = 1;
	*out = s;
	return 0;
}

void load_stream_close(struct load_stream *s)
{
	if (!s)
		return;
	if (s->have_thread) {
		pthread_mutex_lock(&s->mu);
		s->quit = 1;
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
		pthread_join(s->thread, NULL);
		pthread_mutex_destroy(&s->mu);
		pthread_cond_destroy(&s->cv);
	}
	free(s->left);
	free(s->by_kmin);
	free(s->touched);
	free(s->scan);
	free(s->win[0]);
	free(s->win[1]);
	free(s);
}

uint64_t load_stream_decodes(const struct load_stream *s)
{
	return s->decodes;
}

/* The file no longer holds what the scan saw. */
static int changed(struct bpt_error *err)
{
	if (err) {
		memset(err, 0, sizeof(*err));
		err->code = -EBADMSG;
		snprintf(err->msg, sizeof(err->msg),
			 "the trace changed while it was being replayed");
	}
	return -EBADMSG;
}

/* Block holding record index src (blocks are in file order). */
static uint64_t block_of(const struct loaded_trace *lt, uint64_t src)
{
	uint64_t lo = 0, hi = lt->nblk;

	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (lt->blk[mid].first_src <= src)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Collect block b's I/Os with keys in (e, *x] into the window. */
static int collect(struct load_stream *s, uint64_t b, key128 *x, struct bpt_error *err)
{
	const struct load_block *blk = &s->lt->blk[b];
	struct bpt_record rec;
	int rc = bpt_reader_seek_block(s->r, &blk->pos, err);

	s->decodes++;
	for (uint32_t k = 0; !rc && k < blk->nrec; k++) {
		struct rp_io io[FILEMAP_MAX_PIECES];
		uint64_t miss;
		int np;

		rc = bpt_reader_next(s->r, &rec, err);
		if (rc <= 0)
			return rc < 0 ? rc : changed(err);
		rc = 0;
		np = convert(&rec, blk->first_src + k, &s->lt->opts, io, &miss);
		if (np == LOAD_DESELECTED)
			continue;
		if (np < 0)
			return changed(err);
		for (int p = 0; p < np; p++) {
			key128 key;

			io[p].t_ns -= s->lt->first_ns;
			io[p].done_ns -= s->lt->first_ns;
			key = io_key(&io[p]);
			if (key < blk->kmin || key > blk->kmax)
				return changed(err);
			if ((s->began && key <= s->e) || key > *x)
				continue;
			if (s->cnt == s->cap) { /* full: keep the smaller half */
				qsort(s->buf, s->cnt, sizeof(*s->buf), cmp_io);
				s->cnt = s->cap / 2;
				*x = io_key(&s->buf[s->cnt - 1]);
				if (key > *x)
					continue;
			}
			s->buf[s->cnt++] = io[p];
		}
	}
	return rc;
}

/* The next window: 1 with s->cnt I/Os, 0 at the end, or <0. */
static int fill(struct load_stream *s, struct bpt_error *err)
{
	const struct loaded_trace *lt = s->lt;
	uint64_t nscan = 0, j = s->untouched;
	int64_t budget = (int64_t)(s->cap / 2);
	key128 x = KEY_MAX;
	int rc;

	s->cnt = 0;
	if (!s->ntouched && j == lt->nblk)
		return 0;
	for (uint64_t i = 0; i < s->ntouched; i++) {
		s->scan[nscan++] = s->touched[i];
		budget -= s->left[s->touched[i]];
	}
	/* blocks not begun, by smallest key: at least one, so the window
	 * always holds that block's first I/O */
	if (j < lt->nblk) {
		s->scan[nscan++] = s->by_kmin[j];
		budget -= lt->blk[s->by_kmin[j]].n;
		j++;
	}
	while (j < lt->nblk && budget >= (int64_t)lt->blk[s->by_kmin[j]].n) {
		s->scan[nscan++] = s->by_kmin[j];
		budget -= lt->blk[s->by_kmin[j]].n;
		j++;
	}
	if (j < lt->nblk)
		x = lt->blk[s->by_kmin[j]].kmin - 1;
	qsort(s->scan, nscan, sizeof(*s->scan), cmp_u64); /* file order */
	for (uint64_t i = 0; i < nscan; i++)
		if ((rc = collect(s, s->scan[i], &x, err)) < 0)
			return rc;
	if (!s->cnt)
		return changed(err);
	sort_window(s->buf, s->cnt);
	s->e = x == KEY_MAX ? io_key(&s->buf[s->cnt - 1]) : x;
	s->began = 1;
	for (uint64_t i = 0; i < s->cnt; i++) {
		uint64_t b = block_of(lt, s->buf[i].src);

		if (!s->left[b])
			return changed(err);
		s->left[b]--;
	}
	/* blocks now begun join the touched ones; finished ones leave */
	while (s->untouched < lt->nblk && lt->blk[s->by_kmin[s->untouched]].kmin <= s->e)
		s->touched[s->ntouched++] = s->by_kmin[s->untouched++];
	j = 0;
	for (uint64_t i = 0; i < s->ntouched; i++)
		if (s->left[s->touched[i]])
			s->touched[j++] = s->touched[i];
	s->ntouched = j;
	return 1;
}

int load_stream_next(struct load_stream *s, struct rp_io *io, struct bpt_error *err)
{
	if (s->ended)
		return s->end_rc;
	if (s->pos == s->have) {
		int rc;

		pthread_mutex_lock(&s->mu);
		if (s->began_out) { /* hand the window given out back to the thread */
			s->win_ready[s->cur] = 0;
			s->cur ^= 1;
			pthread_cond_broadcast(&s->cv);
		}
		s->began_out = 1;
		while (!s->win_ready[s->cur])
			pthread_cond_wait(&s->cv, &s->mu);
		rc = s->win_rc[s->cur];
		s->have = s->win_n[s->cur];
		s->cur_pass = s->win_pass[s->cur];
		s->pos = 0;
		if (rc < 0 && err)
			*err = s->win_err[s->cur];
		pthread_mutex_unlock(&s->mu);
		if (rc <= 0) {
			if (rc == 0 && s->given != s->lt->n_pass * s->passes)
				rc = changed(err);
			s->ended = 1;
			s->end_rc = rc;
			return rc;
		}
	}
	*io = s->win[s->cur][s->pos++];
	if (s->have_fit && io->op != BPT_OP_FLUSH)
		io->offset = fit_map(&s->fit[io->target], io->offset, io->len);
	s->given++;
	return 1;
}

int load_count_outstanding(struct bpt_reader *r, struct loaded_trace *lt,
			   uint64_t window, struct bpt_error *err)
{
	struct inflight_count c = { 0 };
	struct load_stream *s;
	struct rp_io io;
	int rc = load_stream_open(&s, r, lt, NULL, window);

	if (rc)
		return rc;
	while ((rc = load_stream_next(s, &io, err)) == 1)
		if (!io.unseen && (rc = inflight_add(&c, io.t_ns, io.done_ns)))
			break;
	load_stream_close(s);
	if (!rc) {
		lt->max_outstanding = c.best;
		lt->have_max_outstanding = 1;
	}
	inflight_free(&c);
	return rc;
}
