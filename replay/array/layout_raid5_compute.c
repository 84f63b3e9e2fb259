/*
 * layout_raid5_compute.c — between the reads and the writes of a raid5 or
 * raid6 request: the new parity of every column range it writes, or the
 * bytes of a missing member a read wanted, rebuilt from the others.
 *
 * Scratch of a column range (layout_raid5.h): slot m holds what was read
 * from member m (or what was rebuilt for it), slots n and n+1 the new P
 * and Q that the parity writes send.
 */
#include <string.h>

#include "bpt.h"
#include "layout_raid5.h"
#include "raid6_gf.h"

struct colbufs {
	uint8_t *slot[LAYOUT_MAX_MEMBERS + 2];
	uint8_t *req[LAYOUT_MAX_MEMBERS]; /* data index i in the request's buffer */
};

/*
 * Rebuild the old contents of the missing data members of a column range
 * into their slots, from the other data and the parity read into scratch
 * (md's compute_block / raid6_2data_recov / raid6_datap_recov).
 */
static void rebuild(const struct layout *l, const struct raid_col *c, struct colbufs *b)
{
	unsigned d = l->nmembers - raid_nparity(l), lost[2], nlost = 0;
	const uint8_t *data[LAYOUT_MAX_MEMBERS];
	size_t len = (size_t)c->len;
	uint8_t *p = b->slot[c->g.pd], *q = raid_nparity(l) == 2 ? b->slot[c->g.qd] : NULL;
	int have_p = !(l->missing & (1u << c->g.pd));
	/* the new-parity slots are free until the parity is computed */
	uint8_t *pxy = b->slot[l->nmembers], *qxy = b->slot[l->nmembers + 1];

	for (unsigned i = 0; i < d; i++) {
		unsigned m = c->g.member[i];

		if (l->missing & (1u << m)) {
			if (nlost < 2)
				lost[nlost++] = i;
			data[c->g.slot[i]] = NULL;
		} else {
			data[c->g.slot[i]] = b->slot[m];
		}
	}
	if (!nlost)
		return;
	/* P and Q of the known data: the lost blocks are what is left */
	raid6_syndrome(d, data, pxy, q ? qxy : NULL, len);
	if (nlost == 1 && have_p) {
		uint8_t *x = b->slot[c->g.member[lost[0]]];

		memcpy(x, pxy, len);
		raid6_xor(x, p, len);
		return;
	}
	if (nlost == 1) { /* P missing too: D_x = (Q + Q_known) / g^x */
		uint8_t *x = b->slot[c->g.member[lost[0]]];
		unsigned sx = c->g.slot[lost[0]];

		memcpy(x, qxy, len);
		raid6_xor(x, q, len);
		raid6_mul(x, len, raid6_gf_exp[255 - sx]);
		return;
	}
	/* two data: Pxy = Dx + Dy, Qxy = g^x Dx + g^y Dy, so
	 * Dx = (g^y Pxy + Qxy) / (g^x + g^y), Dy = Pxy + Dx */
	unsigned sx = c->g.slot[lost[0]], sy = c->g.slot[lost[1]];
	uint8_t *x = b->slot[c->g.member[lost[0]]], *y = b->slot[c->g.member[lost[1]]];
	uint8_t gx = raid6_gf_exp[sx], gy = raid6_gf_exp[sy];
	uint8_t inv = raid6_gf_div(1, gx ^ gy);

	raid6_xor(pxy, p, len);
	raid6_xor(qxy, q, len);
	memset(x, 0, len);
	raid6_mul_xor(x, pxy, len, raid6_gf_mul(gy, inv));
	raid6_mul_xor(x, qxy, len, inv);
	memcpy(y, pxy, len);
	raid6_xor(y, x, len);
}

/* New P and Q from the whole new data of the column range. */
static void parity_from_data(const struct layout *l, const struct raid_col *c,
			     struct colbufs *b)
{
	unsigned n = l->nmembers, d = n - raid_nparity(l);
	const uint8_t *data[LAYOUT_MAX_MEMBERS];

	for (unsigned i = 0; i < d; i++)
		data[c->g.slot[i]] = (c->touched & (1u << i)) ? b->req[i]
							      : b->slot[c->g.member[i]];
	raid6_syndrome(d, data, b->slot[n], raid_nparity(l) == 2 ? b->slot[n + 1] : NULL,
		       (size_t)c->len);
}

/* P' = P + sum(old + new), Q' = Q + sum g^slot (old + new). */
static void parity_rmw(const struct layout *l, const struct raid_col *c, struct colbufs *b)
{
	unsigned n = l->nmembers, d = n - raid_nparity(l);
	size_t len = (size_t)c->len;
	int has_q = raid_nparity(l) == 2 && !(l->missing & (1u << c->g.qd));
	int has_p = !(l->missing & (1u << c->g.pd));

	if (has_p)
		memcpy(b->slot[n], b->slot[c->g.pd], len);
	if (has_q)
		memcpy(b->slot[n + 1], b->slot[c->g.qd], len);
	for (unsigned i = 0; i < d; i++) {
		uint8_t *old = b->slot[c->g.member[i]];

		if (!(c->touched & (1u << i)))
			continue;
		raid6_xor(old, b->req[i], len); /* old becomes the difference */
		if (has_p)
			raid6_xor(b->slot[n], old, len);
		if (has_q)
			raid6_mul_xor(b->slot[n + 1], old, len, raid6_gf_exp[c->g.slot[i]]);
	}
}

void layout_raid_compute(const struct layout *l, unsigned op, uint64_t off, uint64_t len,
			 uint8_t *buf, uint8_t *scratch)
{
	unsigned n = l->nmembers, d = n - raid_nparity(l);
	uint64_t at = 0;
	struct raid_cols it;
	struct raid_col c;

	raid_cols_init(&it, l, off, len);
	while (raid_cols_next(&it, &c)) {
		uint32_t rd, wr;
		enum raid_strategy s = raid_col_strategy(l, op, &c, &rd, &wr);
		uint64_t slot = raid_slot_len(c.len), size = raid_col_scratch(l, s, &c);
		struct colbufs b;

		if (!size)
			continue;
		for (unsigned m = 0; m < n + 2; m++)
			b.slot[m] = scratch + at + m * slot;
		for (unsigned i = 0; i < d; i++)
			b.req[i] = (c.touched & (1u << i)) ?
					   buf + c.pos0 + (int64_t)(i * l->chunk) : NULL;
		switch (s) {
		case RAID_REBUILD:
			rebuild(l, &c, &b);
			for (unsigned i = 0; i < d; i++)
				if (b.req[i])
					memcpy(b.req[i], b.slot[c.g.member[i]], (size_t)c.len);
			break;
		case RAID_RECON:
			rebuild(l, &c, &b);
			parity_from_data(l, &c, &b);
			break;
		case RAID_FULL:
		case RAID_RCW:
			parity_from_data(l, &c, &b);
			break;
		case RAID_RMW:
			parity_rmw(l, &c, &b);
			break;
		case RAID_READ:
		case RAID_NOPARITY:
			break;
		}
		at += size;
	}
}
