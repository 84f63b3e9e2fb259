/*
 * layout_raid10.c — md's "near 2" layout: logical chunk k is stored in
 * slots 2k and 2k+1 of a stripe over all members (slot s on member s % n,
 * row s / n). With 4 members, chunk 0 is on members 0 and 1, chunk 1 on
 * 2 and 3, chunk 2 on 0 and 1 one row down.
 */
#include <errno.h>

#include "bpt.h"
#include "layout.h"

int layout_raid10_map(struct layout *l, unsigned op, uint64_t off, uint64_t len,
		      struct layout_part *parts, unsigned max)
{
	unsigned n = 0;
	uint64_t done = 0;

	do {
		uint64_t k, in;
		uint64_t piece = layout_chunk_piece(l, off + done, len - done, &k, &in);
		struct layout_part copy[2];

		for (unsigned c = 0; c < 2; c++)
			copy[c] = layout_slot_part(l, 2 * k + c, in, piece, done);
		if (op == BPT_OP_READ) {
			unsigned cand[2] = { copy[0].member, copy[1].member };
			unsigned pick = layout_pick_mirror(l, cand, 2, copy[0].offset);

			if (n >= max)
				return -E2BIG;
			parts[n++] = copy[pick == copy[0].member ? 0 : 1];
			/* later chunks of this read see this one as outstanding */
			l->outstanding[pick]++;
		} else {
			if (n + 2 > max)
				return -E2BIG;
			parts[n++] = copy[0];
			parts[n++] = copy[1];
		}
		done += piece;
	} while (done < len);
	if (op == BPT_OP_READ)
		for (unsigned i = 0; i < n; i++)
			l->outstanding[parts[i].member]--; /* layout_map counts them */
	return (int)n;
}
