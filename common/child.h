/*
 * child.h — running another blkpeak command as a child process.
 *
 * measure/ does its I/O through `blkpeak generate` and `blkpeak replay`,
 * and suite/ runs `replay`, `measure`, `capture` and `analyze import`
 * (the parts never include each other's headers: docs/development.md "Layout"), run
 * as /proc/self/exe, the very binary that runs the parent. The child's
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

/* Copy the log to standard error. */
void child_show_log(const char *log_path);

#endif
