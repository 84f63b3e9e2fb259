/*
 * loopback.h — which loop devices a file backs. One reading of the loop
 * devices' state for every check that must not destroy a disk's
 * contents: replay's targets (replay/safety.c, block devices and files)
 * and every output file (common/outfile.c: replacing a file that backs
 * an attached loop device leaves the disk on a deleted file, its
 * contents gone once it is detached).
 *
 * Each attached loop device has SYSFS/block/loopN/loop/backing_file (its
 * backing file's path, " (deleted)" appended when it was removed); when
 * that path no longer resolves, the device itself is asked
 * (LOOP_GET_STATUS64 on DEVDIR/loopN) for the backing file's device and
 * inode. The paths are parameters so that the logic runs on fixture
 * trees in tests. Nothing here prints.
 */
#ifndef BLKPEAK_LOOPBACK_H
#define BLKPEAK_LOOPBACK_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/*
 * Call fn(name, backing, arg) for each attached loop device under
 * SYSFS/block ("loop3", its backing file's path) until fn returns
 * nonzero; returns that value, 0 when none did or there is no
 * SYSFS/block, or -errno when it cannot be read.
 */
int loopback_each(const char *sysfs, int (*fn)(const char *name, const char *backing, void *arg),
		  void *arg);

/*
 * The loop device DEVDIR/NAME's own view (LOOP_GET_STATUS64): the device
 * and inode of its backing file and, for a block device backing it, that
 * device (*rdev, else 0). 0, or -errno (also when devdir is NULL).
 */
int loopback_status(const char *devdir, const char *name, dev_t *dev, ino_t *ino, dev_t *rdev);

/*
 * 1 and "/dev/loopN" in loop[len] when the regular file `file` (by
 * device and inode, so through any link or name) backs an attached loop
 * device; 0 when none; -errno when SYSFS/block cannot be read.
 */
int loopback_find_file(const char *sysfs, const char *devdir, const struct stat *file,
		       char *loop, size_t len);

#endif
