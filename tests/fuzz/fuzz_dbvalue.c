/*
 * fuzz_dbvalue.c — libFuzzer target for a --db value (or $BLKPEAK_DB):
 * which values name PostgreSQL (pg_is_pg: a URI prefix, else libpq's own
 * key=value parser) and the form messages show them in (pg_redact). No
 * connection is made.
 *
 * What must hold: no crash, leak or undefined behaviour; the redacted
 * text fits the buffer and is terminated, also redacted again; a URI's
 * user:password@ never survives (a password of 4 bytes or more that
 * the input has nowhere else is not in the output); no "password=" is
 * followed by anything but "***".
 * (Redacting twice may remove more from garbage: a redacted value can
 * swallow the '/' that made a later '@' no user part. Not checked.)
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
	if (memchr(again, 0, sizeof(again)) == NULL)
		abort();
	if (!strncmp(in, "postgresql://", 13) || !strncmp(in, "postgres://", 11)) {
		/* the input's user:password@ (the authority ends at '/' or '?') */
		const char *auth = strstr(in, "://") + 3, *at = strchr(auth, '@');
		const char *end = strpbrk(auth, "/?"), *colon = strchr(auth, ':');

		if (at && (!end || at < end) && colon && colon < at && at - colon > 4) {
			char pw[sizeof(in)];

			memcpy(pw, colon + 1, (size_t)(at - colon - 1));
			pw[at - colon - 1] = 0;
			/* a password found only there must not be in the output */
			if (strstr(in, pw) == colon + 1 && !strstr(at, pw) && strstr(out, pw))
				abort();
		}
	}
	for (p = out; (p = strstr(p, "password=")); p += 9)
		if ((p == out || p[-1] == ' ' || p[-1] == '?' || p[-1] == '&') && strncmp(p + 9, "***", 3))
			abort();
	return 0;
}
