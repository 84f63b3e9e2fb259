/*
 * test_run_label.c — the display labels of analyze/run_label.h: a given
 * label first, else chart_label.h's short name of the target (the one
 * implementation, tested in test_chart_label.c), else the file's name.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "chart_label.h"
#include "run_label.h"

Test(run_label, short_names_are_chart_labels)
{
	static const char *const specs[] = {
		"/dev/loop3", "hdd:7200:/dev/loop3", "raid0:chunk=64k:hdd:7200:/dev/loop6,hdd:7200:/dev/loop7",
		"raid1:/dev/a,/dev/b", "/dev/loop3=hdd:7200:/dev/loop6;/dev/loop3:1024s-=hdd:7200:/dev/loop7",
	};
	char a[RUN_LABEL_MAX], b[RUN_LABEL_MAX];

	for (unsigned i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		cr_assert_str_eq(run_label_target(specs[i], a, sizeof(a)),
				 chart_label(specs[i], NULL, b, sizeof(b)), "%s", specs[i]);
	cr_assert_str_eq(run_label_target("raid0:chunk=64k:/dev/a,/dev/b", a, sizeof(a)), "raid0 x2 64k");
	cr_assert(strlen(run_label_target("a=raid0:chunk=64k:x,y;b=raid1:x,y;c=linear:x,y;"
					  "d=raid5:chunk=4k:p,q,r;e=/dev/loop1;f=/dev/loop2", a,
					  sizeof(a))) < RUN_LABEL_MAX);
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
