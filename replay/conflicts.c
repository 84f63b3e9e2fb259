/*
 * conflicts.c — overlapping requests in flight together (conflicts.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bpt.h"
#include "conflicts.h"

static const char *const names[] = { "keep", "order", "drop" };

int conflicts_parse(const char *s, enum conflict_rule *rule)
{
	for (unsigned i = 0; i < 3; i++)
		if (!strcmp(s, names[i])) {
			*rule = (enum conflict_rule)i;
			return 0;
		}
	return -EINVAL;
}

const char *conflicts_name(enum conflict_rule rule)
{
	return (unsigned)rule < 3 ? names[rule] : "?";
}

/* A slot for an I/O in flight: its index, or -1 (-ENOMEM). */
static int64_t slot(struct conflicts *c)
{
	if (c->nfree)
		return c->free_ix[--c->nfree];
	if (c->nio == c->cap) {
		uint64_t n = c->cap ? c->cap * 2 : 64;
		struct conflict_io *p = realloc(c->io, n * sizeof(*p));
		uint32_t *f;

		if (!p)
			return -1;
		c->io = p;
		if (!(f = realloc(c->free_ix, n * sizeof(*f))))
			return -1;
		c->free_ix = f;
		c->cap = n;
	}
	return (int64_t)c->nio++;
}

int conflicts_next(struct conflicts *c, struct rp_io *io)
{
	uint64_t t = io->t_ns, done = io->done_ns, latest = 0, end = io->offset + io->len;
	int hit = 0;
	int64_t ix;

	/* what had completed by this issue has left the flight */
	while (c->inflight.n && minheap_top(&c->inflight)->key <= t) {
		c->free_ix[c->nfree++] = (uint32_t)minheap_top(&c->inflight)->val;
		minheap_pop(&c->inflight);
	}
	if (io->op != BPT_OP_FLUSH && io->len) {
		for (uint64_t i = 0; i < c->inflight.n; i++) {
			const struct conflict_io *e = &c->io[c->inflight.v[i].val];

			if (e->target == io->target && e->offset < end && io->offset < e->end) {
				hit = 1;
				if (c->inflight.v[i].key > latest)
					latest = c->inflight.v[i].key;
			}
		}
		if (done > t) { /* in flight until done (recorded) */
			if ((ix = slot(c)) < 0 || minheap_push(&c->inflight, done, (uint64_t)ix))
				return -ENOMEM;
			c->io[ix] = (struct conflict_io){ .offset = io->offset, .end = end,
							  .target = io->target };
		}
	}
	c->count += (uint64_t)hit;
	if (hit && c->rule == CONFLICT_DROP) {
		c->dropped++;
		return 0;
	}
	if (c->rule == CONFLICT_ORDER) {
		/* just after the earlier one's recorded completion (causal timing
		 * waits for the I/Os recorded as completed before an issue), and
		 * in issue order */
		uint64_t nt = t + c->shift;

		if (hit && latest + c->shift + 1 > nt)
			nt = latest + c->shift + 1;
		if (nt < c->moved_to)
			nt = c->moved_to;
		c->shift = nt - t;
		c->moved_to = nt;
		io->t_ns = nt;
		io->done_ns = done + c->shift;
	}
	return 1;
}

void conflicts_free(struct conflicts *c)
{
	minheap_free(&c->inflight);
	free(c->io);
	free(c->free_ix);
	memset(c, 0, sizeof(*c));
}
