/*
 * outfile.h — the one way blkpeak writes a file: traces (capture,
 * generate), run files (replay), exports, charts and HTML (analyze). The
 * database is SQLite's to write, but its path passes outfile_check()
 * first (analyze/db.c).
 *
 * The rules, for every output:
 *  - The destination must be absent or a regular file. A device node, a
 *    FIFO, a socket or a directory is refused with one line naming the
 *    path and what it is ("/dev/loop3: a block device, refusing to write
 *    a trace there"); nothing is opened, created or written.
 *  - An output that is one of the command's inputs, its targets or its
 *    database (the same device and inode, so through symbolic and hard
 *    links) is refused: writing it would destroy what is being read.
 *  - A file that backs an attached loop device (common/loopback.h) is
 *    refused: replacing it would leave the disk on a deleted file.
 *  - The text goes to a new regular file next to the destination
 *    (PATH.tmp.XXXXXX, made with O_EXCL), which is renamed over the
 *    destination: a symbolic link at PATH is replaced, never written
 *    through, and no existing file is ever truncated.
 *  - One writer per output: an exclusive lock is held on a lock file next
 *    to it (DIR/.NAME.lock, holding the owner's PID) from open to close.
 *    A second writer is refused at once: "PATH: in use by PID N". The
 *    lock is an open-file-description lock (F_OFD_SETLK), which the
 *    kernel drops when its holder dies, so the lock file a killed process
 *    leaves behind blocks nobody; a clean close removes it.
 *
 * Two ways to place the file:
 *  - All or nothing (default): the temporary file is renamed into place
 *    by outfile_close() when everything was written; on failure it is
 *    removed and an older file at PATH is left as it was.
 *  - Streaming (capture's trace, replay's run file): the caller writes
 *    its first bytes (the trace header) and calls outfile_place(),
 *    which renames the new file into place at once. From then on the data are at PATH while they are written, so a
 *    writer killed by SIGKILL or a power cut leaves PATH readable up to
 *    its last complete block (the trace format's crash tolerance), where
 *    the user looks for it. The price: an older file at PATH is replaced
 *    when the writer starts, not when it ends. A writer killed by SIGKILL
 *    before outfile_place() leaves PATH untouched and PATH.tmp.XXXXXX
 *    behind. After placing, outfile_close() keeps the file also on
 *    failure: a trace cut short is still data, and the reader says where
 *    it ends.
 *
 * SIGINT, SIGTERM and SIGHUP remove the files not yet in place (the
 * temporary file and the lock file) in a program that called
 * sigunlink_catch_signals() (common/sigunlink.h), as the blkpeak binary
 * does at start.
 *
 * "-" is standard output when opts.allow_stdout is set (no checks, no
 * lock), else a file named "-". Functions return 0 or a negative errno
 * and put "PATH: reason" into o->err.msg; they never print.
 */
#ifndef BLKPEAK_OUTFILE_H
#define BLKPEAK_OUTFILE_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "error.h"
#include "filekind.h"

struct outfile_opts {
	const char *what;           /* for messages: "a trace", "a chart" */
	const char *const *inputs;  /* NULL-terminated paths the command reads
				     * or writes besides (traces, target members,
				     * the database); may be NULL */
	int allow_stdout;           /* "-" means standard output */
};

struct outfile {
	FILE *f;           /* write here (or through outfile_dup_fd()) */
	char *path;        /* the destination; NULL for standard output */
	char *tmp;         /* the new file until it is placed, else NULL */
	char *lock;        /* the lock file */
	int lock_fd;
	int placed;        /* renamed into place (outfile_place) */
	struct bpt_error err; /* "PATH: reason" of the last failure, in err.msg */
};

/*
 * May PATH be written as `what` by a command that reads `inputs`? 0 when
 * it is absent or a regular file that is none of the inputs and backs no
 * loop device; else -EISDIR (a directory), -EINVAL (another non-regular
 * file), -EEXIST (an input), -EBUSY (a loop device's backing file) or the
 * -errno of stat, with "PATH: reason" in error.
 */
int outfile_check(const char *path, const char *what, const char *const *inputs,
		  struct bpt_error *error);

/*
 * Check PATH (outfile_check), take its lock (-EBUSY when another process
 * holds it) and create the new file. On failure nothing is left behind.
 */
int outfile_open(struct outfile *o, const char *path, const struct outfile_opts *opts);

/*
 * A descriptor of its own on the new file, for a writer that closes what
 * it writes (the trace writer). Nothing may be written to o->f then.
 * Returns the descriptor or -errno.
 */
int outfile_dup_fd(struct outfile *o);

/* Streaming: rename the new file into place now (see above). The
 * destination is checked again first. 0 or -errno. */
int outfile_place(struct outfile *o);

/*
 * Finish and release the lock. All or nothing: when err is 0, flush and
 * rename into place (returns 0 or -errno), else remove the new file and
 * return err unchanged. Streaming, after outfile_place(): the file stays
 * either way.
 */
int outfile_close(struct outfile *o, int err);

#endif
