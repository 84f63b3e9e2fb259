/*
 * layout.c — the common part of virtual arrays: validation, capacity,
 * flushes, outstanding counts, and dispatch to the per-kind mappers.
 */
#include <errno.h>

#include "bpt.h"
#include "layout.h"

const char *layout_kind_name(enum layout_kind k)
{
	switch (k) {
	case LAYOUT_SINGLE: return "single";
	case LAYOUT_RAID0: return "raid0";
	case LAYOUT_RAID1: return "raid1";
	case LAYOUT_RAID10: return "raid10";
	case LAYOUT_LINEAR: return "linear";
	case LAYOUT_RAID5: return "raid5";
	case LAYOUT_RAID6: return "raid6";
	}
	return "?";
}

static uint64_t min_member(const struct layout *l)
{
	uint64_t m = l->member_size[0];

	for (unsigned i = 1; i < l->nmembers; i++)
		if (l->member_size[i] < m)
			m = l->member_size[i];
	return m;
}

int layout_init(struct layout *l)
{
	unsigned n = l->nmembers;
	uint64_t rows;

	if (n < 1 || n > LAYOUT_MAX_MEMBERS)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++) {
		l->outstanding[i] = 0;
		l->last_pos[i] = 0;
	}
	switch (l->kind) {
	case LAYOUT_SINGLE:
		if (n != 1)
			return -EINVAL;
		l->capacity = l->member_size[0];
		return 0;
	case LAYOUT_RAID1:
		if (n < 2)
			return -EINVAL;
		l->capacity = min_member(l);
		return 0;
	case LAYOUT_LINEAR:
		if (n < 2)
			return -EINVAL;
		l->capacity = 0;
		for (unsigned i = 0; i < n; i++)
			l->capacity += l->member_size[i];
		return 0;
	case LAYOUT_RAID0:
	case LAYOUT_RAID10:
		if (l->chunk == 0 || l->chunk % 512)
			return -EINVAL;
		if (l->kind == LAYOUT_RAID10 && n < 2)
			return -EINVAL;
		rows = min_member(l) / l->chunk;
		if (!rows)
			return -ENOSPC;
		l->capacity = rows * n * l->chunk;
		if (l->kind == LAYOUT_RAID10)
			l->capacity = rows * n / 2 * l->chunk;
		return l->capacity ? 0 : -ENOSPC;
	case LAYOUT_RAID5:
	case LAYOUT_RAID6: {
		unsigned p = l->kind == LAYOUT_RAID6 ? 2 : 1;

		/* md: a power of two, at least a page */
		if (l->chunk < 4096 || (l->chunk & (l->chunk - 1)) || n < p + 2 ||
		    l->algo >= RAID_ALGO__COUNT ||
		    (n < 32 && (l->missing >> n)) ||
		    (unsigned)__builtin_popcount(l->missing) > p)
			return -EINVAL;
		rows = min_member(l) / l->chunk;
		if (!rows)
			return -ENOSPC;
		l->capacity = rows * (n - p) * l->chunk;
		return 0;
	}
	}
	return -EINVAL;
}

unsigned layout_max_parts(const struct layout *l, uint64_t len)
{
	uint64_t chunks;

	switch (l->kind) {
	case LAYOUT_SINGLE:
		return 1;
	case LAYOUT_RAID1:
	case LAYOUT_LINEAR:
		return l->nmembers;
	case LAYOUT_RAID0:
	case LAYOUT_RAID10:
		chunks = len / l->chunk + 2;
		if (chunks < l->nmembers)
			chunks = l->nmembers; /* flushes */
		return (unsigned)(l->kind == LAYOUT_RAID10 ? 2 * chunks : chunks);
	case LAYOUT_RAID5:
	case LAYOUT_RAID6: {
		/* per row at most 3 column ranges, each n reads and n writes */
		uint64_t rows = len / ((l->nmembers - (l->kind == LAYOUT_RAID6 ? 2 : 1)) * l->chunk) + 2;

		return (unsigned)(rows * 3 * 2 * l->nmembers);
	}
	}
	return 1;
}

int layout_map(struct layout *l, unsigned op, uint64_t off, uint64_t len,
	       struct layout_part *parts, unsigned max)
{
	int n;

	if (op == BPT_OP_FLUSH) {
		if (max < l->nmembers)
			return -E2BIG;
		n = 0;
		for (unsigned i = 0; i < l->nmembers; i++)
			if (!(l->missing & (1u << i)))
				parts[n++] = (struct layout_part){ .member = i };
	} else {
		if (off > l->capacity || len > l->capacity - off)
			return -ERANGE;
		switch (l->kind) {
		case LAYOUT_SINGLE:
			if (max < 1)
				return -E2BIG;
			parts[0] = (struct layout_part){ .offset = off, .len = len };
			n = 1;
			break;
		case LAYOUT_RAID0:
			n = op == BPT_OP_DISCARD || op == BPT_OP_WRITE_ZEROES ?
				    layout_stripe_ranges(l, 1, off, len, parts, max) :
				    layout_raid0_map(l, off, len, parts, max);
			break;
		case LAYOUT_RAID1:
			n = layout_raid1_map(l, op, off, len, parts, max);
			break;
		case LAYOUT_RAID10:
			n = op == BPT_OP_DISCARD || op == BPT_OP_WRITE_ZEROES ?
				    layout_stripe_ranges(l, 2, off, len, parts, max) :
				    layout_raid10_map(l, op, off, len, parts, max);
			break;
		case LAYOUT_LINEAR:
			n = layout_linear_map(l, off, len, parts, max);
			break;
		case LAYOUT_RAID5:
		case LAYOUT_RAID6:
			n = layout_raid5_map(l, op, off, len, parts, max);
			break;
		default:
			return -EINVAL;
		}
		if (n < 0)
			return n;
	}
	for (int i = 0; i < n; i++) {
		l->outstanding[parts[i].member]++;
		if (op != BPT_OP_FLUSH)
			l->last_pos[parts[i].member] = parts[i].offset + parts[i].len;
	}
	return n;
}

void layout_part_done(struct layout *l, const struct layout_part *p)
{
	if (p->member < l->nmembers && l->outstanding[p->member])
		l->outstanding[p->member]--;
}

int layout_stripe_ranges(const struct layout *l, unsigned copies, uint64_t off,
			 uint64_t len, struct layout_part *parts, unsigned max)
{
	uint64_t cs = l->chunk, n = l->nmembers, end = off + len;
	uint64_t k0 = off / cs, ke, s0, s1, in0 = off % cs, ine;
	unsigned np = 0;

	if (!len) {
		if (max < 1)
			return -E2BIG;
		parts[0] = layout_slot_part(l, copies * k0, in0, 0, 0);
		return 1;
	}
	ke = (end - 1) / cs;
	ine = (end - 1) % cs + 1;
	/* logical chunks k0..ke fill slots s0..s1, contiguously */
	s0 = copies * k0;
	s1 = copies * ke + copies - 1;
	for (uint64_t m = 0; m < n; m++) {
		uint64_t sf = s0 + (m + n - s0 % n) % n;   /* first slot on m */
		uint64_t sl = s1 - (s1 % n + n - m) % n;   /* last slot on m */
		uint64_t start, stop;

		if (sf > s1)
			continue;
		start = (sf / n) * cs + (sf / copies == k0 ? in0 : 0);
		stop = (sl / n) * cs + (sl / copies == ke ? ine : cs);
		if (np >= max)
			return -E2BIG;
		parts[np++] = (struct layout_part){
			.member = (unsigned)m, .offset = start, .len = stop - start,
		};
	}
	return (int)np;
}

uint64_t layout_chunk_piece(const struct layout *l, uint64_t pos, uint64_t left,
			    uint64_t *k, uint64_t *in)
{
	uint64_t piece;

	*k = pos / l->chunk;
	*in = pos % l->chunk;
	piece = l->chunk - *in;
	return piece < left ? piece : left;
}

struct layout_part layout_slot_part(const struct layout *l, uint64_t slot, uint64_t in,
				    uint64_t len, uint64_t buf_off)
{
	return (struct layout_part){
		.member = (unsigned)(slot % l->nmembers),
		.offset = (slot / l->nmembers) * l->chunk + in,
		.len = len,
		.buf_off = buf_off,
	};
}

static uint64_t distance(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

unsigned layout_pick_mirror(const struct layout *l, const unsigned *cand,
			    unsigned ncand, uint64_t member_off)
{
	unsigned best = cand[0];

	for (unsigned i = 1; i < ncand; i++) {
		unsigned m = cand[i];

		if (l->outstanding[m] < l->outstanding[best] ||
		    (l->outstanding[m] == l->outstanding[best] &&
		     distance(l->last_pos[m], member_off) <
			     distance(l->last_pos[best], member_off)))
			best = m;
	}
	return best;
}
