/*
 * load.c — a trace file into an issue-sorted struct rp_io array (load.h).
 *
 * Captures are written in completion order, so the records are sorted by
 * issue time here (ties by their position in the file, so the result does
 * not depend on the sort).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"
#include "stats.h"

static int cmp_issue(const void *a, const void *b)
{
	const struct rp_io *x = a, *y = b;

	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return x->src < y->src ? -1 : x->src > y->src;
}

static int issue_sorted(const struct rp_io *io, uint64_t n)
{
	for (uint64_t i = 1; i < n; i++)
		if (cmp_issue(&io[i - 1], &io[i]) > 0)
			return 0;
	return 1;
}

unsigned load_max_outstanding(const struct rp_io *io, uint64_t n)
{
	uint64_t *done = malloc(n * sizeof(*done) + 1), j = 0;
	int64_t cur = 0, best = 0; /* cur dips below the truth only for zero-latency ties */

	if (!done)
		return n ? 1 : 0;
	for (uint64_t i = 0; i < n; i++)
		done[i] = io[i].done_ns;
	if (stats_sort_u64_alloc(done, n)) {
		free(done);
		return n ? 1 : 0;
	}
	for (uint64_t i = 0; i < n; i++) {
		/* completions at or before this issue have left the queue */
		while (j < n && done[j] <= io[i].t_ns) {
			j++;
			cur--;
		}
		cur++;
		if (cur > best)
			best = cur;
	}
	free(done);
	return (unsigned)best;
}

static int is_write_op(unsigned op)
{
	return op == BPT_OP_WRITE || op == BPT_OP_DISCARD || op == BPT_OP_WRITE_ZEROES;
}

void loaded_trace_free(struct loaded_trace *lt)
{
	free(lt->io);
	memset(lt, 0, sizeof(*lt));
}

int load_trace(struct bpt_reader *r, const struct load_opts *opts,
	       struct loaded_trace *lt, struct bpt_error *err)
{
	struct bpt_record rec;
	uint64_t cap = 0, first = UINT64_MAX, last_done = 0, idx = 0;
	int rc;

	memset(lt, 0, sizeof(*lt));
	while ((rc = bpt_reader_next(r, &rec, err)) == 1) {
		struct rp_io *io;
		unsigned op = rec.op, flags = rec.flags;

		idx++;
		lt->source_records++;
		if (opts->dev_target[rec.dev] == LOAD_UNMAPPED) {
			int dev = rec.dev;

			loaded_trace_free(lt);
			lt->unmapped_dev = dev;
			return -ENODEV;
		}
		if (is_write_op(op) && opts->writes != WRITES_REPLAY) {
			if (opts->writes == WRITES_SKIP || op != BPT_OP_WRITE) {
				lt->skipped++;
				continue;
			}
			op = BPT_OP_READ;
			flags &= ~(unsigned)BPT_F_FUA;
		}
		if (lt->n == cap) {
			uint64_t ncap = cap ? cap * 2 : 65536;
			struct rp_io *p = realloc(lt->io, ncap * sizeof(*p));

			if (!p) {
				loaded_trace_free(lt);
				return -ENOMEM;
			}
			lt->io = p;
			cap = ncap;
		}
		io = &lt->io[lt->n++];
		*io = (struct rp_io){
			.t_ns = rec.issue_ns,
			.done_ns = rec.complete_ns < rec.issue_ns ? rec.issue_ns : rec.complete_ns,
			.offset = rec.sector * 512,
			.len = rec.bytes,
			.src = (uint32_t)(idx - 1),
			.target = opts->dev_target[rec.dev],
			.op = (uint8_t)op,
			.flags = (uint8_t)flags,
		};
		if (io->t_ns < first)
			first = io->t_ns;
		if (io->done_ns > last_done)
			last_done = io->done_ns;
	}
	if (rc < 0) {
		loaded_trace_free(lt);
		return rc;
	}
	if (!issue_sorted(lt->io, lt->n)) /* generated traces already are */
		qsort(lt->io, lt->n, sizeof(*lt->io), cmp_issue);
	for (uint64_t i = 0; i < lt->n; i++) {
		struct rp_io *io = &lt->io[i];
		struct load_target_stats *ts = &lt->tgt[io->target];

		io->t_ns -= first;
		io->done_ns -= first;
		ts->ios++;
		if (is_write_op(io->op))
			ts->writes++;
		if (io->op != BPT_OP_FLUSH) {
			if (io->offset + io->len > ts->extent)
				ts->extent = io->offset + io->len;
			if (io->len > ts->max_len)
				ts->max_len = io->len;
			if ((io->op == BPT_OP_READ || io->op == BPT_OP_WRITE) && io->len > ts->max_rw_len)
				ts->max_rw_len = io->len;
		}
	}
	lt->recorded_ns = lt->n ? last_done - first : 0;
	lt->max_outstanding = load_max_outstanding(lt->io, lt->n);
	return 0;
}
