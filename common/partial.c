/*
 * partial.c — a partial run in words (partial.h).
 */
#include "jsonout.h"
#include "partial.h"

char *partial_text(uint64_t done, uint64_t total, const char *why, char *buf, size_t len)
{
	snprintf(buf, len, "PARTIAL: %llu of %llu I/Os (%s)", (unsigned long long)done,
		 (unsigned long long)total, why && *why ? why : "reason not recorded");
	return buf;
}

void partial_json(struct jw *w, uint64_t done, uint64_t total, const char *why)
{
	jw_obj(w);
	jw_ku64(w, "ios_done", done);
	jw_ku64(w, "ios_total", total);
	jw_kstr(w, "reason", why && *why ? why : "reason not recorded");
	jw_obj_end(w);
}
