/*
 * trace_summary.c — the per-operation, per-flag and per-device totals of
 * `blkpeak info` (see trace_summary.h).
 */
#include "trace_summary.h"

#include <string.h>

void trace_summary_init(struct trace_summary *s)
{
	memset(s, 0, sizeof(*s));
}

void trace_summary_add(struct trace_summary *s, const struct bpt_record *r)
{
	s->records++;
	/* the reader rejects unknown ops; stay safe if one slips through */
	if (r->op < BPT_OP__COUNT) {
		s->count[r->op]++;
		s->bytes[r->op] += r->bytes;
	}
	for (unsigned i = 0; i < SUMMARY_NFLAGS; i++)
		if (r->flags & (1u << i))
			s->flag[i]++;
	if (r->error)
		s->errors++;
	if (r->completion != BPT_COMPLETION_SEEN && r->completion < BPT_COMPLETION__COUNT)
		s->unseen[r->completion]++;
	if (r->dev < BPT_MAX_DEVICES)
		s->per_dev[r->dev]++;
	else
		s->other_dev++;
}

const char *summary_flag_name(unsigned bit)
{
	static const char *const names[SUMMARY_NFLAGS] = {
		"sync", "fua", "preflush", "meta", "readahead",
	};

	return bit < SUMMARY_NFLAGS ? names[bit] : "?";
}
