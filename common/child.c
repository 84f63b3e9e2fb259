/* child.c — running another blkpeak command as a child process (child.h). */
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cliutil.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

void child_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int child_interrupted(void)
{
	return interrupted;
}

int child_run(char *const argv[], const char *log_path, uint64_t timeout_ns,
	      const char *start_path, int *timed_out)
{
	return child_run_prog(CHILD_SELF, argv, log_path, timeout_ns, start_path, timed_out);
}

/* In the child, after fork: set it up as o says and exec; never returns. */
static void child_exec(const char *prog, char *const argv[], const struct child_opts *o,
		       int log, pid_t parent)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (o->own_group)
		setpgid(0, 0);
	if (o->die_with_parent) {
		prctl(PR_SET_PDEATHSIG, SIGINT);
		if (getppid() != parent) /* the parent died before prctl */
			_exit(127);
	}
	if (null < 0 || dup2(null, 0) < 0 || dup2(o->stdout_null ? null : log, 1) < 0 ||
	    dup2(log, 2) < 0)
		_exit(127);
	if (o->env_name && setenv(o->env_name, o->env_value, 1))
		_exit(127);
	execv(prog, argv);
	dprintf(2, "blkpeak: %s: %s\n", prog, strerror(errno));
	_exit(127);
}

int child_start(const char *prog, char *const argv[], const struct child_opts *o, pid_t *pid)
{
	int log = open(o->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	pid_t parent = getpid();

	if (log < 0)
		return -errno;
	fflush(NULL);
	*pid = fork();
	if (*pid < 0) {
		int e = errno;

		close(log);
		return -e;
	}
	if (*pid == 0)
		child_exec(prog, argv, o, log, parent);
	close(log);
	return 0;
}

/* The exit status of a waited-for child as child_run returns it. */
static int exit_code(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

int child_stop(pid_t pid, int sig)
{
	int status;

	kill(pid, sig);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return exit_code(status);
}

int child_run_prog(const char *prog, char *const argv[], const char *log_path,
		   uint64_t timeout_ns, const char *start_path, int *timed_out)
{
	const struct child_opts o = { .log_path = log_path };
	uint64_t deadline = 0;
	int status, rc;
	pid_t pid;

	rc = child_start(prog, argv, &o, &pid);
	if (rc)
		return rc;
	if (timed_out)
		*timed_out = 0;
	/* With a time limit: poll every 5 ms until the child ends or the
	 * limit passes (counted from when start_path appears), then one
	 * SIGINT and wait. */
	while (timeout_ns) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			goto done;
		if (w < 0 && errno != EINTR)
			return -errno;
		if (!deadline && access(start_path, F_OK) == 0)
			deadline = now_mono_ns() + timeout_ns;
		if (deadline && now_mono_ns() >= deadline) {
			kill(pid, SIGINT);
			if (timed_out)
				*timed_out = 1;
			break;
		}
		sleep_until_mono_ns(now_mono_ns() + 5000000);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
done:
	return exit_code(status);
}

void child_show_log(const char *log_path)
{
	FILE *f = fopen(log_path, "r");
	char line[1024];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		fputs(line, stderr);
	fclose(f);
}
