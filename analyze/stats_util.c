/*
 * stats_util.c — the constants of the report's classes and its
 * request-size classes (stats_report.h). Sorting and percentiles are
 * common/stats.h's.
 */
#include <stdio.h>
#include <string.h>

#include "stats_report.h"

const uint32_t st_seek_bound[ST_SEEK_CLASSES - 1][2] = {
	{ 1, 1000 }, { 1, 100 }, { 1, 10 }, { 1, 4 }, { 1, 2 }, { 1, 1 },
};
const char *const st_seek_name[ST_SEEK_CLASSES] = {
	"0 (sequential)", "<= 0.1%", "<= 1%", "<= 10%", "<= 25%", "<= 50%", "<= 100%",
};
const uint32_t st_depth_bound[ST_DEPTH_CLASSES - 1] = { 0, 1, 2, 4, 8, 16, 32, 64, 128, 256 };
const uint64_t st_idle_bound[ST_IDLE_CLASSES - 1] = {
	10000, 100000, 1000000, 10000000, 100000000, 1000000000,
};

unsigned st_size_class(uint64_t bytes)
{
	unsigned k;

	if (bytes == 0)
		return 0;
	k = bytes == 1 ? 1 : 1 + (64 - __builtin_clzll(bytes - 1));
	return k < ST_SIZE_CLASSES - 1 ? k : ST_SIZE_CLASSES - 1;
}

const char *st_size_label(unsigned k, char *buf, size_t len)
{
	static const char *unit[] = { "B", "KiB", "MiB" };
	uint64_t hi;
	int u = 0;

	if (k == 0)
		return snprintf(buf, len, "0"), buf;
	if (k >= ST_SIZE_CLASSES - 1)
		return snprintf(buf, len, "> 16 MiB"), buf;
	hi = 1ull << (k - 1);
	while (hi >= 1024 && u < 2) {
		hi /= 1024;
		u++;
	}
	snprintf(buf, len, "%llu %s", (unsigned long long)hi, unit[u]);
	return buf;
}
