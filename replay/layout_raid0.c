/* layout_raid0.c — striping: chunk k on member k % n at row k / n. */
#include <errno.h>

#include "layout.h"

int layout_raid0_map(struct layout *l, uint64_t off, uint64_t len,
		     struct layout_part *parts, unsigned max)
{
	unsigned n = 0;
	uint64_t done = 0;

	do {
		uint64_t pos = off + done;
		uint64_t k = pos / l->chunk, in = pos % l->chunk;
		uint64_t piece = l->chunk - in;

		if (piece > len - done)
			piece = len - done;
		if (n >= max)
			return -E2BIG;
		parts[n++] = (struct layout_part){
			.member = (unsigned)(k % l->nmembers),
			.offset = (k / l->nmembers) * l->chunk + in,
			.len = piece,
			.buf_off = done,
		};
		done += piece;
	} while (done < len);
	return (int)n;
}
