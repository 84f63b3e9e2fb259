/*
 * sigunlink.h — files to remove when SIGINT, SIGTERM or SIGHUP ends the
 * process: the temporary files of outputs not yet in place (outfile.c
 * registers PATH.tmp.XXXXXX and its lock file), so Ctrl-C during
 * `convert` leaves nothing behind instead of a half-written trace of
 * hundreds of megabytes.
 *
 * The list is kept by whoever creates such files (outfile.c, also inside
 * libbpt); only a program that calls sigunlink_catch_signals() — the
 * blkpeak binary, at start — acts on it. A library user's signals are its
 * own. A command with its own handler (capture, replay: they stop
 * cleanly and close their outputs) replaces this one while it runs.
 */
#ifndef BLKPEAK_SIGUNLINK_H
#define BLKPEAK_SIGUNLINK_H

/* Remember path (copied) for removal on a signal. 0, or -ENAMETOOLONG /
 * -ENOSPC when it cannot be kept (the file is then only not cleaned up). */
int sigunlink_add(const char *path);
/* Forget path (before the file is renamed or removed by the caller). */
void sigunlink_remove(const char *path);
/* For SIGINT, SIGTERM and SIGHUP still at their default action: remove
 * the remembered files (those this process registered), then die of the
 * signal as before (exit status 128 + signal in a shell). */
void sigunlink_catch_signals(void);

#endif
