/*
 * test_suite_state.c — suite/state.h: what a suite run finished survives
 * a restart; a torn last line is an item to run again; another label,
 * target or suite version in the file is refused; a second run holding
 * the file is refused while the first holds it.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "state.h"

static char path[64];

static void setup(void)
{
	int fd;

	snprintf(path, sizeof(path), "/tmp/blkpeak-state-XXXXXX");
	fd = mkstemp(path);
	cr_assert(fd >= 0);
	close(fd);
	unlink(path); /* state_open creates it */
}

static void teardown(void)
{
	unlink(path);
}

TestSuite(suite_state, .init = setup, .fini = teardown);

Test(suite_state, resumes_and_ignores_a_torn_line)
{
	struct suite_state *st, *other;
	char err[256];
	double secs = 0;
	FILE *f;

	cr_assert_eq(state_open(path, "0123456789abcdef", "raid0", "T", &st, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(state_done(st, "seek.causal.1", 1.5, err, sizeof(err)), 0, "%s", err);
	cr_assert(state_is_done(st, "seek.causal.1", &secs));
	cr_assert_float_eq(secs, 1.5, 1e-9);
	/* a second run of the same label while this one holds the file */
	cr_assert_eq(state_open(path, "0123456789abcdef", "raid0", "T", &other, err, sizeof(err)), -EBUSY);
	cr_assert(strstr(err, "another 'blkpeak suite run'"), "%s", err);
	state_close(st);
	/* the machine stopped while the next line was written */
	f = fopen(path, "a");
	cr_assert_not_null(f);
	fputs("done seek.causal.2 1.4", f);
	fclose(f);
	cr_assert_eq(state_open(path, "0123456789abcdef", "raid0", "T", &st, err, sizeof(err)), 0, "%s", err);
	cr_assert(state_is_done(st, "seek.causal.1", NULL));
	cr_assert_not(state_is_done(st, "seek.causal.2", NULL));
	cr_assert_not(state_is_done(st, "seek.causal", NULL));
	state_close(st);
	state_close(NULL);
}

Test(suite_state, refuses_another_label_target_or_version)
{
	struct suite_state *st;
	char err[256];

	cr_assert_eq(state_open(path, "0123456789abcdef", "raid0", "T1", &st, err, sizeof(err)), 0, "%s", err);
	state_close(st);
	cr_assert_eq(state_open(path, "0123456789abcdef", "raid0", "T2", &st, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "was run on target 'T1', not 'T2'"), "%s", err);
	cr_assert_eq(state_open(path, "0123456789abcdef", "raid-0", "T1", &st, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "the run of label 'raid0'"), "%s", err);
	cr_assert_eq(state_open(path, "fedcba9876543210", "raid0", "T1", &st, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "of suite version 0123456789abcdef"), "%s", err);
}

Test(suite_state, refuses_what_is_not_a_state)
{
	struct suite_state *st;
	char err[256];
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs("something else\n", f);
	fclose(f);
	cr_assert_eq(state_open(path, "0123456789abcdef", "x", "T", &st, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, ":1: not a blkpeak suite state"), "%s", err);
	unlink(path);
	cr_assert_eq(symlink("/etc/passwd", path), 0);
	cr_assert_eq(state_open(path, "0123456789abcdef", "x", "T", &st, err, sizeof(err)), -ELOOP);
}

static void write_file(const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

/* The item finished after a torn line counts on the next resume (its line
 * was appended to the torn one); a header torn by a crash is written again
 * (the file was taken, then refused on the next run as not a state). */
Test(suite_state, a_torn_end_is_cut_before_the_next_line)
{
	struct suite_state *st;
	char err[256];

	write_file("blkpeak-suite-state 1\ndigest 0123456789abcdef\nlabel x\ntarget T\n"
		   "done a.causal.1 1.000\ndone a.causal.2 1.");
	cr_assert_eq(state_open(path, "0123456789abcdef", "x", "T", &st, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(state_done(st, "a.causal.2", 2.5, err, sizeof(err)), 0, "%s", err);
	state_close(st);
	cr_assert_eq(state_open(path, "0123456789abcdef", "x", "T", &st, err, sizeof(err)), 0, "%s", err);
	cr_assert(state_is_done(st, "a.causal.1", NULL));
	cr_assert(state_is_done(st, "a.causal.2", NULL));
	state_close(st);

	write_file("blkpeak-suite-st");
	cr_assert_eq(state_open(path, "0123456789abcdef", "x", "T", &st, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(state_done(st, "a.causal.1", 1, err, sizeof(err)), 0, "%s", err);
	state_close(st);
	cr_assert_eq(state_open(path, "0123456789abcdef", "x", "T2", &st, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "was run on target 'T', not 'T2'"), "%s", err);
	cr_assert_eq(state_open(path, "0123456789abcdef", "x", "T", &st, err, sizeof(err)), 0, "%s", err);
	cr_assert(state_is_done(st, "a.causal.1", NULL));
	state_close(st);

	/* a header without its digest line is not taken as a state */
	write_file("blkpeak-suite-state 1\nlabel x\ntarget T\ndone a.causal.1 1\n");
	cr_assert_eq(state_open(path, "0123456789abcdef", "x", "T", &st, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, ":2: not a blkpeak suite state"), "%s", err);
	write_file("garbage");
	cr_assert_eq(state_open(path, "0123456789abcdef", "x", "T", &st, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, ":1: not a blkpeak suite state"), "%s", err);
}
