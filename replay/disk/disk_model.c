/*
 * disk_model.c — the service-time model of an emulated disk
 * (disk_model.h; equations in schemas/disk-model.md). Pure: no clock and
 * no I/O, so unit tests drive it in model time.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bpt.h"
#include "disk_model.h"

/* Zones when only the outer and inner rates are given. */
#define DEFAULT_ZONES 16
/* The seek curve is a square root up to this fraction of the stroke and
 * linear beyond (Ruemmler & Wilkes 1994 put the change near a third). */
#define SEEK_KNEE (1.0 / 3.0)
/* Points per axis of the grid over which the average seek is fitted. */
#define FIT_GRID 256

static double mbps_to_bpns(double mbps)
{
	return mbps * 1e6 / 1e9;
}

/* ---------------------------------------------------------------- lists */

static int list_push(struct dm_list *l, const struct dm_req *r)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct dm_req *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = *r;
	return 0;
}

static void list_remove(struct dm_list *l, size_t i)
{
	memmove(&l->v[i], &l->v[i + 1], (l->n - i - 1) * sizeof(l->v[0]));
	l->n--;
}

/* ------------------------------------------------------------- geometry */

static const struct dm_zone *zone_of(const struct disk_model *m, uint64_t byte)
{
	unsigned lo = 0, hi = m->nzones - 1;

	while (lo < hi) { /* last zone whose first byte <= byte */
		unsigned mid = (lo + hi + 1) / 2;

		if (m->zone[mid].first_byte <= byte)
			lo = mid;
		else
			hi = mid - 1;
	}
	return &m->zone[lo];
}

double disk_model_cylinder(const struct disk_model *m, uint64_t byte)
{
	const struct dm_zone *z = zone_of(m, byte);

	return z->first_cyl + (double)(byte - z->first_byte) / z->track_bytes;
}

/* Where `byte` sits on its track, as a fraction of a turn in [0, 1). */
static double angle_of(const struct disk_model *m, uint64_t byte)
{
	const struct dm_zone *z = zone_of(m, byte);
	double t = (double)(byte - z->first_byte) / z->track_bytes;

	return t - floor(t);
}

double disk_model_zone_rate(const struct disk_model *m, uint64_t byte)
{
	return zone_of(m, byte)->rate * 1e3;
}

/* Seek time of a move over `x` cylinders with the knee time tk. */
static double seek_curve(const struct disk_model *m, double x, double tk)
{
	const struct disk_params *p = &m->p;
	double d, d0, k = m->seek_knee;

	if (x < 1)
		return 0;
	d = x / m->ncyl;
	d0 = 1 / m->ncyl;
	if (d > 1)
		d = 1;
	if (k <= d0) /* a disk of a few cylinders: one straight line */
		return d0 >= 1 ? p->seek_full_ns :
				 p->seek_t2t_ns + (p->seek_full_ns - p->seek_t2t_ns) * (d - d0) / (1 - d0);
	if (d <= k)
		return p->seek_t2t_ns + (tk - p->seek_t2t_ns) * (sqrt(d) - sqrt(d0)) /
						(sqrt(k) - sqrt(d0));
	return tk + (p->seek_full_ns - tk) * (d - k) / (1 - k);
}

double disk_model_seek_ns(const struct disk_model *m, double cylinders)
{
	return seek_curve(m, cylinders, m->seek_tk);
}

/* Mean seek between two random bytes of the disk for knee time tk. */
static double mean_seek(const struct disk_model *m, double tk)
{
	double cyl[FIT_GRID], sum = 0;

	for (unsigned i = 0; i < FIT_GRID; i++)
		cyl[i] = floor(disk_model_cylinder(
			m, (uint64_t)(((double)i + 0.5) / FIT_GRID * (double)m->capacity)));
	for (unsigned i = 0; i < FIT_GRID; i++)
		for (unsigned j = 0; j < FIT_GRID; j++)
			sum += seek_curve(m, fabs(cyl[i] - cyl[j]), tk);
	return sum / ((double)FIT_GRID * FIT_GRID);
}

/* Fill the zones and fit the seek curve's knee so that the mean seek
 * between random bytes is the data sheet's average. */
static void build_geometry(struct disk_model *m)
{
	struct disk_params *p = &m->p;
	double sum_tb = 0, cpz, a, b;
	uint64_t at = 0;

	m->rot_ns = 60e9 / p->rpm;
	if (!p->zones_given || !p->nzones) {
		unsigned nz = DEFAULT_ZONES;

		for (unsigned i = 0; i < nz; i++)
			p->zone_rate[i] = p->rate_outer -
					  (p->rate_outer - p->rate_inner) * i / (nz - 1);
		p->nzones = nz;
	}
	m->nzones = p->nzones;
	for (unsigned i = 0; i < m->nzones; i++) {
		m->zone[i].rate = mbps_to_bpns(p->zone_rate[i]);
		m->zone[i].track_bytes = m->zone[i].rate * m->rot_ns;
		sum_tb += m->zone[i].track_bytes;
	}
	/* every zone spans the same number of cylinders (radial bands) */
	cpz = (double)m->capacity / sum_tb;
	m->ncyl = cpz * m->nzones;
	for (unsigned i = 0; i < m->nzones; i++) {
		m->zone[i].first_byte = at;
		m->zone[i].first_cyl = cpz * i;
		at += (uint64_t)(cpz * m->zone[i].track_bytes);
	}
	m->drain_rate = m->zone[0].rate;
	m->seek_knee = SEEK_KNEE;
	/* the curve is linear in tk: mean = a + b * tk */
	a = mean_seek(m, 0);
	b = mean_seek(m, 1) - a;
	m->seek_tk = b > 0 ? (p->seek_avg_ns - a) / b : p->seek_avg_ns;
	if (m->seek_tk < p->seek_t2t_ns)
		m->seek_tk = p->seek_t2t_ns;
	if (m->seek_tk > p->seek_full_ns)
		m->seek_tk = p->seek_full_ns;
}

int disk_model_init(struct disk_model *m, const struct disk_params *p, uint64_t capacity)
{
	memset(m, 0, sizeof(*m));
	if (disk_params_check(p, NULL) || !capacity)
		return -EINVAL;
	m->p = *p;
	m->capacity = capacity;
	if (p->kind == DM_HDD)
		build_geometry(m);
	if (p->kind == DM_SSD) {
		m->chan_free = calloc(p->channels, sizeof(*m->chan_free));
		if (!m->chan_free)
			return -ENOMEM;
	}
	return 0;
}

void disk_model_free(struct disk_model *m)
{
	free(m->queue.v);
	free(m->done.v);
	free(m->chan_free);
	memset(m, 0, sizeof(*m));
}

/* ------------------------------------------------------------------ hdd */

/* Bytes the read-ahead stream holds at time t (its end), capped by the
 * segment size ahead of what the host took. */
static uint64_t ra_avail(const struct disk_model *m, uint64_t t)
{
	double rate = zone_of(m, m->ra_pos < m->capacity ? m->ra_pos : m->capacity - 1)->rate;
	double pos = (double)m->ra_pos + (t > m->ra_t ? (double)(t - m->ra_t) * rate : 0);
	double cap = (double)m->ra_used + (double)m->p.cache_bytes;

	if (pos > cap)
		pos = cap;
	if (pos > (double)m->capacity)
		pos = (double)m->capacity;
	return (uint64_t)pos;
}

/* The cylinder under the head at time t (the stream moves it). */
static double head_at(const struct disk_model *m, uint64_t t)
{
	if (m->ra_on) {
		uint64_t at = ra_avail(m, t);

		return disk_model_cylinder(m, at < m->capacity ? at : m->capacity - 1);
	}
	return m->head_cyl;
}

/* The write cache's size: the buffer (as for read-ahead), at least one
 * maximal request so that any write fits once the cache is empty. */
static uint64_t cache_size(const struct disk_model *m)
{
	return m->p.cache_bytes > (1u << 20) ? m->p.cache_bytes : (1u << 20);
}

/* Dirty bytes left at time t: the cache drains at drain_rate whenever the
 * head is not busy with a command (after media_until). */
static double drained(const struct disk_model *m, uint64_t t)
{
	uint64_t from = m->dirty_t > m->media_until ? m->dirty_t : m->media_until;
	double d = m->dirty;

	if (d > 0 && t > from)
		d -= (double)(t - from) * m->drain_rate;
	return d > 0 ? d : 0;
}

/* Service of r starting at time t: its finish time; with `commit`, the
 * head, the read-ahead stream and the caches move as it says. */
static uint64_t hdd_service(struct disk_model *m, const struct dm_req *r, uint64_t t,
			    int commit)
{
	const struct disk_params *p = &m->p;
	double ovh = p->overhead_ns, bus = mbps_to_bpns(p->bus_rate);
	double fin;
	uint64_t end = r->offset + r->len;

	/* Command overhead is, as data sheets define it, the time from the
	 * command's arrival to the actuator's first move: it is charged on
	 * media accesses only, not on what the cache answers. */
	if (r->op == BPT_OP_DISCARD)
		return t;
	if (r->op == BPT_OP_FLUSH) { /* waits until the cache has drained */
		double dirty = drained(m, t);

		fin = (double)t + (dirty > 0 ? dirty / m->drain_rate : 0);
		if (commit) {
			m->dirty = 0;
			m->dirty_t = m->media_until = (uint64_t)fin;
		}
		return (uint64_t)fin;
	}
	if ((r->op == BPT_OP_WRITE || r->op == BPT_OP_WRITE_ZEROES) && p->wcache &&
	    !(r->flags & BPT_F_FUA)) {
		double rate = zone_of(m, r->offset < m->capacity ? r->offset : m->capacity - 1)->rate;
		double dirty = drained(m, t), room = (double)cache_size(m) - dirty;
		double wait = (double)r->len > room ? ((double)r->len - room) / rate : 0;

		fin = (double)t + wait + (double)r->len / bus;
		if (commit) {
			/* it waits for room while the cache drains, then the cache
			 * holds it too and goes on draining during the transfer */
			m->drain_rate = rate;
			m->dirty = dirty - wait * rate + (double)r->len;
			m->dirty_t = (uint64_t)((double)t + wait);
			m->media_until = t;
		}
		return (uint64_t)fin;
	}
	if (r->op == BPT_OP_READ && m->ra_on && r->offset >= m->ra_lo) {
		uint64_t avail = ra_avail(m, t);

		if (r->offset <= avail) { /* in the segment, or where the stream is */
			double rate = zone_of(m, avail < m->capacity ? avail : m->capacity - 1)->rate;
			double host = (double)t + (double)r->len / bus;
			double reach = end <= avail ? (double)t
						    : (double)t + (double)(end - avail) / rate;

			fin = host > reach ? host : reach;
			if (commit) {
				m->ra_pos = end > avail ? end : avail;
				m->ra_t = end > avail ? (uint64_t)reach : t;
				if (end > m->ra_used)
					m->ra_used = end;
				if (m->ra_used > p->cache_bytes && m->ra_lo < m->ra_used - p->cache_bytes)
					m->ra_lo = m->ra_used - p->cache_bytes;
			}
			return (uint64_t)fin;
		}
	}
	/* a media access: seek, wait for the sector, transfer */
	double target = disk_model_cylinder(m, r->offset < m->capacity ? r->offset : m->capacity - 1);
	double from = head_at(m, t);
	double arrive = (double)t + ovh + seek_curve(m, fabs(floor(target) - floor(from)), m->seek_tk);
	/* a write cannot reach the platter before its data crossed the bus */
	if (r->op != BPT_OP_READ && arrive < (double)t + (double)r->len / bus)
		arrive = (double)t + (double)r->len / bus;
	double ang = fmod(arrive, m->rot_ns) / m->rot_ns;
	double wait = angle_of(m, r->offset < m->capacity ? r->offset : m->capacity - 1) - ang;

	if (wait < 0)
		wait += 1;
	fin = arrive + wait * m->rot_ns +
	      (double)r->len / zone_of(m, r->offset < m->capacity ? r->offset : m->capacity - 1)->rate;
	if (commit) {
		uint64_t last = end ? end - 1 : 0;

		m->dirty = drained(m, t); /* the cache drained until now, then waits */
		m->dirty_t = m->media_until = (uint64_t)fin;

		m->head_cyl = disk_model_cylinder(m, last < m->capacity ? last : m->capacity - 1);
		m->ra_on = r->op == BPT_OP_READ && p->cache_bytes > 0;
		m->ra_lo = r->offset;
		m->ra_pos = m->ra_used = end;
		m->ra_t = (uint64_t)fin;
	}
	return (uint64_t)fin;
}

/* The disk is free at time t: start the next waiting command, the oldest
 * (FIFO) or the one that would finish first among the first p.queue
 * (shortest access time first; ties to the oldest). */
static void hdd_start_next(struct disk_model *m, uint64_t t)
{
	size_t n = m->queue.n, pick = 0;
	uint64_t best = DM_NEVER;

	if (!n)
		return;
	if (m->p.queue > 1) {
		if (n > m->p.queue)
			n = m->p.queue;
		for (size_t i = 0; i < n; i++) {
			uint64_t s = t > m->queue.v[i].arrival ? t : m->queue.v[i].arrival;
			uint64_t f = hdd_service(m, &m->queue.v[i], s, 0);

			if (f < best) {
				best = f;
				pick = i;
			}
		}
	}
	m->cur = m->queue.v[pick];
	list_remove(&m->queue, pick);
	m->cur.start = t > m->cur.arrival ? t : m->cur.arrival;
	m->cur.finish = hdd_service(m, &m->cur, m->cur.start, 1);
	m->busy = 1;
}

/* ------------------------------------------------------------------ ssd */

static uint64_t ssd_service(struct disk_model *m, const struct dm_req *r)
{
	const struct disk_params *p = &m->p;
	double start = (double)r->arrival, fin;
	unsigned c = 0;

	if (r->op == BPT_OP_FLUSH) {
		for (unsigned i = 0; i < p->channels; i++)
			if (m->chan_free[i] > start)
				start = m->chan_free[i];
		fin = start + p->flush_ns;
		for (unsigned i = 0; i < p->channels; i++)
			m->chan_free[i] = fin;
		return (uint64_t)fin;
	}
	for (unsigned i = 1; i < p->channels; i++)
		if (m->chan_free[i] < m->chan_free[c])
			c = i;
	if (m->chan_free[c] > start)
		start = m->chan_free[c];
	fin = start + (r->op == BPT_OP_READ ? p->read_ns : p->write_ns) +
	      (double)r->len / mbps_to_bpns(p->channel_rate);
	m->chan_free[c] = fin;
	return (uint64_t)fin;
}

/* ------------------------------------------------------------ the clock */

int disk_model_advance(struct disk_model *m, uint64_t t)
{
	int rc;

	if (m->p.kind == DM_HDD) {
		while (m->busy && m->cur.finish <= t) {
			rc = list_push(&m->done, &m->cur);
			if (rc)
				return rc;
			m->busy = 0;
			hdd_start_next(m, m->cur.finish);
		}
	} else if (m->p.kind == DM_SSD) {
		for (;;) { /* in finish order */
			size_t best = m->queue.n;

			for (size_t i = 0; i < m->queue.n; i++)
				if (m->queue.v[i].finish <= t &&
				    (best == m->queue.n || m->queue.v[i].finish < m->queue.v[best].finish))
					best = i;
			if (best == m->queue.n)
				break;
			rc = list_push(&m->done, &m->queue.v[best]);
			if (rc)
				return rc;
			list_remove(&m->queue, best);
		}
	}
	if (t > m->now)
		m->now = t;
	return 0;
}

int disk_model_submit(struct disk_model *m, const struct dm_req *in)
{
	struct dm_req r = *in;
	int rc = disk_model_advance(m, r.arrival);

	if (rc)
		return rc;
	if (r.arrival < m->now) /* a late caller: time never runs back */
		r.arrival = m->now;
	switch (m->p.kind) {
	case DM_INSTANT:
		r.start = r.finish = r.arrival;
		return list_push(&m->done, &r);
	case DM_SSD:
		r.start = r.arrival;
		r.finish = ssd_service(m, &r);
		rc = list_push(&m->queue, &r);
		return rc ? rc : disk_model_advance(m, r.arrival);
	case DM_HDD:
		rc = list_push(&m->queue, &r);
		if (!rc && !m->busy)
			hdd_start_next(m, r.arrival);
		return rc ? rc : disk_model_advance(m, r.arrival);
	}
	return -EINVAL;
}

uint64_t disk_model_next_finish(const struct disk_model *m)
{
	uint64_t t = DM_NEVER;

	if (m->p.kind == DM_HDD)
		return m->busy ? m->cur.finish : DM_NEVER;
	for (size_t i = 0; i < m->queue.n; i++)
		if (m->queue.v[i].finish < t)
			t = m->queue.v[i].finish;
	return t;
}

int disk_model_pop(struct disk_model *m, struct dm_req *out)
{
	if (m->done_head == m->done.n) {
		m->done_head = m->done.n = 0;
		return 0;
	}
	*out = m->done.v[m->done_head++];
	if (m->done_head == m->done.n)
		m->done_head = m->done.n = 0;
	return 1;
}
