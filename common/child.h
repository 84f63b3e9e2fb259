/*
 * child.h — running another blkpeak command as a child process: the one
 * way one part uses another's command without linking to it.
 *
 * measure/ does its I/O through `blkpeak generate` and `blkpeak replay`,
 * suite/ runs `replay`, `measure`, `capture` and `analyze import`, and
 * replay's --verify runs `capture` beside itself (the parts never include
 * each other's headers: tests/e2e/04-include-walls.sh), run as
 * /proc/self/exe (CHILD_SELF), the very binary that runs the parent. The child's
 * standard output and error go to a log file in the caller's temporary
 * folder; on failure the log (replay's "blkpeak: PATH: reason" lines) is
 * shown, so the user reads the reason the child gives.
 *
 * A SIGINT or SIGTERM while a child runs reaches the child too (same
 * process group); child_interrupted() says one came, and the caller
 * stops after cleaning up.
 */
#ifndef BLKPEAK_CHILD_H
#define BLKPEAK_CHILD_H

#include <stdint.h>
#include <sys/types.h>

/* The program that runs the parent: a child running it is the same
 * blkpeak, whatever PATH says. */
#define CHILD_SELF "/proc/self/exe"

/* Catch SIGINT and SIGTERM for child_interrupted() (call once). */
void child_catch_signals(void);
/* Nonzero once SIGINT or SIGTERM came. */
int child_interrupted(void);

/* Run blkpeak with argv (argv[0] is "blkpeak", NULL-terminated), output to
 * log_path. With timeout_ns > 0, the child gets SIGINT once that long
 * after the file start_path appears (replay's run file: replay puts it in
 * place once the trace is read and the target open, just before its first
 * I/O, so reading a long trace does not use up the time); replay then
 * stops issuing, completes what is in flight and writes its run marked
 * partial, and *timed_out is set. Returns the exit status (0..255), 128 +
 * the signal that ended it, or a negative errno when it could not be
 * started. */
int child_run(char *const argv[], const char *log_path, uint64_t timeout_ns,
	      const char *start_path, int *timed_out);

/* The same for another program (a workload recipe): prog is its path. */
int child_run_prog(const char *prog, char *const argv[], const char *log_path,
		   uint64_t timeout_ns, const char *start_path, int *timed_out);

/* How child_start sets the child up. */
struct child_opts {
	const char *log_path;  /* its standard error (and output, unless
				* stdout_null), created or truncated, 0600 */
	int stdout_null;       /* standard output to /dev/null */
	int own_group;         /* its own process group: a Ctrl-C typed at the
				* terminal is not for it (the parent stops it) */
	int die_with_parent;   /* SIGINT when the parent dies */
	const char *env_name;  /* one variable set in the child (or NULL) */
	const char *env_value;
};

/* Start prog (CHILD_SELF for blkpeak itself) with argv and return at
 * once: *pid is the child's, for waitpid or child_stop. Standard input is
 * /dev/null. 0, or a negative errno (the log could not be made, fork
 * failed); an exec failure is the child's exit status 127 with the
 * reason in the log. */
int child_start(const char *prog, char *const argv[], const struct child_opts *o, pid_t *pid);

/* Send sig to a started child and wait for its end; its exit status
 * (0..255), 128 + the signal that ended it, or a negative errno. */
int child_stop(pid_t pid, int sig);

/* Copy the log to standard error. */
void child_show_log(const char *log_path);

#endif
