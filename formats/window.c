/*
 * window.c — the bounded reorder window of records (source_int.h, struct
 * ff_window): common/window.h orders their keys, the records wait in a
 * slab of reused slots.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "source_int.h"

int ff_window_init(struct ff_window *w, uint32_t cap)
{
	memset(w, 0, sizeof(*w));
	w->cap = cap ? cap : 1;
	ff_hkeys_init(&w->keys, w->cap, 0);
	return 0;
}

void ff_window_free(struct ff_window *w)
{
	ff_hkeys_free(&w->keys);
	free(w->slab);
	free(w->free_slot);
	memset(w, 0, sizeof(*w));
}

void ff_window_clear(struct ff_window *w)
{
	ff_hkeys_clear(&w->keys);
	w->nfree = 0;
	for (uint32_t i = w->slab_cap; i-- > 0;)
		w->free_slot[w->nfree++] = i;
	w->seq = 0;
}

/* Double the slab and its free slots (up to cap): 0 or -ENOMEM (what was
 * grown already stays usable). */
static int slab_grow(struct ff_window *w)
{
	uint32_t n = w->slab_cap ? w->slab_cap * 2 : WINDOW_FIRST_ALLOC;

	if (n > w->cap)
		n = w->cap;
	if (n <= w->slab_cap)
		return -ENOMEM;
	struct bpt_record *r = realloc(w->slab, sizeof(*r) * n);

	if (!r)
		return -ENOMEM;
	w->slab = r;
	uint32_t *f = realloc(w->free_slot, sizeof(*f) * n);

	if (!f)
		return -ENOMEM;
	w->free_slot = f;
	for (uint32_t i = n; i-- > w->slab_cap;)
		w->free_slot[w->nfree++] = i;
	w->slab_cap = n;
	return 0;
}

int ff_window_push(struct ff_window *w, const struct bpt_record *rec)
{
	int rc;

	if (!w->nfree && (rc = slab_grow(w)))
		return rc;
	struct ff_hkey k = { rec->issue_ns, w->seq, w->free_slot[w->nfree - 1] };

	if ((rc = ff_hkeys_push(&w->keys, k)))
		return rc;
	w->nfree--;
	w->seq++;
	w->slab[k.slot] = *rec;
	return 0;
}

int ff_window_pop(struct ff_window *w, struct bpt_record *rec)
{
	struct ff_hkey k;

	if (!ff_hkeys_pop(&w->keys, &k))
		return 0;
	*rec = w->slab[k.slot];
	w->free_slot[w->nfree++] = k.slot;
	return 1;
}

int ff_window_peek(const struct ff_window *w, uint64_t *issue_ns)
{
	const struct ff_hkey *k = ff_hkeys_first(&w->keys);

	if (!k)
		return 0;
	*issue_ns = k->issue_ns;
	return 1;
}
