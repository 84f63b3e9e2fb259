/*
 * test_child.c — common/child.c, the one way blkpeak runs a command as its
 * child: a started child's log, standard output, environment, process
 * group and stop; a synchronous run's exit status; the errors when the log
 * cannot be made or the program cannot be run.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"

static char dir[] = "/tmp/blkpeak-child-XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(child, .init = setup, .fini = teardown);

static void slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	cr_assert_not_null(f, "%s", path);
	n = fread(buf, 1, len - 1, f);
	buf[n] = 0;
	fclose(f);
}

Test(child, start_sets_up_the_child_and_stop_ends_it)
{
	char log[128], got[256];
	char *argv[] = { "sh", "-c",
			 "echo out; echo \"err $CHILD_T pg $(ps -o pgid= $$ | tr -d ' ') "
			 "pid $$ in $(cat)\" >&2; exec sleep 30", NULL };
	const struct child_opts o = { .log_path = log, .stdout_null = 1, .own_group = 1,
				      .die_with_parent = 1, .env_name = "CHILD_T",
				      .env_value = "v1" };
	pid_t pid = 0;
	char want[128];

	snprintf(log, sizeof(log), "%s/log", dir);
	cr_assert_eq(child_start("/bin/sh", argv, &o, &pid), 0);
	cr_assert_gt(pid, 0);
	for (int i = 0; i < 500; i++) { /* until the child wrote its line */
		slurp(log, got, sizeof(got));
		if (strchr(got, '\n'))
			break;
		usleep(10000);
	}
	/* stdout went to /dev/null, stdin is /dev/null (cat reads nothing),
	 * the variable is set and the child leads its own process group */
	snprintf(want, sizeof(want), "err v1 pg %d pid %d in \n", (int)pid, (int)pid);
	cr_expect_str_eq(got, want);
	cr_expect_eq(child_stop(pid, SIGINT), 128 + SIGINT);
	cr_expect_eq(waitpid(pid, NULL, WNOHANG), -1, "the child was not reaped");
}

Test(child, run_gives_the_exit_status_and_logs_both_outputs)
{
	char log[128], got[256];
	char *argv[] = { "sh", "-c", "echo one; echo two >&2; exit 3", NULL };
	char *missing[] = { "nothing", NULL };

	snprintf(log, sizeof(log), "%s/log", dir);
	cr_expect_eq(child_run_prog("/bin/sh", argv, log, 0, NULL, NULL), 3);
	slurp(log, got, sizeof(got));
	cr_expect_str_eq(got, "one\ntwo\n");
	/* a program that cannot be run: 127, the reason in the log */
	cr_expect_eq(child_run_prog("/nonexistent/prog", missing, log, 0, NULL, NULL), 127);
	slurp(log, got, sizeof(got));
	cr_expect(strstr(got, "/nonexistent/prog: No such file or directory") != NULL, "%s", got);
	/* a log that cannot be made: the errno, no child */
	cr_expect_eq(child_run_prog("/bin/sh", argv, "/nonexistent/dir/log", 0, NULL, NULL), -ENOENT);
}
