/*
 * wcache.c — the write cache state of a target's members, as the kernel
 * shows it in /sys/dev/block/MAJ:MIN/queue/write_cache ("write back" or
 * "write through"; a partition's is its disk's). Commit rates depend on
 * it: without a write cache a flush waits for the platter.
 *
 * The members are found in the target spec the way a person reads it:
 * every piece between ':' and ',' that names an existing block device.
 * A member that is a regular file has no state of its own ("none (file)").
 * An emulated disk (hdd:MODEL:PATH) has its model's cache, which the
 * state names: "emulated: hdd:7200,wcache=off" (replay's disk model
 * decides; schemas/disk-model.md).
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "measure.h"

static int read_state(dev_t rdev, char *buf, size_t len)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/write_cache", major(rdev),
		 minor(rdev));
	f = fopen(path, "r");
	if (!f) {
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../queue/write_cache",
			 major(rdev), minor(rdev));
		f = fopen(path, "r");
	}
	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

void measure_write_cache(const char *target, char *buf, size_t len)
{
	char spec[512], *save = NULL, *tok, state[32];
	int devices = 0, files = 0, mixed = 0;

	snprintf(buf, len, "unknown");
	if (strstr(target, "hdd:")) {
		const char *m = strstr(target, "hdd:"), *end = strchr(m + 4, ':');
		int l = end ? (int)(end - m) : (int)strlen(m);

		snprintf(buf, len, "emulated: %.*s%s", l, m, strstr(m + 4, "hdd:") ? ", ..." : "");
		return;
	}
	snprintf(spec, sizeof(spec), "%s", target);
	for (tok = strtok_r(spec, ":,", &save); tok; tok = strtok_r(NULL, ":,", &save)) {
		struct stat st;

		if (stat(tok, &st))
			continue;
		if (S_ISREG(st.st_mode)) {
			files++;
			continue;
		}
		if (!S_ISBLK(st.st_mode) || read_state(st.st_rdev, state, sizeof(state)))
			continue;
		if (!devices++)
			snprintf(buf, len, "%s", state);
		else if (strcmp(buf, state))
			mixed = 1;
	}
	if (mixed)
		snprintf(buf, len, "mixed");
	else if (!devices && files)
		snprintf(buf, len, "none (file)");
}
