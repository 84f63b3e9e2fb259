/*
 * trace_summary.h — totals `blkpeak info` shows that the file's footer
 * does not hold: the I/O mix (count and bytes per operation), how often
 * each flag was seen, errors, and I/Os per device. Fed one record at a
 * time; no file access, constant memory.
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
	uint64_t per_dev[BPT_MAX_DEVICES];
	uint64_t other_dev;            /* I/Os naming a device past the table */
};

void trace_summary_init(struct trace_summary *s);
void trace_summary_add(struct trace_summary *s, const struct bpt_record *r);

/* Name of flag bit i ("sync", "fua", "preflush", "meta", "readahead"). */
const char *summary_flag_name(unsigned bit);

#endif
