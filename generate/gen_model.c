/*
 * gen_model.c — the synthetic workload model (see gen_model.h for what it
 * models and its guarantees).
 *
 * Randomness comes from xoshiro256** seeded through splitmix64: small,
 * fast and the same on every platform, unlike rand(). The queue is a
 * binary min-heap of the completion times of the I/Os in flight.
 */
#include "gen_model.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"

struct gen_model {
	struct gen_params p;
	uint64_t rng[4];
	uint64_t n;            /* I/Os drawn so far */
	uint64_t next_pos;     /* byte where a sequential I/O starts */
	double t_arrival;      /* last arrival, ns (as a double for Poisson) */
	uint64_t last_arrival; /* last arrival, rounded */
	uint64_t *heap;        /* completion times of the I/Os in flight */
	uint32_t nheap;
};

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_u64(uint64_t s[4])
{
	uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return r;
}

/* Uniform in [0, 1) with 53 random bits. */
static double rng_unit(uint64_t s[4])
{
	return (double)(rng_u64(s) >> 11) * 0x1.0p-53;
}

/* Uniform integer in [0, n], n < 2^63, without modulo bias. */
static uint64_t rng_upto(uint64_t s[4], uint64_t n)
{
	uint64_t range = n + 1, limit, v;

	if (range == 0)
		return rng_u64(s);
	limit = UINT64_MAX - UINT64_MAX % range;
	do
		v = rng_u64(s);
	while (v >= limit);
	return v % range;
}

void gen_params_default(struct gen_params *p)
{
	memset(p, 0, sizeof(*p));
	size_mix_parse("4k", &p->bs, NULL);
	p->read_pct = 100;
	p->random_pct = 100;
	p->span = 1ull << 30;
	p->arrival = GEN_ARRIVAL_FIXED;
	p->queue_depth = 1;
	p->latency_ns = 100000;
	p->bandwidth = 1073741824.0; /* 1 GiB/s */
	p->seed = 1;
	p->pid = 1;
}

int gen_params_check(const struct gen_params *p, struct bpt_error *error)
{
	const char *why;

	if (p->bs.n == 0)
		why = "--bs: no size";
	else if (!(p->read_pct >= 0 && p->read_pct <= 100))
		why = "--read-pct: must be from 0 to 100";
	else if (!(p->random_pct >= 0 && p->random_pct <= 100))
		why = "--random-pct: must be from 0 to 100";
	else if (p->offset % 512)
		why = "--offset: must be a multiple of 512";
	else if (p->span < size_mix_max(&p->bs))
		why = "--span: smaller than the largest I/O size";
	else if (p->offset + p->span < p->offset || p->offset + p->span > (1ull << 57))
		why = "--offset/--span: region ends past 128 PiB";
	else if (!(p->iops >= 0 && p->iops <= 1e9))
		why = "--iops: must be from 0 to 1000000000";
	else if (p->queue_depth < 1 || p->queue_depth > GEN_MAX_QD)
		why = "--queue-depth: must be from 1 to 65536";
	else if (!(p->bandwidth > 0 && p->bandwidth < 1e15))
		why = "--bandwidth: must be above 0";
	else if (p->latency_ns > 60000000000ull)
		why = "--latency: longer than a minute";
	else
		return 0;
	return bpt_error_set(error, -EINVAL, "%s", why);
}

uint32_t gen_align(uint32_t size)
{
	uint32_t a = size & -size;

	return a < 512 ? 512 : a;
}

int gen_model_create(struct gen_model **out, const struct gen_params *p)
{
	struct gen_model *m;
	uint64_t seed = p->seed;

	*out = NULL;
	if (gen_params_check(p, NULL))
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->heap = calloc(p->queue_depth, sizeof(*m->heap));
	if (!m->heap) {
		free(m);
		return -ENOMEM;
	}
	m->p = *p;
	for (int i = 0; i < 4; i++)
		m->rng[i] = splitmix64(&seed);
	m->next_pos = p->offset;
	*out = m;
	return 0;
}

void gen_model_free(struct gen_model *m)
{
	if (!m)
		return;
	free(m->heap);
	free(m);
}

static inline int u64_before(const void *ctx, const uint64_t *a, const uint64_t *b)
{
	(void)ctx;
	return *a < *b;
}

HEAP_DEFINE(times, uint64_t, u64_before)

static void heap_push(struct gen_model *m, uint64_t v)
{
	times_push(m->heap, m->nheap++, v, NULL);
}

/* Remove the smallest value; the heap must not be empty. */
static void heap_pop(struct gen_model *m)
{
	times_pop(m->heap, m->nheap--, NULL);
}

/* Where the I/O of `size` bytes starts, in bytes. */
static uint64_t next_position(struct gen_model *m, uint32_t size, int random)
{
	const struct gen_params *p = &m->p;
	uint64_t end = p->offset + p->span, pos;

	if (random) {
		uint32_t align = gen_align(size);
		pos = p->offset + rng_upto(m->rng, (p->span - size) / align) * align;
	} else {
		pos = m->next_pos;
		if (pos + size > end)
			pos = p->offset;
	}
	m->next_pos = pos + size;
	return pos;
}

/* Arrival time of I/O number m->n. */
static uint64_t next_arrival(struct gen_model *m)
{
	const struct gen_params *p = &m->p;

	if (p->iops == 0) {
		/* closed loop: arrive as soon as a slot is free */
		if (m->nheap == p->queue_depth && m->heap[0] > m->last_arrival)
			return m->heap[0];
		return m->last_arrival;
	}
	if (p->arrival == GEN_ARRIVAL_FIXED)
		return (uint64_t)llround((double)m->n * 1e9 / p->iops);
	if (m->n > 0)
		m->t_arrival += -log1p(-rng_unit(m->rng)) * 1e9 / p->iops;
	return (uint64_t)llround(m->t_arrival);
}

int gen_model_next(struct gen_model *m, struct bpt_record *rec)
{
	const struct gen_params *p = &m->p;
	int is_read, random;
	uint32_t size;
	uint64_t pos, arrival, issue, svc;

	if (p->count && m->n >= p->count)
		return 0;
	/* the draws come in a fixed order so a seed always means the same trace */
	is_read = rng_unit(m->rng) * 100 < p->read_pct;
	random = rng_unit(m->rng) * 100 < p->random_pct;
	size = size_mix_pick(&p->bs, rng_unit(m->rng));
	arrival = next_arrival(m);
	if (p->duration_ns && arrival >= p->duration_ns)
		return 0;
	pos = next_position(m, size, random);

	issue = arrival;
	if (m->nheap == p->queue_depth) {
		if (m->heap[0] > issue)
			issue = m->heap[0];
		heap_pop(m);
	}
	svc = (uint64_t)llround((double)p->latency_ns * (0.8 + 0.4 * rng_unit(m->rng)) +
				(double)size * 1e9 / p->bandwidth);
	if (svc == 0)
		svc = 1;
	heap_push(m, issue + svc);

	memset(rec, 0, sizeof(*rec));
	rec->queue_ns = arrival;
	rec->issue_ns = issue;
	rec->complete_ns = issue + svc;
	rec->sector = pos / 512;
	rec->bytes = size;
	rec->op = is_read ? BPT_OP_READ : BPT_OP_WRITE;
	/* O_DIRECT writes are REQ_SYNC in Linux; reads carry no flag */
	rec->flags = is_read ? 0 : BPT_F_SYNC;
	rec->pid = p->pid;
	rec->comm_id = p->comm_id;
	rec->dev = p->dev;
	m->last_arrival = arrival;
	m->n++;
	return 1;
}
