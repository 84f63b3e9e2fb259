/*
 * scheduler.c — issuing a trace's I/Os on time (sched.h has the rules of
 * the three timing modes). One loop: issue every I/O that is due, commit
 * them in one batch, then wait for the next due time or for completions,
 * reaping completions all the while.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bpt.h"
#include "causal.h"
#include "cliutil.h"
#include "fifo_guard.h"
#include "sched.h"
#include "array/wcache.h"

#define PROGRESS_NS 250000000ull
/* Time 0 is this far after setup, so the first I/O is not late already. */
#define START_LEAD_NS 1000000ull
#define NEVER UINT64_MAX
/* afap --poll: how long to poll for a completion before sleeping */
#define POLL_NS 50000ull

/* One request in flight: an I/O of the trace split into its parts. */
struct req {
	struct rp_io io;         /* a copy: the source moves on */
	uint64_t idx;            /* position in issue order */
	uint32_t cslot;          /* causal: its dependency slot */
	uint8_t lane;            /* the lane it came from (struct lane) */
	uint64_t sched_ns, issue_ns; /* absolute CLOCK_MONOTONIC */
	unsigned nparts, parts_left;
	unsigned phase0_left;    /* raid5/6: parts to complete before compute */
	uint8_t busy;            /* in flight */
	uint8_t two_phase;       /* raid5/6: compute, then queue the phase-1 parts */
	uint64_t phase1_ns;      /* when the phase-1 parts were queued */
	uint8_t *scratch;        /* raid5/6: layout_scratch_size bytes */
	uint64_t scratch_cap;
	uint8_t *wbuf;           /* stamp_writes: this slot's copy of write_buf */
	uint64_t wbuf_cap, wbuf_stamped; /* its bytes; the length its stamps cover */
	uint64_t *part_done_ns;  /* maxparts entries: each part's completion */
	int32_t error;
	uint32_t member_mask;
	uint64_t last_done;      /* latest completion time of its parts */
	uint8_t short_io, target;
	struct layout_part *lp;  /* maxparts entries */
	struct eng_io *eio;      /* maxparts entries */
	/* a target with a controller cache (sched_target.wc): */
	uint8_t destage;         /* a destage of the cache, not the trace's */
	uint8_t wc_overlay;      /* a read of dirty bytes: they come from the cache */
	uint8_t *dbuf;           /* destage: the run's bytes (its write buffer) */
	struct wcache_run run;   /* destage: what it writes */
};

/* Destages of controller caches in flight at once, over all targets. */
#define DESTAGE_DEPTH 4

/* One recording's I/Os (sched.h: a mixed replay has one lane per
 * recording; any other replay one): its next I/O and its causal state. */
struct lane {
	struct rp_io io;           /* its next I/O, when have */
	int have, end;
	struct causal c;
};

struct sched {
	const struct sched_config *cfg;
	const struct sched_source *src;
	struct rp_io ahead;        /* the next I/O to issue, when have_ahead */
	int have_ahead, src_end;
	struct lane lane[SCHED_MAX_RECS];
	unsigned nlanes;           /* 1, or sched_source.nrec */
	unsigned cur;              /* the lane `ahead` comes from */
	uint64_t next;             /* I/Os started so far */
	struct engine *eng;
	struct req *reqs;
	unsigned *free_ids, nfree;
	unsigned nslots;           /* reqs: depth, twice that when results wait */
	/* afap: requests finished but not yet handed to on_result, in
	 * completion order; their slots are freed once they are */
	unsigned *done, ndone;
	unsigned *batch, nbatch;   /* started, not yet committed */
	struct req **ready;        /* raid5/6: phase 0 done, phase 1 to queue */
	unsigned nready;
	unsigned maxparts, outstanding;
	uint64_t t0, next_progress;
	struct fifo_guard guard;   /* cfg->fifo_guard: the issuer's CPU time */
	struct sched_stats *st;
	int stopping;
	int *fds;                  /* every member's descriptor, for the engine */
	uint64_t spin_ns;          /* the stretch spun now (sched_config.spin_ns) */
	struct iovec bufs[2];      /* read_buf, write_buf */
	/* controller caches (sched_target.wc) */
	int have_wc;
	struct req dreq[DESTAGE_DEPTH]; /* destages */
	unsigned dbusy, dmaxparts;
	int wc_wait;               /* the next I/O is a write waiting for room */
	uint64_t wc_wait_seq;      /* ... the one counted in wc_waits */
	int wc_failed;             /* a destage failed: no more destaging */
};

int timing_parse(const char *s, enum timing *t)
{
	if (!strcmp(s, "original"))
		*t = TIMING_ORIGINAL;
	else if (!strcmp(s, "afap"))
		*t = TIMING_AFAP;
	else if (!strcmp(s, "causal"))
		*t = TIMING_CAUSAL;
	else
		return -EINVAL;
	return 0;
}

const char *timing_name(enum timing t)
{
	return t == TIMING_AFAP ? "afap" : t == TIMING_CAUSAL ? "causal" : "original";
}

/* t_ns / speed in ns, capped at SCHED_MAX_SPAN_NS (a double that large
 * does not fit the integer; the cast would be undefined). */
static uint64_t scaled_ns(uint64_t t_ns, double speed)
{
	double x = (double)t_ns / speed;

	return x < (double)SCHED_MAX_SPAN_NS ? (uint64_t)x : SCHED_MAX_SPAN_NS;
}

int sched_span_fits(uint64_t span_ns, double speed)
{
	return speed > 0 && (double)span_ns / speed < (double)SCHED_MAX_SPAN_NS;
}

/* When the next I/O may be issued (absolute ns), or NEVER while it waits
 * for completions. */
static uint64_t due_time(struct sched *s)
{
	const struct rp_io *io = &s->ahead;
	double speed = s->cfg->speed;

	switch (s->cfg->timing) {
	case TIMING_AFAP:
		return 0;
	case TIMING_ORIGINAL:
		return s->t0 + scaled_ns(io->t_ns, speed);
	case TIMING_CAUSAL: {
		uint64_t deps_done, since, think;

		if (!causal_ready(&s->lane[s->cur].c, io->t_ns, &deps_done, &since))
			return NEVER;
		think = s->cfg->no_idle || io->t_ns < since ? 0 : io->t_ns - since;
		return s->t0 + deps_done + scaled_ns(think, speed);
	}
	}
	return 0;
}

/* Hand r's result to on_result and free its slot. */
static void report_req(struct sched *s, struct req *r)
{
	struct rp_result res = {
		.io = &r->io,
		.seq = r->idx,
		.sched_ns = r->sched_ns > s->t0 ? r->sched_ns - s->t0 : 0,
		.issue_ns = r->issue_ns - s->t0,
		.complete_ns = r->last_done - s->t0,
		.error = r->error,
		.member_mask = r->member_mask,
		.member_ios = r->nparts,
		.short_io = r->short_io,
		.parts = r->lp,
		.nparts = r->nparts,
		.part_done_ns = r->part_done_ns,
		.phase0_ns = r->issue_ns - s->t0,
		.phase1_ns = r->phase1_ns > s->t0 ? r->phase1_ns - s->t0 : 0,
	};

	if (s->cfg->on_result && s->cfg->on_result(s->cfg->ctx, &res))
		s->stopping = 1;
	s->free_ids[s->nfree++] = (unsigned)(r - s->reqs);
}

/* Hand over the results that wait (afap), oldest first. */
static void report_done(struct sched *s)
{
	for (unsigned i = 0; i < s->ndone; i++)
		report_req(s, &s->reqs[s->done[i]]);
	s->ndone = 0;
}

/* r finished at `now`: count it; its result goes to on_result now, or
 * with defer_results once the I/Os it made room for are submitted
 * (report_done). */
static int finish_req(struct sched *s, struct req *r, uint64_t now)
{
	uint64_t complete_ns = now - s->t0;

	r->last_done = now;
	if (s->cfg->timing == TIMING_CAUSAL)
		causal_done(&s->lane[r->lane].c, r->cslot, complete_ns);
	s->st->completed++;
	if (r->error) {
		s->st->errors++;
		if (s->cfg->stop_on_error)
			s->stopping = 1;
	}
	if (complete_ns > s->st->elapsed_ns)
		s->st->elapsed_ns = complete_ns;
	s->outstanding--;
	r->busy = 0;
	if (s->done)
		s->done[s->ndone++] = (unsigned)(r - s->reqs);
	else
		report_req(s, r);
	return 0;
}

/* Another request may start: a free slot and fewer than depth in flight
 * (with results waiting, the slots outnumber the depth). */
static int has_room(const struct sched *s)
{
	return s->nfree && s->outstanding < s->cfg->depth;
}

/* The data r writes (or the buffer it reads into). */
static void *req_buf(const struct sched *s, const struct req *r)
{
	if (r->dbuf)
		return r->dbuf; /* a destage writes the cache's bytes */
	if (r->io.op == BPT_OP_READ)
		return s->cfg->read_buf;
	return r->wbuf && s->cfg->stamp_writes ? r->wbuf : s->cfg->write_buf;
}

/* The last 16 bytes of each 4 KiB block of len bytes (and of a shorter
 * tail) of dst: from src, or (v) the I/O's number and the block's offset. */
static void stamp_blocks(uint8_t *dst, const uint8_t *src, uint64_t len, const struct rp_io *v,
			 uint64_t idx)
{
	for (uint64_t o = 0; o < len; o += 4096) {
		uint64_t end = o + 4096 < len ? o + 4096 : len;
		uint64_t w[2] = { idx, v ? v->offset + o : 0 };

		if (end - o < 16)
			continue;
		if (v)
			memcpy(dst + end - 16, w, 16);
		else
			memcpy(dst + end - 16, src + end - 16, 16);
	}
}

/*
 * stamp_writes (--fill random or PCT): r writes from its slot's own copy
 * of write_buf whose last 16 bytes of every 4 KiB block are the write's
 * number in issue order and the block's offset on the target, so no
 * block of the replay equals another (a deduplicating drive stores each)
 * while the rest of the data is the fill. The previous write's stamps in
 * the copy are put back first. Not done for reads, nor when no fill was
 * asked (the default pattern, zeros: equal blocks, as documented).
 */
static int stamp_write(struct sched *s, struct req *r)
{
	const struct rp_io *io = &r->io;

	if (io->len > r->wbuf_cap) {
		void *p = NULL;

		if (io->len > s->cfg->buf_len || posix_memalign(&p, 4096, io->len))
			return -ENOMEM;
		memcpy(p, s->cfg->write_buf, io->len);
		free(r->wbuf);
		r->wbuf = p;
		r->wbuf_cap = io->len;
		r->wbuf_stamped = 0;
	}
	stamp_blocks(r->wbuf, s->cfg->write_buf, r->wbuf_stamped, NULL, 0);
	stamp_blocks(r->wbuf, NULL, io->len, io, r->idx);
	r->wbuf_stamped = io->len;
	return 0;
}

/* raid5/6: the parity of r's writes, or the bytes its reads rebuild
 * (layout_raid_compute; CPU only). */
static void raid_compute(struct sched *s, struct req *r)
{
	const struct rp_io *io = &r->io;
	void *buf = req_buf(s, r);

	layout_raid_compute(s->cfg->targets[r->target].layout, io->op, io->offset, io->len,
			    buf, r->scratch);
}

/* A destage finished: its run is clean in the cache unless it failed. A
 * failed destage stops the replay and every further destage (its bytes
 * stay dirty, counted in wc_unwritten). */
static void destage_done(struct sched *s, struct req *r)
{
	struct wcache *wc = s->cfg->targets[r->target].wc;
	uint64_t done = r->last_done > s->t0 ? r->last_done - s->t0 : 0;

	wcache_destage_done(wc, &r->run, !r->error);
	r->busy = 0;
	s->dbusy--;
	s->st->wc_destages++;
	s->st->wc_destaged_bytes += r->run.len;
	s->st->wc_full_rows += (uint64_t)r->run.full;
	if (done > s->st->wc_drained_ns)
		s->st->wc_drained_ns = done;
	if (r->error) {
		s->st->wc_error = r->error;
		s->wc_failed = 1;
		s->stopping = 1;
	}
}

/* Account one finished part of r (result in eio->result). */
static void part_done(struct sched *s, struct req *r, struct eng_io *e, uint64_t now)
{
	struct layout *l = s->cfg->targets[r->target].layout;
	unsigned p = (unsigned)(e - r->eio);

	layout_part_done(l, &r->lp[p]);
	if (e->result < 0) {
		if (!r->error)
			r->error = (int32_t)e->result;
	} else if ((uint64_t)e->result < e->len) {
		r->short_io = 1;
		if (!r->error)
			r->error = -EIO;
	}
	if (now > r->last_done)
		r->last_done = now;
	r->part_done_ns[p] = now > s->t0 ? now - s->t0 : 0;
	/* the reads of a raid5/6 request are done: compute its parity (or
	 * rebuild what it read); its writes are queued from the main loop,
	 * which may commit and reap */
	if (r->two_phase && !r->lp[p].phase && --r->phase0_left == 0 && r->parts_left > 1) {
		if (r->error) {
			/* a read failed: writing parity computed from it would
			 * leave the row inconsistent; the writes are dropped
			 * (the request fails with the read's error) */
			r->parts_left = 1;
		} else {
			raid_compute(s, r);
			s->ready[s->nready++] = r;
		}
	} else if (r->two_phase && !r->lp[p].phase && !r->phase0_left && !r->error) {
		raid_compute(s, r); /* a degraded read: rebuild what it wanted */
	}
	if (--r->parts_left == 0) {
		if (r->destage) {
			destage_done(s, r);
			return;
		}
		if (r->wc_overlay && !r->error)
			wcache_read(s->cfg->targets[r->target].wc, r->io.offset, r->io.len,
				    s->cfg->read_buf);
		finish_req(s, r, r->last_done);
	}
}

static int stop_requested(const struct sched *s)
{
	return s->stopping || (s->cfg->stop && *s->cfg->stop);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* Reap: wait for at least `min` completions or `timeout_ns`. */
static int reap(struct sched *s, unsigned min, uint64_t timeout_ns)
{
	int n = s->cfg->ops->getevents(s->eng, min, s->maxparts * s->cfg->depth, timeout_ns);
	uint64_t now;

	if (n <= 0)
		return n;
	now = now_mono_ns();
	for (int i = 0; i < n; i++) {
		struct eng_io *e = s->cfg->ops->event(s->eng, (unsigned)i);

		/* an engine may say when the I/O really finished (an emulated
		 * disk's finish time), which is before it was reaped */
		part_done(s, e->priv, e, e->done_ns && e->done_ns < now ? e->done_ns : now);
	}
	return n;
}

/* Reap at least one completion, polling the engine for up to POLL_NS
 * before sleeping in it: for afap, where a sleeping issuer costs the
 * completing CPU a wake-up per completion. Returns 0 early when a stop is
 * requested. */
static int reap_polling(struct sched *s)
{
	uint64_t until = now_mono_ns() + POLL_NS;
	int rc;

	for (unsigned i = 1;; i++) {
		rc = reap(s, 0, 0);
		if (rc || stop_requested(s))
			return rc;
		if (!(i % 64) && now_mono_ns() >= until)
			return reap(s, 1, NEVER);
		cpu_relax();
	}
}

/* Spin until `due`, reaping completions from the engine's ring (no
 * system call) while more than REAP_GUARD_NS remain, then only reading
 * the clock, so that completion handling never delays the issue. */
static int spin_until(struct sched *s, uint64_t due)
{
	uint64_t prev = now_mono_ns();

	for (;;) {
		uint64_t now = now_mono_ns();

		if (now - prev >= STALL_NS) {
			s->st->spin_stalls++;
			if (s->cfg->spin_after_stall_ns && s->spin_ns != s->cfg->spin_after_stall_ns) {
				s->spin_ns = s->cfg->spin_after_stall_ns;
				/* and a SCHED_FIFO one free to move: it leaves a
				 * CPU lent to normal tasks for another one */
				if (s->cfg->pin && s->cfg->fifo_guard)
					cpu_pin_restore(s->cfg->pin);
			}
		}
		prev = now;
		if (now >= due)
			return 0;
		if ((s->outstanding || s->dbusy) && due - now > REAP_GUARD_NS) {
			int rc = reap(s, 0, 0);

			if (rc < 0)
				return rc;
			if (rc > 0)
				continue;
		}
		cpu_relax();
	}
}

/* Submit the batch; when the kernel is full, reap and submit the rest. */
static int commit(struct sched *s)
{
	uint64_t now = now_mono_ns();

	for (unsigned i = 0; i < s->nbatch; i++) {
		struct req *r = &s->reqs[s->batch[i]];

		r->issue_ns = now;
		if (!r->sched_ns) /* afap: due when issued */
			r->sched_ns = now;
	}
	s->nbatch = 0;
	while (s->cfg->ops->pending(s->eng)) {
		int rc = s->cfg->ops->commit(s->eng);

		if (rc < 0)
			return rc;
		if (s->cfg->ops->pending(s->eng)) {
			rc = reap(s, 1, NEVER);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

static int queue_parts(struct sched *s, struct req *r, unsigned phase);

/* raid5/6: r's scratch buffer grown to what r->io needs
 * (layout_scratch_size), and whether it computes between its phases. */
static int scratch_for(struct req *r, const struct layout *l)
{
	uint64_t need = layout_scratch_size(l, r->io.op, r->io.offset, r->io.len);

	if (need > r->scratch_cap) {
		void *p = NULL;

		if (posix_memalign(&p, 4096, need))
			return -ENOMEM;
		free(r->scratch);
		r->scratch = p;
		r->scratch_cap = need;
	}
	r->two_phase = need > 0;
	return 0;
}

/* A request on a target with a controller cache, before it is mapped: a
 * write goes into the cache (blocked() saw that it fits) and is done; a
 * read whose every sector is dirty is read from the cache and done; both
 * return 1. A write too big for the cache goes around it (its sectors
 * there are forgotten: the members get the newer bytes), a read of some
 * dirty bytes goes to the members and takes those bytes from the cache
 * when it completes (wc_overlay); discards and write-zeroes forget what
 * they cover. Those return 0. */
static int wc_serve(struct sched *s, struct wcache *wc, struct req *r)
{
	const struct rp_io *io = &r->io;

	switch (io->op) {
	case BPT_OP_WRITE:
		if (wcache_too_big(wc, io->len))
			break;
		if (wcache_write(wc, io->offset, io->len, req_buf(s, r)))
			return 0; /* cannot happen: blocked() checked the room */
		s->wc_wait = 0;
		s->st->wc_writes++;
		return 1;
	case BPT_OP_READ:
		if (!wcache_overlaps(wc, io->offset, io->len))
			return 0;
		if (wcache_read(wc, io->offset, io->len, s->cfg->read_buf)) {
			s->st->wc_read_hits++;
			return 1;
		}
		r->wc_overlay = 1;
		return 0;
	case BPT_OP_FLUSH: /* battery-backed: the cache need not be emptied */
		return 0;
	default:
		break;
	}
	wcache_forget(wc, io->offset, io->len);
	return 0;
}

/* Map the next I/O onto its target and queue its parts. */
static int start_req(struct sched *s, uint64_t due)
{
	const struct sched_target *t = &s->cfg->targets[s->ahead.target];
	unsigned id = s->free_ids[--s->nfree];
	struct req *r = &s->reqs[id];
	const struct rp_io *io = &r->io;
	int n;

	r->io = s->ahead;
	s->have_ahead = 0;
	s->lane[s->cur].have = 0;
	r->lane = (uint8_t)s->cur;
	r->idx = s->next++;
	if (s->cfg->timing == TIMING_CAUSAL &&
	    (n = causal_issued(&s->lane[s->cur].c, io->done_ns, &r->cslot))) {
		s->free_ids[s->nfree++] = id;
		return n;
	}
	r->sched_ns = due; /* afap (0): set with issue_ns by commit(), one clock
			    * read per batch rather than per I/O */
	r->issue_ns = due;
	r->error = 0;
	r->member_mask = 0;
	r->last_done = 0;
	r->short_io = 0;
	r->target = io->target;
	r->busy = 1;
	r->phase1_ns = 0;
	r->two_phase = 0;
	r->wc_overlay = 0;
	/* stamped first: a write the controller's cache takes keeps its stamps */
	if (s->cfg->stamp_writes && io->op == BPT_OP_WRITE && s->cfg->write_buf &&
	    stamp_write(s, r))
		return -ENOMEM;
	if (t->wc && wc_serve(s, t->wc, r)) { /* done in the controller's cache */
		s->outstanding++;
		s->st->issued++;
		if (s->outstanding > s->st->max_outstanding)
			s->st->max_outstanding = s->outstanding;
		r->nparts = r->parts_left = 0;
		r->issue_ns = now_mono_ns();
		if (!r->sched_ns)
			r->sched_ns = r->issue_ns;
		return finish_req(s, r, r->issue_ns);
	}
	if ((t->layout->kind == LAYOUT_RAID5 || t->layout->kind == LAYOUT_RAID6) &&
	    (n = scratch_for(r, t->layout)))
		return n;
	s->outstanding++;
	s->st->issued++;
	if (s->outstanding > s->st->max_outstanding)
		s->st->max_outstanding = s->outstanding;
	s->batch[s->nbatch++] = id;
	n = layout_map(t->layout, io->op, io->offset, io->len, r->lp, s->maxparts);
	if (n <= 0) { /* cannot be mapped (past the end): fails at once */
		r->nparts = r->parts_left = 0;
		r->error = n < 0 ? n : -EINVAL;
		s->nbatch--;
		r->issue_ns = now_mono_ns();
		if (!r->sched_ns)
			r->sched_ns = r->issue_ns;
		return finish_req(s, r, r->issue_ns);
	}
	r->nparts = r->parts_left = (unsigned)n;
	r->phase0_left = 0;
	for (int p = 0; p < n; p++) {
		if (!r->lp[p].internal)
			r->member_mask |= 1u << r->lp[p].member;
		if (!r->lp[p].phase)
			r->phase0_left++;
		r->part_done_ns[p] = 0;
	}
	if (r->two_phase && !r->phase0_left) { /* full rows: nothing to read */
		raid_compute(s, r);
		r->phase1_ns = due ? due : now_mono_ns();
		return queue_parts(s, r, 1);
	}
	return queue_parts(s, r, 0);
}

/* Queue the parts of r of phase `phase` (0 for every other layout). */
static int queue_parts(struct sched *s, struct req *r, unsigned phase)
{
	const struct sched_target *t = &s->cfg->targets[r->target];
	const struct rp_io *io = &r->io;

	for (unsigned p = 0; p < r->nparts; p++) {
		struct eng_io *e = &r->eio[p];
		const struct layout_part *lp = &r->lp[p];
		void *buf = req_buf(s, r);

		if (r->two_phase && lp->phase != phase)
			continue; /* without compute, phases are one */
		e->fd = t->fd[lp->member];
		e->is_blkdev = (uint8_t)t->is_blkdev[lp->member];
		e->op = lp->read ? BPT_OP_READ : io->op;
		e->flags = io->flags;
		e->offset = lp->offset;
		e->len = lp->len;
		e->buf = lp->scratch ? (void *)(r->scratch + lp->buf_off)
				     : (void *)((char *)buf + lp->buf_off);
		e->priv = r;
		for (;;) {
			enum eng_status st = s->cfg->ops->queue(s->eng, e);

			if (st == ENG_QUEUED)
				break;
			if (st == ENG_COMPLETED) {
				uint64_t now = now_mono_ns();

				if (!r->sched_ns)
					r->sched_ns = now;
				if (!phase)
					r->issue_ns = now;
				part_done(s, r, e, now);
				break;
			}
			int rc = commit(s); /* ENG_BUSY: make room */
			if (rc < 0)
				return rc;
			rc = reap(s, 1, NEVER);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

/* Queue the phase-1 parts of the requests whose reads completed. */
static int drain_ready(struct sched *s)
{
	while (s->nready) {
		struct req *r = s->ready[--s->nready];
		int rc;

		r->phase1_ns = now_mono_ns();
		rc = queue_parts(s, r, 1);

		if (rc)
			return rc;
	}
	return 0;
}

/* 1 when requests a and b may not be in flight together: they share a
 * raid5/6 row and one is not a read (layout_conflict), or, on a target
 * with a controller cache, they overlap and one writes (a destage and a
 * write around the cache must land in order). */
static int reqs_conflict(const struct sched_target *t, const struct rp_io *a,
			 const struct rp_io *b)
{
	if (layout_conflict(t->layout, a->op, a->offset, a->len, b->op, b->offset, b->len))
		return 1;
	return t->wc && a->op != BPT_OP_FLUSH && b->op != BPT_OP_FLUSH &&
	       (a->op != BPT_OP_READ || b->op != BPT_OP_READ) && a->offset < b->offset + b->len &&
	       b->offset < a->offset + a->len;
}

/* 1 when `io` conflicts with a request or destage in flight on its target. */
static int conflicts_in_flight(const struct sched *s, const struct rp_io *io)
{
	const struct sched_target *t = &s->cfg->targets[io->target];

	for (unsigned i = 0; i < s->nslots; i++) {
		const struct req *r = &s->reqs[i];

		if (r->busy && r->target == io->target && reqs_conflict(t, io, &r->io))
			return 1;
	}
	for (unsigned i = 0; i < DESTAGE_DEPTH && s->dbusy; i++) {
		const struct req *r = &s->dreq[i];

		if (r->busy && r->target == io->target && reqs_conflict(t, io, &r->io))
			return 1;
	}
	return 0;
}

/* 1 when the next I/O must wait, and with it every I/O after it, as issue
 * order is kept: raid5/6, it shares a row with a request in flight that it
 * may not overlap (layout_conflict); with a controller cache, it is a
 * write that does not fit in the cache yet (destaging makes room), or it
 * overlaps a destage. A write into the cache and a read the cache serves
 * wait for nothing. */
static int blocked(struct sched *s)
{
	const struct rp_io *io = &s->ahead;
	const struct sched_target *t = &s->cfg->targets[io->target];
	const struct layout *l = t->layout;

	if (t->wc && io->op == BPT_OP_WRITE && !wcache_too_big(t->wc, io->len)) {
		if (wcache_fits(t->wc, io->offset, io->len))
			return 0;
		if (!s->wc_wait || s->wc_wait_seq != s->next) {
			s->wc_wait = 1;
			s->wc_wait_seq = s->next;
			s->st->wc_waits++;
		}
		return 1;
	}
	if (t->wc && io->op == BPT_OP_READ && wcache_overlaps(t->wc, io->offset, io->len) &&
	    wcache_read(t->wc, io->offset, io->len, s->cfg->read_buf))
		return 0;
	if (!t->wc && l->kind != LAYOUT_RAID5 && l->kind != LAYOUT_RAID6)
		return 0;
	return conflicts_in_flight(s, io);
}

/* wcache_destage_next's busy(): a request or destage in flight shares
 * the row [off, off+len) of target `ctx`. */
struct busy_ctx {
	const struct sched *s;
	uint8_t target;
};

static int row_busy(void *ctx, uint64_t off, uint64_t len)
{
	const struct busy_ctx *b = ctx;
	struct rp_io io = { .op = BPT_OP_WRITE, .offset = off, .len = len, .target = b->target };

	return conflicts_in_flight(b->s, &io);
}

/* Start destaging run d->run of target t: a write through the layout from
 * the run's bytes (d->dbuf), with its reads of old data and parity first
 * when the row is not written whole. */
static int start_destage(struct sched *s, struct req *r, unsigned t)
{
	struct layout *l = s->cfg->targets[t].layout;
	int n;

	r->io = (struct rp_io){ .op = BPT_OP_WRITE, .offset = r->run.off, .len = r->run.len,
				.target = (uint8_t)t };
	r->target = (uint8_t)t;
	r->error = 0;
	r->last_done = 0;
	r->short_io = 0;
	r->phase1_ns = 0;
	r->wc_overlay = 0;
	if ((n = scratch_for(r, l)))
		return n;
	n = layout_map(l, BPT_OP_WRITE, r->run.off, r->run.len, r->lp, s->dmaxparts);
	if (n <= 0) { /* a run is within the array: cannot happen */
		wcache_destage_done(s->cfg->targets[t].wc, &r->run, 0);
		s->wc_failed = 1;
		s->st->wc_error = n < 0 ? n : -EINVAL;
		return 0;
	}
	r->busy = 1;
	s->dbusy++;
	r->nparts = r->parts_left = (unsigned)n;
	r->phase0_left = 0;
	for (int p = 0; p < n; p++) {
		r->phase0_left += !r->lp[p].phase;
		r->part_done_ns[p] = 0;
	}
	r->issue_ns = now_mono_ns();
	if (r->two_phase && !r->phase0_left) { /* a full row: nothing to read */
		raid_compute(s, r);
		r->phase1_ns = r->issue_ns;
		return queue_parts(s, r, 1);
	}
	return queue_parts(s, r, 0);
}

/* Start the destages that are due on every target with a controller
 * cache, while destage slots are free: rows dirty from end to end at
 * any time; the others (oldest write first) when the cache is fuller than
 * its destage= mark, when no request of the trace is in flight (the
 * array is idle), when a write waits for room, or when `ending` (the
 * trace is done or the replay stops: everything goes to the members). */
static int destage_kick(struct sched *s, int ending)
{
	if (!s->have_wc || s->wc_failed)
		return 0;
	for (unsigned t = 0; t < s->cfg->ntargets; t++) {
		struct wcache *wc = s->cfg->targets[t].wc;
		struct busy_ctx bc = { .s = s, .target = (uint8_t)t };

		if (!wc)
			continue;
		while (s->dbusy < DESTAGE_DEPTH && !s->wc_failed && wcache_used(wc)) {
			struct req *r = NULL;
			int partial = ending || s->wc_wait || !s->outstanding || wcache_over_mark(wc);
			int rc;

			for (unsigned i = 0; i < DESTAGE_DEPTH && !r; i++)
				if (!s->dreq[i].busy)
					r = &s->dreq[i];
			if (!wcache_destage_next(wc, partial, row_busy, &bc, &r->run, r->dbuf))
				break;
			if ((rc = start_destage(s, r, t)))
				return rc;
		}
	}
	return 0;
}

static void sched_free(struct sched *s)
{
	if (s->eng)
		s->cfg->ops->close(s->eng);
	free(s->fds);
	if (s->reqs)
		for (unsigned i = 0; i < s->nslots; i++) {
			free(s->reqs[i].lp);
			free(s->reqs[i].eio);
			free(s->reqs[i].scratch);
			free(s->reqs[i].wbuf);
			free(s->reqs[i].part_done_ns);
		}
	free(s->reqs);
	for (unsigned i = 0; i < DESTAGE_DEPTH; i++) {
		free(s->dreq[i].lp);
		free(s->dreq[i].eio);
		free(s->dreq[i].scratch);
		free(s->dreq[i].part_done_ns);
		free(s->dreq[i].dbuf);
	}
	free(s->free_ids);
	free(s->batch);
	free(s->ready);
	free(s->done);
	for (unsigned k = 0; k < SCHED_MAX_RECS; k++)
		causal_free(&s->lane[k].c);
}

static int sched_setup(struct sched *s)
{
	const struct sched_config *cfg = s->cfg;
	uint64_t maxlen;
	struct engine_opts eo = cfg->eopts;

	/* only reads and writes are split per chunk (see layout.h) */
	maxlen = s->src->max_rw_len;
	s->maxparts = 1;
	for (unsigned t = 0; t < cfg->ntargets; t++) {
		unsigned m = layout_max_parts(cfg->targets[t].layout, maxlen);

		if (m > s->maxparts)
			s->maxparts = m;
	}
	/* a request whose result waits (report_done) keeps its slot while
	 * the next ones use others */
	int defer = cfg->timing == TIMING_AFAP && cfg->defer_results;

	s->nslots = defer ? 2 * cfg->depth : cfg->depth;
	s->reqs = calloc(s->nslots, sizeof(*s->reqs));
	s->free_ids = calloc(s->nslots, sizeof(*s->free_ids));
	s->batch = calloc(cfg->depth, sizeof(*s->batch));
	s->ready = calloc(cfg->depth + DESTAGE_DEPTH, sizeof(*s->ready));
	if (defer)
		s->done = calloc(s->nslots, sizeof(*s->done));
	if (!s->reqs || !s->free_ids || !s->batch || !s->ready || (defer && !s->done))
		return -ENOMEM;
	for (unsigned i = 0; i < s->nslots; i++) {
		s->reqs[i].lp = calloc(s->maxparts, sizeof(*s->reqs[i].lp));
		s->reqs[i].eio = calloc(s->maxparts, sizeof(*s->reqs[i].eio));
		s->reqs[i].part_done_ns = calloc(s->maxparts, sizeof(*s->reqs[i].part_done_ns));
		if (!s->reqs[i].lp || !s->reqs[i].eio || !s->reqs[i].part_done_ns)
			return -ENOMEM;
		/* touch the pages now rather than while issuing */
		memset(s->reqs[i].lp, 0, s->maxparts * sizeof(*s->reqs[i].lp));
		memset(s->reqs[i].eio, 0, s->maxparts * sizeof(*s->reqs[i].eio));
		s->free_ids[s->nfree++] = s->nslots - 1 - i;
	}
	/* destages of controller caches: a run is at most a row */
	uint64_t rowb = 0;
	for (unsigned t = 0; t < cfg->ntargets; t++) {
		const struct sched_target *tg = &cfg->targets[t];
		unsigned m;

		if (!tg->wc)
			continue;
		s->have_wc = 1;
		if (wcache_row_bytes(tg->wc) > rowb)
			rowb = wcache_row_bytes(tg->wc);
		m = layout_max_parts(tg->layout, wcache_row_bytes(tg->wc));
		if (m > s->dmaxparts)
			s->dmaxparts = m;
	}
	for (unsigned i = 0; s->have_wc && i < DESTAGE_DEPTH; i++) {
		void *p = NULL;

		if (posix_memalign(&p, 4096, rowb))
			return -ENOMEM;
		s->dreq[i].dbuf = p;
	}
	for (unsigned i = 0; s->have_wc && i < DESTAGE_DEPTH; i++) {
		struct req *r = &s->dreq[i];

		r->destage = 1;
		r->lp = calloc(s->dmaxparts, sizeof(*r->lp));
		r->eio = calloc(s->dmaxparts, sizeof(*r->eio));
		r->part_done_ns = calloc(s->dmaxparts, sizeof(*r->part_done_ns));
		if (!r->lp || !r->eio || !r->part_done_ns)
			return -ENOMEM;
	}
	/* the descriptors and buffers, which an engine may register */
	unsigned nfds = 0;
	for (unsigned t = 0; t < cfg->ntargets; t++)
		nfds += cfg->targets[t].layout->nmembers;
	s->fds = calloc(nfds ? nfds : 1, sizeof(*s->fds));
	if (!s->fds)
		return -ENOMEM;
	nfds = 0;
	for (unsigned t = 0; t < cfg->ntargets; t++)
		for (unsigned m = 0; m < cfg->targets[t].layout->nmembers; m++)
			s->fds[nfds++] = cfg->targets[t].fd[m];
	if (cfg->timing != TIMING_AFAP && cfg->pin && cfg->pin->cpu >= 0)
		eo.worker_cpus = &cfg->pin->rest;
	eo.fds = s->fds;
	eo.nfds = nfds;
	if (cfg->buf_len && cfg->read_buf && cfg->write_buf) {
		s->bufs[0] = (struct iovec){ cfg->read_buf, cfg->buf_len };
		s->bufs[1] = (struct iovec){ cfg->write_buf, cfg->buf_len };
		eo.bufs = s->bufs;
		eo.nbufs = 2;
	}
	eo.depth = cfg->depth * s->maxparts + (s->have_wc ? DESTAGE_DEPTH * s->dmaxparts : 0);
	if (eo.depth > 8192)
		eo.depth = 8192; /* queue() says busy beyond; the loop copes */
	return cfg->ops->open(&s->eng, &eo);
}

/* One read of WARMUP_LEN bytes at offset 0 of every member of every
 * target, each waited for, before time 0 (sched.h). Failures are ignored:
 * the warm-up only changes how fast the first real I/O starts. Returns 0
 * or a negative errno from the engine itself.
 *
 * The reads go through the very eng_io (and so the engine's iocb) of the
 * request slot the first I/O takes, into the buffer it uses: warmed
 * through a structure of its own, or a first write after a read into the
 * read buffer, the first I/O still took longer from its submission to its
 * Q event than the rest (a first use of that memory by the kernel, seen
 * under the blk tracer; bench/RESULTS.md, "Replay timing at the floor").
 * Before a
 * write the read lands in the write buffer, whose first WARMUP_LEN bytes
 * are put back after, so the data written stays the same. */
static int warm_up(struct sched *s)
{
	const struct engine_ops *ops = s->cfg->ops;
	struct req *first = &s->reqs[s->free_ids[s->nfree - 1]];
	int into_wbuf = s->have_ahead && s->ahead.op == BPT_OP_WRITE && s->cfg->write_buf;
	char *buf = into_wbuf ? s->cfg->write_buf : s->cfg->read_buf;
	char saved[WARMUP_LEN];
	int rc = 0;

	if (into_wbuf)
		memcpy(saved, buf, WARMUP_LEN);

	for (unsigned t = 0; t < s->cfg->ntargets; t++) {
		const struct sched_target *tg = &s->cfg->targets[t];

		for (unsigned m = 0; m < tg->layout->nmembers; m++) {
			if (tg->layout->missing & (1u << m))
				continue; /* a missing member is never touched */
			struct eng_io *e = &first->eio[m % s->maxparts];

			*e = (struct eng_io){
				.fd = tg->fd[m], .is_blkdev = (uint8_t)tg->is_blkdev[m],
				.op = BPT_OP_READ, .offset = 0, .len = WARMUP_LEN,
				.buf = buf,
			};
			if (ops->queue(s->eng, e) != ENG_QUEUED)
				continue; /* completed at once, or no room: nothing to wait for */
			while (ops->pending(s->eng)) {
				rc = ops->commit(s->eng);
				if (rc < 0)
					goto out;
			}
			do
				rc = ops->getevents(s->eng, 1, 1, NEVER);
			while (rc == 0);
			if (rc < 0)
				goto out;
			rc = 0;
		}
	}
out:
	if (into_wbuf)
		memcpy(buf, saved, WARMUP_LEN);
	return rc;
}

/* A mixed replay: fill every lane that has no next I/O, then make the
 * lane whose I/O is due first the one `ahead` comes from (sched.h): the
 * earliest recorded time, or in causal timing the earliest due time of
 * the lanes ready (ties and lanes not ready: the earliest recorded time,
 * then the first lane). Chosen again at every call, as a completion may
 * make another lane ready. 1, 0 when every lane is at its end, <0 from
 * the source. */
static int fetch_lanes(struct sched *s)
{
	unsigned best = s->nlanes;
	uint64_t best_due = NEVER, due;
	int rc;

	for (unsigned k = 0; k < s->nlanes; k++) {
		struct lane *l = &s->lane[k];

		if (l->have || l->end)
			continue;
		rc = s->src->next_rec(s->src->ctx, k, &l->io);
		if (rc < 0)
			return rc;
		l->have = rc == 1;
		l->end = rc == 0;
		l->io.rec = (uint8_t)k;
	}
	for (unsigned k = 0; k < s->nlanes; k++) {
		const struct lane *l = &s->lane[k];

		if (!l->have)
			continue;
		s->cur = k;
		s->ahead = l->io;
		due = s->cfg->timing == TIMING_CAUSAL ? due_time(s) : l->io.t_ns;
		if (best == s->nlanes || due < best_due ||
		    (due == best_due && l->io.t_ns < s->lane[best].io.t_ns)) {
			best = k;
			best_due = due;
		}
	}
	s->have_ahead = best < s->nlanes;
	s->src_end = !s->have_ahead;
	if (s->have_ahead) {
		s->cur = best;
		s->ahead = s->lane[best].io;
	}
	return s->have_ahead;
}

/* Read the next I/O from the source if none is waiting: 1 when one is,
 * 0 at the end, <0 from the source. */
static int fetch(struct sched *s)
{
	int rc;

	if (s->nlanes > 1)
		return fetch_lanes(s);
	if (s->have_ahead)
		return 1;
	if (s->src_end)
		return 0;
	rc = s->src->next(s->src->ctx, &s->ahead);
	if (rc < 0)
		return rc;
	s->have_ahead = rc == 1;
	s->src_end = rc == 0;
	return rc == 1;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A SCHED_FIFO issuer that used more CPU in the last second than the RT
 * throttle lets it goes SCHED_OTHER for the rest of the run, rather than
 * be stopped by the kernel for up to 50 ms (fifo_guard.h). */
static void guard_fifo(struct sched *s, uint64_t now)
{
	struct sched_param sp = { 0 };

	if (!s->cfg->fifo_guard || s->st->fifo_left_ns || now < fifo_guard_due(&s->guard))
		return;
	if (fifo_guard_tick(&s->guard, now, thread_cpu_ns()) &&
	    !sched_setscheduler(0, SCHED_OTHER, &sp))
		s->st->fifo_left_ns = now > s->t0 ? now - s->t0 : 1;
}

int sched_run_source(const struct sched_config *cfg, const struct sched_source *src,
		     struct sched_stats *stats)
{
	struct sched s = { .cfg = cfg, .src = src, .st = stats };
	uint64_t n = src->total;
	int rc, src_rc = 0;

	memset(stats, 0, sizeof(*stats));
	if (!cfg->depth || !(cfg->speed > 0) || src->nrec > SCHED_MAX_RECS ||
	    (src->nrec > 1 && !src->next_rec))
		return -EINVAL;
	s.nlanes = src->nrec > 1 ? src->nrec : 1;
	rc = sched_setup(&s);
	/* on the issuer's own CPU before the warm-up, so that the warm-up
	 * warms that CPU's block-layer state: warmed from another CPU, the
	 * first I/O took longer from submission to issue than the rest
	 * (bench/RESULTS.md, "Replay timing on an idle machine") */
	if (!rc && cfg->timing != TIMING_AFAP && cfg->pin)
		cpu_pin_issuer(cfg->pin);
	/* the first I/O is read before the warm-up, which warms its buffer */
	if (!rc && (rc = fetch(&s)) > 0)
		rc = 0;
	if (!rc && cfg->warmup)
		rc = warm_up(&s);
	if (rc)
		goto out;
	s.spin_ns = cfg->spin_ns ? cfg->spin_ns : SPIN_NS_DEFAULT;
	s.t0 = now_mono_ns() + (cfg->timing == TIMING_AFAP ? 0 : START_LEAD_NS);
	stats->start_mono_ns = s.t0;
	s.next_progress = s.t0 + PROGRESS_NS;
	if (cfg->fifo_guard)
		fifo_guard_start(&s.guard, now_mono_ns(), thread_cpu_ns());
	for (;;) {
		uint64_t due = NEVER, now;
		int stop = stop_requested(&s) || src_rc < 0;
		int more;

		if (s.nready && (rc = drain_ready(&s)))
			goto out;
		if (s.have_wc && (rc = destage_kick(&s, stop || s.src_end)))
			goto out;
		if (!stop && cfg->timing == TIMING_AFAP && s.nbatch && !has_room(&s) && !s.src_end)
			more = 1; /* read the next I/O after the ones started
				   * are submitted, while they are in flight */
		else
			more = !stop && (src_rc = fetch(&s)) > 0;
		if (src_rc < 0) {
			stop = 1;
			more = 0;
		}
		if (more && has_room(&s)) {
			due = due_time(&s);
			if (due != NEVER && blocked(&s))
				due = NEVER; /* wait for the request it conflicts with */
			if (due == 0 || (due != NEVER && due <= now_mono_ns())) {
				rc = start_req(&s, due);
				if (rc)
					goto out;
				continue;
			}
		}
		if (s.nbatch || cfg->ops->pending(s.eng)) {
			rc = commit(&s);
			if (rc)
				goto out;
		}
		if (s.ndone) {
			report_done(&s); /* the next I/Os are in flight meanwhile */
			continue;
		}
		now = now_mono_ns();
		guard_fifo(&s, now);
		if (cfg->on_progress && now >= s.next_progress) {
			cfg->on_progress(cfg->ctx, stats->completed, n, now - s.t0);
			s.next_progress = now + PROGRESS_NS;
		}
		if (stop || !more || !has_room(&s) || due == NEVER) {
			if (!s.outstanding && !s.dbusy) {
				/* the trace is done or stopped: the controller
				 * caches go to the members before the run ends */
				if (s.have_wc && (rc = destage_kick(&s, 1)))
					goto out;
				if (!s.dbusy)
					break;
				continue;
			}
			if (cfg->poll && cfg->timing == TIMING_AFAP && !stop && more && !has_room(&s))
				rc = reap_polling(&s); /* afap, the queue full */
			else
				rc = reap(&s, 1, stop || !more ? PROGRESS_NS : NEVER);
		} else if (due > now + s.spin_ns) {
			uint64_t wait = due - now - s.spin_ns;

			if (s.outstanding || s.dbusy) {
				rc = reap(&s, 1, wait);
			} else {
				sleep_until_mono_ns(due - s.spin_ns);
				rc = 0;
			}
		} else {
			rc = spin_until(&s, due);
		}
		if (rc < 0)
			goto out;
		rc = 0;
	}
	/* stopped early unless the source is known to be used up */
	if (src_rc >= 0 && !s.have_ahead && !s.src_end)
		(void)fetch(&s); /* an error leaves it "stopped" */
	if (s.have_ahead || !s.src_end)
		stats->stopped = 1;
out:
	for (unsigned t = 0; t < cfg->ntargets; t++)
		if (cfg->targets[t].wc)
			stats->wc_unwritten += wcache_used(cfg->targets[t].wc) * WCACHE_PAGE;
	report_done(&s); /* every issued I/O gets its result */
	if (cfg->timing != TIMING_AFAP && cfg->pin)
		cpu_pin_restore(cfg->pin);
	sched_free(&s);
	if (!rc && src_rc < 0)
		rc = src_rc;
	return rc < 0 ? rc : 0;
}

int sched_internal_copy(struct rp_result *r)
{
	unsigned n = 0;

	r->internal = NULL;
	r->ninternal = 0;
	for (unsigned i = 0; i < r->nparts; i++)
		n += r->parts[i].internal;
	if (!n)
		return 0;
	r->internal = malloc(n * sizeof(*r->internal));
	if (!r->internal)
		return -ENOMEM;
	for (unsigned i = 0; i < r->nparts; i++) {
		const struct layout_part *p = &r->parts[i];
		uint64_t issue = p->phase ? r->phase1_ns : r->phase0_ns;

		if (!p->internal)
			continue;
		r->internal[r->ninternal++] = (struct rp_internal){
			.offset = p->offset, .len = (uint32_t)p->len,
			.member = (uint8_t)p->member,
			.op = p->read ? BPT_OP_READ : BPT_OP_WRITE,
			.issue_ns = issue,
			.complete_ns = r->part_done_ns[i] > issue ? r->part_done_ns[i] : issue,
		};
	}
	return 0;
}

/* sched_run's source: an array. */
struct array_source {
	const struct rp_io *io;
	uint64_t n, i;
};

static int array_next(void *ctx, struct rp_io *io)
{
	struct array_source *a = ctx;

	if (a->i == a->n)
		return 0;
	*io = a->io[a->i++];
	return 1;
}

int sched_run(const struct sched_config *cfg, const struct rp_io *io, uint64_t n,
	      struct sched_stats *stats)
{
	struct array_source a = { .io = io, .n = n };
	struct sched_source src = { .next = array_next, .ctx = &a, .total = n };

	/* only reads and writes are split per chunk (see layout.h) */
	for (uint64_t i = 0; i < n; i++)
		if ((io[i].op == BPT_OP_READ || io[i].op == BPT_OP_WRITE) &&
		    io[i].len > src.max_rw_len)
			src.max_rw_len = io[i].len;
	return sched_run_source(cfg, &src, stats);
}
