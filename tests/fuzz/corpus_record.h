/*
 * corpus_record.h — record i of the seed corpus files (make_corpus.c),
 * shared with the unit test that reads the committed files back
 * (tests/unit/test_bpt_golden.c), so files written by an older version of
 * the library are checked against what they must contain.
 */
#ifndef CORPUS_RECORD_H
#define CORPUS_RECORD_H

#include <string.h>

#include "bpt.h"

/* ids: string ids of "fio", "kworker/1:2" and (from record nrec / 2 on)
 * "late-comm". */
static inline void corpus_record(int i, int nrec, const uint32_t ids[3],
				 struct bpt_record *r)
{
	memset(r, 0, sizeof(*r));
	r->issue_ns = 1000u * i + (i % 3) * 7;
	r->queue_ns = 1000u * i;
	r->complete_ns = 1000u * i + 500 + i * 13;
	r->sector = i & 1 ? 2048u + 8u * i : (uint64_t)i * 7919 * 8;
	r->bytes = i % 5 ? 4096 : 65536;
	r->pid = 100 + i % 2;
	r->comm_id = i == nrec / 2 ? ids[2] : ids[i % 2];
	r->cgroup_id = 77;
	r->error = i == 3 ? -5 : 0;
	r->dev = i % 2;
	r->op = i % 5;
	r->flags = i % 32;
	r->sched_ns = 1000u * i;
	r->source_index = i;
	r->member = i % 3;
}

#endif
