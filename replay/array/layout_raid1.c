/* layout_raid1.c — mirroring: reads to one member, everything else to all. */
#include <errno.h>

#include "bpt.h"
#include "layout.h"

int layout_raid1_map(struct layout *l, unsigned op, uint64_t off, uint64_t len,
		     struct layout_part *parts, unsigned max)
{
	unsigned cand[LAYOUT_MAX_MEMBERS];

	if (op == BPT_OP_READ) {
		if (max < 1)
			return -E2BIG;
		for (unsigned i = 0; i < l->nmembers; i++)
			cand[i] = i;
		parts[0] = (struct layout_part){
			.member = layout_pick_mirror(l, cand, l->nmembers, off),
			.offset = off,
			.len = len,
		};
		return 1;
	}
	if (max < l->nmembers)
		return -E2BIG;
	for (unsigned i = 0; i < l->nmembers; i++)
		parts[i] = (struct layout_part){ .member = i, .offset = off, .len = len };
	return (int)l->nmembers;
}
