/* mix.c — a mixed replay's recordings: names and digest (mix.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "mix.h"

void mix_name(const char *path, char *buf)
{
	const char *base = strrchr(path, '/'), *dot;
	size_t n;

	base = base && base[1] ? base + 1 : path;
	dot = strrchr(base, '.');
	n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
	if (n > MIX_NAME_MAX)
		n = MIX_NAME_MAX;
	memcpy(buf, base, n);
	buf[n] = 0;
}

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
