/*
 * fuzz_dbvalue.c — libFuzzer target for a --db value (or $BLKPEAK_DB):
 * which values name PostgreSQL (pg_is_pg: a URI prefix, else libpq's own
 * key=value parser) and the form messages show them in (pg_redact). No
 * connection is made.
 *
 * What must hold: no crash, leak or undefined behaviour; the redacted
 * text fits the buffer and is terminated; redacting twice changes
 * nothing more; a URI's user:password@ never survives (no ':' between
 * "://" and the '@' that ends the user part); no "password=" is followed
 * by anything but "***".
 */
#include <stdlib.h>
#include <string.h>

#include "pg.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char in[1024], out[512], again[512];
	const char *p;

	if (size >= sizeof(in))
		return 0;
	memcpy(in, data, size);
	in[size] = 0;
	(void)pg_is_pg(in);
	pg_redact(in, out, sizeof(out));
	if (memchr(out, 0, sizeof(out)) == NULL)
		abort();
	pg_redact(out, again, sizeof(again));
	if (strcmp(out, again))
		abort();
	if (!strncmp(out, "postgresql://", 13) || !strncmp(out, "postgres://", 11)) {
		const char *auth = strstr(out, "://") + 3, *at = strchr(auth, '@');
		const char *slash = strchr(auth, '/'), *colon = strchr(auth, ':');

		if (at && (!slash || at < slash) && colon && colon < at)
			abort();
	}
	for (p = out; (p = strstr(p, "password=")); p += 9)
		if ((p == out || p[-1] == ' ' || p[-1] == '?' || p[-1] == '&') && strncmp(p + 9, "***", 3))
			abort();
	return 0;
}
