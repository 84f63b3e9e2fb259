/*
 * partial.c — a partial run in words (partial.h).
 */
#include "fmt.h"
#include "partial.h"

char *partial_text(uint64_t done, uint64_t total, const char *why, char *buf, size_t len)
{
	snprintf(buf, len, "PARTIAL: %llu of %llu I/Os (%s)", (unsigned long long)done,
		 (unsigned long long)total, why && *why ? why : "reason not recorded");
	return buf;
}

void partial_json(FILE *f, uint64_t done, uint64_t total, const char *why)
{
	fprintf(f, "{\"ios_done\":%llu,\"ios_total\":%llu,\"reason\":", (unsigned long long)done,
		(unsigned long long)total);
	json_str(f, why && *why ? why : "reason not recorded");
	fputc('}', f);
}
