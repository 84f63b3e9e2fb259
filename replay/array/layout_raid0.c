/* layout_raid0.c — striping: chunk k on member k % n at row k / n. */
#include <errno.h>

#include "layout.h"

int layout_raid0_map(struct layout *l, uint64_t off, uint64_t len,
		     struct layout_part *parts, unsigned max)
{
	unsigned n = 0;
	uint64_t done = 0;

	do {
		uint64_t k, in;
		uint64_t piece = layout_chunk_piece(l, off + done, len - done, &k, &in);

		if (n >= max)
			return -E2BIG;
		parts[n++] = layout_slot_part(l, k, in, piece, done);
		done += piece;
	} while (done < len);
	return (int)n;
}
