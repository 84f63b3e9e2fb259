/* outfile.c — safe, locked, all-or-nothing output files (outfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "filekind.h"
#include "loopback.h"
#include "outfile.h"
#include "sigunlink.h"

int outfile_check(const char *path, const char *what, const char *const *inputs,
		  struct bpt_error *error)
{
	struct stat st, in;

	if (!what)
		what = "a file";
	if (!*path) {
		bpt_error_set(error, -EINVAL, "'': an empty path");
		return -EINVAL;
	}
	/* stat, not lstat: a symbolic link is judged by what it points to,
	 * so a link to a device or to an input is refused like the thing. */
	if (stat(path, &st)) {
		if (errno == ENOENT)
			return 0;
		bpt_error_set(error, -errno, "%s: cannot write %s there: %s", path, what, strerror(errno));
		return -errno;
	}
	if (!S_ISREG(st.st_mode)) {
		bpt_error_set(error, S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL, "%s: %s, refusing to write %s there", path,
			 file_kind(st.st_mode), what);
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	for (size_t i = 0; inputs && inputs[i]; i++) {
		if (stat(inputs[i], &in) || in.st_dev != st.st_dev || in.st_ino != st.st_ino)
			continue;
		if (!strcmp(inputs[i], path))
			bpt_error_set(error, -EEXIST, "%s: an input of this command, refusing to write %s there",
				 path, what);
		else
			bpt_error_set(error, -EEXIST, "%s: the same file as the input %s, refusing to write %s there",
				 path, inputs[i], what);
		return -EEXIST;
	}
	char loop[300];
	int rc = loopback_find_file("/sys", "/dev", &st, loop, sizeof(loop));

	if (rc > 0) {
		bpt_error_set(error, -EBUSY, "%s: backs the loop device %s (its disk), refusing to "
			      "write %s there", path, loop, what);
		return -EBUSY;
	}
	if (rc < 0) {
		bpt_error_set(error, rc, "%s: cannot tell whether it backs a loop device (/sys/block: "
			      "%s), refusing to write %s there", path, strerror(-rc), what);
		return rc;
	}
	return 0;
}

/* DIR/.NAME.lock for DIR/NAME; NULL when PATH names no file. */
static char *lock_path(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	char *lock;

	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return NULL;
	if (asprintf(&lock, "%.*s.%s.lock", (int)(base - path), path, base) < 0)
		return NULL;
	return lock;
}

/* The PID written into a lock file by its holder; 0 when not (yet) known. */
static long lock_owner(int fd)
{
	char buf[24];

	for (int tries = 0; tries < 50; tries++) {
		ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

		if (n > 0) {
			buf[n] = 0;
			return strtol(buf, NULL, 10);
		}
		/* the holder has the lock but has not written its PID yet */
		nanosleep(&(struct timespec){ 0, 2000000 }, NULL);
	}
	return 0;
}

/*
 * Take the exclusive lock of o->path: 0, -EBUSY when another open file
 * holds it, or -errno. A holder removes the lock file before it lets go,
 * so a lock taken on a file that is no longer at the lock path is worth
 * nothing: then try again on the new one.
 */
static int take_lock(struct outfile *o)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct stat held, now;
	char pid[24];

	o->lock = lock_path(o->path);
	if (!o->lock) {
		bpt_error_set(&o->err, -EISDIR, "%s: names a directory, not a file", o->path);
		return -EISDIR;
	}
	for (int tries = 0; tries < 100; tries++) {
		int fd = open(o->lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);

		if (fd < 0) {
			int err = -errno;

			/* the folder is missing or not writable: say it of the output */
			bpt_error_set(&o->err, err, "%s: cannot create: %s", o->path,
				 strerror(-err));
			return err;
		}
		if (fstat(fd, &held) || !S_ISREG(held.st_mode)) {
			bpt_error_set(&o->err, -EINVAL, "%s: the lock file %s is not a regular file",
				 o->path, o->lock);
			close(fd);
			return -EINVAL;
		}
		if (fcntl(fd, F_OFD_SETLK, &fl)) {
			int err = errno;
			long owner = err == EAGAIN || err == EACCES ? lock_owner(fd) : 0;

			close(fd);
			if (err != EAGAIN && err != EACCES) {
				bpt_error_set(&o->err, -err, "%s: cannot lock %s: %s", o->path,
					 o->lock, strerror(err));
				return -err;
			}
			if (owner > 0)
				bpt_error_set(&o->err, -EBUSY, "%s: in use by PID %ld", o->path, owner);
			else
				bpt_error_set(&o->err, -EBUSY, "%s: in use by another process", o->path);
			return -EBUSY;
		}
		if (stat(o->lock, &now) || now.st_dev != held.st_dev || now.st_ino != held.st_ino) {
			close(fd); /* its last holder removed it meanwhile */
			continue;
		}
		int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());

		if (ftruncate(fd, 0) || pwrite(fd, pid, (size_t)n, 0) != n) {
			int err = -errno;

			bpt_error_set(&o->err, err, "%s: cannot write the lock file %s: %s",
				 o->path, o->lock, strerror(-err));
			unlink(o->lock);
			close(fd);
			return err;
		}
		o->lock_fd = fd;
		sigunlink_add(o->lock);
		return 0;
	}
	bpt_error_set(&o->err, -EBUSY, "%s: the lock file %s keeps changing", o->path, o->lock);
	return -EBUSY;
}

/* Remove the lock file, then let go of the lock (the order matters: see
 * take_lock). */
static void drop_lock(struct outfile *o)
{
	if (o->lock_fd >= 0) {
		sigunlink_remove(o->lock);
		unlink(o->lock);
		close(o->lock_fd);
	}
	o->lock_fd = -1;
}

static void release(struct outfile *o)
{
	if (o->tmp)
		sigunlink_remove(o->tmp);
	drop_lock(o);
	free(o->lock);
	free(o->tmp);
	free(o->path);
	o->lock = o->tmp = o->path = NULL;
	o->f = NULL;
}

int outfile_open(struct outfile *o, const char *path, const struct outfile_opts *opts)
{
	static const struct outfile_opts none;
	int fd, err;

	if (!opts)
		opts = &none;
	memset(o, 0, sizeof(*o));
	o->lock_fd = -1;
	if (opts->allow_stdout && !strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	err = outfile_check(path, opts->what, opts->inputs, &o->err);
	if (err)
		return err;
	o->path = strdup(path);
	if (!o->path) {
		bpt_error_set(&o->err, -ENOMEM, "%s: out of memory", path);
		return -ENOMEM;
	}
	if ((err = take_lock(o))) {
		release(o);
		return err;
	}
	if (asprintf(&o->tmp, "%s.tmp.XXXXXX", path) < 0) {
		o->tmp = NULL;
		bpt_error_set(&o->err, -ENOMEM, "%s: out of memory", path);
		release(o);
		return -ENOMEM;
	}
	fd = mkostemp(o->tmp, O_CLOEXEC);
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		err = -errno;
		bpt_error_set(&o->err, err, "%s: cannot create: %s", path, strerror(-err));
		if (fd >= 0) {
			close(fd);
			unlink(o->tmp);
		}
		release(o);
		return err;
	}
	/* a signal (Ctrl-C) before the file is in place removes it */
	sigunlink_add(o->tmp);
	/* mkstemp makes 0600; an output file gets the usual 0644 (umask applies). */
	mode_t um = umask(0);
	umask(um);
	fchmod(fd, 0666 & ~um);
	return 0;
}

int outfile_dup_fd(struct outfile *o)
{
	int fd = fcntl(fileno(o->f), F_DUPFD_CLOEXEC, 0);

	if (fd < 0) {
		bpt_error_set(&o->err, -errno, "%s: %s", o->path ? o->path : "standard output",
			 strerror(errno));
		return -errno;
	}
	return fd;
}

/* Rename the new file over the destination, checked once more: it may
 * have become something else since outfile_open(). */
static int put_in_place(struct outfile *o)
{
	struct stat st;

	if (!stat(o->path, &st) && !S_ISREG(st.st_mode)) {
		bpt_error_set(&o->err, S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL, "%s: %s now, refusing to replace it", o->path,
			 file_kind(st.st_mode));
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	if (rename(o->tmp, o->path)) {
		int err = -errno;

		bpt_error_set(&o->err, err, "%s: cannot rename %s to it: %s", o->path, o->tmp,
			 strerror(-err));
		return err;
	}
	sigunlink_remove(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
	o->placed = 1;
	return 0;
}

int outfile_place(struct outfile *o)
{
	if (!o->path || o->placed)
		return 0;
	if (fflush(o->f)) {
		bpt_error_set(&o->err, -errno, "%s: %s", o->path, strerror(errno));
		return -errno;
	}
	return put_in_place(o);
}

int outfile_close(struct outfile *o, int err)
{
	if (!o->f && !o->path)
		return err; /* never opened, or closed already */
	if (!o->path) {
		if (fflush(stdout) && !err) {
			err = -EIO;
			bpt_error_set(&o->err, err, "standard output: %s", strerror(errno));
		}
		o->f = NULL;
		return err;
	}
	if (fclose(o->f) && !err) {
		err = -errno;
		bpt_error_set(&o->err, err, "%s: cannot write: %s", o->path, strerror(-err));
	}
	o->f = NULL;
	if (!o->placed) {
		if (!err)
			err = put_in_place(o);
		if (err && o->tmp)
			unlink(o->tmp);
	}
	release(o);
	return err;
}
