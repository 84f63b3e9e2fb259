/*
 * stats.c — compute a report's figures (stats.h has their definitions).
 *
 * The rows of one trace are read once, in file order, into columns in
 * memory (about 50 bytes per I/O); everything that needs an order (issue
 * order for seeks and queue depth, completion order for depth, latency
 * order for percentiles) is then a radix sort of 64-bit keys, which is
 * linear and much faster than asking SQLite to ORDER BY ten million rows.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "db.h"
#include "stats.h"

const uint32_t st_pct_ppm[ST_NPCT - 1] = { 500000, 900000, 990000, 999000, 999900 };
const char *const st_pct_name[ST_NPCT] = { "p50", "p90", "p99", "p99.9", "p99.99", "max" };
const uint32_t st_seek_bound[ST_SEEK_CLASSES - 1][2] = {
	{ 1, 1000 }, { 1, 100 }, { 1, 10 }, { 1, 4 }, { 1, 2 }, { 1, 1 },
};
const char *const st_seek_name[ST_SEEK_CLASSES] = {
	"0 (sequential)", "<= 0.1%", "<= 1%", "<= 10%", "<= 25%", "<= 50%", "<= 100%",
};
const uint32_t st_depth_bound[ST_DEPTH_CLASSES - 1] = { 0, 1, 2, 4, 8, 16, 32, 64, 128, 256 };
const uint64_t st_idle_bound[ST_IDLE_CLASSES - 1] = {
	10000, 100000, 1000000, 10000000, 100000000, 1000000000,
};

#define OP_SHIFT 56 /* latency keys: op in the top byte, ns below */
#define LAT_MAX ((1ull << OP_SHIFT) - 1)
#define RADIX_BITS 11
#define RADIX_PASSES 6 /* 66 bits >= 64 */
#define RADIX_SIZE (1u << RADIX_BITS)

void st_sort_u64(uint64_t *k, uint64_t *kt, uint32_t *p, uint32_t *pt, uint64_t n)
{
	uint64_t (*count)[RADIX_SIZE] = calloc(RADIX_PASSES, sizeof(*count));
	uint64_t *ks = k, *kd = kt;
	uint32_t *ps = p, *pd = pt;

	if (!count) { /* fall back to a slow but correct insertion sort */
		for (uint64_t i = 1; i < n; i++)
			for (uint64_t j = i; j > 0 && k[j - 1] > k[j]; j--) {
				uint64_t t = k[j]; k[j] = k[j - 1]; k[j - 1] = t;
				if (p) { uint32_t u = p[j]; p[j] = p[j - 1]; p[j - 1] = u; }
			}
		return;
	}
	for (uint64_t i = 0; i < n; i++)
		for (int d = 0; d < RADIX_PASSES; d++)
			count[d][(k[i] >> (d * RADIX_BITS)) & (RADIX_SIZE - 1)]++;
	for (int d = 0; d < RADIX_PASSES; d++) {
		uint64_t sum = 0, *c = count[d];
		int shift = d * RADIX_BITS, skip = 0;

		for (uint32_t b = 0; b < RADIX_SIZE; b++) {
			uint64_t t = c[b];

			if (t == n)
				skip = 1; /* every key has this digit */
			c[b] = sum;
			sum += t;
		}
		if (skip)
			continue;
		for (uint64_t i = 0; i < n; i++) {
			uint64_t at = c[(ks[i] >> shift) & (RADIX_SIZE - 1)]++;

			kd[at] = ks[i];
			if (p)
				pd[at] = ps[i];
		}
		uint64_t *kx = ks; ks = kd; kd = kx;
		uint32_t *px = ps; ps = pd; pd = px;
	}
	if (ks != k) {
		memcpy(k, ks, n * sizeof(*k));
		if (p)
			memcpy(p, ps, n * sizeof(*p));
	}
	free(count);
}

uint64_t st_percentile(const uint64_t *sorted, uint64_t n, uint32_t ppm)
{
	uint64_t rank;

	if (!n)
		return 0;
	rank = (uint64_t)(((unsigned __int128)ppm * n + 999999) / 1000000);
	if (rank < 1)
		rank = 1;
	return sorted[rank - 1];
}

unsigned st_size_class(uint64_t bytes)
{
	unsigned k;

	if (bytes == 0)
		return 0;
	k = bytes == 1 ? 1 : 1 + (64 - __builtin_clzll(bytes - 1));
	return k < ST_SIZE_CLASSES - 1 ? k : ST_SIZE_CLASSES - 1;
}

const char *st_size_label(unsigned k, char *buf, size_t len)
{
	static const char *unit[] = { "B", "KiB", "MiB" };
	uint64_t hi;
	int u = 0;

	if (k == 0)
		return snprintf(buf, len, "0"), buf;
	if (k >= ST_SIZE_CLASSES - 1)
		return snprintf(buf, len, "> 16 MiB"), buf;
	hi = 1ull << (k - 1);
	while (hi >= 1024 && u < 2) {
		hi /= 1024;
		u++;
	}
	snprintf(buf, len, "%llu %s", (unsigned long long)hi, unit[u]);
	return buf;
}

/*
 * The rows of one trace, column by column (n rows), and the scratch
 * arrays of the sorts, all carved from one anonymous mapping: one
 * allocation to check and to free. (Transparent huge pages for it were
 * tried: on this kernel they tripled the system time of a 10 M I/O
 * report, so none are asked for.)
 */
struct cols {
	uint64_t n;
	uint64_t *issue, *complete, *sector, *svc, *tot, *tmp, *tmp2;
	uint32_t *bytes, *pid, *comm, *ord, *ordt;
	uint16_t *dev;
	uint8_t *op;
	void *arena;
	size_t arena_len;
};

static void cols_free(struct cols *c)
{
	if (c->arena)
		munmap(c->arena, c->arena_len);
	c->arena = NULL;
}

static int cols_alloc(struct cols *c, uint64_t n)
{
	const size_t page = 4096;
	uint8_t *p;

	n = n ? n : 1;
	/* 8-byte arrays first, then 4, 2 and 1: every array stays aligned */
	c->arena_len = (size_t)n * (7 * 8 + 5 * 4 + 2 + 1);
	c->arena_len = (c->arena_len + page - 1) / page * page;
	c->arena = mmap(NULL, c->arena_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c->arena == MAP_FAILED) {
		c->arena = NULL;
		return -ENOMEM;
	}
	p = c->arena;
	c->issue = (uint64_t *)p; p += n * 8;
	c->complete = (uint64_t *)p; p += n * 8;
	c->sector = (uint64_t *)p; p += n * 8;
	c->svc = (uint64_t *)p; p += n * 8;
	c->tot = (uint64_t *)p; p += n * 8;
	c->tmp = (uint64_t *)p; p += n * 8;
	c->tmp2 = (uint64_t *)p; p += n * 8;
	c->bytes = (uint32_t *)p; p += n * 4;
	c->pid = (uint32_t *)p; p += n * 4;
	c->comm = (uint32_t *)p; p += n * 4;
	c->ord = (uint32_t *)p; p += n * 4;
	c->ordt = (uint32_t *)p; p += n * 4;
	c->dev = (uint16_t *)p; p += n * 2;
	c->op = p;
	return 0;
}

static uint64_t lat_key(unsigned op, uint64_t from, uint64_t to)
{
	uint64_t lat = to > from ? to - from : 0;

	return ((uint64_t)op << OP_SHIFT) | (lat < LAT_MAX ? lat : LAT_MAX);
}

/* Rows [lo, hi) of one trace (idx is dense from 0), read into c through
 * one connection; run by a thread, so the result stays in the struct. */
struct load_part {
	sqlite3 *db;
	int64_t id;
	uint64_t lo, hi, got, errors;
	struct cols *c;
	int rc; /* SQLITE_DONE when every row was read */
};

static void *load_range(void *arg)
{
	static const char sql[] =
		"SELECT queue_ns, issue_ns, complete_ns, dev, sector, bytes, op, pid,"
		" comm_id, error FROM ios WHERE trace_id = ? AND idx >= ? AND idx < ? ORDER BY idx";
	struct load_part *p = arg;
	struct cols *c = p->c;
	sqlite3_stmt *st;
	uint64_t i = p->lo;

	p->rc = sqlite3_prepare_v2(p->db, sql, -1, &st, NULL);
	if (p->rc != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, p->id);
	sqlite3_bind_int64(st, 2, (int64_t)p->lo);
	sqlite3_bind_int64(st, 3, (int64_t)p->hi);
	while ((p->rc = sqlite3_step(st)) == SQLITE_ROW && i < p->hi) {
		uint64_t q = (uint64_t)sqlite3_column_int64(st, 0);
		unsigned op = (unsigned)sqlite3_column_int(st, 6);

		c->issue[i] = (uint64_t)sqlite3_column_int64(st, 1);
		c->complete[i] = (uint64_t)sqlite3_column_int64(st, 2);
		c->dev[i] = (uint16_t)sqlite3_column_int(st, 3);
		c->sector[i] = (uint64_t)sqlite3_column_int64(st, 4);
		c->bytes[i] = (uint32_t)sqlite3_column_int64(st, 5);
		c->op[i] = op < BPT_OP__COUNT ? op : BPT_OP__COUNT - 1;
		c->pid[i] = (uint32_t)sqlite3_column_int64(st, 7);
		c->comm[i] = (uint32_t)sqlite3_column_int64(st, 8);
		if (sqlite3_column_int(st, 9))
			p->errors++;
		c->svc[i] = lat_key(c->op[i], c->issue[i], c->complete[i]);
		c->tot[i] = lat_key(c->op[i], q, c->complete[i]);
		i++;
	}
	p->got = i - p->lo;
	sqlite3_finalize(st);
	return NULL;
}

/*
 * Read the trace row and all its I/O rows. A large trace is read in two
 * halves at once, the second by a thread with a connection of its own
 * (SQLite's decoding is most of a report's time; readers do not block
 * each other).
 */
static int load(sqlite3 *db, int64_t id, struct st_report *rep, struct cols *c,
		struct bpt_error *err)
{
	struct load_part part[2];
	const char *file = sqlite3_db_filename(db, "main");
	sqlite3 *db2 = NULL;
	pthread_t thread;
	sqlite3_stmt *st;
	uint64_t n = 0;
	int rc, threaded = 0;

	if (sqlite3_prepare_v2(db, "SELECT path, kind, digest, ios FROM traces WHERE id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return adb_fail(db, err, "cannot read the trace");
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return adb_fail(db, err, "cannot read the trace");
		return adb_err(err, -ENOENT, "no trace with id %lld in the database", (long long)id);
	}
	snprintf(rep->path, sizeof(rep->path), "%s", (const char *)sqlite3_column_text(st, 0));
	snprintf(rep->kind, sizeof(rep->kind), "%s", (const char *)sqlite3_column_text(st, 1));
	snprintf(rep->digest, sizeof(rep->digest), "%s", (const char *)sqlite3_column_text(st, 2));
	n = (uint64_t)sqlite3_column_int64(st, 3);
	sqlite3_finalize(st);
	if (cols_alloc(c, n))
		return adb_err(err, -ENOMEM, "trace %lld: out of memory for %llu I/Os",
				 (long long)id, (unsigned long long)n);
	c->n = n;

	part[0] = (struct load_part){ db, id, 0, n, 0, 0, c, 0 };
	if (n >= (1u << 16) && file && *file &&
	    sqlite3_open_v2(file, &db2, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) == SQLITE_OK) {
		part[0].hi = n / 2;
		part[1] = (struct load_part){ db2, id, n / 2, n, 0, 0, c, 0 };
		threaded = pthread_create(&thread, NULL, load_range, &part[1]) == 0;
		if (!threaded)
			part[0].hi = n;
	}
	load_range(&part[0]);
	if (threaded)
		pthread_join(thread, NULL);
	for (int k = 0; k <= threaded; k++) {
		if (part[k].rc != SQLITE_DONE && part[k].rc != SQLITE_ROW)
			rc = adb_fail(part[k].db, err, "cannot read the trace");
		else if (part[k].got != part[k].hi - part[k].lo || part[k].rc == SQLITE_ROW)
			rc = adb_err(err, -EIO, "trace %lld: traces.ios says %llu I/Os, ios has %s",
				     (long long)id, (unsigned long long)n,
				     part[k].rc == SQLITE_ROW ? "more" : "fewer");
		else
			rc = 0;
		if (rc)
			break;
		rep->errors += part[k].errors;
	}
	sqlite3_close(db2);
	return rc;
}

/* Totals, mix, size classes, duration and the per-second series. */
static int basics(struct st_report *rep, const struct cols *c)
{
	uint64_t lo = UINT64_MAX, hi = 0, last_issue = 0;

	rep->ios = c->n;
	for (uint64_t i = 0; i < c->n; i++) {
		unsigned op = c->op[i];

		rep->op[op].ios++;
		rep->op[op].bytes += c->bytes[i];
		rep->bytes += c->bytes[i];
		rep->size_hist[st_size_class(c->bytes[i])][op <= BPT_OP_WRITE ? op : 2]++;
		lo = c->issue[i] < lo ? c->issue[i] : lo;
		hi = c->complete[i] > hi ? c->complete[i] : hi;
		last_issue = c->issue[i] > last_issue ? c->issue[i] : last_issue;
	}
	if (!c->n)
		return 0;
	rep->first_issue_ns = lo;
	rep->last_complete_ns = hi;
	rep->duration_ns = hi > lo ? hi - lo : 0;
	if (rep->duration_ns) {
		rep->iops = (double)c->n * 1e9 / (double)rep->duration_ns;
		rep->mbps = (double)rep->bytes * 1e3 / (double)rep->duration_ns;
	}
	rep->first_second = lo / 1000000000ull;
	rep->nseconds = last_issue / 1000000000ull - rep->first_second + 1;
	rep->series = calloc(rep->nseconds, sizeof(*rep->series));
	if (!rep->series)
		return -ENOMEM;
	for (uint64_t i = 0; i < c->n; i++) {
		struct st_second *s = &rep->series[c->issue[i] / 1000000000ull - rep->first_second];

		s->ios++;
		s->bytes += c->bytes[i];
	}
	return 0;
}

/* Figures of one sorted run of latency keys (the op byte masked off). */
static void latency_of(const uint64_t *keys, uint64_t n, struct st_latency *l)
{
	uint64_t sum = 0;

	l->n = n;
	for (uint64_t i = 0; i < n; i++)
		sum += keys[i] & LAT_MAX;
	l->mean_ns = n ? (double)sum / (double)n : 0;
	for (int p = 0; p < ST_NPCT - 1; p++)
		l->pct[p] = st_percentile(keys, n, st_pct_ppm[p]) & LAT_MAX;
	l->pct[ST_NPCT - 1] = n ? keys[n - 1] & LAT_MAX : 0;
}

/* Per-op and overall percentiles of one latency column (keys are
 * op << OP_SHIFT | ns, so one sort groups them by op; the overall order
 * is then a merge of the per-op runs into tmp). */
static void latencies(uint64_t *keys, uint64_t *tmp, uint64_t n,
		      struct st_report *rep, int total)
{
	uint64_t head[BPT_OP__COUNT], end[BPT_OP__COUNT], start = 0;

	st_sort_u64(keys, tmp, NULL, NULL, n);
	for (unsigned op = 0; op < BPT_OP__COUNT; op++) {
		struct st_op *o = &rep->op[op];

		head[op] = end[op] = start;
		while (end[op] < n && keys[end[op]] >> OP_SHIFT == op)
			end[op]++;
		latency_of(keys + start, end[op] - start, total ? &o->total : &o->service);
		start = end[op];
	}
	for (uint64_t i = 0; i < n; i++) {
		unsigned best = BPT_OP__COUNT;

		for (unsigned op = 0; op < BPT_OP__COUNT; op++)
			if (head[op] < end[op] && (best == BPT_OP__COUNT ||
			    (keys[head[op]] & LAT_MAX) < (keys[head[best]] & LAT_MAX)))
				best = op;
		tmp[i] = keys[head[best]++] & LAT_MAX;
	}
	latency_of(tmp, n, total ? &rep->all_total : &rep->all_service);
}

static uint64_t end_sector(uint64_t sector, uint32_t bytes)
{
	return sector + (bytes + 511ull) / 512;
}

/* Spans per device and the seek classes, with `ord` the rows in issue
 * order. */
static void seeks(struct st_report *rep, const struct cols *c, const uint32_t *ord)
{
	uint64_t prev_end[ST_MAX_DEV];
	uint8_t seen[ST_MAX_DEV] = { 0 };

	for (uint64_t i = 0; i < c->n; i++) {
		struct st_dev *d;
		uint64_t e = end_sector(c->sector[i], c->bytes[i]);

		if (c->dev[i] >= ST_MAX_DEV || !c->bytes[i])
			continue;
		d = &rep->dev[c->dev[i]];
		if (!d->data_ios++) {
			d->span_lo = c->sector[i];
			d->span_hi = e;
		}
		d->span_lo = c->sector[i] < d->span_lo ? c->sector[i] : d->span_lo;
		d->span_hi = e > d->span_hi ? e : d->span_hi;
		rep->data_ios++;
	}
	for (uint64_t j = 0; j < c->n; j++) {
		uint64_t i = ord[j], dist, span;
		unsigned dev = c->dev[i], k;

		if (dev >= ST_MAX_DEV || !c->bytes[i])
			continue;
		if (seen[dev]) {
			span = rep->dev[dev].span_hi - rep->dev[dev].span_lo;
			dist = c->sector[i] > prev_end[dev] ? c->sector[i] - prev_end[dev]
							    : prev_end[dev] - c->sector[i];
			for (k = 0; dist && k < ST_SEEK_CLASSES - 2; k++)
				if ((unsigned __int128)dist * st_seek_bound[k][1] <=
				    (unsigned __int128)span * st_seek_bound[k][0])
					break;
			rep->seek_hist[dist ? k + 1 : 0]++;
		}
		seen[dev] = 1;
		prev_end[dev] = end_sector(c->sector[i], c->bytes[i]);
	}
	rep->sequential = rep->seek_hist[0];
	uint64_t with_prev = 0;
	for (int k = 0; k < ST_SEEK_CLASSES; k++)
		with_prev += rep->seek_hist[k];
	rep->sequential_share = with_prev ? (double)rep->sequential / (double)with_prev : 0;
}

static unsigned bound_class(uint64_t v, const void *bounds, int nb, int wide)
{
	int k;

	for (k = 0; k < nb; k++)
		if (v <= (wide ? ((const uint64_t *)bounds)[k] : ((const uint32_t *)bounds)[k]))
			break;
	return (unsigned)k;
}

/* Queue depth over time, busy and idle, from sorted issue and completion
 * times (issues first at equal times, so no empty idle periods). */
static void depth(struct st_report *rep, const uint64_t *issue, const uint64_t *complete,
		  uint64_t n)
{
	uint64_t i = 0, j = 0, d = 0, t_prev = n ? issue[0] : 0;
	long double area = 0;

	while (i < n || j < n) {
		int up = i < n && (j >= n || issue[i] <= complete[j]);
		uint64_t t = up ? issue[i++] : complete[j++];
		uint64_t dt = t > t_prev ? t - t_prev : 0;

		rep->depth_ns[bound_class(d, st_depth_bound, ST_DEPTH_CLASSES - 1, 0)] += dt;
		area += (long double)d * dt;
		if (d) {
			rep->busy_ns += dt;
		} else if (dt) {
			unsigned k = bound_class(dt, st_idle_bound, ST_IDLE_CLASSES - 1, 1);

			rep->idle_ns += dt;
			rep->idle_count[k]++;
			rep->idle_ns_hist[k] += dt;
		}
		if (up)
			d++;
		else if (d)
			d--;
		if (d > rep->max_depth)
			rep->max_depth = (uint32_t)d;
		t_prev = t > t_prev ? t : t_prev;
	}
	rep->mean_depth = rep->duration_ns ? (double)(area / rep->duration_ns) : 0;
}

/* An open-addressing table of (pid, comm id) -> I/Os, bytes. */
struct proc_slot {
	uint32_t pid, comm, used;
	uint64_t ios, bytes;
};

struct proc_table {
	struct proc_slot *slot;
	uint64_t cap, used; /* cap is a power of two */
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

/* The comm string of (trace, comm id), or "?" */
static void comm_name(sqlite3_stmt *st, uint32_t comm, char *buf, size_t len)
{
	const unsigned char *s;

	sqlite3_bind_int64(st, 2, comm);
	s = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_text(st, 0) : NULL;
	snprintf(buf, len, "%s", s ? (const char *)s : "?");
	sqlite3_reset(st);
}

static int processes(sqlite3 *db, int64_t id, struct st_report *rep,
		     const struct cols *c, struct bpt_error *err)
{
	struct proc_table t = { NULL, 0, 0 };
	struct proc_slot *all;
	sqlite3_stmt *st;
	uint64_t m = 0;

	for (uint64_t i = 0; i < c->n; i++) {
		struct proc_slot *s = proc_get(&t, c->pid[i], c->comm[i]);

		if (!s) {
			free(t.slot);
			return adb_err(err, -ENOMEM, "trace %lld: out of memory", (long long)id);
		}
		s->ios++;
		s->bytes += c->bytes[i];
	}
	all = t.slot;
	for (uint64_t k = 0; k < t.cap; k++)
		if (all[k].used)
			all[m++] = all[k];
	rep->nproc_total = (uint32_t)m;
	if (sqlite3_prepare_v2(db, "SELECT comm FROM processes WHERE trace_id = ? AND comm_id = ?",
			       -1, &st, NULL) != SQLITE_OK) {
		free(all);
		return adb_fail(db, err, "cannot read the process names");
	}
	sqlite3_bind_int64(st, 1, id);
	for (int pass = 0; pass < 2; pass++) {
		struct st_proc *top = pass ? rep->top_bytes : rep->top_ios;
		uint32_t *ntop = pass ? &rep->ntop_bytes : &rep->ntop_ios;

		qsort(all, m, sizeof(*all), pass ? by_bytes : by_ios);
		for (*ntop = 0; *ntop < ST_TOP && *ntop < m; (*ntop)++) {
			struct st_proc *p = &top[*ntop];

			p->pid = all[*ntop].pid;
			p->ios = all[*ntop].ios;
			p->bytes = all[*ntop].bytes;
			comm_name(st, all[*ntop].comm, p->comm, sizeof(p->comm));
		}
	}
	sqlite3_finalize(st);
	free(all);
	return 0;
}

static int device_names(sqlite3 *db, int64_t id, struct st_report *rep,
			const struct cols *c, struct bpt_error *err)
{
	sqlite3_stmt *st;

	for (uint64_t i = 0; i < c->n; i++)
		if (c->dev[i] < ST_MAX_DEV && c->dev[i] >= rep->ndev)
			rep->ndev = c->dev[i] + 1u;
	if (sqlite3_prepare_v2(db, "SELECT idx, name FROM devices WHERE trace_id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return adb_fail(db, err, "cannot read the devices");
	sqlite3_bind_int64(st, 1, id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t k = sqlite3_column_int64(st, 0);

		if (k >= 0 && k < ST_MAX_DEV)
			snprintf(rep->dev[k].name, sizeof(rep->dev[k].name), "%s",
				 (const char *)sqlite3_column_text(st, 1));
	}
	sqlite3_finalize(st);
	return 0;
}

/* The latency percentiles are independent of the rest and touch only
 * their own fields of the report: they run in a second thread while the
 * first sorts by issue time (about 40% less wall time on two free cores). */
struct lat_job {
	struct cols *c;
	uint64_t *tmp; /* n keys of scratch of its own */
	struct st_report *rep;
};

static void *lat_thread(void *arg)
{
	struct lat_job *j = arg;

	latencies(j->c->svc, j->tmp, j->c->n, j->rep, 0);
	latencies(j->c->tot, j->tmp, j->c->n, j->rep, 1);
	return NULL;
}

int st_report_compute(sqlite3 *db, int64_t trace_id, struct st_report *rep,
		      struct bpt_error *err)
{
	struct cols c;
	struct lat_job job;
	pthread_t thread;
	int rc, threaded;

	memset(rep, 0, sizeof(*rep));
	memset(&c, 0, sizeof(c));
	rep->trace_id = trace_id;
	if ((rc = load(db, trace_id, rep, &c, err)))
		goto out;
	if (c.n > UINT32_MAX) {
		rc = adb_err(err, -E2BIG, "trace %lld: more than 2^32 I/Os", (long long)trace_id);
		goto out;
	}
	if (basics(rep, &c)) {
		rc = adb_err(err, -ENOMEM, "trace %lld: out of memory", (long long)trace_id);
		goto out;
	}
	if ((rc = processes(db, trace_id, rep, &c, err)) ||
	    (rc = device_names(db, trace_id, rep, &c, err)))
		goto out;
	job = (struct lat_job){ &c, c.tmp2, rep };
	threaded = c.n >= 65536 && pthread_create(&thread, NULL, lat_thread, &job) == 0;
	if (!threaded)
		lat_thread(&job);
	for (uint64_t i = 0; i < c.n; i++)
		c.ord[i] = (uint32_t)i;
	st_sort_u64(c.issue, c.tmp, c.ord, c.ordt, c.n); /* c.issue now in issue order */
	seeks(rep, &c, c.ord);
	st_sort_u64(c.complete, c.tmp, NULL, NULL, c.n);
	depth(rep, c.issue, c.complete, c.n);
	if (threaded)
		pthread_join(thread, NULL);
out:
	cols_free(&c);
	if (rc)
		st_report_free(rep);
	return rc;
}

void st_report_free(struct st_report *rep)
{
	if (!rep)
		return;
	free(rep->series);
	rep->series = NULL;
	rep->nseconds = 0;
}
