/* Unit tests of the safety rules (replay/safety.c) on fixture files: mount
 * tables, swap tables and a fake sysfs tree, no root needed. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../../replay/safety.h"

static char dir[64];
static char mi[128], sw[128], sys[128];

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

/* mkdir -p dir/rel */
static void mkdirs(const char *rel)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/%s'", dir, rel);
	cr_assert_eq(system(cmd), 0);
}

/* A fake sysfs: disk 7:0 with partition 259:1 (held by dm-3), disk 7:5. */
static void setup(void)
{
	char p[512], t[512];

	snprintf(dir, sizeof(dir), "/tmp/blkpeak-safety.XXXXXX");
	cr_assert(mkdtemp(dir));
	snprintf(mi, sizeof(mi), "%s/mountinfo", dir);
	snprintf(sw, sizeof(sw), "%s/swaps", dir);
	snprintf(sys, sizeof(sys), "%s/sys", dir);
	mkdirs("sys/block/loop0/loop0p1/holders/dm-3");
	mkdirs("sys/block/loop5/holders");
	mkdirs("sys/dev/block");
	snprintf(p, sizeof(p), "%s/sys/block/loop0/dev", dir);
	put(p, "7:0\n");
	snprintf(p, sizeof(p), "%s/sys/block/loop0/loop0p1/dev", dir);
	put(p, "259:1\n");
	snprintf(p, sizeof(p), "%s/sys/block/loop0/loop0p1/partition", dir);
	put(p, "1\n");
	snprintf(p, sizeof(p), "%s/sys/dev/block/7:0", dir);
	snprintf(t, sizeof(t), "%s/sys/block/loop0", dir);
	cr_assert_eq(symlink(t, p), 0);
	snprintf(p, sizeof(p), "%s/sys/dev/block/259:1", dir);
	snprintf(t, sizeof(t), "%s/sys/block/loop0/loop0p1", dir);
	cr_assert_eq(symlink(t, p), 0);
	snprintf(p, sizeof(p), "%s/sys/dev/block/7:5", dir);
	snprintf(t, sizeof(t), "%s/sys/block/loop5", dir);
	cr_assert_eq(symlink(t, p), 0);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", dir);
}

TestSuite(safety, .init = setup, .fini = teardown);

Test(safety, partitions_relate_to_their_disk)
{
	struct safety_paths sp = { mi, sw, sys, NULL }; /* no /dev: sysfs only */

	cr_expect_eq(safety_disk_of(&sp, makedev(259, 1)), makedev(7, 0));
	cr_expect_eq(safety_disk_of(&sp, makedev(7, 0)), makedev(7, 0));
	cr_expect(safety_related(&sp, makedev(7, 0), makedev(259, 1)));
	cr_expect(safety_related(&sp, makedev(259, 1), makedev(7, 0)));
	cr_expect(!safety_related(&sp, makedev(7, 5), makedev(7, 0)));
}

Test(safety, mounts_by_major_minor_with_escapes)
{
	struct safety_paths sp = { mi, sw, sys, NULL }; /* no /dev: sysfs only */
	struct bpt_error why = { 0 };
	char where[256] = "";

	put(mi, "22 1 0:21 / /proc rw,nosuid - proc proc rw\n"
		"36 25 259:1 / /mnt/my\\040disk rw,relatime - ext4 /dev/nonexistent rw\n");
	cr_expect_eq(safety_find_mount(&sp, makedev(7, 5), where, sizeof(where)), 0);
	cr_expect_eq(safety_find_mount(&sp, makedev(7, 0), where, sizeof(where)), 1,
		     "the disk of a mounted partition");
	cr_expect_str_eq(where, "/mnt/my disk");
	cr_expect_eq(safety_find_mount(&sp, makedev(259, 1), where, sizeof(where)), 1);
	put(sw, "Filename\tType\tSize\tUsed\tPriority\n");
	cr_expect_eq(safety_check_blkdev(&sp, "/dev/loop0", makedev(7, 0), &why),
		     -EBUSY);
	cr_expect_str_eq(why.msg, "/dev/loop0: mounted at /mnt/my disk, refusing to use it");
	sp.mountinfo = "/nonexistent/mountinfo";
	cr_expect_eq(safety_check_blkdev(&sp, "/dev/loop5", makedev(7, 5), &why),
		     -EBUSY, "an unreadable mount table refuses");
}

Test(safety, mounts_by_source_device)
{
	struct safety_paths sp = { mi, sw, sys, NULL }; /* no /dev: sysfs only */
	struct stat st;
	char where[256], line[512];

	if (stat("/dev/loop0", &st) || !S_ISBLK(st.st_mode))
		cr_skip_test("needs /dev/loop0 to exist");
	/* btrfs-style anonymous device number, real source path */
	snprintf(line, sizeof(line), "40 25 0:45 / /srv rw - btrfs /dev/loop0 rw\n");
	put(mi, line);
	cr_expect_eq(safety_find_mount(&sp, st.st_rdev, where, sizeof(where)), 1);
	cr_expect_str_eq(where, "/srv");
}

Test(safety, swaps_and_holders)
{
	struct safety_paths sp = { mi, sw, sys, NULL }; /* no /dev: sysfs only */
	struct stat st;
	struct bpt_error why = { 0 };
	char what[256];

	put(mi, "");
	cr_expect_eq(safety_find_holder(&sp, makedev(7, 0), what, sizeof(what)), 1,
		     "a partition's holder holds the disk");
	cr_expect_str_eq(what, "dm-3");
	cr_expect_eq(safety_find_holder(&sp, makedev(7, 5), what, sizeof(what)), 0);
	put(sw, "Filename\tType\tSize\tUsed\tPriority\n");
	cr_expect_eq(safety_check_blkdev(&sp, "/dev/x", makedev(7, 0), &why), -EBUSY);
	cr_expect_str_eq(why.msg, "/dev/x: held by dm-3, refusing to use it");
	cr_expect_eq(safety_check_blkdev(&sp, "/dev/y", makedev(7, 5), &why), 0);
	if (stat("/dev/loop0", &st) || !S_ISBLK(st.st_mode))
		return;
	put(sw, "Filename\tType\tSize\tUsed\tPriority\n/dev/loop0 partition 1024 0 -2\n");
	cr_expect_eq(safety_find_swap(&sp, st.st_rdev, what, sizeof(what)), 1);
	cr_expect_str_eq(what, "/dev/loop0");
}

Test(safety, write_and_file_policies)
{
	struct bpt_error why = { 0 };
	uint64_t ns;

	cr_expect_eq(safety_write_policy("/dev/loop3", 0, 0, &why), 0);
	cr_expect_eq(safety_write_policy("/dev/loop3", 5, 1, &why), 0);
	cr_expect_eq(safety_write_policy("/dev/loop3", 3000, 0, &why), -EPERM);
	cr_expect(strstr(why.msg, "/dev/loop3: the trace has 3000 writes") == why.msg, "%s", why.msg);
	cr_expect(strstr(why.msg, "--allow-write"), "%s", why.msg);
	cr_expect_eq(safety_file_policy("x.img", 0, 0, 0, &ns, &why), -ENOENT);
	cr_expect(strstr(why.msg, "--create SIZE"), "%s", why.msg);
	cr_expect_eq(safety_file_policy("x.img", 0, 0, 1 << 20, &ns, &why), 0);
	cr_expect_eq(ns, 1 << 20);
	cr_expect_eq(safety_file_policy("x.img", 1, 4096, 0, &ns, &why), 0);
	cr_expect_eq(ns, 0, "an existing file is left alone without --create");
	cr_expect_eq(safety_file_policy("x.img", 1, 4096, 8192, &ns, &why), 0);
	cr_expect_eq(ns, 8192, "extended with --create");
	cr_expect_eq(safety_file_policy("x.img", 1, 1 << 20, 8192, &ns, &why), 0);
	cr_expect_eq(ns, 0, "never shrunk");
}

/* Attach fake loop device `name` in the fixture sysfs, backed by `backing`. */
static void fake_loop(const char *name, const char *backing)
{
	char rel[64], p[512];

	snprintf(rel, sizeof(rel), "sys/block/%s/loop", name);
	mkdirs(rel);
	snprintf(p, sizeof(p), "%s/%s/backing_file", dir, rel);
	put(p, backing);
}

/*
 * A regular file that backs a loop device is refused, whatever name it is
 * given (a hard link): compared by device and inode. So is a swap file.
 * A loop device whose file was deleted and a detached one (no
 * backing_file) name nothing.
 */
Test(safety, files_backing_loops_or_swap)
{
	struct safety_paths sp = { mi, sw, sys, NULL }; /* no /dev: sysfs only */
	struct bpt_error why = { 0 };
	char img[128], link_[128], other[128], what[256], line[256];
	struct stat st, ost;

	snprintf(img, sizeof(img), "%s/disk.img", dir);
	snprintf(link_, sizeof(link_), "%s/other-name.img", dir);
	snprintf(other, sizeof(other), "%s/free.img", dir);
	put(img, "x");
	put(other, "y");
	cr_assert_eq(link(img, link_), 0);
	cr_assert_eq(stat(link_, &st), 0);
	cr_assert_eq(stat(other, &ost), 0);
	put(sw, "Filename\tType\tSize\tUsed\tPriority\n");
	mkdirs("sys/block/loop3");             /* detached: no loop/ */
	fake_loop("loop8", "/gone/x.img (deleted)\n");
	cr_expect_eq(safety_find_loop(&sp, &st, what, sizeof(what)), 0);
	cr_expect_eq(safety_check_file(&sp, link_, &st, &why), 0);
	snprintf(line, sizeof(line), "%s\n", img);
	fake_loop("loop9", line);
	cr_expect_eq(safety_find_loop(&sp, &st, what, sizeof(what)), 1);
	cr_expect_str_eq(what, "/dev/loop9");
	cr_expect_eq(safety_find_loop(&sp, &ost, what, sizeof(what)), 0);
	cr_expect_eq(safety_check_file(&sp, link_, &st, &why), -EBUSY);
	snprintf(line, sizeof(line), "%s: in use by /dev/loop9 (loop device backed by it), "
		 "refusing to use it", link_);
	cr_expect_str_eq(why.msg, line);
	cr_expect_eq(safety_check_file(&sp, other, &ost, &why), 0);
	snprintf(line, sizeof(line), "Filename\tType\tSize\tUsed\tPriority\n%s file 1024 0 -2\n",
		 other);
	put(sw, line);
	cr_expect_eq(safety_check_file(&sp, other, &ost, &why), -EBUSY);
	cr_expect(strstr(why.msg, ": in use as swap: "), "%s", why.msg);
}

/*
 * A block device that backs a loop device (a loop on a loop, or a loop on
 * a partition) is refused: sysfs holders do not show it. The fixture's
 * disk 7:0 has partition 259:1; a loop backed by the disk refuses both.
 */
Test(safety, devices_backing_loops)
{
	struct safety_paths sp = { mi, sw, sys, NULL }; /* no /dev: sysfs only */
	struct stat st;
	struct stat part = { .st_mode = S_IFBLK, .st_rdev = makedev(259, 1) };
	struct bpt_error why = { 0 };
	char what[256];

	if (stat("/dev/loop0", &st) || !S_ISBLK(st.st_mode) || st.st_rdev != makedev(7, 0))
		cr_skip_test("needs /dev/loop0 to be 7:0");
	put(mi, "");
	put(sw, "Filename\tType\tSize\tUsed\tPriority\n");
	fake_loop("loop6", "/dev/loop0\n");
	cr_expect_eq(safety_find_loop(&sp, &st, what, sizeof(what)), 1);
	cr_expect_str_eq(what, "/dev/loop6");
	cr_expect_eq(safety_find_loop(&sp, &part, what, sizeof(what)), 1, "its partition");
	cr_expect_eq(safety_check_blkdev(&sp, "/dev/loop5", makedev(7, 5), &why), 0);
	snprintf(what, sizeof(what), "%s/sys/block/loop0/loop0p1/holders/dm-3", dir);
	cr_assert_eq(rmdir(what), 0, "only the loop is left to find");
	cr_expect_eq(safety_check_blkdev(&sp, "/dev/loop0p1", makedev(259, 1), &why),
		     -EBUSY);
	cr_expect_str_eq(why.msg, "/dev/loop0p1: in use by /dev/loop6 (loop device backed by it), "
			 "refusing to use it");
}
