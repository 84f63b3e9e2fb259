/*
 * stats_procs.c — the report's process figures: I/Os and bytes per
 * (pid, comm), counted one row at a time in an open-addressing hash table
 * (memory grows with the processes, not the I/Os), and the top ten by
 * I/Os and by bytes (stats_int.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "stats_int.h"

/* An open-addressing table of (pid, comm id) -> I/Os, bytes. */
struct proc_slot {
	uint32_t pid, comm, used;
	uint64_t ios, bytes;
};


static uint64_t proc_hash(uint32_t pid, uint32_t comm)
{
	uint64_t h = ((uint64_t)pid << 32 | comm) * 0x9E3779B97F4A7C15ull;

	return h ^ (h >> 29);
}

static struct proc_slot *proc_get(struct proc_table *t, uint32_t pid, uint32_t comm)
{
	uint64_t i;

	if ((t->used + 1) * 2 > t->cap) { /* keep it at most half full */
		struct proc_table g = { calloc(t->cap ? t->cap * 2 : 256, sizeof(*g.slot)),
					t->cap ? t->cap * 2 : 256, 0 };

		if (!g.slot)
			return NULL;
		for (uint64_t k = 0; k < t->cap; k++)
			if (t->slot[k].used)
				*proc_get(&g, t->slot[k].pid, t->slot[k].comm) = t->slot[k];
		free(t->slot);
		*t = g;
	}
	for (i = proc_hash(pid, comm) & (t->cap - 1); t->slot[i].used;
	     i = (i + 1) & (t->cap - 1))
		if (t->slot[i].pid == pid && t->slot[i].comm == comm)
			return &t->slot[i];
	t->slot[i] = (struct proc_slot){ pid, comm, 1, 0, 0 };
	t->used++;
	return &t->slot[i];
}

/* Sort order of the top lists: by I/Os (or bytes), then the other, then
 * pid and comm id, so equal entries always come in the same order. */
static int by_ios(const void *a, const void *b)
{
	const struct proc_slot *x = a, *y = b;

	if (x->ios != y->ios) return x->ios < y->ios ? 1 : -1;
	if (x->bytes != y->bytes) return x->bytes < y->bytes ? 1 : -1;
	if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
	return x->comm < y->comm ? -1 : x->comm > y->comm;
}

static int by_bytes(const void *a, const void *b)
{
	const struct proc_slot *x = a, *y = b;

	if (x->bytes != y->bytes) return x->bytes < y->bytes ? 1 : -1;
	return by_ios(a, b);
}

int procs_add(struct proc_table *t, uint32_t pid, uint32_t comm, uint32_t bytes)
{
	struct proc_slot *s = proc_get(t, pid, comm);

	if (!s)
		return -ENOMEM;
	s->ios++;
	s->bytes += bytes;
	return 0;
}

void procs_free(struct proc_table *t)
{
	free(t->slot);
	*t = (struct proc_table){ NULL, 0, 0 };
}

int procs_finish(struct st_source *src, struct st_report *rep, struct proc_table *t,
		 struct bpt_error *err)
{
	struct proc_slot *all;
	uint64_t m = 0, cap = t->cap;

	(void)err;
	all = t->slot;
	t->slot = NULL;
	t->cap = t->used = 0;
	for (uint64_t k = 0; k < cap; k++)
		if (all[k].used)
			all[m++] = all[k];
	rep->nproc_total = (uint32_t)m;
	for (int pass = 0; pass < 2; pass++) {
		struct st_proc *top = pass ? rep->top_bytes : rep->top_ios;
		uint32_t *ntop = pass ? &rep->ntop_bytes : &rep->ntop_ios;

		if (m) /* an empty trace has no table (all == NULL) */
			qsort(all, m, sizeof(*all), pass ? by_bytes : by_ios);
		for (*ntop = 0; *ntop < ST_TOP && *ntop < m; (*ntop)++) {
			struct st_proc *p = &top[*ntop];

			p->pid = all[*ntop].pid;
			p->ios = all[*ntop].ios;
			p->bytes = all[*ntop].bytes;
			src->ops->comm_name(src, all[*ntop].comm, p->comm, sizeof(p->comm));
		}
	}
	free(all);
	return 0;
}
