/*
 * Unit tests of --files' patterns (analyze/files_filter.c): what is
 * refused and why, classes, globs ('*' crosses '/'), the stored text.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "files_filter.h"

Test(files_filter, refusals)
{
	struct files_filter f = { 0 };
	struct bpt_error e = { 0 };
	char big[FF_MAX_PATTERN + 1];

	cr_assert_eq(files_filter_add(&f, "", &e), -EINVAL);
	cr_assert(strstr(e.msg, "empty pattern"), "%s", e.msg);
	cr_assert_eq(files_filter_add(&f, ":nope", &e), -EINVAL);
	cr_assert(strstr(e.msg, "':nope': no such class"), "%s", e.msg);
	cr_assert_eq(files_filter_add(&f, ":", &e), -EINVAL);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	cr_assert_eq(files_filter_add(&f, big, &e), -EINVAL);
	cr_assert(strstr(e.msg, "longer than a path"), "%s", e.msg);
	cr_assert_eq(f.n, 0, "nothing refused is kept");
	for (int i = 0; i < FF_MAX_PATTERNS; i++)
		cr_assert_eq(files_filter_add(&f, "/x", &e), 0, "%s", e.msg);
	cr_assert_eq(files_filter_add(&f, "/x", &e), -EINVAL);
	cr_assert(strstr(e.msg, "more than 64 patterns"), "%s", e.msg);
}

Test(files_filter, classes_and_globs)
{
	struct files_filter f = { 0 };
	struct bpt_error e = { 0 };
	char buf[64];

	cr_assert_eq(files_filter_add(&f, ":journal", &e), 0, "%s", e.msg);
	cr_assert_eq(files_filter_add(&f, ":data", &e), 0, "%s", e.msg);
	cr_assert_eq(f.classes, 1u << BPT_FILE_JOURNAL | 1u << BPT_FILE_DATA);
	cr_assert_not(files_filter_path(&f, ":journal"), "a class is no glob");
	cr_assert_eq(files_filter_add(&f, "/scratch/*", &e), 0, "%s", e.msg);
	cr_assert_eq(files_filter_add(&f, "*.tmp", &e), 0, "%s", e.msg);
	cr_assert(files_filter_path(&f, "/scratch/a/b/c.dat"), "'*' crosses '/'");
	cr_assert(files_filter_path(&f, "/home/u/x.tmp"));
	cr_assert_not(files_filter_path(&f, "/scratchy/a"));
	cr_assert_not(files_filter_path(&f, "/home/u/x.tmpl"));
	cr_assert_str_eq(files_filter_lines(&f, buf, sizeof(buf)),
			 ":journal\n:data\n/scratch/*\n*.tmp");
	cr_assert_str_eq(files_filter_lines(&f, buf, 12), ":journal\n:d", "cut, terminated");
}
