/*
 * causal.c — causal timing's dependencies with memory bounded by what is
 * in flight (causal.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "causal.h"

static void release(struct causal *c, uint32_t id)
{
	c->free_slots[c->nfree++] = id;
}

int causal_issued(struct causal *c, uint64_t done_ns, uint32_t *slot)
{
	uint32_t id;

	if (!c->nfree) {
		uint64_t n = c->nslots ? c->nslots * 2 : 1024;
		struct causal_slot *s = realloc(c->slot, n * sizeof(*s));
		uint32_t *f;

		if (!s)
			return -ENOMEM;
		c->slot = s;
		f = realloc(c->free_slots, n * sizeof(*f));
		if (!f)
			return -ENOMEM;
		c->free_slots = f;
		for (uint64_t i = n; i > c->nslots; i--)
			c->free_slots[c->nfree++] = (uint32_t)(i - 1);
		c->nslots = n;
	}
	id = c->free_slots[c->nfree - 1];
	if (minheap_push(&c->recorded, done_ns, id))
		return -ENOMEM;
	c->nfree--;
	c->slot[id] = (struct causal_slot){ 0 };
	*slot = id;
	return 0;
}

void causal_done(struct causal *c, uint32_t id, uint64_t rel_ns)
{
	struct causal_slot *s = &c->slot[id];

	s->completed = 1;
	s->done_at = rel_ns;
	if (s->passed) {
		if (rel_ns > c->deps_done)
			c->deps_done = rel_ns;
		c->waiting--;
		release(c, id);
	}
}

int causal_ready(struct causal *c, uint64_t t_ns, uint64_t *deps_done, uint64_t *since)
{
	while (c->recorded.n && minheap_top(&c->recorded)->key < t_ns) {
		const struct minheap_item *top = minheap_top(&c->recorded);
		uint32_t id = (uint32_t)top->val;
		struct causal_slot *s = &c->slot[id];

		if (top->key > c->since)
			c->since = top->key;
		minheap_pop(&c->recorded);
		if (s->completed) {
			if (s->done_at > c->deps_done)
				c->deps_done = s->done_at;
			release(c, id);
		} else {
			s->passed = 1;
			c->waiting++;
		}
	}
	if (c->waiting)
		return 0;
	*deps_done = c->deps_done;
	*since = c->since;
	return 1;
}

void causal_free(struct causal *c)
{
	minheap_free(&c->recorded);
	free(c->slot);
	free(c->free_slots);
	memset(c, 0, sizeof(*c));
}
