/*
 * test_run_label.c — the display labels of analyze/run_label.h: short
 * names from target specs as replay writes them (never a path list), a
 * given label first, a file's name for a trace that is not a run.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "run_label.h"

static const char *t(const char *spec)
{
	static char buf[RUN_LABEL_MAX];

	return run_label_target(spec, buf, sizeof(buf));
}

Test(run_label, single_targets)
{
	cr_assert_str_eq(t("/dev/loop3"), "single loop3");
	cr_assert_str_eq(t("hdd:7200:/dev/loop3"), "single hdd:7200");
	cr_assert_str_eq(t("hdd:7200,wcache=off,queue=8:/dev/loop3"), "single hdd:7200");
	cr_assert_str_eq(t("hdd:file=/tmp/m.json:/dev/loop3"), "single hdd");
	cr_assert_str_eq(t("/tmp/x/disk.img"), "single disk.img");
}

Test(run_label, arrays)
{
	cr_assert_str_eq(t("raid0:chunk=64k:hdd:7200:/dev/loop6,hdd:7200:/dev/loop7"), "raid0 x2 64k");
	cr_assert_str_eq(t("raid0:chunk=64k:/dev/loop6,/dev/loop7,/dev/loop8"), "raid0 x3 64k");
	cr_assert_str_eq(t("raid1:hdd:7200:/dev/loop6,hdd:7200:/dev/loop7"), "raid1 x2");
	cr_assert_str_eq(t("raid1:hdd:7200,wcache=off:/dev/a,hdd:7200,wcache=off:/dev/b"), "raid1 x2");
	cr_assert_str_eq(t("raid5:chunk=64k:layout=left-symmetric:missing=1:a,b,c,d"),
			 "raid5 x4 64k degraded");
	cr_assert_str_eq(t("linear:/dev/a,/dev/b"), "linear x2");
}

Test(run_label, maps)
{
	/* the demo's dual: the recorded disk and its upper half on two disks */
	cr_assert_str_eq(t("/dev/loop3=hdd:7200:/dev/loop6;/dev/loop3:1024s-=hdd:7200:/dev/loop7"),
			 "dual hdd:7200");
	cr_assert_str_eq(t("sda=/dev/loop6;sda2=/dev/loop7@4096"), "single loop6 + single loop7");
	/* the backup demo: each recorded disk on a RAID 0 of its own */
	cr_assert_str_eq(t("/dev/loop3=raid0:chunk=64k:hdd:7200:/dev/loop6,hdd:7200:/dev/loop7;"
			   "*=raid0:chunk=64k:hdd:7200:/dev/loop8,hdd:7200:/dev/loop9"),
			 "raid0 x2 64k");
	cr_assert_str_eq(t("/dev/loop3=/dev/loop6"), "single loop6");
	cr_assert(strlen(t("a=raid0:chunk=64k:x,y;b=raid1:x,y;c=linear:x,y;d=raid5:chunk=4k:p,q,r;"
			   "e=/dev/loop1;f=/dev/loop2")) < RUN_LABEL_MAX);
}

Test(run_label, given_first_then_target_then_file)
{
	char b[RUN_LABEL_MAX];

	cr_assert_str_eq(run_label_make("fast box", "hdd:7200:/dev/x", "/a/r.bpt", b, sizeof(b)),
			 "fast box");
	cr_assert_str_eq(run_label_make("", "hdd:7200:/dev/x", "/a/r.bpt", b, sizeof(b)),
			 "single hdd:7200");
	cr_assert_str_eq(run_label_make(NULL, NULL, "/a/photo.bpt", b, sizeof(b)), "photo.bpt");
	cr_assert_str_eq(run_label_make(NULL, NULL, NULL, b, sizeof(b)), "?");
}
