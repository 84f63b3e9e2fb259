/*
 * blktrace_writer.h — .bpt records as blktrace files that blkparse, btt,
 * btrecord/btreplay, iowatcher and fio read.
 *
 * The output is a directory (created when absent) holding one file per
 * device of the trace, DIR/NAME.blktrace.0, NAME the device's name (what
 * `blkparse -D DIR -i NAME` and `btrecord -D DIR NAME` take): a .bpt
 * trace does not know CPUs, so every device has the one "CPU 0" file.
 * An output named NAME.blktrace.0 is that one file (a trace of one
 * device; `blkparse -i NAME` reads it); NAME.blktrace.N for N > 0, or
 * NAME.blktrace.0 for a trace of several devices, is refused with what
 * to give instead. The files are written at once, two descriptors each
 * (common/outfile.h: the new file and its lock), the soft RLIMIT_NOFILE
 * raised up to the hard limit for them. When even that is too few, the
 * events go to one unnamed temporary file in the directory (the spool)
 * and btw_close writes the files in batches that fit, one pass over the
 * spool per batch; a batch that fails removes the files placed before
 * it. Below what one batch needs (-EMFILE) nothing is created.
 * Each I/O becomes three v0x07 events, little-endian whatever the host
 * (blkparse reads either order), in time order:
 *   Q  at queue_ns (issue_ns when the trace has no queue time), the
 *      submitter's pid, preceded by a PROCESS note naming its process the
 *      first time a (pid, name) appears;
 *   D  at issue_ns;
 *   C  at complete_ns with the error, when the completion was seen; when
 *      it was not, a MESSAGE note instead, at the D's time, with the D's
 *      device, sector, bytes and pid and the text
 *      "blkpeak: completion not seen: reused|pending BOUND" (BOUND the
 *      record's complete_ns on the file's clock), then a C at the same
 *      time: blkparse prints the note, btt and iowatcher see the
 *      request end (latency 0) instead of pairing a later C at its
 *      sector with it; blkpeak's reader ends the request at the note
 *      with that completion value and bound and takes the C that
 *      follows as no completion, so the round trip keeps them and a
 *      reader never holds the request to the end of the file.
 * Times are the record times plus the trace's start_mono_ns (so a
 * capture's events keep the machine's monotonic clock, as blktrace's
 * do; 1 s when it is 0, since readers take time 0 for "no time"); a
 * TIMESTAMP note at the start carries start_wall_ns. The device is
 * major:minor from the device table (0,0 when unknown). write-zeroes is
 * written as a write (v0x07 has no category for it). The cgroup id is
 * written only with BTW_OPT_CGROUP, as the kernel does (BT_TA_CGROUP and 8
 * bytes of payload): blkparse, btt and iowatcher before blktrace 1.3.0
 * take such an event for "Bad fs action" and drop it.
 *
 * Records come in issue-time order; queue and completion times are not
 * in order, so events are held in a heap until no later record can come
 * before them: up to BTW_SLACK_NS behind the latest issue time, or the
 * input's lag when convert measured it (btw_set_lag: a file blkpeak
 * wrote always converts), and at most BTW_MAX_HELD records. A record
 * queued before events already written is an error naming it.
 */
#ifndef FORMATS_BLKTRACE_WRITER_H
#define FORMATS_BLKTRACE_WRITER_H

#include "bpt.h"

#define BTW_SLACK_NS 1000000000ull /* 1 s */
#define BTW_MAX_HELD (1u << 23) /* each held record came from the input */

/* btw_open options */
#define BTW_OPT_CGROUP 1u /* write cgroup ids (BT_TA_CGROUP, blktrace >= 1.3) */

/* The text of the note for a completion not seen (the MESSAGE payload):
 * BTW_UNSEEN_TAG, "reused" or "pending", a space, the bound in ns. */
#define BTW_UNSEEN_TAG "blkpeak: completion not seen: "
#define BTW_UNSEEN_MAX 80

struct btw;

/* Create DIR (or use it) and one new file per device of hdr, or the one
 * file DIR when it is NAME.blktrace.0; inputs (may be NULL) are never
 * overwritten. options: BTW_OPT_*. */
int btw_open(struct btw **out, const char *dir, const struct bpt_header *hdr,
	     const char *const *inputs, unsigned options, struct bpt_error *err);
/* The input's lag (ff_writer_opts.lag_ns): events are held that long
 * (at least BTW_SLACK_NS) behind the latest issue, so that no record of
 * the input comes too late (still at most BTW_MAX_HELD records). */
void btw_set_lag(struct btw *w, uint64_t lag_ns);
/* One record (issue-time order); comm is its process name, "" if none. */
int btw_add(struct btw *w, const struct bpt_record *rec, const char *comm,
	    struct bpt_error *err);
/* Write what is held and place the files (failed == 0), or remove them
 * (failed != 0). Frees w. */
int btw_close(struct btw *w, int failed, struct bpt_error *err);

/* The file name for device name `dev` (no '/', not "." or ".."; "" becomes
 * "dev"), into buf of len bytes. */
void btw_file_name(const char *dev, char *buf, size_t len);

/* The note's text into buf (len >= BTW_UNSEEN_MAX); returns its length. */
int btw_unseen_text(char *buf, size_t len, unsigned completion, uint64_t bound);
/* Is a MESSAGE payload such a note? 1 with *completion and *bound, else 0. */
int btw_unseen_parse(const uint8_t *pdu, size_t len, uint8_t *completion, uint64_t *bound);

#endif
