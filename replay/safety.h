/*
 * safety.h — the checks that stand between a replay and someone's data.
 *
 * A target that anything is built on is never used, not even for reads:
 * a block device that is mounted (directly or through one of its
 * partitions), used as swap, held by another device (sysfs holders), the
 * backing of a loop device (also through a partition) or opened
 * exclusively elsewhere; a regular file that backs a loop device or is a
 * swap file (compared by device and inode). A loop device on a loop
 * device is caught the same way: the lower one backs the upper. Virtual
 * arrays apply the rules to every member. Writes
 * to a block device need --allow-write. A regular file is created or
 * extended only with --create SIZE. The functions here decide; they print
 * nothing and explain a refusal in `why`.
 *
 * The system files are read from the paths in struct safety_paths so that
 * the logic can be tested on fixture files without root.
 */
#ifndef BLKPEAK_SAFETY_H
#define BLKPEAK_SAFETY_H

#include <stddef.h>
#include <stdint.h>

#include "bpt.h"
#include <sys/stat.h>
#include <sys/types.h>

struct safety_paths {
	const char *mountinfo; /* /proc/self/mountinfo */
	const char *swaps;     /* /proc/swaps */
	const char *sysfs;     /* /sys */
	/* /dev, to ask a loop device itself (LOOP_GET_STATUS64) for its
	 * backing file's device and inode when sysfs names a path that no
	 * longer resolves (the file was deleted, another link remains);
	 * NULL: sysfs only */
	const char *dev;
};

extern const struct safety_paths safety_system_paths;

/* The whole disk `dev` belongs to: itself, or its parent when `dev` is a
 * partition (sysfs `partition` file). */
dev_t safety_disk_of(const struct safety_paths *sp, dev_t dev);

/* 1 when using `a` would touch `b`: the same device, or one is a
 * partition of the other. */
int safety_related(const struct safety_paths *sp, dev_t a, dev_t b);

/* 1 and the mount point (unescaped) in where[len] when `dev` or a related
 * device is mounted; 0 when not; negative errno when the table cannot be
 * read. Matches the major:minor column, and the source's device number
 * for file systems that report an anonymous one (btrfs). */
int safety_find_mount(const struct safety_paths *sp, dev_t dev, char *where,
		      size_t len);

/* 1 and the swap area's name when `dev` or a related device is swap. */
int safety_find_swap(const struct safety_paths *sp, dev_t dev, char *what,
		     size_t len);

/* 1 and the holder's name when `dev` or one of its partitions has holders
 * (device mapper, md, bcache...). */
int safety_find_holder(const struct safety_paths *sp, dev_t dev, char *holder,
		       size_t len);

/* 1 and the swap area's name when `target` (a block device, or a regular
 * file by device and inode) or a related device is swap. */
int safety_find_swap_of(const struct safety_paths *sp, const struct stat *target,
			char *what, size_t len);

/* 1 and "/dev/loopN" in loop[len] when loop device N is backed by
 * `target` (sysfs block/loopN/loop/backing_file): a block device, one of
 * its partitions or its disk, or a regular file by device and inode; 0
 * when none is; negative errno when sysfs cannot be read. */
int safety_find_loop(const struct safety_paths *sp, const struct stat *target,
		     char *loop, size_t len);

/* Every check on block device `path` (device number `dev`): mounts, swap,
 * holders, loop devices; 0 when free, -EBUSY with the reason in why[len]
 * otherwise. */
int safety_check_blkdev(const struct safety_paths *sp, const char *path,
			dev_t dev, struct bpt_error *error);

/* The checks on regular file `path` (`st` from stat): a swap file, or the
 * backing of a loop device: 0 when free, -EBUSY with the reason. */
int safety_check_file(const struct safety_paths *sp, const char *path,
		      const struct stat *st, struct bpt_error *error);

/*
 * Whether writes may be sent to a block device: 0 when there are none to
 * send or --allow-write was given, else -EPERM and a reason naming the
 * device and the number of writes.
 */
int safety_write_policy(const char *path, uint64_t nwrites, int allow_write,
			struct bpt_error *error);

/*
 * Regular-file rule. `exists`/`size` describe the file now; `create_size`
 * is --create's value (0 when absent). Sets *new_size to the size the file
 * must be given (0: leave it alone). -ENOENT / -EPERM with a reason when
 * the file is missing or would need extending without --create.
 */
int safety_file_policy(const char *path, int exists, uint64_t size,
		       uint64_t create_size, uint64_t *new_size, struct bpt_error *error);

#endif
