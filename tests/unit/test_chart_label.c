/* Unit tests of the short labels of charts and report tables
 * (analyze/chart_label.c): never a path list, whatever the target. */
#include <criterion/criterion.h>
#include <string.h>

#include "chart_label.h"

static void expect(const char *target, const char *path, const char *want)
{
	char buf[96];

	cr_assert_str_eq(chart_label(target, path, buf, sizeof(buf)), want, "target '%s'",
			 target ? target : "(null)");
}

Test(chart_label, targets)
{
	expect("hdd:7200:/dev/loop5", NULL, "single hdd:7200");
	expect("/dev/loop5", NULL, "single loop5");
	expect("null", NULL, "null");
	expect("raid0:chunk=64k:/dev/loop8,/dev/loop9", NULL, "raid0 x2 64k");
	expect("raid0:chunk=64k:hdd:7200:/dev/loop6,hdd:7200:/dev/loop7", NULL, "raid0 x2 64k hdd:7200");
	expect("raid1:/dev/loop8,/dev/loop9", NULL, "raid1 x2");
	expect("raid5:chunk=64k:layout=left-symmetric:missing=1:/dev/a,/dev/b,/dev/c", NULL,
	       "raid5 x3 64k degraded");
	/* an emulated disk's options hold commas: still one member each */
	expect("raid1:hdd:7200,wcache=off,queue=8:/dev/a,hdd:7200,wcache=off:/dev/b", NULL,
	       "raid1 x2 hdd:7200");
	expect("raid0:chunk=64k:hdd:7200:/dev/a,hdd:15k:/dev/b", NULL, "raid0 x2 64k");
}

Test(chart_label, maps)
{
	/* the runs.target of --map: DEV=SPEC[@OFFSET] entries, ';' separated */
	expect("/dev/loop3:0-2048=hdd:7200:/dev/loop6;/dev/loop3:2048-=hdd:7200:/dev/loop7@0", NULL,
	       "dual hdd:7200");
	expect("/dev/loop3=raid0:chunk=64k:hdd:7200:/dev/loop6,hdd:7200:/dev/loop7;*=raid0:chunk=64k:"
	       "hdd:7200:/dev/loop8,hdd:7200:/dev/loop9", NULL, "2 x raid0 x2 64k hdd:7200");
	expect("sda=/dev/loop3;sdb=linear:/dev/loop4,/dev/loop5", NULL, "single loop3 + linear x2");
}

Test(chart_label, traces)
{
	expect(NULL, "/x/photo-edit.bpt", "photo-edit.bpt");
	expect("", "run.bpt", "run.bpt");
	expect(NULL, NULL, "?");
}
