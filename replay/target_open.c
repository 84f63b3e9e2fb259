/*
 * target_open.c — opening a target's members after the safety checks and
 * building the layout over them (target.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safety.h"
#include "target.h"
#include "array/wcache.h"

void target_close(struct target *t)
{
	for (unsigned i = 0; i < t->spec.nmembers; i++)
		if (t->fd[i] >= 0)
			close(t->fd[i]);
	wcache_free(t->wc);
	t->wc = NULL;
	target_spec_free(&t->spec);
}

void target_discard(struct target *t)
{
	for (unsigned i = 0; i < t->spec.nmembers; i++) {
		struct stat a, b;

		if (t->fd[i] < 0)
			continue;
		if (t->created[i]) {
			/* only while the path is still the file we made */
			if (!fstat(t->fd[i], &a) && !stat(t->spec.members[i], &b) &&
			    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
				unlink(t->spec.members[i]);
		} else if (t->old_size[i] >= 0 && ftruncate(t->fd[i], (off_t)t->old_size[i])) {
			/* best effort: the extension holds only zeros */
		}
	}
	target_close(t);
}

/*
 * A file target is locked for the replay's time, as a block device is by
 * O_EXCL: a second replay or measure writing the same file at once would
 * mix its writes into the first's and ruin both timings. A process-owned
 * (POSIX) lock, so one replay may open the same file for several
 * recorded devices (a mix onto one target); the kernel drops it when the
 * replay ends, however it ends. A write lock when the replay writes,
 * else a read lock: two replays that only read may share a file.
 */
static int lock_file(int fd, const char *path, int writing, struct bpt_error *error)
{
	struct flock fl = { .l_type = writing ? F_WRLCK : F_RDLCK, .l_whence = SEEK_SET };

	if (!fcntl(fd, F_SETLK, &fl))
		return 0;
	if (errno != EAGAIN && errno != EACCES) {
		int rc = -errno;

		bpt_error_set(error, rc, "%s: cannot lock it: %s", path, strerror(errno));
		return rc;
	}
	fl.l_type = writing ? F_WRLCK : F_RDLCK;
	if (!fcntl(fd, F_GETLK, &fl) && fl.l_type != F_UNLCK && fl.l_pid > 0)
		bpt_error_set(error, -EBUSY, "%s: in use by PID %ld (another replay or measure), "
			      "refusing to use it", path, (long)fl.l_pid);
	else
		bpt_error_set(error, -EBUSY, "%s: in use by another process, refusing to use it",
			      path);
	return -EBUSY;
}

/* Open member `i` of t->spec; fill fd, size, block size. */
static int open_member(struct target *t, unsigned i, const struct target_policy *pol,
		       struct bpt_error *error)
{
	const char *path = t->spec.members[i];
	int wr = pol->writes_replayed;
	struct stat st;
	int rc, fd;

	int exists = stat(path, &st) == 0;

	if (!exists && errno != ENOENT) {
		rc = -errno;
		bpt_error_set(error, rc, "%s: %s", path, strerror(errno));
		return rc;
	}
	if (!exists) {
		memset(&st, 0, sizeof(st));
		st.st_mode = S_IFREG;
	}
	if (S_ISBLK(st.st_mode)) {
		uint64_t size;
		int lbs;

		rc = safety_check_blkdev(&safety_system_paths, path, st.st_rdev, error);
		if (rc)
			return rc;
		if (wr) {
			rc = safety_write_policy(path, pol->nwrites, pol->allow_write, error);
			if (rc)
				return rc;
		}
		fd = open(path, (wr ? O_RDWR : O_RDONLY) | O_DIRECT | O_EXCL | O_CLOEXEC);
		if (fd < 0) {
			rc = -errno;
			if (errno == EBUSY)
				bpt_error_set(error, rc, "%s: busy (open exclusively elsewhere: mounted, "
						   "part of an array or in use), refusing to use it", path);
			else
				bpt_error_set(error, rc, "%s: cannot open: %s", path, strerror(errno));
			return rc;
		}
		if (ioctl(fd, BLKGETSIZE64, &size) || ioctl(fd, BLKSSZGET, &lbs)) {
			rc = -errno;
			bpt_error_set(error, rc, "%s: cannot read its size: %s", path, strerror(errno));
			close(fd);
			return rc;
		}
		t->fd[i] = fd;
		t->is_blkdev[i] = 1;
		t->layout.member_size[i] = size;
		t->lbs[i] = (unsigned)lbs;
		return 0;
	}
	if (!S_ISREG(st.st_mode)) {
		bpt_error_set(error, -EINVAL, "%s: not a block device or a regular file", path);
		return -EINVAL;
	}
	uint64_t new_size;

	if (exists) {
		rc = safety_check_file(&safety_system_paths, path, &st, error);
		if (rc)
			return rc;
	}
	rc = safety_file_policy(path, exists, exists ? (uint64_t)st.st_size : 0,
				pol->create_size, &new_size, error);
	if (rc)
		return rc;
	int flags = (wr || new_size ? O_RDWR : O_RDONLY) | O_CLOEXEC | (new_size ? O_CREAT : 0);
	fd = open(path, flags | O_DIRECT, 0644);
	if (fd < 0 && errno == EINVAL)
		fd = open(path, flags, 0644); /* a file system without O_DIRECT */
	if (fd < 0) {
		rc = -errno;
		bpt_error_set(error, rc, "%s: cannot open: %s", path, strerror(errno));
		return rc;
	}
	/* before anything changes the file: another replay may be using it */
	rc = lock_file(fd, path, (flags & O_ACCMODE) == O_RDWR, error);
	if (rc) {
		close(fd);
		return rc;
	}
	if (new_size && ftruncate(fd, (off_t)new_size)) {
		rc = -errno;
		bpt_error_set(error, rc, "%s: cannot make it %llu bytes: %s", path,
			 (unsigned long long)new_size, strerror(errno));
		if (!exists)
			unlink(path);
		else if (ftruncate(fd, st.st_size)) {
			/* best effort */
		}
		close(fd);
		return rc;
	}
	t->created[i] = !exists;
	t->old_size[i] = exists && new_size ? (int64_t)st.st_size : -1;
	if (fstat(fd, &st)) {
		rc = -errno;
		close(fd);
		return rc;
	}
	t->fd[i] = fd;
	t->is_blkdev[i] = 0;
	t->layout.member_size[i] = (uint64_t)st.st_size;
	t->lbs[i] = 512;
	return 0;
}

/* -EINVAL when two members are the same device or file. */
static int check_distinct(struct target *t, struct bpt_error *error)
{
	for (unsigned i = 0; i < t->spec.nmembers; i++)
		for (unsigned j = 0; j < i; j++) {
			struct stat a, b;

			if (fstat(t->fd[i], &a) || fstat(t->fd[j], &b))
				continue;
			if ((S_ISBLK(a.st_mode) && S_ISBLK(b.st_mode) && a.st_rdev == b.st_rdev) ||
			    (a.st_dev == b.st_dev && a.st_ino == b.st_ino)) {
				bpt_error_set(error, -EINVAL, "%s and %s are the same %s", t->spec.members[j],
					 t->spec.members[i], S_ISBLK(a.st_mode) ? "device" : "file");
				return -EINVAL;
			}
		}
	return 0;
}

int target_open(struct target *t, const char *text,
		const struct target_policy *pol, struct bpt_error *error)
{
	int rc;

	memset(t, 0, sizeof(*t));
	for (unsigned i = 0; i < LAYOUT_MAX_MEMBERS; i++) {
		t->fd[i] = -1;
		t->old_size[i] = -1;
	}
	snprintf(t->text, sizeof(t->text), "%s", text);
	rc = target_spec_parse(text, &t->spec, error);
	if (rc)
		return rc;
	t->align = 512;
	for (unsigned i = 0; i < t->spec.nmembers; i++) {
		rc = open_member(t, i, pol, error);
		if (rc)
			goto fail;
		if (t->lbs[i] > t->align)
			t->align = t->lbs[i];
	}
	rc = check_distinct(t, error);
	if (rc)
		goto fail;
	t->layout.kind = t->spec.kind;
	t->layout.nmembers = t->spec.nmembers;
	t->layout.chunk = t->spec.chunk;
	t->layout.algo = t->spec.algo;
	t->layout.missing = t->spec.missing;
	rc = layout_init(&t->layout);
	if (rc) {
		bpt_error_set(error, rc, "%s: %s", text,
			 rc == -ENOSPC ? "members are smaller than one chunk"
				       : "invalid layout");
		goto fail;
	}
	if (t->spec.cache) {
		rc = wcache_create(&t->wc, &t->layout, t->spec.cache, t->spec.destage_pct);
		if (rc) {
			bpt_error_set(error, rc, "%s: cache=%llu: %s", text,
				      (unsigned long long)t->spec.cache,
				      rc == -ENOMEM ? "out of memory" : "invalid cache");
			goto fail;
		}
	}
	return 0;
fail:
	target_discard(t);
	return rc;
}
