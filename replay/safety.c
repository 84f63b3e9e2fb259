/*
 * safety.c — refusing busy devices and unwanted writes (see safety.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "loopback.h"
#include "safety.h"

const struct safety_paths safety_system_paths = {
	.mountinfo = "/proc/self/mountinfo",
	.swaps = "/proc/swaps",
	.sysfs = "/sys",
	.dev = "/dev",
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

/*
 * 1 when `path` names what `target` describes: for a block device, the
 * same device or a partition of it or its disk; for a regular file, the
 * same file (device and inode, so links and other names count too).
 */
static int names_target(const struct safety_paths *sp, const struct stat *target,
			const char *path)
{
	struct stat st;

	if (path[0] != '/' || stat(path, &st))
		return 0;
	if (S_ISBLK(target->st_mode))
		return S_ISBLK(st.st_mode) && safety_related(sp, target->st_rdev, st.st_rdev);
	return S_ISREG(target->st_mode) && S_ISREG(st.st_mode) &&
	       st.st_dev == target->st_dev && st.st_ino == target->st_ino;
}

/*
 * Call fn(line, ctx) for each line of `path` until it returns nonzero;
 * returns that value, 0 at the end, or -errno when the file cannot be
 * opened (0 for a missing file when missing_ok).
 */
static int scan_lines(const char *path, int missing_ok,
		      int (*fn)(const char *line, void *ctx), void *ctx)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	int found = 0;

	if (!f)
		return missing_ok && errno == ENOENT ? 0 : -errno;
	while (!found && getline(&line, &cap, f) > 0)
		found = fn(line, ctx);
	free(line);
	fclose(f);
	return found;
}

/* What a table scan looks for, and where it puts the name it found. */
struct scan_ctx {
	const struct safety_paths *sp;
	dev_t dev;
	const struct stat *target; /* swap scan: the device or file */
	char *out;
	size_t len;
};

/* A mountinfo line: "36 25 MAJ:MIN ROOT MOUNTPOINT OPTS ... - FSTYPE SOURCE ..." */
static int mount_line(const char *line, void *arg)
{
	struct scan_ctx *c = arg;
	unsigned ma, mi;
	char src[PATH_MAX], raw[PATH_MAX], usrc[PATH_MAX];
	const char *dash = strstr(line, " - ");
	dev_t s = 0;

	if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &ma, &mi, raw) != 3)
		return 0;
	if (dash && sscanf(dash + 3, "%*s %4095s", src) == 1) {
		unescape(src, usrc, sizeof(usrc));
		s = blkdev_of_path(usrc);
	}
	if ((ma && safety_related(c->sp, c->dev, makedev(ma, mi))) ||
	    (s && safety_related(c->sp, c->dev, s))) {
		unescape(raw, c->out, c->len);
		return 1;
	}
	return 0;
}

int safety_find_mount(const struct safety_paths *sp, dev_t dev, char *where,
		      size_t len)
{
	struct scan_ctx c = { sp, dev, NULL, where, len };

	return scan_lines(sp->mountinfo, 0, mount_line, &c);
}

/* A /proc/swaps line: "FILENAME TYPE SIZE USED PRIORITY" (or the header). */
static int swap_line(const char *line, void *arg)
{
	struct scan_ctx *c = arg;
	char raw[PATH_MAX], name[PATH_MAX];

	if (sscanf(line, "%4095s", raw) != 1 || raw[0] != '/')
		return 0;
	unescape(raw, name, sizeof(name));
	if (names_target(c->sp, c->target, name)) {
		snprintf(c->out, c->len, "%s", name);
		return 1;
	}
	return 0;
}

int safety_find_swap(const struct safety_paths *sp, dev_t dev, char *what,
		     size_t len)
{
	struct stat st = { .st_mode = S_IFBLK, .st_rdev = dev };

	return safety_find_swap_of(sp, &st, what, len);
}

int safety_find_swap_of(const struct safety_paths *sp, const struct stat *target,
			char *what, size_t len)
{
	struct scan_ctx c = { sp, 0, target, what, len };

	return scan_lines(sp->swaps, 1, swap_line, &c); /* no swap support: none */
}

/* safety_find_loop's question for a block device: the loop device's
 * backing path names it (or a related device), or, when the path names
 * nothing now, the loop device's own status does. Regular files are
 * common/loopback.c's. */
struct find_blk {
	const struct safety_paths *sp;
	const struct stat *target;
	char *loop;
	size_t len;
};

static int backs_blkdev(const char *name, const char *backing, void *arg)
{
	struct find_blk *c = arg;
	struct stat bst;
	dev_t dev, rdev;
	ino_t ino;

	if (names_target(c->sp, c->target, backing) ||
	    (stat(backing, &bst) && !loopback_status(c->sp->dev, name, &dev, &ino, &rdev) && rdev &&
	     safety_related(c->sp, c->target->st_rdev, rdev))) {
		snprintf(c->loop, c->len, "/dev/%s", name);
		return 1;
	}
	return 0;
}

int safety_find_loop(const struct safety_paths *sp, const struct stat *target,
		     char *loop, size_t len)
{
	struct find_blk c = { sp, target, loop, len };

	if (S_ISREG(target->st_mode))
		return loopback_find_file(sp->sysfs, sp->dev, target, loop, len);
	if (!S_ISBLK(target->st_mode))
		return 0;
	return loopback_each(sp->sysfs, backs_blkdev, &c);
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

/* The loop-device part of both checks. */
static int check_loops(const struct safety_paths *sp, const char *path,
		       const struct stat *st, struct bpt_error *error)
{
	char what[PATH_MAX];
	int rc = safety_find_loop(sp, st, what, sizeof(what));

	if (rc < 0) {
		bpt_error_set(error, -EBUSY, "%s: cannot read %s/block: %s, refusing to use it", path,
			 sp->sysfs, strerror(-rc));
		return -EBUSY;
	}
	if (rc) {
		bpt_error_set(error, -EBUSY, "%s: in use by %s (loop device backed by it), refusing to use it",
			 path, what);
		return -EBUSY;
	}
	return 0;
}

int safety_check_blkdev(const struct safety_paths *sp, const char *path,
			dev_t dev, struct bpt_error *error)
{
	char what[PATH_MAX];
	int rc;

	rc = safety_find_mount(sp, dev, what, sizeof(what));
	if (rc < 0) {
		bpt_error_set(error, -EBUSY, "%s: cannot read %s: %s, refusing to use it", path,
			 sp->mountinfo, strerror(-rc));
		return -EBUSY;
	}
	if (rc) {
		bpt_error_set(error, -EBUSY, "%s: mounted at %s, refusing to use it", path, what);
		return -EBUSY;
	}
	rc = safety_find_swap(sp, dev, what, sizeof(what));
	if (rc) {
		bpt_error_set(error, -EBUSY, "%s: %s%s, refusing to use it", path,
			 rc > 0 ? "in use as swap: " : "cannot read swap table: ",
			 rc > 0 ? what : strerror(-rc));
		return -EBUSY;
	}
	if (safety_find_holder(sp, dev, what, sizeof(what))) {
		bpt_error_set(error, -EBUSY, "%s: held by %s, refusing to use it", path, what);
		return -EBUSY;
	}
	struct stat st = { .st_mode = S_IFBLK, .st_rdev = dev };

	return check_loops(sp, path, &st, error);
}

int safety_check_file(const struct safety_paths *sp, const char *path,
		      const struct stat *st, struct bpt_error *error)
{
	char what[PATH_MAX];
	int rc = safety_find_swap_of(sp, st, what, sizeof(what));

	if (rc) {
		bpt_error_set(error, -EBUSY, "%s: %s%s, refusing to use it", path,
			 rc > 0 ? "in use as swap: " : "cannot read swap table: ",
			 rc > 0 ? what : strerror(-rc));
		return -EBUSY;
	}
	return check_loops(sp, path, st, error);
}

int safety_write_policy(const char *path, uint64_t nwrites, int allow_write,
			struct bpt_error *error)
{
	if (!nwrites || allow_write)
		return 0;
	bpt_error_set(error, -EPERM,
		 "%s: the trace has %llu write%s that would destroy data on this device, "
		 "refusing without --allow-write (or --writes skip|as-reads)",
		 path, (unsigned long long)nwrites, nwrites == 1 ? "" : "s");
	return -EPERM;
}

int safety_file_policy(const char *path, int exists, uint64_t size,
		       uint64_t create_size, uint64_t *new_size, struct bpt_error *error)
{
	*new_size = 0;
	if (!exists && !create_size) {
		bpt_error_set(error, -ENOENT, "%s: no such file; --create SIZE creates it", path);
		return -ENOENT;
	}
	if (create_size > size)
		*new_size = create_size;
	return 0;
}
