/* dbpath.c — the analysis database's default path (dbpath.h). */
#include <stdio.h>
#include <string.h>

#include "dbpath.h"

#include <stdlib.h>

const char *db_default_path(const char *opt)
{
	const char *env = getenv("BLKPEAK_DB");

	if (opt)
		return opt;
	if (env && *env)
		return env;
	return "blkpeak.db";
}

/* A PostgreSQL URI or key=value string: its password goes (":PASSWORD@"
 * in the authority, password=... as a pair or a URI parameter); any other
 * value is copied as it is. */
const char *db_redact(const char *value, char *buf, size_t len)
{
	size_t o = 0;
	const char *p = value, *cut = NULL, *resume = NULL;
	int uri = !strncmp(value, "postgresql://", 13) || !strncmp(value, "postgres://", 11);

	if (!len)
		return buf;
	if (uri) {
		const char *auth = strstr(value, "://") + 3;
		/* the authority ends at the path or the parameters */
		const char *at = strchr(auth, '@'), *slash = strpbrk(auth, "/?");
		const char *colon = strchr(auth, ':');

		if (at && (!slash || at < slash) && colon && colon < at) {
			cut = colon; /* user:password@ -> user@ */
			resume = at;
		}
	}
	while (*p && o + 1 < len) {
		if (cut && p >= cut && p < resume) { /* also when a value ran past it */
			p = resume;
			cut = NULL;
			continue;
		}
		/* password=... (a key=value pair, spaces allowed around '=',
		 * or a URI parameter) */
		const char *q = p + 8;

		if (!strncmp(p, "password", 8) &&
		    (p == value || p[-1] == ' ' || p[-1] == '\t' || p[-1] == '?' || p[-1] == '&')) {
			while (!uri && (*q == ' ' || *q == '\t'))
				q++;
		}
		if (!strncmp(p, "password", 8) && *q == '=' &&
		    (p == value || p[-1] == ' ' || p[-1] == '\t' || p[-1] == '?' || p[-1] == '&')) {
			if (o + sizeof("password=***") > len)
				break; /* no room: end the text before it */
			o += (size_t)snprintf(buf + o, len - o, "password=***");
			p = q + 1;
			while (!uri && (*p == ' ' || *p == '\t'))
				p++;
			if (!uri && *p == '\'') { /* quoted: up to the closing quote */
				for (p++; *p && *p != '\''; p++)
					if (*p == '\\' && p[1])
						p++;
				if (*p)
					p++;
				/* anything glued to the closing quote goes with it */
				while (*p && *p != ' ' && *p != '\t')
					p++;
			} else { /* to the next space (key=value, backslash escapes) or '&' */
				while (*p && (uri ? *p != '&' : *p != ' ' && *p != '\t')) {
					if (!uri && *p == '\\' && p[1])
						p++;
					p++;
				}
			}
			if (o >= len)
				o = len - 1;
			continue;
		}
		buf[o++] = *p++;
	}
	buf[o < len ? o : len - 1] = 0;
	return buf;
}
