/*
 * stats_exact.c — exact percentiles of a stream in bounded memory
 * (stats.h): a log-linear histogram in the first pass, then in each
 * further pass only the values of the few ranges ("windows") that hold a
 * wanted rank, kept and sorted when few enough, else counted in finer
 * buckets for one more pass.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

/* First pass: values below 2^SUB_BITS have a bucket each; above, each
 * power of two [2^e, 2^(e+1)) has 2^SUB_BITS buckets. */
#define SUB_BITS 10
#define SUB (1u << SUB_BITS)
#define LOG_BUCKETS ((64 - SUB_BITS + 1) * SUB)
/* Later passes: a window too full to keep is split into this many. */
#define SPLIT 4096u

struct window {
	uint64_t lo, hi;   /* values in [lo, hi] */
	uint64_t count;    /* how many the previous pass saw in it */
	uint64_t seen;     /* how many this pass saw */
	uint64_t *kept;    /* the values, when kept (count of them) */
	uint64_t *split;   /* else counts of nsplit buckets of width `width` */
	uint64_t nsplit, width;
	int sorted;        /* kept values sorted */
};

struct target {
	uint32_t ppm;
	int done;
	uint64_t value;
	uint64_t rank;     /* rank (1-based) within its window */
	uint64_t lo;       /* its window's lo, while not done */
};

struct stats_exact {
	unsigned ntarget, nwin, pass; /* pass: 0 is the first */
	struct target *target;      /* ntarget */
	struct window *win;         /* nwin <= ntarget, sorted by lo, disjoint */
	struct window *next;        /* scratch: the next pass's windows */
	struct window **order;      /* scratch of plan() */
	uint64_t *hist;    /* LOG_BUCKETS counts, first pass only */
	uint64_t n, n_pass, min, max;
	unsigned __int128 sum;
	int done;
};

static unsigned log_bucket(uint64_t v)
{
	unsigned e;

	if (v < SUB)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v); /* >= SUB_BITS */
	return (e - SUB_BITS + 1) * SUB + (unsigned)((v >> (e - SUB_BITS)) & (SUB - 1));
}

/* The values [lo, hi] of log bucket b. */
static void log_bucket_range(unsigned b, uint64_t *lo, uint64_t *hi)
{
	unsigned e;
	uint64_t w;

	if (b < SUB) {
		*lo = *hi = b;
		return;
	}
	e = b / SUB - 1 + SUB_BITS;
	w = 1ull << (e - SUB_BITS);
	*lo = (1ull << e) + (uint64_t)(b % SUB) * w;
	*hi = *lo + (w - 1);
}

struct stats_exact *stats_exact_new(const uint32_t *ppm, unsigned nppm)
{
	struct stats_exact *e;

	if (nppm > STATS_EXACT_MAX_PCT)
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->hist = calloc(LOG_BUCKETS, sizeof(*e->hist));
	e->target = calloc(nppm + 1, sizeof(*e->target));
	e->win = calloc(nppm + 1, sizeof(*e->win));
	e->next = calloc(nppm + 1, sizeof(*e->next));
	e->order = calloc(nppm + 1, sizeof(*e->order));
	if (!e->hist || !e->target || !e->win || !e->next || !e->order) {
		stats_exact_free(e);
		return NULL;
	}
	e->ntarget = nppm;
	for (unsigned i = 0; i < nppm; i++)
		e->target[i].ppm = ppm[i] > STATS_PPM ? STATS_PPM : ppm[i];
	e->min = UINT64_MAX;
	return e;
}

static void windows_free(struct stats_exact *e)
{
	for (unsigned w = 0; e->win && w < e->nwin; w++) {
		free(e->win[w].kept);
		free(e->win[w].split);
	}
	e->nwin = 0;
}

void stats_exact_free(struct stats_exact *e)
{
	if (!e)
		return;
	windows_free(e);
	free(e->hist);
	free(e->target);
	free(e->win);
	free(e->next);
	free(e->order);
	free(e);
}

void stats_exact_add(struct stats_exact *e, uint64_t v)
{
	unsigned a, b;
	struct window *w;

	if (e->done)
		return;
	e->n_pass++;
	if (e->pass == 0) {
		e->hist[log_bucket(v)]++;
		e->sum += v;
		e->min = v < e->min ? v : e->min;
		e->max = v > e->max ? v : e->max;
		return;
	}
	/* the last window whose lo <= v */
	for (a = 0, b = e->nwin; a < b;) {
		unsigned m = (a + b) / 2;

		if (e->win[m].lo <= v)
			a = m + 1;
		else
			b = m;
	}
	if (!a || v > e->win[a - 1].hi)
		return;
	w = &e->win[a - 1];
	if (w->kept) {
		if (w->seen < w->count)
			w->kept[w->seen] = v;
	} else {
		w->split[(v - w->lo) / w->width]++;
	}
	w->seen++;
}

/* Target t now lies in [lo, hi] at `rank` there, `count` values in it:
 * done when the range is one value, else its window (shared with the
 * other targets of the same range) is added to the next pass's list. */
static int aim(struct stats_exact *e, struct window *next, unsigned *nnext, struct target *t,
	       uint64_t lo, uint64_t hi, uint64_t rank, uint64_t count)
{
	unsigned w;

	if (lo == hi) {
		t->done = 1;
		t->value = lo;
		return 0;
	}
	t->rank = rank;
	t->lo = lo;
	for (w = 0; w < *nnext && next[w].lo != lo; w++)
		;
	if (w == *nnext) {
		if (w == e->ntarget)
			return -EINVAL; /* cannot happen: one window per target at most */
		next[w] = (struct window){ .lo = lo, .hi = hi, .count = count };
		(*nnext)++;
	}
	return 0;
}

static int by_lo(const void *a, const void *b)
{
	const struct window *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int by_count(const void *a, const void *b)
{
	const struct window *x = *(const struct window *const *)a, *y = *(const struct window *const *)b;

	return x->count < y->count ? -1 : x->count > y->count;
}

/* Give the next pass's windows their storage: the least full are kept
 * while the total stays within STATS_EXACT_KEEP, the rest split. */
static int plan(struct stats_exact *e)
{
	struct window **order = e->order;
	uint64_t kept = 0;

	qsort(e->win, e->nwin, sizeof(e->win[0]), by_lo);
	for (unsigned w = 0; w < e->nwin; w++)
		order[w] = &e->win[w];
	qsort(order, e->nwin, sizeof(order[0]), by_count);
	for (unsigned i = 0; i < e->nwin; i++) {
		struct window *w = order[i];
		uint64_t span_m1 = w->hi - w->lo; /* values - 1: no overflow */

		if (kept + w->count <= STATS_EXACT_KEEP) {
			kept += w->count;
			w->kept = malloc((w->count ? w->count : 1) * sizeof(*w->kept));
			if (!w->kept)
				return -ENOMEM;
			continue;
		}
		w->nsplit = span_m1 < SPLIT - 1 ? span_m1 + 1 : SPLIT;
		w->width = span_m1 / w->nsplit + 1; /* nsplit * width >= span */
		w->split = calloc(w->nsplit, sizeof(*w->split));
		if (!w->split)
			return -ENOMEM;
	}
	return 0;
}

/* End of the first pass: each target's log bucket. */
static int end_first(struct stats_exact *e, struct window *next, unsigned *nnext)
{
	for (unsigned i = 0; i < e->ntarget; i++) {
		struct target *t = &e->target[i];
		uint64_t rank = stats_rank(e->n, t->ppm), below = 0, lo, hi;
		unsigned b = 0;

		for (; below + e->hist[b] < rank; b++)
			below += e->hist[b];
		log_bucket_range(b, &lo, &hi);
		if (aim(e, next, nnext, t, lo, hi, rank - below, e->hist[b]))
			return -EINVAL;
	}
	free(e->hist);
	e->hist = NULL;
	return 0;
}

/* End of a later pass: targets in kept windows are found, those in split
 * windows move to their sub-bucket. */
static int end_later(struct stats_exact *e, struct window *next, unsigned *nnext)
{
	for (unsigned w = 0; w < e->nwin; w++)
		if (e->win[w].seen != e->win[w].count)
			return -EINVAL;
	for (unsigned i = 0; i < e->ntarget; i++) {
		struct target *t = &e->target[i];
		struct window *w = NULL;
		uint64_t below = 0, b = 0, lo, hi;

		if (t->done)
			continue;
		for (unsigned k = 0; k < e->nwin; k++)
			if (e->win[k].lo == t->lo)
				w = &e->win[k];
		if (!w)
			return -EINVAL;
		if (w->kept) {
			if (!w->sorted) { /* once, for every target of the window */
				if (stats_sort_u64_alloc(w->kept, w->count))
					return -ENOMEM;
				w->sorted = 1;
			}
			t->done = 1;
			t->value = w->kept[t->rank - 1];
			continue;
		}
		for (; below + w->split[b] < t->rank; b++)
			below += w->split[b];
		lo = w->lo + b * w->width;
		hi = w->hi - lo < w->width - 1 ? w->hi : lo + (w->width - 1);
		if (aim(e, next, nnext, t, lo, hi, t->rank - below, w->split[b]))
			return -EINVAL;
	}
	return 0;
}

int stats_exact_end_pass(struct stats_exact *e)
{
	struct window *next = e->next;
	unsigned nnext = 0;
	int rc;

	if (e->done)
		return 0;
	if (e->pass == 0) {
		e->n = e->n_pass;
		if (!e->n) {
			e->min = 0;
			for (unsigned i = 0; i < e->ntarget; i++)
				e->target[i].done = 1; /* value 0 */
		}
		rc = e->n ? end_first(e, next, &nnext) : 0;
	} else if (e->n_pass != e->n) {
		rc = -EINVAL;
	} else {
		rc = end_later(e, next, &nnext);
	}
	windows_free(e);
	if (rc)
		return rc;
	memcpy(e->win, next, nnext * sizeof(next[0]));
	e->nwin = nnext;
	e->pass++;
	e->n_pass = 0;
	if (!nnext) {
		e->done = 1;
		free(e->hist);
		e->hist = NULL;
		return 0;
	}
	if ((rc = plan(e)))
		return rc;
	return 1;
}

uint64_t stats_exact_count(const struct stats_exact *e)
{
	return e->n;
}

double stats_exact_mean(const struct stats_exact *e)
{
	return e->n ? (double)e->sum / (double)e->n : 0;
}

uint64_t stats_exact_min(const struct stats_exact *e)
{
	return e->n ? e->min : 0;
}

uint64_t stats_exact_max(const struct stats_exact *e)
{
	return e->n ? e->max : 0;
}

uint64_t stats_exact_value(const struct stats_exact *e, unsigned i)
{
	return i < e->ntarget && e->target[i].done ? e->target[i].value : 0;
}
