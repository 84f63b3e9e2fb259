/*
 * xf_stream.c — loop and ramp over the load stream (xf_stream.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "target.h"
#include "xf_stream.h"

int xf_totals(struct loaded_trace *lt, struct xform *x, char *why, size_t len)
{
	unsigned passes = xform_passes(x);
	uint64_t add = (uint64_t)(passes - 1) * x->loop_offset;

	x->span_ns = lt->recorded_ns;
	if (xform_check_span(x, why, len))
		return -ERANGE;
	for (unsigned t = 0; t < LOAD_MAX_TARGETS; t++) {
		struct load_target_stats *ts = &lt->tgt[t];

		if (!ts->ios)
			continue;
		if (ts->extent + add >= XF_MAX_OFFSET) {
			snprintf(why, len, "--loop %u --loop-offset %llu: the last pass would end at "
				 "byte %.4g, past 2^62", passes, (unsigned long long)x->loop_offset,
				 (double)ts->extent + (double)add);
			return -ERANGE;
		}
		ts->extent += add;
		ts->ios *= passes;
		ts->writes *= passes;
	}
	lt->n = lt->n_pass * passes;
	lt->skipped *= passes;
	lt->deselected *= passes;
	lt->recorded_ns = xform_total_ns(x);
	return 0;
}

/* The logical block size of block device `st` from sysfs (a partition's
 * from its disk's queue), 0 when not found. */
static uint32_t sysfs_lbs(const struct stat *st)
{
	static const char *const where[] = { "queue", "../queue" };
	char path[96];

	for (unsigned i = 0; i < 2; i++) {
		unsigned v = 0;
		FILE *f;

		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/%s/logical_block_size",
			 major(st->st_rdev), minor(st->st_rdev), where[i]);
		if (!(f = fopen(path, "re")))
			continue;
		if (fscanf(f, "%u", &v) != 1)
			v = 0;
		fclose(f);
		if (v)
			return v;
	}
	return 0;
}

uint32_t xf_target_align(const char *spec)
{
	struct target_spec ts;
	struct bpt_error err;
	uint32_t align = 512;

	if (target_spec_parse(spec, &ts, &err))
		return align;
	for (unsigned m = 0; m < ts.nmembers; m++) {
		struct stat st;
		uint32_t v;

		if (!stat(ts.members[m], &st) && S_ISBLK(st.st_mode) && (v = sysfs_lbs(&st)) > align)
			align = v;
	}
	target_spec_free(&ts);
	return align;
}

struct xf_stream {
	const struct xform *x;
	struct fit fit[LOAD_MAX_TARGETS];
	int have_fit;
	struct load_stream *s;
	struct conflicts cf;
};

int xf_stream_open(struct xf_stream **out, struct bpt_reader *r, const struct loaded_trace *lt,
		   const struct fit *fit, uint64_t window, const struct xform *x,
		   enum conflict_rule rule)
{
	struct xf_stream *s = calloc(1, sizeof(*s));
	int rc;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->x = x;
	s->cf.rule = rule;
	if (fit) {
		memcpy(s->fit, fit, sizeof(s->fit));
		s->have_fit = 1;
	}
	if ((rc = load_stream_open_passes(&s->s, r, lt, NULL, window, x ? xform_passes(x) : 1))) {
		free(s);
		return rc;
	}
	*out = s;
	return 0;
}

void xf_stream_conflicts(const struct xf_stream *s, uint64_t *count, uint64_t *dropped)
{
	*count = s ? s->cf.count : 0;
	*dropped = s ? s->cf.dropped : 0;
}

/* The next I/O with the loop, ramp and fit applied: as load_stream_next. */
static int next_placed(struct xf_stream *s, struct rp_io *io, struct bpt_error *err)
{
	int rc = load_stream_next(s->s, io, err);

	if (rc != 1)
		return rc;
	if (s->x) {
		unsigned pass = load_stream_pass(s->s);

		io->t_ns = xform_time(s->x, io->t_ns, pass);
		io->done_ns = xform_time(s->x, io->done_ns, pass);
		if (io->op != BPT_OP_FLUSH)
			io->offset += xform_pass_offset(s->x, pass);
	}
	if (s->have_fit && io->op != BPT_OP_FLUSH)
		io->offset = fit_map(&s->fit[io->target], io->offset, io->len);
	return 1;
}

int xf_stream_next(struct xf_stream *s, struct rp_io *io, struct bpt_error *err)
{
	int rc;

	while ((rc = next_placed(s, io, err)) == 1) {
		if ((rc = conflicts_next(&s->cf, io)) < 0) {
			if (err)
				bpt_error_set(err, rc, "out of memory keeping the I/Os in flight");
			return rc;
		}
		if (rc == 1)
			return 1;
	}
	return rc;
}

void xf_stream_close(struct xf_stream *s)
{
	if (!s)
		return;
	load_stream_close(s->s);
	conflicts_free(&s->cf);
	free(s);
}
