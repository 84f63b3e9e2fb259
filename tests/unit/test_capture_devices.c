/* Unit tests of capture/devices.c and capture/filters.c on a fake sysfs
 * tree: -d specs (MAJ:MIN, /dev paths, partitions -> whole disk), the
 * device table, the filters' parsers. No root needed. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../capture/capture.h"

static char root[64];

static void put(const char *rel, const char *text)
{
	char path[256], dir[256], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	*slash = '\0';
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", dir);
		cr_assert_eq(system(cmd), 0);
	}
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

static void link_dev(const char *majmin, const char *target)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/dev/block/%s", root, majmin);
	cr_assert_eq(symlink(target, path), 0, "%s", path);
}

/* loop0 (7:0) with partition loop0p1 (259:0), and vda (253:0) with a model */
static void make_sysfs(void)
{
	strcpy(root, "/tmp/blkpeak-sysfs.XXXXXX");
	cr_assert_not_null(mkdtemp(root));
	put("block/loop0/dev", "7:0\n");
	put("block/loop0/size", "2097152\n");
	put("block/loop0/queue/logical_block_size", "512\n");
	put("block/loop0/queue/physical_block_size", "4096\n");
	put("block/loop0/queue/rotational", "0\n");
	put("block/loop0/loop0p1/dev", "259:0\n");
	put("block/loop0/loop0p1/partition", "1\n");
	put("block/loop0/loop0p1/start", "2048\n");
	put("block/loop0/loop0p1/size", "4096\n");
	put("block/loop0/loop0p10/partition", "10\n");
	put("block/loop0/loop0p10/start", "10240\n");
	put("block/loop0/loop0p10/size", "2048\n");
	put("block/loop0/loop0p2/partition", "2\n");
	put("block/loop0/loop0p2/start", "6144\n");
	put("block/loop0/loop0p2/size", "4096\n");
	put("block/vda/dev", "253:0\n");
	put("block/vda/size", "41943040\n");
	put("block/vda/queue/logical_block_size", "512\n");
	put("block/vda/queue/rotational", "1\n");
	put("block/vda/device/model", "QEMU HARDDISK   \n");
	put("block/loop7/dev", "7:7\n"); /* detached: no size */
	put("block/loop7/size", "0\n");
	put("dev/block/.keep", "");
	link_dev("7:0", "../../block/loop0");
	link_dev("259:0", "../../block/loop0/loop0p1");
	link_dev("253:0", "../../block/vda");
}

static void remove_sysfs(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	system(cmd);
}

TestSuite(capture_devices, .init = make_sysfs, .fini = remove_sysfs);

Test(capture_devices, majmin_whole_disk)
{
	struct bpt_error e;
	struct dev_spec s;

	cr_assert_eq(devices_resolve(root, "7:0", &s, &e), 0, "%s", e.msg);
	cr_assert_str_eq(s.disk, "loop0");
	cr_assert_eq(s.major, 7);
	cr_assert_eq(s.minor, 0);
	cr_assert_str_eq(s.part, "");
}

Test(capture_devices, partition_gives_its_disk)
{
	struct bpt_error e;
	struct dev_spec s;

	cr_assert_eq(devices_resolve(root, "259:0", &s, &e), 0, "%s", e.msg);
	cr_assert_str_eq(s.disk, "loop0");
	cr_assert_str_eq(s.part, "loop0p1");
	cr_assert_eq(s.major, 7, "the whole disk's numbers");
	cr_assert_eq(s.minor, 0);
}

Test(capture_devices, partition_table)
{
	struct bpt_partition p[4];

	cr_assert_eq(devices_partitions(root, "loop0", p, 4), 3);
	cr_assert_str_eq(p[0].name, "loop0p1");
	cr_assert_eq(p[0].number, 1);
	cr_assert_eq(p[0].start, 2048);
	cr_assert_eq(p[0].sectors, 4096);
	cr_assert_str_eq(p[1].name, "loop0p2", "by number, not by name");
	cr_assert_eq(p[2].number, 10);
	cr_assert_eq(p[2].start, 10240);
	cr_assert_eq(devices_partitions(root, "loop0", p, 1), 3, "counts past max");
	cr_assert_eq(devices_partitions(root, "vda", p, 4), 0);
	cr_assert_eq(devices_partitions(root, "nosuch", p, 4), -ENOENT);
}

/* A kernel name, as --map and lsblk spell it: a disk, and a partition
 * (which records its whole disk, as /dev/NAME does). */
Test(capture_devices, kernel_names)
{
	struct bpt_error e;
	struct dev_spec s;

	cr_assert_eq(devices_resolve(root, "loop0", &s, &e), 0, "%s", e.msg);
	cr_assert_str_eq(s.disk, "loop0");
	cr_assert_eq(devices_resolve(root, "vda", &s, &e), 0, "%s", e.msg);
	cr_assert_str_eq(s.disk, "vda");
	cr_assert_eq(devices_resolve(root, "loop0p1", &s, &e), 0, "%s", e.msg);
	cr_assert_str_eq(s.disk, "loop0");
	cr_assert_str_eq(s.part, "loop0p1");
}

Test(capture_devices, bad_specs)
{
	struct bpt_error e;
	struct dev_spec s;

	cr_assert_eq(devices_resolve(root, "9:9", &s, &e), -ENOENT);
	cr_assert(strstr(e.msg, "no such block device"), "%s", e.msg);
	cr_assert_eq(devices_resolve(root, "loop9", &s, &e), -EINVAL);
	cr_assert(strstr(e.msg, "NAME, /dev/NAME or MAJOR:MINOR"), "%s", e.msg);
	cr_assert_eq(devices_resolve(root, "..", &s, &e), -EINVAL);
	cr_assert_eq(devices_resolve(root, "7:0x", &s, &e), -EINVAL);
	cr_assert_eq(devices_resolve(root, "7", &s, &e), -EINVAL);
	cr_assert_eq(devices_resolve(root, "/dev/null", &s, &e), -ENOTBLK);
	cr_assert_str_eq(e.msg, "/dev/null: not a block device");
	cr_assert_eq(devices_resolve(root, "/dev/no-such-disk", &s, &e), -ENOENT);
	cr_assert(strstr(e.msg, "/dev/no-such-disk: No such file"), "%s", e.msg);
}

Test(capture_devices, read_disk)
{
	struct bpt_device d;

	cr_assert_eq(devices_read(root, "loop0", &d), 0);
	cr_assert_str_eq(d.name, "loop0");
	cr_assert_eq(d.size_bytes, 2097152ull * 512);
	cr_assert_eq(d.logical_block_size, 512);
	cr_assert_eq(d.physical_block_size, 4096);
	cr_assert_eq(d.rotational, 0);
	cr_assert_str_eq(d.model, "");
	cr_assert_eq(devices_read(root, "vda", &d), 0);
	cr_assert_eq(d.physical_block_size, 512, "defaults to the logical size");
	cr_assert_eq(d.rotational, 1);
	cr_assert_str_eq(d.model, "QEMU HARDDISK", "trailing blanks trimmed");
	cr_assert_eq(devices_read(root, "sdz", &d), -ENOENT);
	cr_assert_eq(devices_read(root, "../x", &d), -EINVAL);
}

Test(capture_devices, list_sorted)
{
	char names[4][32];

	cr_assert_eq(devices_list(root, names, 4), 3);
	cr_assert_str_eq(names[0], "loop0");
	cr_assert_str_eq(names[1], "loop7");
	cr_assert_str_eq(names[2], "vda");
	cr_assert_eq(devices_list(root, names, 1), 3, "reports how many there are");
}

Test(capture_devices, active_disks_only)
{
	struct bpt_device d[2];

	cr_assert_eq(devices_list_active(root, d, 2), 2, "loop7 has no size");
	cr_assert_str_eq(d[0].name, "loop0");
	cr_assert_str_eq(d[1].name, "vda");
	cr_assert_eq(devices_list_active(root, d, 1), 2, "reports how many there are");
}

Test(capture_filters, pid_and_comm)
{
	char comm[CAPTURE_COMM_LEN];
	uint32_t pid;

	cr_assert_eq(filters_parse_pid("1234", &pid), 0);
	cr_assert_eq(pid, 1234);
	cr_assert_eq(filters_parse_pid("0", &pid), -ERANGE);
	cr_assert_eq(filters_parse_pid("99999999", &pid), -ERANGE);
	cr_assert_eq(filters_parse_pid("12ab", &pid), -EINVAL);
	cr_assert_eq(filters_parse_pid("-3", &pid), -EINVAL);
	cr_assert_eq(filters_parse_comm("fio", comm), 0);
	cr_assert_str_eq(comm, "fio");
	cr_assert_eq(comm[15], 0);
	cr_assert_eq(filters_parse_comm("abcdefghijklmno", comm), 0, "15 fits");
	cr_assert_eq(filters_parse_comm("abcdefghijklmnop", comm), -ENAMETOOLONG);
	cr_assert_eq(filters_parse_comm("", comm), -EINVAL);
}

Test(capture_filters, devices)
{
	struct capture_filters f;

	filters_init(&f);
	cr_assert_eq(f.cgroup_fd, -1);
	cr_assert_eq(filters_add_dev(&f, 7, 0), 0);
	cr_assert_eq(filters_add_dev(&f, 7, 0), 0);
	cr_assert_eq(f.ndevs, 1, "a disk named twice is traced once");
	cr_assert_eq(f.devs[0], (7u << 20));
	for (int i = 1; i < CAPTURE_MAX_DEVS; i++)
		cr_assert_eq(filters_add_dev(&f, 8, i), 0);
	cr_assert_eq(filters_add_dev(&f, 9, 0), -E2BIG);
}

Test(capture_devices, cgroup_must_be_v2_dir)
{
	struct capture_filters f;
	char file[128];

	filters_init(&f);
	snprintf(file, sizeof(file), "%s/block/loop0/dev", root);
	cr_assert_eq(filters_open_cgroup(&f, root), -EMEDIUMTYPE);
	cr_assert_eq(filters_open_cgroup(&f, file), -ENOTDIR);
	cr_assert_eq(filters_open_cgroup(&f, "/no/such/cgroup"), -ENOENT);
	cr_assert_eq(f.cgroup_fd, -1);
	filters_close(&f);
}
