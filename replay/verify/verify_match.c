/*
 * verify_match.c — the comparison of `replay --verify` (verify.h): the
 * replay's I/Os, expanded into their parts on the members, against the
 * requests the kernel issued on those members.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "verify.h"

/* Events of one member and operation class sorted by first sector, then
 * issue time; flushes (no range) sorted by issue time alone. */
static int ev_cmp(const void *a, const void *b)
{
	const struct verify_event *x = a, *y = b;

	if (x->member != y->member)
		return x->member < y->member ? -1 : 1;
	if (x->sector != y->sector)
		return x->sector < y->sector ? -1 : 1;
	if (x->issue_ns != y->issue_ns)
		return x->issue_ns < y->issue_ns ? -1 : 1;
	return 0;
}

struct matcher {
	const struct verify_set *set;
	struct verify_event *ev;
	uint64_t nev;
	uint64_t *first;       /* per member: index of its first event */
	uint64_t *maxlen;      /* per member: longest event, bytes */
	struct layout scratch[LOAD_MAX_TARGETS];
	struct layout_part *parts;
	unsigned cap;
	uint64_t *taken;       /* events claimed by the part being tried */
	uint32_t *taken_len;
	unsigned ntaken, taken_cap;
	uint64_t split_parts, merged_claims;
	int first_pass;        /* only requests starting at a piece */
};

/* Index of the first event of `member` whose sector is > s. */
static uint64_t upper(const struct matcher *m, unsigned member, uint64_t s)
{
	uint64_t lo = m->first[member], hi = m->first[member + 1];

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (m->ev[mid].sector <= s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int take(struct matcher *m, uint64_t e, uint32_t off, uint32_t len)
{
	struct verify_event *v = &m->ev[e];

	if (m->ntaken == m->taken_cap) {
		unsigned cap = m->taken_cap ? m->taken_cap * 2 : 64;
		uint64_t *t = realloc(m->taken, cap * sizeof(*t));
		uint32_t *l;

		if (!t)
			return -ENOMEM;
		m->taken = t;
		l = realloc(m->taken_len, cap * sizeof(*l));
		if (!l)
			return -ENOMEM;
		m->taken_len = l;
		m->taken_cap = cap;
	}
	m->taken[m->ntaken] = e;
	m->taken_len[m->ntaken++] = len;
	v->cl_off[v->claims] = off;
	v->cl_len[v->claims++] = len;
	return 0;
}

static void untake(struct matcher *m, unsigned from)
{
	while (m->ntaken > from) {
		m->ntaken--;
		m->ev[m->taken[m->ntaken]].claims--; /* each event's claims are a stack */
	}
}

/*
 * Cover [off, off+len) of `member` with requests of `op` issued in
 * [w0, w1], each byte once: from the part's first byte on, the earliest
 * request holding the next byte with bytes unclaimed. 1 when covered
 * (claims kept, *kissue the earliest request's issue), 0 when not
 * (nothing claimed), or -ENOMEM.
 */
static int cover(struct matcher *m, unsigned member, unsigned op, uint64_t off, uint64_t len,
		 uint64_t w0, uint64_t w1, uint64_t *kissue)
{
	unsigned from = m->ntaken, pieces = 0;
	uint64_t pos = off, end = off + len;

	if (member + 1 > m->set->nmembers)
		return 0;
	if (!len) { /* a flush: any flush request on the member in the window */
		uint64_t best = UINT64_MAX;

		for (uint64_t e = m->first[member]; e < m->first[member + 1]; e++) {
			struct verify_event *v = &m->ev[e];

			if (v->op == op && !v->claims && v->issue_ns >= w0 && v->issue_ns <= w1 &&
			    (best == UINT64_MAX || v->issue_ns < m->ev[best].issue_ns))
				best = e;
		}
		if (best == UINT64_MAX)
			return 0;
		*kissue = m->ev[best].issue_ns;
		return take(m, best, 0, 0) < 0 ? -ENOMEM : 1;
	}
	*kissue = UINT64_MAX;
	while (pos < end) {
		uint64_t s = pos / 512, best = UINT64_MAX, lo = m->first[member];
		unsigned best_score = 2;
		uint64_t back = (m->maxlen[member] + 511) / 512;
		uint64_t e = upper(m, member, s);

		/* requests starting at or before pos and long enough to hold it */
		while (e > lo) {
			struct verify_event *v = &m->ev[--e];
			uint64_t vs = v->sector * 512, ve = vs + v->bytes;

			if (v->sector + back < s)
				break;
			if (v->op != op || ve <= pos || v->issue_ns < w0 || v->issue_ns > w1)
				continue;
			/* from pos, the bytes no other part claimed yet (the
			 * bytes before pos are another part's: a merge) */
			uint64_t use = (ve < end ? ve : end) - pos, rel = pos - vs;

			if (v->claims == VERIFY_MAX_CLAIMS)
				continue;
			for (unsigned c = 0; c < v->claims && use; c++) {
				if (rel >= v->cl_off[c] && rel < (uint64_t)v->cl_off[c] + v->cl_len[c])
					use = 0;
				else if (v->cl_off[c] > rel && v->cl_off[c] - rel < use)
					use = v->cl_off[c] - rel;
			}
			if (!use)
				continue;
			/* a request sharing a boundary with the piece (as asked, a
			 * split's piece, or the front or the tail of a merge)
			 * before one around it (the middle of a merge, which the
			 * first pass leaves out); the earliest issued among those,
			 * as the kernel issues in the order it was given */
			unsigned score = vs == pos || ve == end ? 0 : 1;

			if (score && m->first_pass)
				continue;
			if (best == UINT64_MAX || score < best_score ||
			    (score == best_score && v->issue_ns < m->ev[best].issue_ns))
				best = e, best_score = score;
		}
		if (best == UINT64_MAX) {
			untake(m, from);
			return 0;
		}
		struct verify_event *v = &m->ev[best];
		uint64_t ve = v->sector * 512 + v->bytes, use = (ve < end ? ve : end) - pos;

		for (unsigned c = 0; c < v->claims; c++) /* up to the next claim */
			if (v->cl_off[c] > pos - v->sector * 512 &&
			    v->cl_off[c] - (pos - v->sector * 512) < use)
				use = v->cl_off[c] - (pos - v->sector * 512);
		if (take(m, best, (uint32_t)(pos - v->sector * 512), (uint32_t)use) < 0)
			return -ENOMEM;
		if (v->issue_ns < *kissue)
			*kissue = v->issue_ns;
		pos += use;
		pieces++;
	}
	if (pieces > 1)
		m->split_parts++;
	return 1;
}

/* Grow the parts buffer to hold n. */
static int parts_room(struct matcher *m, unsigned n)
{
	if (n <= m->cap)
		return 0;
	struct layout_part *p = realloc(m->parts, n * sizeof(*p));

	if (!p)
		return -ENOMEM;
	m->parts = p;
	m->cap = n;
	return 0;
}

/*
 * Check one I/O: 1 present (*kissue its first request), 0 not, -ENOMEM.
 * A mirrored read is mapped as a write (every copy, copies of the same
 * bytes next to each other) and each group of copies needs one, on a
 * member the replay used.
 */
static int check_io(struct matcher *m, const struct verify_io *io, uint64_t *kissue,
		    uint64_t *groups)
{
	struct layout *l = &m->scratch[io->target];
	unsigned base = m->set->base[io->target], op = io->op;
	int mirror_read = op == BPT_OP_READ && (l->kind == LAYOUT_RAID1 || l->kind == LAYOUT_RAID10);
	uint64_t w0 = io->issue_ns > VERIFY_SLACK_NS ? io->issue_ns - VERIFY_SLACK_NS : 0;
	uint64_t w1 = io->complete_ns + VERIFY_SLACK_NS;
	unsigned from = m->ntaken, nparts;
	int n, rc;

	if (parts_room(m, layout_max_parts(l, io->len) * 2 + 2) < 0)
		return -ENOMEM;
	n = layout_map(l, mirror_read ? BPT_OP_WRITE : op, io->offset, io->len, m->parts, m->cap);
	if (n <= 0)
		return n == -E2BIG ? -ENOMEM : 0;
	nparts = (unsigned)n;
	for (unsigned p = 0; p < nparts; p++)
		layout_part_done(l, &m->parts[p]);
	*kissue = UINT64_MAX;
	for (unsigned p = 0; p < nparts; p++)
		if (!mirror_read || !p || m->parts[p].buf_off != m->parts[p - 1].buf_off)
			(*groups)++;
	for (unsigned p = 0; p < nparts;) {
		unsigned q = p + 1, ok = 0;
		uint64_t t = 0;

		if (mirror_read)
			while (q < nparts && m->parts[q].buf_off == m->parts[p].buf_off)
				q++;
		for (unsigned c = p; c < q && !ok; c++) {
			const struct layout_part *lp = &m->parts[c];

			if (mirror_read && !(io->member_mask & (1u << lp->member)))
				continue;
			/* raid5/raid6: old data and parity are read whatever
			 * the request's operation (array-internal parts) */
			rc = cover(m, base + lp->member, lp->read ? BPT_OP_READ : op, lp->offset,
				   lp->len, w0, w1, &t);
			if (rc < 0)
				return rc;
			ok = (unsigned)rc;
		}
		if (!ok) {
			untake(m, from);
			return 0;
		}
		if (t < *kissue)
			*kissue = t;
		p = q;
	}
	return 1;
}

/* A request of the I/O's size nobody claimed, issued in its window:
 * the I/O went to the wrong place. Claims it (it is not extra). */
static int find_misplaced(struct matcher *m, const uint64_t *by_time, const struct verify_io *io)
{
	uint64_t w0 = io->issue_ns > VERIFY_SLACK_NS ? io->issue_ns - VERIFY_SLACK_NS : 0;
	uint64_t w1 = io->complete_ns + VERIFY_SLACK_NS, lo = 0, hi = m->nev;

	while (lo < hi) { /* the first request issued at w0 or later */
		uint64_t mid = lo + (hi - lo) / 2;

		if (m->ev[by_time[mid] ].issue_ns < w0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint64_t i = lo; i < m->nev; i++) {
		struct verify_event *v = &m->ev[by_time[i] ];

		if (v->issue_ns > w1)
			break;
		if (!v->claims && v->bytes == io->len) {
			v->claims = 1;
			return 1;
		}
	}
	return 0;
}

static int by_issue(const void *a, const void *b, void *ctx)
{
	const struct verify_event *ev = ctx;
	uint64_t x = ev[*(const uint64_t *)a].issue_ns, y = ev[*(const uint64_t *)b].issue_ns;

	return x < y ? -1 : x > y;
}

static uint64_t pct(uint64_t *v, uint64_t n, uint32_t ppm)
{
	return stats_percentile(v, n, ppm);
}

int verify_match(const struct verify_set *set, const struct verify_io *ios, uint64_t nio,
		 struct verify_event *ev, uint64_t nev, uint64_t t0, uint64_t t1,
		 struct verify_result *res)
{
	struct matcher m = { .set = set, .ev = ev, .nev = nev };
	uint64_t *err = NULL, *sub = NULL, nerr = 0;
	uint8_t *miss = NULL;
	uint64_t *by_time = NULL, *kiss = NULL;
	double first_due = 0, first_err = 0, last_due = 0, last_err = 0;
	int rc = -ENOMEM;

	memset(res, 0, sizeof(*res));
	m.first = calloc(set->nmembers + 1, sizeof(*m.first));
	m.maxlen = calloc(set->nmembers + 1, sizeof(*m.maxlen));
	err = malloc((nio + 1) * sizeof(*err));
	sub = malloc((nio + 1) * sizeof(*sub));
	miss = calloc(nio + 1, 1);
	kiss = malloc((nio + 1) * sizeof(*kiss));
	if (!m.first || !m.maxlen || !err || !sub || !miss || !kiss)
		goto out;
	for (unsigned t = 0; t < set->ntargets; t++)
		m.scratch[t] = *set->layout[t];
	for (uint64_t e = 0; e < nev; e++) {
		ev[e].claims = 0;
	}
	qsort(ev, nev, sizeof(*ev), ev_cmp);
	/* first[k]: first event of member k; events of unknown members last */
	for (uint64_t k = 0, e = 0; k <= set->nmembers; k++) {
		while (e < nev && ev[e].member < k)
			e++;
		m.first[k] = e;
	}
	for (uint64_t e = 0; e < nev; e++)
		if (ev[e].member < set->nmembers && ev[e].bytes > m.maxlen[ev[e].member])
			m.maxlen[ev[e].member] = ev[e].bytes;
	/* Two passes: first with requests that start where a piece starts
	 * (as asked, split, or the front of a merge), then with the rest of
	 * merges too, so that an I/O never takes the tail of another's merged
	 * request while a request of its own was there (overlapping I/Os in
	 * flight together). */
	for (int pass = 0; pass < 2; pass++) {
		m.first_pass = !pass;
		for (uint64_t i = 0; i < nio; i++) {
			const struct verify_io *io = &ios[i];
			uint64_t k, groups = 0;

			if (io->failed || (pass && !miss[i]))
				continue;
			m.ntaken = 0;
			rc = check_io(&m, io, &k, &groups);
			if (rc < 0)
				goto out;
			if (!pass) {
				res->ios++;
				res->parts += groups;
			}
			miss[i] = !rc;
			if (!rc)
				continue;
			res->present++;
			err[i] = k > io->sched_ns ? k - io->sched_ns : 0;
			sub[i] = k > io->issue_ns ? k - io->issue_ns : 0;
			kiss[i] = k;
		}
	}
	for (uint64_t i = 0; i < nio; i++) {
		if (ios[i].failed || miss[i])
			continue;
		double e = (double)kiss[i] - (double)ios[i].sched_ns;

		if (!nerr)
			first_due = (double)ios[i].sched_ns, first_err = e;
		last_due = (double)ios[i].sched_ns, last_err = e;
		err[nerr] = err[i];
		sub[nerr++] = sub[i];
	}
	if (res->ios > res->present) {
		/* the events in issue-time order, for the misplaced search */
		by_time = malloc((nev + 1) * sizeof(*by_time));
		if (!by_time) {
			rc = -ENOMEM;
			goto out;
		}
		for (uint64_t e = 0; e < nev; e++)
			by_time[e] = e;
		qsort_r(by_time, nev, sizeof(*by_time), by_issue, ev);
	}
	for (uint64_t i = 0; i < nio; i++) {
		if (!miss[i])
			continue;
		if (find_misplaced(&m, by_time, &ios[i]))
			res->misplaced++;
		else
			res->missing++;
		if (!res->have_missing) {
			res->have_missing = 1;
			res->first_missing_src = ios[i].src;
		}
	}
	for (uint64_t e = 0; e < nev; e++) {
		if (ev[e].issue_ns < t0 || ev[e].issue_ns > t1)
			continue;
		res->events++;
		if (!ev[e].claims) {
			res->extra++;
			res->extra_bytes += ev[e].bytes;
		} else if (ev[e].claims > 1) {
			res->merged++;
		}
	}
	res->split_parts = m.split_parts;
	rc = stats_sort_u64_alloc(err, nerr);
	if (!rc)
		rc = stats_sort_u64_alloc(sub, nerr);
	if (rc)
		goto out;
	res->err_p50 = pct(err, nerr, 500000);
	res->err_p99 = pct(err, nerr, 990000);
	res->err_max = pct(err, nerr, STATS_PPM);
	res->sub_p50 = pct(sub, nerr, 500000);
	res->sub_p99 = pct(sub, nerr, 990000);
	res->sub_max = pct(sub, nerr, STATS_PPM);
	if (last_due > first_due)
		res->drift = (last_err - first_err) / (last_due - first_due);
	rc = 0;
out:
	free(m.first);
	free(m.maxlen);
	free(m.parts);
	free(m.taken);
	free(m.taken_len);
	free(err);
	free(sub);
	free(miss);
	free(by_time);
	free(kiss);
	return rc;
}
