/* loopback.c — which loop devices a file backs (loopback.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/loop.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "loopback.h"

/* sysfs `loop/backing_file`: the path (which may hold any byte but NUL,
 * newlines too), a newline, and " (deleted)" before it when the file was
 * removed (it then names nothing to compare). 1 when attached. */
static int read_backing_file(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return 0;
	n = fread(out, 1, len - 1, f);
	fclose(f);
	out[n] = 0;
	if (n && out[n - 1] == '\n')
		out[--n] = 0;
	return n > 0;
}

int loopback_each(const char *sysfs, int (*fn)(const char *name, const char *backing, void *arg),
		  void *arg)
{
	char dir[PATH_MAX], path[PATH_MAX + 300], backing[PATH_MAX];
	DIR *d;
	struct dirent *e;
	int found = 0;

	snprintf(dir, sizeof(dir), "%s/block", sysfs);
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while (!found && (e = readdir(d))) {
		if (strncmp(e->d_name, "loop", 4))
			continue;
		snprintf(path, sizeof(path), "%s/%s/loop/backing_file", dir, e->d_name);
		if (read_backing_file(path, backing, sizeof(backing)))
			found = fn(e->d_name, backing, arg);
	}
	closedir(d);
	return found;
}

/* The kernel's huge_encode_dev() of a loop_info64 device number, decoded. */
static dev_t loop_dev(uint64_t x)
{
	return makedev((unsigned)((x >> 8) & 0xfff), (unsigned)((x & 0xff) | ((x >> 12) & 0xfff00)));
}

int loopback_status(const char *devdir, const char *name, dev_t *dev, ino_t *ino, dev_t *rdev)
{
	char path[PATH_MAX];
	struct loop_info64 li;
	int fd, rc = 0;

	if (!devdir)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/%s", devdir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, LOOP_GET_STATUS64, &li))
		rc = -errno;
	close(fd);
	if (rc)
		return rc;
	*dev = loop_dev(li.lo_device);
	*ino = (ino_t)li.lo_inode;
	*rdev = li.lo_rdevice ? loop_dev(li.lo_rdevice) : 0;
	return 0;
}

struct find_file {
	const char *devdir;
	const struct stat *file;
	char *loop;
	size_t len;
};

static int backs_file(const char *name, const char *backing, void *arg)
{
	struct find_file *c = arg;
	struct stat st;
	dev_t dev, rdev;
	ino_t ino;

	if (backing[0] == '/' && !stat(backing, &st)) {
		if (!S_ISREG(st.st_mode) || st.st_dev != c->file->st_dev || st.st_ino != c->file->st_ino)
			return 0;
	} else if (loopback_status(c->devdir, name, &dev, &ino, &rdev) ||
		   dev != c->file->st_dev || ino != c->file->st_ino) {
		return 0; /* the path names nothing now: ask the device */
	}
	snprintf(c->loop, c->len, "/dev/%s", name);
	return 1;
}

int loopback_find_file(const char *sysfs, const char *devdir, const struct stat *file,
		       char *loop, size_t len)
{
	struct find_file c = { devdir, file, loop, len };

	if (!S_ISREG(file->st_mode))
		return 0;
	return loopback_each(sysfs, backs_file, &c);
}
