/* Unit tests of the all-or-nothing output files (common/outfile.c). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outfile.h"

static char dir[] = "/tmp/blkpeak-outfile-XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(outfile, .init = setup, .fini = teardown);

static char *slurp(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* Files in the test folder; a temporary file left behind would show. */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

Test(outfile, success_replaces_the_target)
{
	char path[256];
	struct outfile o;

	snprintf(path, sizeof(path), "%s/chart.svg", dir);
	cr_assert_eq(outfile_open(&o, path), 0);
	fputs("new", o.f);
	cr_assert_null(slurp(path), "nothing at the target before close");
	cr_assert_eq(outfile_close(&o, 0), 0);
	cr_assert_str_eq(slurp(path), "new");
	cr_assert_eq(entries(), 1);
	cr_assert_eq(access(path, R_OK), 0);
}

Test(outfile, failure_keeps_the_old_file)
{
	char path[256];
	struct outfile o;
	FILE *f;

	snprintf(path, sizeof(path), "%s/report.html", dir);
	f = fopen(path, "w");
	fputs("old", f);
	fclose(f);
	cr_assert_eq(outfile_open(&o, path), 0);
	fputs("half", o.f);
	cr_assert_eq(outfile_close(&o, -ENODATA), -ENODATA, "the caller's error comes back");
	cr_assert_str_eq(slurp(path), "old");
	cr_assert_eq(entries(), 1, "the temporary file is removed");
}

Test(outfile, missing_folder_and_stdout)
{
	char path[256];
	struct outfile o;

	snprintf(path, sizeof(path), "%s/no/such/x.svg", dir);
	cr_assert_eq(outfile_open(&o, path), -ENOENT);
	cr_assert_eq(outfile_open(&o, "-"), 0);
	cr_assert_eq(o.f, stdout);
	cr_assert_eq(outfile_close(&o, 0), 0);
}
