/*
 * target_hdd.c — the layering engine that makes real I/O take the time
 * an emulated disk would (target_hdd.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliutil.h"
#include "sched.h"
#include "target.h"
#include "target_hdd.h"

#define PASS UINT32_MAX   /* layer_priv of an I/O without a model */
#define NEVER UINT64_MAX

struct hdd_set {
	struct disk_model *models;  /* nmodels */
	int *fds;
	unsigned nmodels;
	struct disk_model **by_fd;  /* indexed by descriptor, nfd entries */
	int nfd;
};

int hdd_set_create(struct hdd_set **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void hdd_set_free(struct hdd_set *s)
{
	if (!s)
		return;
	for (unsigned i = 0; i < s->nmodels; i++)
		disk_model_free(&s->models[i]);
	free(s->models);
	free(s->fds);
	free(s->by_fd);
	free(s);
}

unsigned hdd_set_count(const struct hdd_set *s)
{
	return s ? s->nmodels : 0;
}

static void rebuild_index(struct hdd_set *s)
{
	for (int i = 0; i < s->nfd; i++)
		s->by_fd[i] = NULL;
	for (unsigned i = 0; i < s->nmodels; i++)
		s->by_fd[s->fds[i]] = &s->models[i];
}

int hdd_set_add(struct hdd_set *s, int fd, const struct disk_params *p, uint64_t capacity)
{
	struct disk_model *m;
	int *fds, rc;

	if (fd < 0)
		return -EINVAL;
	for (unsigned i = 0; i < s->nmodels; i++)
		if (s->fds[i] == fd)
			return -EEXIST;
	if (fd >= s->nfd) {
		struct disk_model **b = realloc(s->by_fd, (size_t)(fd + 1) * sizeof(*b));

		if (!b)
			return -ENOMEM;
		s->by_fd = b;
		s->nfd = fd + 1;
	}
	m = realloc(s->models, (s->nmodels + 1) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	s->models = m; /* moved: the index is rebuilt below */
	fds = realloc(s->fds, (s->nmodels + 1) * sizeof(*fds));
	if (!fds) {
		rebuild_index(s);
		return -ENOMEM;
	}
	s->fds = fds;
	rc = disk_model_init(&s->models[s->nmodels], p, capacity);
	if (rc) {
		rebuild_index(s);
		return rc;
	}
	s->fds[s->nmodels++] = fd;
	rebuild_index(s);
	return 0;
}

int hdd_set_add_target(struct hdd_set **s, const struct target *t, int log, struct bpt_error *error)
{
	for (unsigned i = 0; i < t->spec.nmembers; i++) {
		const struct disk_params *p = t->spec.model[i];
		char desc[256];
		int rc;

		if (!p)
			continue;
		if (!*s && (rc = hdd_set_create(s)) < 0) {
			bpt_error_set(error, -ENOMEM, "out of memory");
			return rc;
		}
		rc = hdd_set_add(*s, t->fd[i], p, t->layout.member_size[i]);
		if (rc) {
			bpt_error_set(error, rc, "%s: cannot emulate a disk on it: %s", t->spec.members[i],
				 rc == -EINVAL ? "it is empty or the model is invalid" : strerror(-rc));
			return rc;
		}
		disk_params_describe(p, desc, sizeof(desc));
		if (log)
			fprintf(stderr, "replay: %s: emulated disk %s\n", t->spec.members[i], desc);
	}
	return 0;
}

/* ------------------------------------------------------------ the engine */

struct slot {
	struct eng_io *io;
	struct disk_model *m;
	uint64_t done_ns;       /* the later of the model's finish and the real
				 * completion as seen here */
	uint8_t real_done, model_done;
};

struct engine {
	const struct engine_ops *inner;
	struct engine *ie;
	struct hdd_set *set;
	struct slot *slots;
	unsigned nslots, *free_ids, nfree;
	unsigned *pend, npend;        /* queued, given to the model at commit */
	unsigned npend_done;          /* of those, done at once by the inner engine */
	struct eng_io **ready;        /* both done (or passed through) */
	unsigned nready, consumed;    /* consumed: returned by the last getevents */
	unsigned inner_inflight;      /* handed to the inner engine, not reaped */
};

static void hdd_close(struct engine *e)
{
	if (!e)
		return;
	if (e->ie)
		e->inner->close(e->ie);
	free(e->slots);
	free(e->free_ids);
	free(e->pend);
	free(e->ready);
	free(e);
}

static int hdd_open(struct engine **out, const struct engine_opts *opts)
{
	struct engine *e;
	unsigned n = opts->depth ? opts->depth : 1;
	int rc;

	*out = NULL;
	if (!opts->inner || !opts->hdd)
		return -EINVAL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->inner = opts->inner;
	e->set = opts->hdd;
	e->nslots = n;
	e->slots = calloc(n, sizeof(*e->slots));
	e->free_ids = calloc(n, sizeof(*e->free_ids));
	e->pend = calloc(n, sizeof(*e->pend));
	/* ready holds modelled and passed-through I/Os: at most what is
	 * outstanding in the inner engine plus the slots */
	e->ready = calloc(2 * (size_t)n, sizeof(*e->ready));
	if (!e->slots || !e->free_ids || !e->pend || !e->ready) {
		hdd_close(e);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < n; i++)
		e->free_ids[e->nfree++] = n - 1 - i;
	rc = e->inner->open(&e->ie, opts);
	if (rc) {
		e->ie = NULL;
		hdd_close(e);
		return rc;
	}
	*out = e;
	return 0;
}

static struct disk_model *model_of(const struct engine *e, int fd)
{
	return fd >= 0 && fd < e->set->nfd ? e->set->by_fd[fd] : NULL;
}

static enum eng_status hdd_queue(struct engine *e, struct eng_io *io)
{
	struct disk_model *m = model_of(e, io->fd);
	enum eng_status st;
	unsigned id;

	io->done_ns = 0;
	if (!m) {
		io->layer_priv = PASS;
		st = e->inner->queue(e->ie, io);
		if (st == ENG_QUEUED)
			e->inner_inflight++;
		return st;
	}
	if (!e->nfree)
		return ENG_BUSY;
	id = e->free_ids[e->nfree - 1];
	io->layer_priv = id;
	st = e->inner->queue(e->ie, io);
	if (st == ENG_BUSY)
		return ENG_BUSY;
	e->nfree--;
	e->slots[id] = (struct slot){ .io = io, .m = m, .real_done = st == ENG_COMPLETED };
	if (st == ENG_QUEUED)
		e->inner_inflight++;
	e->pend[e->npend++] = id;
	e->npend_done += st == ENG_COMPLETED;
	return ENG_QUEUED; /* even when the real I/O is done: the model is not */
}

/* A slot whose real I/O and model are both done goes to the ready list. */
static void slot_check(struct engine *e, unsigned id)
{
	struct slot *s = &e->slots[id];

	if (!s->real_done || !s->model_done)
		return;
	s->io->done_ns = s->done_ns; /* the run records the disk's time */
	e->ready[e->nready++] = s->io;
	s->io = NULL;
	e->free_ids[e->nfree++] = id;
}

static int hdd_commit(struct engine *e)
{
	int rc = 0;
	/* the disks get the I/Os when the submission starts: the time the
	 * system call takes is the host's, not the emulated disk's */
	uint64_t now = now_mono_ns();

	if (e->inner->pending(e->ie)) {
		rc = e->inner->commit(e->ie);
		if (rc < 0)
			return rc;
	}
	if (!e->npend)
		return rc;
	for (unsigned i = 0; i < e->npend; i++) {
		struct slot *s = &e->slots[e->pend[i]];
		struct dm_req r = {
			.id = e->pend[i], .offset = s->io->offset, .len = s->io->len,
			.op = s->io->op, .flags = s->io->flags, .arrival = now,
		};
		int mrc = disk_model_submit(s->m, &r);

		if (mrc)
			return mrc;
	}
	e->npend = e->npend_done = 0;
	return rc;
}

/* Take what the inner engine made ready (n from its getevents) at `now`. */
static void take_inner(struct engine *e, int n, uint64_t now)
{
	for (int i = 0; i < n; i++) {
		struct eng_io *io = e->inner->event(e->ie, (unsigned)i);

		e->inner_inflight--;
		if (io->layer_priv == PASS) {
			e->ready[e->nready++] = io;
			continue;
		}
		struct slot *sl = &e->slots[io->layer_priv];

		sl->real_done = 1;
		if (!sl->model_done) /* the model finishes later and sets the time */
			sl->done_ns = 0;
		else if (now > sl->done_ns) /* the real I/O is the later one */
			sl->done_ns = now;
		slot_check(e, io->layer_priv);
	}
}

/* Move every model to `now` and collect what its disk finished; returns
 * the earliest finish still ahead (NEVER when none). */
static uint64_t advance_models(struct engine *e, uint64_t now, int *err)
{
	uint64_t next = NEVER;

	for (unsigned i = 0; i < e->set->nmodels; i++) {
		struct disk_model *m = &e->set->models[i];
		struct dm_req r;
		uint64_t f;
		int rc = disk_model_advance(m, now);

		if (rc)
			*err = rc;
		while (disk_model_pop(m, &r)) {
			struct slot *sl = &e->slots[r.id];

			sl->model_done = 1;
			sl->done_ns = r.finish;
			slot_check(e, (unsigned)r.id);
		}
		f = disk_model_next_finish(m);
		if (f < next)
			next = f;
	}
	return next;
}

/* Sleep until SPIN_NS_SHORT (sched.h: the scheduler's own short spun
 * stretch) before t, then spin: timer wake-ups are late by tens of
 * microseconds, which would add to every emulated I/O. */
static void wait_until(uint64_t t)
{
	if (t > SPIN_NS_SHORT && now_mono_ns() < t - SPIN_NS_SHORT)
		sleep_until_mono_ns(t - SPIN_NS_SHORT);
	while (now_mono_ns() < t)
		;
}

static int hdd_getevents(struct engine *e, unsigned min, unsigned max, uint64_t timeout_ns)
{
	uint64_t now = now_mono_ns();
	uint64_t deadline = timeout_ns == NEVER || now + timeout_ns < now ? NEVER : now + timeout_ns;
	int n, err = 0;

	if (e->consumed) {
		memmove(e->ready, e->ready + e->consumed,
			(e->nready - e->consumed) * sizeof(*e->ready));
		e->nready -= e->consumed;
		e->consumed = 0;
	}
	for (;;) {
		uint64_t next, until;

		if (e->inner_inflight) { /* what is there already, without waiting */
			n = e->inner->getevents(e->ie, 0, e->inner_inflight, 0);
			if (n < 0)
				return n;
			take_inner(e, n, now);
		}
		next = advance_models(e, now, &err);
		if (err)
			return err;
		if (e->nready >= min && (e->nready || !min))
			break;
		now = now_mono_ns();
		if (now >= deadline)
			break;
		until = next < deadline ? next : deadline;
		if (e->inner_inflight) {
			/* sleep in the inner engine: a real completion or the
			 * model's next finish, whichever comes first */
			n = e->inner->getevents(e->ie, 1, e->inner_inflight,
						until == NEVER ? NEVER : until > now ? until - now : 0);
			if (n < 0)
				return n;
			take_inner(e, n, now_mono_ns());
		} else if (until != NEVER) {
			wait_until(until);
		} else {
			break; /* nothing in flight anywhere */
		}
		now = now_mono_ns();
	}
	e->consumed = e->nready < max ? e->nready : max;
	return (int)e->consumed;
}

static struct eng_io *hdd_event(struct engine *e, unsigned i)
{
	return i < e->consumed ? e->ready[i] : NULL;
}

static unsigned hdd_pending(const struct engine *e)
{
	/* the inner engine counts the others */
	return e->inner->pending(e->ie) + e->npend_done;
}

const struct engine_ops engine_hdd_ops = {
	.name = "hdd",
	.open = hdd_open,
	.close = hdd_close,
	.queue = hdd_queue,
	.commit = hdd_commit,
	.getevents = hdd_getevents,
	.event = hdd_event,
	.pending = hdd_pending,
};
