/*
 * layout_raid5.c — raid5 and raid6 as md lays them out and updates
 * them (schemas/array-layouts.md is normative): the rows' geometry, the
 * column ranges of a request (layout_raid5.h), the read-modify-write or
 * reconstruct-write choice, and the parts that follow from it.
 */
#include <errno.h>
#include <string.h>

#include "bpt.h"
#include "layout_raid5.h"

static const char *const algo_names[RAID_ALGO__COUNT] = {
	[RAID_LEFT_ASYMMETRIC] = "left-asymmetric",
	[RAID_RIGHT_ASYMMETRIC] = "right-asymmetric",
	[RAID_LEFT_SYMMETRIC] = "left-symmetric",
	[RAID_RIGHT_SYMMETRIC] = "right-symmetric",
	[RAID_PARITY_0] = "parity-first",
	[RAID_PARITY_N] = "parity-last",
};

const char *raid_algo_name(enum raid_algo a)
{
	return a < RAID_ALGO__COUNT ? algo_names[a] : "?";
}

int raid_algo_parse(const char *s, enum raid_algo *a)
{
	for (unsigned i = 0; i < RAID_ALGO__COUNT; i++)
		if (!strcmp(s, algo_names[i])) {
			*a = (enum raid_algo)i;
			return 0;
		}
	return -EINVAL;
}

unsigned raid_nparity(const struct layout *l)
{
	return l->kind == LAYOUT_RAID6 ? 2 : 1;
}

/* md's raid5_compute_sector for levels 5 and 6. */
void layout_raid_row(const struct layout *l, uint64_t row, struct raid_row *g)
{
	unsigned n = l->nmembers, p = raid_nparity(l), d = n - p;
	unsigned r = (unsigned)(row % n), pd = 0, qd = 0;
	int sym = 0;

	switch (l->algo) {
	case RAID_LEFT_ASYMMETRIC:
	case RAID_LEFT_SYMMETRIC:
		pd = n - 1 - r;
		break;
	case RAID_RIGHT_ASYMMETRIC:
	case RAID_RIGHT_SYMMETRIC:
		pd = r;
		break;
	case RAID_PARITY_0:
		pd = 0;
		break;
	case RAID_PARITY_N:
	default:
		pd = d;
		break;
	}
	sym = l->algo == RAID_LEFT_SYMMETRIC || l->algo == RAID_RIGHT_SYMMETRIC;
	if (p == 1) {
		for (unsigned i = 0; i < d; i++)
			g->member[i] = sym ? (pd + 1 + i) % n : i < pd ? i : i + 1;
		g->pd = g->qd = pd;
		for (unsigned i = 0; i < d; i++)
			g->slot[i] = i;
		return;
	}
	if (sym) {
		qd = (pd + 1) % n;
		for (unsigned i = 0; i < d; i++)
			g->member[i] = (pd + 2 + i) % n;
	} else if (l->algo == RAID_PARITY_0 || l->algo == RAID_PARITY_N) {
		qd = pd + 1;
		for (unsigned i = 0; i < d; i++)
			g->member[i] = l->algo == RAID_PARITY_0 ? i + 2 : i;
	} else if (pd == n - 1) { /* Q D D D P */
		qd = 0;
		for (unsigned i = 0; i < d; i++)
			g->member[i] = i + 1;
	} else { /* D D P Q D */
		qd = pd + 1;
		for (unsigned i = 0; i < d; i++)
			g->member[i] = i < pd ? i : i + 2;
	}
	g->pd = pd;
	g->qd = qd;
	/* md's set_syndrome_sources: slots count the data members from the
	 * one after Q onwards, wrapping (raid6_d0, raid6_next_disk) */
	unsigned slot_of_member[LAYOUT_MAX_MEMBERS], count = 0;
	for (unsigned k = 0, m = (qd + 1) % n; k < n; k++, m = (m + 1) % n)
		if (m != pd && m != qd)
			slot_of_member[m] = count++;
	for (unsigned i = 0; i < d; i++)
		g->slot[i] = slot_of_member[g->member[i]];
}

void raid_cols_init(struct raid_cols *it, const struct layout *l, uint64_t off, uint64_t len)
{
	uint64_t rowb = (uint64_t)(l->nmembers - raid_nparity(l)) * l->chunk;

	*it = (struct raid_cols){ .l = l, .off = off, .end = off + len, .row = off / rowb };
}

int raid_cols_next(struct raid_cols *it, struct raid_col *c)
{
	const struct layout *l = it->l;
	uint64_t cs = l->chunk;
	unsigned d = l->nmembers - raid_nparity(l);
	uint64_t rowb = d * cs;

	for (;;) {
		uint64_t r0 = it->row * rowb, a, b, am, bm, x1;

		if (it->off >= it->end || r0 >= it->end)
			return 0;
		a = it->off > r0 ? it->off - r0 : 0;
		b = it->end - r0 < rowb ? it->end - r0 : rowb;
		am = a % cs;
		bm = b % cs ? b % cs : cs;
		if (it->x >= cs) {
			it->row++;
			it->x = 0;
			continue;
		}
		x1 = cs;
		if (am > it->x && am < x1)
			x1 = am;
		if (bm > it->x && bm < x1)
			x1 = bm;
		c->row = it->row;
		c->x0 = it->x;
		c->len = x1 - it->x;
		c->touched = 0;
		for (unsigned i = 0; i < d; i++)
			if (i * cs + c->x0 >= a && i * cs + x1 <= b)
				c->touched |= 1u << i;
		c->pos0 = (int64_t)(r0 + c->x0) - (int64_t)it->off;
		it->x = x1;
		if (!c->touched)
			continue;
		layout_raid_row(l, c->row, &c->g);
		c->data = c->want = 0;
		for (unsigned i = 0; i < d; i++) {
			c->data |= 1u << c->g.member[i];
			if (c->touched & (1u << i))
				c->want |= 1u << c->g.member[i];
		}
		c->parity = 1u << c->g.pd | (raid_nparity(l) == 2 ? 1u << c->g.qd : 0);
		return 1;
	}
}

static unsigned popcount(uint32_t x)
{
	return (unsigned)__builtin_popcount(x);
}

enum raid_strategy raid_col_strategy(const struct layout *l, unsigned op,
				     const struct raid_col *c, uint32_t *reads,
				     uint32_t *writes)
{
	uint32_t miss = l->missing, pp = c->parity & ~miss, w = c->want;
	uint32_t rest = c->data & ~w;

	if (op == BPT_OP_READ) {
		uint32_t lost = c->data & miss;

		*writes = 0;
		if (!(w & miss)) {
			*reads = w;
			return RAID_READ;
		}
		/* rebuild from every other data member and P, or Q when P is
		 * missing too; both when two data members are */
		*reads = c->data & ~miss;
		if (popcount(lost) == 2)
			*reads |= pp;
		else
			*reads |= (pp & (1u << c->g.pd)) ? 1u << c->g.pd : pp;
		return RAID_REBUILD;
	}
	*writes = (w | pp) & ~miss;
	if (!rest) {
		*reads = 0;
		return RAID_FULL;
	}
	if (!pp) {
		*reads = 0;
		*writes = w & ~miss;
		return RAID_NOPARITY;
	}
	/* md: rmw counts the written data and the parity to read, rcw the
	 * data not written; rmw only when strictly fewer (its default
	 * rmw_level, PARITY_ENABLE_RMW); a missing member rules out the
	 * choice that reads it */
	int rmw_ok = !(w & miss), rcw_ok = !(rest & miss);
	unsigned rmw = popcount(w | pp), rcw = popcount(rest);

	if (rmw_ok && (!rcw_ok || rmw < rcw)) {
		*reads = w | pp;
		return RAID_RMW;
	}
	if (rcw_ok) {
		*reads = rest;
		return RAID_RCW;
	}
	*reads = (c->data | c->parity) & ~miss;
	return RAID_RECON;
}

uint64_t raid_col_scratch(const struct layout *l, enum raid_strategy s, const struct raid_col *c)
{
	if (s == RAID_READ || s == RAID_NOPARITY)
		return 0;
	return (uint64_t)(l->nmembers + 2) * raid_slot_len(c->len);
}

uint64_t layout_scratch_size(const struct layout *l, unsigned op, uint64_t off,
			     uint64_t len)
{
	struct raid_cols it;
	struct raid_col c;
	uint64_t total = 0;
	uint32_t rd, wr;

	if ((l->kind != LAYOUT_RAID5 && l->kind != LAYOUT_RAID6) ||
	    (op != BPT_OP_READ && op != BPT_OP_WRITE))
		return 0;
	raid_cols_init(&it, l, off, len);
	while (raid_cols_next(&it, &c))
		total += raid_col_scratch(l, raid_col_strategy(l, op, &c, &rd, &wr), &c);
	return total;
}

/* Append a part, or extend the previous one of this row on the same
 * member when it ends where this one starts, in the request's buffer
 * too (a chunk read or written over several column ranges). */
static int add_part(struct layout_part *parts, unsigned *np, unsigned row_first,
		    unsigned max, struct layout_part p)
{
	for (unsigned i = row_first; i < *np; i++) {
		struct layout_part *q = &parts[i];

		if (!p.scratch && !q->scratch && q->member == p.member &&
		    q->phase == p.phase && q->read == p.read && q->internal == p.internal &&
		    q->offset + q->len == p.offset && q->buf_off + q->len == p.buf_off) {
			q->len += p.len;
			return 0;
		}
	}
	if (*np >= max)
		return -E2BIG;
	parts[(*np)++] = p;
	return 0;
}

int layout_raid5_map(struct layout *l, unsigned op, uint64_t off, uint64_t len,
		     struct layout_part *parts, unsigned max)
{
	unsigned n = l->nmembers, d = n - raid_nparity(l), np = 0, row_first = 0;
	uint64_t cs = l->chunk, scratch = 0, last_row = UINT64_MAX;
	struct raid_cols it;
	struct raid_col c;

	if (op != BPT_OP_READ && op != BPT_OP_WRITE)
		return -EOPNOTSUPP;
	if (!len) { /* an empty read or write: on the member of its chunk */
		uint64_t k = off / cs;
		struct raid_row g;

		if (max < 1)
			return -E2BIG;
		layout_raid_row(l, k / d, &g);
		parts[0] = (struct layout_part){ .member = g.member[k % d],
						 .offset = (k / d) * cs + off % cs };
		while (l->missing & (1u << parts[0].member)) /* never touched */
			parts[0].member = (parts[0].member + 1) % n;
		return 1;
	}
	raid_cols_init(&it, l, off, len);
	while (raid_cols_next(&it, &c)) {
		uint32_t rd, wr;
		enum raid_strategy s = raid_col_strategy(l, op, &c, &rd, &wr);
		uint64_t slot = raid_slot_len(c.len), moff = c.row * cs + c.x0;
		int rc = 0;

		if (c.row != last_row) {
			row_first = np;
			last_row = c.row;
		}
		for (unsigned m = 0; m < n && !rc; m++) {
			struct layout_part p = { .member = m, .offset = moff, .len = c.len };

			if (!(rd & (1u << m)))
				continue;
			p.read = 1;
			if (s == RAID_READ) {
				for (unsigned i = 0; i < d; i++)
					if (c.g.member[i] == m)
						p.buf_off = (uint64_t)(c.pos0 + (int64_t)(i * cs));
			} else {
				p.scratch = 1;
				p.buf_off = scratch + m * slot;
				/* the request's own bytes when a read wants them */
				p.internal = !(op == BPT_OP_READ && (c.want & (1u << m)));
			}
			rc = add_part(parts, &np, row_first, max, p);
		}
		for (unsigned i = 0; i < d && !rc; i++) {
			unsigned m = c.g.member[i];
			struct layout_part p = { .member = m, .offset = moff, .len = c.len,
						 .phase = 1 };

			if (!(wr & (1u << m)))
				continue;
			p.buf_off = (uint64_t)(c.pos0 + (int64_t)(i * cs));
			rc = add_part(parts, &np, row_first, max, p);
		}
		for (unsigned k = 0; k < raid_nparity(l) && !rc; k++) {
			unsigned m = k ? c.g.qd : c.g.pd;
			struct layout_part p = { .member = m, .offset = moff, .len = c.len,
						 .phase = 1, .internal = 1, .scratch = 1,
						 .buf_off = scratch + (n + k) * slot };

			if (wr & (1u << m))
				rc = add_part(parts, &np, row_first, max, p);
		}
		if (rc)
			return rc;
		scratch += raid_col_scratch(l, s, &c);
	}
	return (int)np;
}

static int rows_of(const struct layout *l, uint64_t off, uint64_t len, uint64_t *r0,
		   uint64_t *r1)
{
	uint64_t rowb = (uint64_t)(l->nmembers - raid_nparity(l)) * l->chunk;

	*r0 = off / rowb;
	*r1 = (off + (len ? len : 1) - 1) / rowb;
	return 0;
}

int layout_conflict(const struct layout *l, unsigned op_a, uint64_t off_a, uint64_t len_a,
		    unsigned op_b, uint64_t off_b, uint64_t len_b)
{
	uint64_t a0, a1, b0, b1;

	if (l->kind != LAYOUT_RAID5 && l->kind != LAYOUT_RAID6)
		return 0;
	if (op_a == BPT_OP_READ && op_b == BPT_OP_READ)
		return 0;
	if (op_a == BPT_OP_FLUSH || op_b == BPT_OP_FLUSH)
		return 0;
	rows_of(l, off_a, len_a, &a0, &a1);
	rows_of(l, off_b, len_b, &b0, &b1);
	return a0 <= b1 && b0 <= a1;
}
