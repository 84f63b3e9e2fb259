/*
 * trace_summary.c — the per-operation, per-flag and per-device totals of
 * `blkpeak info` (see trace_summary.h).
 */
#include "trace_summary.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void trace_summary_init(struct trace_summary *s)
{
	memset(s, 0, sizeof(*s));
}

/* Make per_dev hold index dev (doubling, at most BPT_MAX_DEVICES). */
static int grow(struct trace_summary *s, uint32_t dev)
{
	uint32_t cap = s->cap ? s->cap : 64;
	uint64_t *n;

	while (cap <= dev)
		cap *= 2;
	if (cap > BPT_MAX_DEVICES)
		cap = BPT_MAX_DEVICES;
	if (!(n = realloc(s->per_dev, cap * sizeof(*n))))
		return -ENOMEM;
	memset(n + s->cap, 0, (cap - s->cap) * sizeof(*n));
	s->per_dev = n;
	s->cap = cap;
	return 0;
}

int trace_summary_add(struct trace_summary *s, const struct bpt_record *r)
{
	if (r->dev < BPT_MAX_DEVICES && r->dev >= s->cap && grow(s, r->dev))
		return -ENOMEM;
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
	if (r->dev < BPT_MAX_DEVICES) {
		s->per_dev[r->dev]++;
		if (r->dev >= s->ndev)
			s->ndev = r->dev + 1;
	} else {
		s->other_dev++;
	}
	return 0;
}

uint64_t trace_summary_dev(const struct trace_summary *s, uint32_t dev)
{
	return dev < s->ndev ? s->per_dev[dev] : 0;
}

uint64_t trace_summary_beyond(const struct trace_summary *s, uint32_t ndevices)
{
	uint64_t n = s->other_dev;

	for (uint32_t i = ndevices; i < s->ndev; i++)
		n += s->per_dev[i];
	return n;
}

void trace_summary_free(struct trace_summary *s)
{
	free(s->per_dev);
	s->per_dev = NULL;
	s->ndev = s->cap = 0;
}

const char *summary_flag_name(unsigned bit)
{
	static const char *const names[SUMMARY_NFLAGS] = {
		"sync", "fua", "preflush", "meta", "readahead",
	};

	return bit < SUMMARY_NFLAGS ? names[bit] : "?";
}
