/*
 * trace_summary.h — totals `blkpeak info` shows that the file's footer
 * does not hold: the I/O mix (count and bytes per operation), how often
 * each flag was seen, errors, and I/Os per device. Fed one record at a
 * time; no file access. Memory: the per-device counts grow with the
 * highest device index a record names (8 bytes each, at most
 * BPT_MAX_DEVICES), the rest is constant.
 */
#ifndef BLKPEAK_TRACE_SUMMARY_H
#define BLKPEAK_TRACE_SUMMARY_H

#include <stdint.h>

#include "bpt.h"

#define SUMMARY_NFLAGS 5 /* bits of enum bpt_flag */

struct trace_summary {
	uint64_t records;
	uint64_t count[BPT_OP__COUNT]; /* I/Os per operation */
	uint64_t bytes[BPT_OP__COUNT]; /* bytes per operation */
	uint64_t flag[SUMMARY_NFLAGS]; /* I/Os carrying flag bit i */
	uint64_t errors;               /* I/Os with error != 0 */
	/* I/Os whose completion was not seen, by the bound's kind
	 * (enum bpt_completion; [BPT_COMPLETION_SEEN] stays 0) */
	uint64_t unseen[BPT_COMPLETION__COUNT];
	uint64_t *per_dev;             /* I/Os per device index, ndev of them */
	uint32_t ndev, cap;
	uint64_t other_dev;            /* I/Os naming an index >= BPT_MAX_DEVICES */
};

void trace_summary_init(struct trace_summary *s);
/* Count r; 0, or -ENOMEM (r is then not counted). */
int trace_summary_add(struct trace_summary *s, const struct bpt_record *r);
/* I/Os of device index dev (0 for one no record named). */
uint64_t trace_summary_dev(const struct trace_summary *s, uint32_t dev);
/* I/Os naming a device at or past index ndevices (a table's length). */
uint64_t trace_summary_beyond(const struct trace_summary *s, uint32_t ndevices);
void trace_summary_free(struct trace_summary *s);

/* Name of flag bit i ("sync", "fua", "preflush", "meta", "readahead"). */
const char *summary_flag_name(unsigned bit);

#endif
