/* layout_linear.c — concatenation: members one after another. */
#include <errno.h>

#include "layout.h"

int layout_linear_map(struct layout *l, uint64_t off, uint64_t len,
		      struct layout_part *parts, unsigned max)
{
	unsigned n = 0, m = 0;
	uint64_t base = 0, done = 0;

	do {
		uint64_t pos = off + done, piece;

		/* zero-length requests and exact member ends move on */
		while (m < l->nmembers - 1 && pos >= base + l->member_size[m])
			base += l->member_size[m++];
		piece = base + l->member_size[m] - pos;
		if (piece > len - done)
			piece = len - done;
		if (n >= max)
			return -E2BIG;
		parts[n++] = (struct layout_part){
			.member = m, .offset = pos - base, .len = piece, .buf_off = done,
		};
		done += piece;
	} while (done < len);
	return (int)n;
}
