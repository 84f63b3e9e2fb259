/*
 * safety.c — refusing busy devices and unwanted writes (see safety.h).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "safety.h"

const struct safety_paths safety_system_paths = {
	.mountinfo = "/proc/self/mountinfo",
	.swaps = "/proc/swaps",
	.sysfs = "/sys",
};

/* Read "MAJ:MIN" from a sysfs `dev` file; 0 on failure. */
static dev_t read_dev_file(const char *path)
{
	unsigned ma, mi;
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return 0;
	ok = fscanf(f, "%u:%u", &ma, &mi) == 2;
	fclose(f);
	return ok ? makedev(ma, mi) : 0;
}

dev_t safety_disk_of(const struct safety_paths *sp, dev_t dev)
{
	char path[PATH_MAX + 16], real[PATH_MAX];
	dev_t parent;

	snprintf(path, sizeof(path), "%s/dev/block/%u:%u", sp->sysfs, major(dev),
		 minor(dev));
	if (!realpath(path, real))
		return dev;
	snprintf(path, sizeof(path), "%s/partition", real);
	if (access(path, F_OK))
		return dev;
	snprintf(path, sizeof(path), "%s/../dev", real);
	parent = read_dev_file(path);
	return parent ? parent : dev;
}

int safety_related(const struct safety_paths *sp, dev_t a, dev_t b)
{
	return a == b || safety_disk_of(sp, a) == b || safety_disk_of(sp, b) == a;
}

/* Undo the octal escapes (\040 space, \011 tab, \012, \134) of mount tables. */
static void unescape(const char *in, char *out, size_t len)
{
	size_t o = 0;

	for (; *in && o + 1 < len; o++) {
		if (in[0] == '\\' && in[1] >= '0' && in[1] <= '3' && in[2] >= '0' &&
		    in[2] <= '7' && in[3] >= '0' && in[3] <= '7') {
			out[o] = (char)((in[1] - '0') * 64 + (in[2] - '0') * 8 + (in[3] - '0'));
			in += 4;
		} else {
			out[o] = *in++;
		}
	}
	out[o] = 0;
}

/* Device number of a path naming a block device, or 0. */
static dev_t blkdev_of_path(const char *path)
{
	struct stat st;

	if (path[0] != '/' || stat(path, &st) || !S_ISBLK(st.st_mode))
		return 0;
	return st.st_rdev;
}

int safety_find_mount(const struct safety_paths *sp, dev_t dev, char *where,
		      size_t len)
{
	FILE *f = fopen(sp->mountinfo, "r");
	char *line = NULL;
	size_t cap = 0;
	int found = 0;

	if (!f)
		return -errno;
	while (!found && getline(&line, &cap, f) > 0) {
		unsigned ma, mi;
		char mnt[PATH_MAX], src[PATH_MAX], raw[PATH_MAX];
		const char *dash = strstr(line, " - ");
		dev_t d, s;

		if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &ma, &mi, raw) != 3)
			continue;
		d = makedev(ma, mi);
		s = 0;
		if (dash && sscanf(dash + 3, "%*s %4095s", src) == 1) {
			char usrc[PATH_MAX];

			unescape(src, usrc, sizeof(usrc));
			s = blkdev_of_path(usrc);
		}
		if ((ma && safety_related(sp, dev, d)) || (s && safety_related(sp, dev, s))) {
			unescape(raw, mnt, sizeof(mnt));
			snprintf(where, len, "%s", mnt);
			found = 1;
		}
	}
	free(line);
	fclose(f);
	return found;
}

int safety_find_swap(const struct safety_paths *sp, dev_t dev, char *what,
		     size_t len)
{
	FILE *f = fopen(sp->swaps, "r");
	char *line = NULL;
	size_t cap = 0;
	int found = 0;

	if (!f)
		return errno == ENOENT ? 0 : -errno; /* no swap support */
	while (!found && getline(&line, &cap, f) > 0) {
		char raw[PATH_MAX], name[PATH_MAX];
		dev_t s;

		if (sscanf(line, "%4095s", raw) != 1 || raw[0] != '/')
			continue; /* header line */
		unescape(raw, name, sizeof(name));
		s = blkdev_of_path(name);
		if (s && safety_related(sp, dev, s)) {
			snprintf(what, len, "%s", name);
			found = 1;
		}
	}
	free(line);
	fclose(f);
	return found;
}

/* First entry of directory `dir` other than . and .., into name[len]. */
static int first_entry(const char *dir, char *name, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	if (!d)
		return 0;
	while (!found && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(name, len, "%s", e->d_name);
			found = 1;
		}
	closedir(d);
	return found;
}

int safety_find_holder(const struct safety_paths *sp, dev_t dev, char *holder,
		       size_t len)
{
	char base[PATH_MAX], path[PATH_MAX + 300];
	DIR *d;
	struct dirent *e;
	int found;

	snprintf(base, sizeof(base), "%s/dev/block/%u:%u", sp->sysfs, major(dev),
		 minor(dev));
	snprintf(path, sizeof(path), "%s/holders", base);
	if (first_entry(path, holder, len))
		return 1;
	/* the partitions of a whole disk are its subdirectories with a
	 * `partition` file */
	d = opendir(base);
	if (!d)
		return 0;
	found = 0;
	while (!found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/partition", base, e->d_name);
		if (access(path, F_OK))
			continue;
		snprintf(path, sizeof(path), "%s/%s/holders", base, e->d_name);
		found = first_entry(path, holder, len);
	}
	closedir(d);
	return found;
}

int safety_check_blkdev(const struct safety_paths *sp, const char *path,
			dev_t dev, char *why, size_t len)
{
	char what[PATH_MAX];
	int rc;

	rc = safety_find_mount(sp, dev, what, sizeof(what));
	if (rc < 0) {
		snprintf(why, len, "%s: cannot read %s: %s, refusing to use it", path,
			 sp->mountinfo, strerror(-rc));
		return -EBUSY;
	}
	if (rc) {
		snprintf(why, len, "%s: mounted at %s, refusing to use it", path, what);
		return -EBUSY;
	}
	rc = safety_find_swap(sp, dev, what, sizeof(what));
	if (rc) {
		snprintf(why, len, "%s: %s%s, refusing to use it", path,
			 rc > 0 ? "in use as swap: " : "cannot read swap table: ",
			 rc > 0 ? what : strerror(-rc));
		return -EBUSY;
	}
	if (safety_find_holder(sp, dev, what, sizeof(what))) {
		snprintf(why, len, "%s: held by %s, refusing to use it", path, what);
		return -EBUSY;
	}
	return 0;
}

int safety_write_policy(const char *path, uint64_t nwrites, int allow_write,
			char *why, size_t len)
{
	if (!nwrites || allow_write)
		return 0;
	snprintf(why, len,
		 "%s: the trace has %llu write%s that would destroy data on this device, "
		 "refusing without --allow-write (or --writes skip|as-reads)",
		 path, (unsigned long long)nwrites, nwrites == 1 ? "" : "s");
	return -EPERM;
}

int safety_file_policy(const char *path, int exists, uint64_t size,
		       uint64_t create_size, uint64_t *new_size, char *why,
		       size_t len)
{
	*new_size = 0;
	if (!exists && !create_size) {
		snprintf(why, len, "%s: no such file; --create SIZE creates it", path);
		return -ENOENT;
	}
	if (create_size > size)
		*new_size = create_size;
	return 0;
}
