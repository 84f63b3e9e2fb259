/*
 * blktrace_pair.c — joining the events of one request (blktrace_pair.h
 * says how). The table: a pool of entries, a free list, and hash chains
 * on (device, sector); an entry is in exactly one chain while in use.
 * New entries go to the head of their chain, so along a chain entries of
 * one key go from newest to oldest.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "blktrace_pair.h"
#include "bpt.h"

#define NIL UINT32_MAX

struct bt_pair;
static void link_entry(struct bt_pair *p, uint32_t i);
static int rehash(struct bt_pair *p, uint32_t nb);

/* E_SKIPC: a request ended by a completion-not-seen note; the writer's
 * placeholder C after it (blktrace_writer.h) is taken here, not
 * matched to another request. */
enum { E_FREE, E_QUEUED, E_ISSUED, E_SKIPC };

/*
 * Out order: requests leave in issue order, as .bpt records go. A
 * finished request waits in the heap until every request issued before
 * it has finished: the issue FIFO holds one item per D, in time order;
 * its oldest item still in flight (same gen) is the barrier (none: the
 * time of the last event, as later D's come later). When more than
 * BT_PAIR_MAX_HELD requests wait, the oldest request in flight is given
 * up as pending (its completion lost: counted), so memory stays bounded.
 */
struct bt_held {
	struct bt_io io;
	uint64_t seq;
};

struct bt_issued {
	uint64_t issue_ns, gen;
	uint32_t idx;
};

struct bt_entry {
	uint64_t queue_ns, issue_ns, sector, cgroup, last_ns;
	uint64_t gen;    /* of its last D: its item in the issue FIFO */
	uint32_t bytes;  /* the request's length */
	uint32_t left;   /* of it, not completed yet */
	uint32_t pid, dev, cat, next;
	int32_t error;
	uint8_t state;
};

struct bt_pair {
	struct bt_entry *e;
	uint32_t cap, max, used, free_head;
	uint32_t *bucket;
	uint32_t mask;
	uint64_t now;
	struct bt_held *out;  /* min-heap of finished requests by issue time */
	uint32_t out_cap, out_n;
	uint64_t out_seq, gen;
	struct bt_issued *fifo; /* ring of D's in issue order (out_order) */
	uint32_t fifo_cap, fifo_head, fifo_n;
	int finishing;
	struct bt_pair_stats st;
};

static uint32_t hash(const struct bt_pair *p, uint32_t dev, uint64_t sector)
{
	/* murmur3's finaliser: sectors of one size class (multiples of 8)
	 * and sequential runs spread over every bucket */
	uint64_t h = sector ^ ((uint64_t)dev << 40);

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return (uint32_t)h & p->mask;
}

/*
 * Buckets: twice the pool's entries (at least BUCKETS_MIN), so that the
 * table stays as small as the requests in flight: a table sized for the
 * largest pool (1 MiB) missed the cache on every new request.
 */
#define BUCKETS_MIN 2048u

/* A new bucket table of nb (a power of two). Each chain is walked from
 * its oldest entry to its newest, so entries of one key keep their order
 * (newest first) in the new chains. 0 or -ENOMEM (the old table kept). */
static int rehash(struct bt_pair *p, uint32_t nb)
{
	uint32_t *nbk = malloc(nb * sizeof(*nbk)), *old = p->bucket;
	uint32_t nold = old ? p->mask + 1 : 0;

	if (!nbk)
		return -ENOMEM;
	memset(nbk, 0xff, nb * sizeof(*nbk));
	p->bucket = nbk;
	p->mask = nb - 1;
	for (uint32_t b = 0; b < nold; b++) {
		uint32_t rev = NIL, i = old[b];

		while (i != NIL) { /* reverse the chain: oldest first */
			uint32_t next = p->e[i].next;

			p->e[i].next = rev;
			rev = i;
			i = next;
		}
		while (rev != NIL) {
			uint32_t next = p->e[rev].next;

			link_entry(p, rev);
			rev = next;
		}
	}
	free(old);
	return 0;
}

int bt_pair_create(struct bt_pair **out, uint32_t max_inflight)
{
	struct bt_pair *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p)
		return -ENOMEM;
	p->max = max_inflight ? max_inflight : BT_PAIR_MAX_INFLIGHT;
	p->free_head = NIL;
	if (rehash(p, BUCKETS_MIN)) {
		free(p);
		return -ENOMEM;
	}
	*out = p;
	return 0;
}

void bt_pair_free(struct bt_pair *p)
{
	if (!p)
		return;
	free(p->e);
	free(p->bucket);
	free(p->out);
	free(p->fifo);
	free(p);
}

const struct bt_pair_stats *bt_pair_stats(const struct bt_pair *p)
{
	return &p->st;
}

int32_t bt_errno(uint16_t error)
{
	int16_t e = (int16_t)error;

	/* The kernel stores a negative errno in 16 bits; some kernels and
	 * tools store it positive. */
	return e < 0 ? e : -(int32_t)e;
}

/* ------------------------------------------------------- output ring */

static int held_before(const struct bt_held *a, const struct bt_held *b)
{
	return a->io.issue_ns != b->io.issue_ns ? a->io.issue_ns < b->io.issue_ns : a->seq < b->seq;
}

static int push_out(struct bt_pair *p, const struct bt_entry *e, uint64_t complete_ns,
		    int completed, uint8_t unseen)
{
	struct bt_held h;
	uint32_t i;

	if (p->out_n == p->out_cap) {
		uint32_t ncap = p->out_cap ? p->out_cap * 2 : 64;
		struct bt_held *n = realloc(p->out, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->out = n;
		p->out_cap = ncap;
	}
	h.seq = p->out_seq++;
	h.io = (struct bt_io){
		.queue_ns = e->queue_ns, .issue_ns = e->issue_ns, .complete_ns = complete_ns,
		.sector = e->sector, .cgroup = e->cgroup, .bytes = e->bytes, .pid = e->pid,
		.dev = e->dev, .cat = e->cat, .error = e->error, .completed = (uint8_t)completed,
		.unseen = completed ? 0 : unseen,
	};
	for (i = p->out_n++; i; ) {
		uint32_t up = (i - 1) / 2;

		if (!held_before(&h, &p->out[up]))
			break;
		p->out[i] = p->out[up];
		i = up;
	}
	p->out[i] = h;
	p->st.ios++;
	if (!completed)
		p->st.pending++;
	return 0;
}

static struct bt_io pop_out(struct bt_pair *p)
{
	struct bt_io top = p->out[0].io;
	struct bt_held last = p->out[--p->out_n];
	uint32_t i = 0;

	for (;;) {
		uint32_t l = 2 * i + 1, m;

		if (l >= p->out_n)
			break;
		m = l + 1 < p->out_n && held_before(&p->out[l + 1], &p->out[l]) ? l + 1 : l;
		if (!held_before(&p->out[m], &last))
			break;
		p->out[i] = p->out[m];
		i = m;
	}
	p->out[i] = last;
	return top;
}

/* Note a D of entry idx in the issue FIFO. 0 or -ENOMEM. */
static int fifo_push(struct bt_pair *p, uint32_t idx)
{
	struct bt_entry *e = &p->e[idx];

	if (p->fifo_n == p->fifo_cap) {
		uint32_t ncap = p->fifo_cap ? p->fifo_cap * 2 : 1024;
		struct bt_issued *n = malloc(ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		for (uint32_t i = 0; i < p->fifo_n; i++)
			n[i] = p->fifo[(p->fifo_head + i) & (p->fifo_cap - 1)];
		free(p->fifo);
		p->fifo = n;
		p->fifo_cap = ncap;
		p->fifo_head = 0;
	}
	e->gen = ++p->gen;
	p->fifo[(p->fifo_head + p->fifo_n++) & (p->fifo_cap - 1)] =
		(struct bt_issued){ e->issue_ns, e->gen, idx };
	return 0;
}

/* The oldest request still in flight: its FIFO item (stale items of
 * requests done are dropped), or NULL. */
static const struct bt_issued *oldest_in_flight(struct bt_pair *p)
{
	while (p->fifo_n) {
		const struct bt_issued *it = &p->fifo[p->fifo_head];

		if (it->idx < p->cap && p->e[it->idx].state == E_ISSUED && p->e[it->idx].gen == it->gen)
			return it;
		p->fifo_head = (p->fifo_head + 1) & (p->fifo_cap - 1);
		p->fifo_n--;
	}
	return NULL;
}

static void free_entry(struct bt_pair *p, uint32_t i);

int bt_pair_take(struct bt_pair *p, struct bt_io *io)
{
	for (;;) {
		const struct bt_issued *old = p->finishing ? NULL : oldest_in_flight(p);
		uint64_t barrier = p->finishing ? UINT64_MAX : old ? old->issue_ns : p->now;

		if (p->out_n && p->out[0].io.issue_ns <= barrier) {
			*io = pop_out(p);
			return 1;
		}
		if (!old || p->out_n <= BT_PAIR_MAX_HELD)
			return 0;
		/* Too many wait for it: its completion is taken as lost. */
		uint32_t i = old->idx;

		if (push_out(p, &p->e[i], p->e[i].last_ns, 0, BPT_COMPLETION_PENDING) < 0)
			return -ENOMEM;
		p->st.given_up++;
		free_entry(p, i);
	}
}

/* ------------------------------------------------------------ table */

static void link_entry(struct bt_pair *p, uint32_t i)
{
	uint32_t b = hash(p, p->e[i].dev, p->e[i].sector);

	p->e[i].next = p->bucket[b];
	p->bucket[b] = i;
}

static void unlink_entry(struct bt_pair *p, uint32_t i)
{
	uint32_t *link = &p->bucket[hash(p, p->e[i].dev, p->e[i].sector)];

	while (*link != i)
		link = &p->e[*link].next;
	*link = p->e[i].next;
}

static void free_entry(struct bt_pair *p, uint32_t i)
{
	unlink_entry(p, i);
	p->e[i].state = E_FREE;
	p->e[i].next = p->free_head;
	p->free_head = i;
	p->used--;
}

static void rekey(struct bt_pair *p, uint32_t i, uint64_t sector)
{
	unlink_entry(p, i);
	p->e[i].sector = sector;
	link_entry(p, i);
}

/* Give up requests untouched for BT_PAIR_STALE_NS. Returns how many. */
static int sweep(struct bt_pair *p, uint32_t *freed)
{
	*freed = 0;
	for (uint32_t i = 0; i < p->cap; i++) {
		struct bt_entry *e = &p->e[i];

		if (e->state == E_FREE || e->last_ns + BT_PAIR_STALE_NS > p->now)
			continue;
		if (e->state == E_ISSUED) {
			if (push_out(p, e, e->last_ns, 0, BPT_COMPLETION_PENDING) < 0)
				return -ENOMEM;
		} else if (e->state == E_QUEUED) {
			p->st.never_issued++;
		}
		free_entry(p, i);
		(*freed)++;
	}
	return 0;
}

static int new_entry(struct bt_pair *p, const struct bt_event *ev, int state,
		     uint64_t queue_ns, uint32_t *idx)
{
	struct bt_entry *e;
	uint32_t i;
	int rc;

	if (p->free_head == NIL && p->cap == p->max) {
		uint32_t freed;

		rc = sweep(p, &freed);
		if (rc < 0)
			return rc;
		if (!freed)
			return -ENOSPC;
	}
	if (p->free_head == NIL) {
		uint32_t ncap = p->cap ? p->cap * 2 : 1024;
		struct bt_entry *n;

		if (ncap > p->max)
			ncap = p->max;
		n = realloc(p->e, ncap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		p->e = n;
		for (uint32_t j = ncap; j-- > p->cap;) {
			n[j].state = E_FREE;
			n[j].next = p->free_head;
			p->free_head = j;
		}
		p->cap = ncap;
		uint32_t nb = p->mask + 1;

		while (nb < 2 * ncap && nb < (1u << 24))
			nb <<= 1;
		if (nb != p->mask + 1 && (rc = rehash(p, nb)))
			return rc;
	}
	i = p->free_head;
	e = &p->e[i];
	p->free_head = e->next;
	memset(e, 0, sizeof(*e));
	e->state = (uint8_t)state;
	e->queue_ns = queue_ns;
	e->sector = ev->sector;
	e->bytes = e->left = ev->bytes;
	e->pid = ev->pid;
	e->dev = ev->dev;
	e->cat = (uint32_t)ev->cat;
	e->cgroup = ev->cgroup;
	e->last_ns = ev->time;
	link_entry(p, i);
	if (++p->used > p->st.max_inflight)
		p->st.max_inflight = p->used;
	*idx = i;
	return 0;
}

/*
 * The entry of `state` at (dev, sector): the oldest, or the newest when
 * `newest`; one whose category bits under `catmask` are those of `cat`
 * is preferred (a C has its D's categories: of two requests at one place,
 * a read and a write, each C finds its own), then one whose length is
 * `bytes`. NIL when none.
 */
#define OP_CATS (BT_TC_READ | BT_TC_WRITE | BT_TC_FLUSH | BT_TC_DISCARD | BT_TC_WRITE_ZEROES)

static uint32_t find_cat(const struct bt_pair *p, uint32_t dev, uint64_t sector, int state,
			 uint32_t bytes, int newest, uint32_t cat, uint32_t catmask)
{
	uint32_t best = NIL;
	int best_score = -1;

	for (uint32_t i = p->bucket[hash(p, dev, sector)]; i != NIL; i = p->e[i].next) {
		const struct bt_entry *e = &p->e[i];
		int score;

		if (e->sector != sector || e->dev != dev || e->state != state)
			continue;
		score = ((e->cat & catmask) == (cat & catmask)) * 2 +
			((state == E_ISSUED ? e->left : e->bytes) == bytes);
		/* along a chain: newest first */
		if (score > best_score || (score == best_score && !newest)) {
			best = i;
			best_score = score;
		}
	}
	return best;
}

static uint32_t find(const struct bt_pair *p, uint32_t dev, uint64_t sector, int state,
		     uint32_t bytes, int newest)
{
	return find_cat(p, dev, sector, state, bytes, newest, 0, 0);
}

/* ------------------------------------------------------------ events */

static int on_complete(struct bt_pair *p, const struct bt_event *ev)
{
	uint32_t i = find(p, ev->dev, ev->sector, E_SKIPC, ev->bytes, 0);
	struct bt_entry *e;

	if (i != NIL && p->e[i].bytes == ev->bytes) {
		free_entry(p, i);
		return 0;
	}
	i = find_cat(p, ev->dev, ev->sector, E_ISSUED, ev->bytes, 0, (uint32_t)ev->cat, OP_CATS);
	if (i == NIL) {
		p->st.unmatched_completions++;
		return 0;
	}
	e = &p->e[i];
	e->last_ns = ev->time;
	if (ev->error)
		e->error = bt_errno(ev->error);
	if (ev->bytes && ev->bytes < e->left) {
		/* Part of the request: the rest goes on after it. */
		p->st.partial_completions++;
		e->left -= ev->bytes;
		rekey(p, i, e->sector + ev->bytes / 512);
		return 0;
	}
	/* The request's sector is where it was issued, not where its last
	 * part completed. */
	e->sector -= (uint64_t)(e->bytes - e->left) / 512;
	int rc = push_out(p, e, ev->time, 1, 0);
	e->sector += (uint64_t)(e->bytes - e->left) / 512;
	free_entry(p, i);
	return rc;
}

static int on_split(struct bt_pair *p, const struct bt_event *ev)
{
	uint64_t at = 0;
	uint32_t i, j;
	int rc;

	p->st.splits++;
	if (ev->pdu_len < 8)
		return 0;
	for (int k = 0; k < 8; k++)
		at = at << 8 | ev->pdu[k]; /* big-endian whatever the file's order */
	i = find(p, ev->dev, ev->sector, E_QUEUED, 0, 1);
	if (i == NIL || at <= ev->sector || (at - ev->sector) * 512 >= p->e[i].bytes)
		return 0;
	rc = new_entry(p, ev, E_QUEUED, 0, &j);
	if (rc < 0)
		return rc;
	/* new_entry may have moved the pool */
	struct bt_entry *a = &p->e[i], *b = &p->e[j];
	uint32_t first = (uint32_t)((at - ev->sector) * 512);

	b->queue_ns = a->queue_ns;
	b->pid = a->pid;
	b->cat = a->cat;
	b->cgroup = a->cgroup;
	b->bytes = b->left = a->bytes - first;
	a->bytes = a->left = first;
	rekey(p, j, at);
	return 0;
}

static int on_frontmerge(struct bt_pair *p, const struct bt_event *ev)
{
	uint32_t bio = find(p, ev->dev, ev->sector, E_QUEUED, ev->bytes, 1);
	uint32_t rq = find(p, ev->dev, ev->sector + ev->bytes / 512, E_QUEUED, 0, 0);

	p->st.merges++;
	if (rq == NIL)
		return 0; /* the bio's own entry stands for the request */
	if (bio != NIL) {
		if (p->e[bio].queue_ns && p->e[bio].queue_ns < p->e[rq].queue_ns)
			p->e[rq].queue_ns = p->e[bio].queue_ns;
		free_entry(p, bio);
	}
	p->e[rq].bytes += ev->bytes;
	p->e[rq].left = p->e[rq].bytes;
	p->e[rq].last_ns = ev->time;
	rekey(p, rq, ev->sector);
	return 0;
}

int bt_pair_feed(struct bt_pair *p, const struct bt_event *ev)
{
	uint32_t i;

	if (ev->cat & BT_TC_NOTIFY)
		return 0;
	p->st.events++;
	if (ev->cat & BT_TC_PC) {
		p->st.passthrough++;
		return 0;
	}
	if (ev->time > p->now)
		p->now = ev->time;
	switch (ev->act) {
	case BT_TA_QUEUE:
		return new_entry(p, ev, E_QUEUED, ev->time, &i);
	case BT_TA_BACKMERGE:
		p->st.merges++;
		i = find(p, ev->dev, ev->sector, E_QUEUED, ev->bytes, 1);
		if (i != NIL && p->e[i].bytes == ev->bytes)
			free_entry(p, i);
		return 0;
	case BT_TA_FRONTMERGE:
		return on_frontmerge(p, ev);
	case BT_TA_GETRQ:
	case BT_TA_INSERT:
		i = find(p, ev->dev, ev->sector, E_QUEUED, ev->bytes, 0);
		if (i == NIL)
			return new_entry(p, ev, E_QUEUED, ev->time, &i);
		p->e[i].last_ns = ev->time;
		return 0;
	case BT_TA_ISSUE:
		i = find(p, ev->dev, ev->sector, E_QUEUED, ev->bytes, 0);
		if (i == NIL) {
			int rc = new_entry(p, ev, E_QUEUED, 0, &i);

			if (rc < 0)
				return rc;
		}
		p->e[i].state = E_ISSUED;
		p->e[i].issue_ns = ev->time;
		p->e[i].last_ns = ev->time;
		p->e[i].bytes = p->e[i].left = ev->bytes;
		p->e[i].cat = (uint32_t)ev->cat;
		return fifo_push(p, i);
	case BT_TA_REQUEUE:
		p->st.requeues++;
		i = find(p, ev->dev, ev->sector, E_ISSUED, ev->bytes, 0);
		if (i != NIL) {
			p->e[i].state = E_QUEUED;
			p->e[i].last_ns = ev->time;
		}
		return 0;
	case BT_TA_COMPLETE:
		return on_complete(p, ev);
	case BT_TA_SPLIT:
		return on_split(p, ev);
	case BT_TA_REMAP:
		p->st.remaps++;
		return 0;
	case BT_TA_SLEEPRQ:
	case BT_TA_PLUG:
	case BT_TA_UNPLUG_IO:
	case BT_TA_UNPLUG_TIMER:
	case BT_TA_BOUNCE:
	case BT_TA_ABORT:
	case BT_TA_DRV_DATA:
	case BT_TA_ZONE_PLUG:
	case BT_TA_ZONE_UNPLUG:
		return 0;
	default:
		p->st.unknown_actions++;
		return 0;
	}
}

int bt_pair_unseen(struct bt_pair *p, const struct bt_event *ev, uint8_t completion,
		   uint64_t bound)
{
	uint32_t i = find(p, ev->dev, ev->sector, E_ISSUED, ev->bytes, 1);
	int rc;

	if (i == NIL || p->e[i].left != ev->bytes)
		return 0;
	if ((rc = push_out(p, &p->e[i], bound, 0, completion)) < 0)
		return rc;
	p->e[i].state = E_SKIPC;
	return 0;
}

int bt_pair_finish(struct bt_pair *p)
{
	for (uint32_t i = 0; i < p->cap; i++) {
		struct bt_entry *e = &p->e[i];

		if (e->state == E_ISSUED) {
			if (push_out(p, e, p->now, 0, BPT_COMPLETION_PENDING) < 0)
				return -ENOMEM;
		} else if (e->state == E_QUEUED) {
			p->st.never_issued++;
		}
		e->state = E_FREE;
	}
	p->finishing = 1;
	return 0;
}

/* ------------------------------------------------ operations and flags */

int bt_cat_to_op(uint64_t cat, uint32_t bytes, uint8_t *op, uint8_t *flags)
{
	uint8_t f = 0;

	if (cat & BT_TC_ZONE_MGMT)
		return -1;
	if (cat & BT_TC_DISCARD)
		*op = BPT_OP_DISCARD;
	else if (cat & BT_TC_WRITE_ZEROES)
		*op = BPT_OP_WRITE_ZEROES;
	else if ((cat & BT_TC_FLUSH) && !bytes)
		*op = BPT_OP_FLUSH;
	else if (cat & (BT_TC_WRITE | BT_TC_ZONE_APPEND))
		*op = BPT_OP_WRITE;
	else
		*op = BPT_OP_READ;
	if (cat & BT_TC_SYNC)
		f |= BPT_F_SYNC;
	if (cat & BT_TC_FUA)
		f |= BPT_F_FUA;
	if (cat & BT_TC_META)
		f |= BPT_F_META;
	if (cat & BT_TC_AHEAD)
		f |= BPT_F_READAHEAD;
	if ((cat & BT_TC_FLUSH) && bytes)
		f |= BPT_F_PREFLUSH;
	*flags = f;
	return 0;
}

uint32_t bt_op_to_cat(unsigned op, unsigned flags)
{
	uint32_t c;

	switch (op) {
	case BPT_OP_WRITE:
	case BPT_OP_WRITE_ZEROES:
		c = BT_TC_WRITE;
		break;
	case BPT_OP_FLUSH:
		c = BT_TC_READ | BT_TC_FLUSH;
		break;
	case BPT_OP_DISCARD:
		c = BT_TC_WRITE | BT_TC_DISCARD;
		break;
	default:
		c = BT_TC_READ;
		break;
	}
	if (flags & BPT_F_SYNC)
		c |= BT_TC_SYNC;
	if (flags & BPT_F_FUA)
		c |= BT_TC_FUA;
	if (flags & BPT_F_META)
		c |= BT_TC_META;
	if (flags & BPT_F_READAHEAD)
		c |= BT_TC_AHEAD;
	if (flags & BPT_F_PREFLUSH)
		c |= BT_TC_FLUSH;
	return c;
}
