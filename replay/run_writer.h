/*
 * run_writer.h — the run file (-o RUN.bpt): a replay's results as a trace,
 * so every report and comparison works on captures and replays alike.
 *
 * One record per replayed I/O (not per part of a split or mirrored I/O),
 * written as each I/O completes:
 *   issue_ns, complete_ns  when it was submitted and when its last part
 *                          completed, relative to the replay's start;
 *                          queue_ns = issue_ns
 *   sched_ns               when the timing mode meant to submit it
 *   sector, bytes, op, flags  as sent to the target (after --offset,
 *                          --fit and --writes), sector on the virtual target
 *   dev                    the target (one device-table entry per target)
 *   member                 a bit mask of the target's members that served a
 *                          part: bit m for member m (1 for a plain target;
 *                          both mirrors for a raid1 write)
 *   source_index           the record's position in the source trace
 *   error                  0 or the first negative errno of its parts
 *                          (-EIO for a short transfer)
 *   pid, comm              this blkpeak process; in a mixed replay comm
 *                          is the name of the recording the I/O came from
 *                          (run_writer_set_recordings)
 *   internal               0 (column present when a target is raid5 or
 *                          raid6, whose own I/Os follow as records)
 * and, after the record of a raid5/raid6 request, one record per
 * array-internal part (old data or parity read, parity write, a read to
 * rebuild a missing member): internal 1, member the one bit of its member,
 * sector and bytes on that member, op read or write, issue_ns when its
 * phase was queued, complete_ns when it completed, the request's dev,
 * source_index, pid and comm, flags 0.
 * Header meta: source, source.digest, target, timing, speed, queue_depth,
 * engine, run.ios, and writes, fit, offset, no_idle when they were given;
 * a mixed replay adds mix (the number of recordings) and per recording K
 * (1..): mix.K.name, mix.K.source, mix.K.digest, mix.K.offset_ns; its
 * source is the paths joined by " + " and source.digest the mix's (mix.h);
 * a recording's own run file of a mix (RUN.NAME.bpt) adds mix.this = K;
 * end meta (footer): run.status, run.done, run.errors and, for a partial
 * run, run.stopped.
 */
#ifndef BLKPEAK_RUN_WRITER_H
#define BLKPEAK_RUN_WRITER_H

#include "bpt.h"
#include "sched.h"

struct run_writer;

/* One device-table entry of the run file. */
struct run_device {
	const char *name;       /* shown name, cut to 31 bytes */
	uint64_t size_bytes;
	unsigned lbs;
	unsigned major, minor;  /* 0:0 for files and arrays */
	int internal_ios;       /* raid5/raid6: the array makes I/Os of its own */
};

/*
 * Write a "replay" header holding `ndev` devices and the meta pairs
 * meta[0..2*nmeta) (key, value, key, value...) to fd, a new file for
 * `path` (common/outfile.h) that the writer owns from the call on, also
 * when it fails. Returns 0 or a negative errno with err filled.
 */
int run_writer_open(struct run_writer **out, int fd, const char *path,
		    const struct run_device *devs, unsigned ndev,
		    const char *const *meta, unsigned nmeta, struct bpt_error *err);

/* A mixed replay: the comm of an I/O of recording k (rp_io.rec) is
 * names[k], n of them; call before the first run_writer_add. 0 or a
 * negative errno. */
int run_writer_set_recordings(struct run_writer *w, const char *const *names, unsigned n);

/* Append the record of one completed I/O. */
int run_writer_add(struct run_writer *w, const struct rp_result *r);

/* How the replay ended, for the run file's end meta (BPT_META_RUN_*):
 * `stopped` NULL for a run that did every I/O, else why it stopped
 * ("interrupted by SIGINT"), which makes the run partial. */
struct run_outcome {
	uint64_t done, total, errors;
	const char *stopped;
};

/* Record the outcome; written with the footer by run_writer_close. */
int run_writer_set_outcome(struct run_writer *w, const struct run_outcome *o);

/* One more end meta pair (replay --verify's results). */
int run_writer_set_meta(struct run_writer *w, const char *key, const char *value);

/* The name of a run file beside RUN.bpt: TAG before its extension,
 * RUN.TAG.bpt (RUN.TAG without one), into buf[len] (replay --repeat's
 * RUN.K.bpt, a mix's RUN.NAME.bpt). 0, or -1 when it does not fit. */
int run_path_tagged(const char *out, const char *tag, char *buf, size_t len);

/* Finish the file (footer) and free the writer; NULL is accepted. */
int run_writer_close(struct run_writer *w, struct bpt_error *err);

#endif
