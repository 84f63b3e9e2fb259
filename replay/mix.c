/* mix.c — a mixed replay's digest (mix.h); names: common/recname.c. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "mix.h"

uint64_t mix_digest(const uint64_t *digest, const uint64_t *offset_ns, unsigned n)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a 64 */
	char line[64];

	for (unsigned k = 0; k < n; k++) {
		int len = snprintf(line, sizeof(line), "%016" PRIx64 "@%" PRIu64 "\n", digest[k],
				   offset_ns[k]);

		for (int i = 0; i < len; i++)
			h = (h ^ (unsigned char)line[i]) * 0x100000001b3ull;
	}
	return h;
}
