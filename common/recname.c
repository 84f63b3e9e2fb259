/* recname.c — a recording's name from its path (recname.h). */
#include <string.h>

#include "recname.h"

void recording_name(const char *path, char *buf)
{
	const char *base = strrchr(path, '/'), *dot;
	size_t n;

	base = base && base[1] ? base + 1 : path;
	dot = strrchr(base, '.');
	n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
	if (n > RECNAME_MAX)
		n = RECNAME_MAX;
	memcpy(buf, base, n);
	buf[n] = 0;
}
