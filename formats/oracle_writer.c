/*
 * oracle_writer.c — .bpt records to a libCacheSim oracleGeneral trace
 * (oracle_writer.h says what is written and how memory stays bounded).
 *
 * Invariants, for requests numbered j = 0, 1, ... as they arrive:
 *  1. ring[j % window] holds request j for every j in [done, next):
 *     next - done <= window; requests below done are written, in order.
 *  2. The hash maps each obj_id of a request in the ring to the number
 *     of its latest request there, and holds nothing else: a request
 *     leaving the ring removes its entry when the entry is still its own.
 *  3. ring[i].next is -1 until a later request j for the same obj_id
 *     arrives while i is in the ring (j - i < window: a full ring writes
 *     its oldest before j goes in); then j + 1, j's 1-based number.
 */
#include "oracle_writer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"


struct og_req {
	uint64_t obj;
	int64_t next;
	uint32_t time;
};

struct og_slot {
	uint64_t obj;
	uint64_t idx1; /* the request's number + 1; 0: a free slot (calloc) */
};

struct ogw {
	struct outfile o;
	uint32_t window;
	struct og_req *ring;
	struct og_slot *map;
	uint64_t mask;  /* map slots - 1 */
	unsigned shift; /* 64 - log2(map slots) */
	uint64_t done, next;
};

static inline uint64_t slot_of(const struct ogw *w, uint64_t obj)
{
	return (obj * 0x9e3779b97f4a7c15ull) >> w->shift;
}

static struct og_slot *find(struct ogw *w, uint64_t obj)
{
	for (uint64_t i = slot_of(w, obj);; i = (i + 1) & w->mask) {
		struct og_slot *s = &w->map[i];

		if (!s->idx1 || s->obj == obj)
			return s;
	}
}

/* Remove slot s (linear probing: move later entries of the cluster back
 * so that no lookup stops early at the hole). */
static void erase(struct ogw *w, struct og_slot *s)
{
	uint64_t hole = (uint64_t)(s - w->map);

	for (uint64_t i = (hole + 1) & w->mask;; i = (i + 1) & w->mask) {
		struct og_slot *t = &w->map[i];

		if (!t->idx1)
			break;
		uint64_t home = slot_of(w, t->obj);

		/* t may fill the hole when its home is not in (hole, i] */
		if (((i - home) & w->mask) >= ((i - hole) & w->mask)) {
			w->map[hole] = *t;
			hole = i;
		}
	}
	w->map[hole].idx1 = 0;
}

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Write the oldest request in the ring (invariant 1) and drop its hash
 * entry (invariant 2). */
static void emit(struct ogw *w)
{
	struct og_req *r = &w->ring[w->done & (w->window - 1)];
	uint8_t b[OGW_RECORD];
	struct og_slot *s = find(w, r->obj);

	put_le(b, r->time, 4);
	put_le(b + 4, r->obj, 8);
	put_le(b + 12, OGW_BLOCK, 4);
	put_le(b + 16, (uint64_t)r->next, 8);
	fwrite(b, 1, sizeof(b), w->o.f);
	if (s->idx1 == w->done + 1)
		erase(w, s);
	w->done++;
}

int ogw_open(struct ogw **out, const char *path, const struct bpt_header *hdr,
	     const char *const *inputs, uint32_t window, struct bpt_error *err)
{
	struct outfile_opts oo = { .what = "a libCacheSim oracleGeneral trace", .inputs = inputs,
				   .allow_stdout = 1 };
	struct ogw *w = calloc(1, sizeof(*w));
	uint64_t slots;
	unsigned bits = 0;
	int rc;

	(void)hdr;
	*out = NULL;
	if (!window)
		window = OGW_WINDOW;
	if (window < 2 || (window & (window - 1)))
		return bpt_error_set(err, -EINVAL, "%s: look-ahead %u is not a power of two", path, window);
	slots = (uint64_t)window * 2;
	while ((1ull << bits) < slots)
		bits++;
	if (!w || !(w->ring = calloc(window, sizeof(*w->ring))) ||
	    !(w->map = calloc(slots, sizeof(*w->map)))) {
		if (w)
			free(w->ring);
		free(w);
		return bpt_error_set(err, -ENOMEM, "%s: out of memory", path);
	}
	w->window = window;
	w->mask = slots - 1;
	w->shift = 64 - bits;
	if ((rc = outfile_open(&w->o, path, &oo))) {
		*err = w->o.err;
		free(w->ring);
		free(w->map);
		free(w);
		return rc;
	}
	*out = w;
	return 0;
}

int ogw_add(struct ogw *w, const struct bpt_record *rec, struct bpt_error *err)
{
	const char *path = w->o.path ? w->o.path : "-";
	uint64_t secs = rec->issue_ns / 1000000000ull, first, last;

	if (rec->op == BPT_OP_FLUSH || rec->op == BPT_OP_DISCARD || !rec->bytes)
		return 0;
	if (secs > UINT32_MAX)
		return bpt_error_set(err, -ERANGE, "%s: an I/O at %llu s: past the 32-bit seconds of "
				     "oracleGeneral's clock_time", path, (unsigned long long)secs);
	first = rec->sector / (OGW_BLOCK / 512);
	last = (rec->sector * 512 + rec->bytes - 1) / OGW_BLOCK;
	if (last >= OGW_MAX_BLOCK)
		return bpt_error_set(err, -ERANGE, "%s: an I/O at sector %llu: block %llu is past the "
				     "2^48 blocks an obj_id holds", path,
				     (unsigned long long)rec->sector, (unsigned long long)last);
	for (uint64_t b = first; b <= last; b++) {
		uint64_t obj = (uint64_t)rec->dev << 48 | b;
		struct og_slot *s;

		if (w->next - w->done == w->window)
			emit(w);
		s = find(w, obj);
		if (s->idx1)
			w->ring[(s->idx1 - 1) & (w->window - 1)].next = (int64_t)(w->next + 1);
		else
			s->obj = obj;
		s->idx1 = w->next + 1;
		w->ring[w->next & (w->window - 1)] = (struct og_req){ .obj = obj, .next = -1,
								      .time = (uint32_t)secs };
		w->next++;
	}
	if (ferror(w->o.f))
		return bpt_error_set(err, -EIO, "%s: write failed", path);
	return 0;
}

int ogw_close(struct ogw *w, int failed, struct bpt_error *err)
{
	int rc = 0;

	if (!w)
		return 0;
	if (!failed) {
		while (w->done < w->next)
			emit(w);
		if (ferror(w->o.f))
			rc = bpt_error_set(err, -EIO, "%s: write failed", w->o.path ? w->o.path : "-");
	}
	int r = outfile_close(&w->o, failed || rc ? -ECANCELED : 0);

	if (r && !rc && !failed) {
		*err = w->o.err;
		rc = r;
	}
	free(w->ring);
	free(w->map);
	free(w);
	return failed ? 0 : rc;
}
