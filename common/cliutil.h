/*
 * cliutil.h — helpers every subcommand uses: parsing sizes, durations and
 * numbers the way a user types them, clocks, the one error printer and
 * the one usage-error line for getopt.
 *
 * Parsers return 0 or -EINVAL/-ERANGE and never print; the caller names
 * the option in its message: blkpeak: --bs: '4q': not a size
 */
#ifndef BLKPEAK_CLIUTIL_H
#define BLKPEAK_CLIUTIL_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

/* Exit codes of every subcommand (blkpeak(1), "EXIT STATUS"). */
enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

/* "4096", "4k", "4K", "4KiB", "64m", "1G", "2t": binary units, bytes. */
int parse_size(const char *s, uint64_t *out);
/* Why parse_size() refused s, in words: "not a number", "unknown unit
 * 'x' (...)" (in buf[len]), "not a whole number of bytes", "too large". */
const char *parse_size_why(const char *s, char *buf, size_t len);
/* "10" (seconds), "1.5s", "500ms", "20us", "100ns", "2m", "1h" -> ns. */
int parse_duration_ns(const char *s, uint64_t *out);
/* Plain unsigned decimal (or 0x hex) with range check. */
int parse_u64(const char *s, uint64_t *out);
int parse_double(const char *s, double *out);

/* Format bytes with a binary unit ("4.0 KiB", "1.5 GiB") into buf. */
char *fmt_bytes(uint64_t bytes, char *buf, int len);
/* Format a duration in the unit a person reads best: "123 ns", "45.6 us",
 * "7.89 ms", "1.234 s". Returns buf. */
char *fmt_ns(double ns, char *buf, int len);

uint64_t now_mono_ns(void);
/* A span or a CLOCK_MONOTONIC instant of `ns` nanoseconds as a timespec. */
struct timespec timespec_of_ns(uint64_t ns);
/* Sleep until CLOCK_MONOTONIC reads t_ns (returns early on a signal). */
void sleep_until_mono_ns(uint64_t t_ns);
int64_t now_wall_ns(void);

/*
 * For getopt_long's '?' (unknown option) and ':' (missing value), with
 * opterr = 0 and an optstring that starts with ':'. Prints one line
 * naming the option and returns EXIT_USAGE:
 *   blkpeak: analyze plot: '--bogus': unknown option; see 'blkpeak analyze plot --help'
 *   blkpeak: dump: --format: needs a value
 */
int usage_bad_option(const char *cmd, int c, char **argv);

/*
 * The option loop every command shares: getopt_long with its own error
 * messages off and its state reset on the first call (so a command can
 * run twice in one process, as the unit tests do). The optstring starts
 * with ':' (or "+:" to stop at the first operand) and holds 'h', bound to
 * --help. -h prints the usage on stdout and a bad option is named
 * (usage_bad_option); both end the loop with the command's exit code in
 * `ret`, which is -1 when the options simply ended:
 *
 *	struct opt_loop ol = { .cmd = "analyze report", .usage = usage };
 *	while ((c = opt_next(&ol, argc, argv, ":h", longopts)) != -1)
 *		switch (c) { ... }
 *	if (ol.ret >= 0)
 *		return ol.ret;
 */
struct opt_loop {
	const char *cmd;	    /* as in messages: "dump", "analyze plot" */
	void (*usage)(FILE *f);
	int started;
	int ret;		    /* after the loop: -1, EXIT_OK or EXIT_USAGE */
};
int opt_next(struct opt_loop *l, int argc, char **argv, const char *optstring,
	     const struct option *longopts);

/* Print "blkpeak: " + message + "\n" on stderr. */
void pr_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Same with a "warning: " prefix. */
void pr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
