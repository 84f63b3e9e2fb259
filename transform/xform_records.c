/*
 * xform_records.c — the transforms over a stream of records that is
 * written out again (convert): the trace bound and measured once before
 * (xform_prepare), then every record of every pass through xform_apply,
 * its times moved by the loop and the ramp and its sector by the pass's
 * --loop-offset. The output header names what was done (meta
 * "transform", and "fill" for replay to use).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "xform.h"

/* The input's own "transform" meta (a trace transformed before), then
 * ours after " | ". */
static int set_meta(struct bpt_header *h, const struct xform *x)
{
	const char *old = bpt_header_get_meta(h, BPT_META_TRANSFORM);
	char buf[2048], fb[16];
	const char *fill = xform_fill_name(x, fb, sizeof(fb));
	int rc;

	if (old && *old)
		snprintf(buf, sizeof(buf), "%s | %s", old, xform_describe(x));
	else
		snprintf(buf, sizeof(buf), "%s", xform_describe(x));
	if ((rc = bpt_header_set_meta(h, BPT_META_TRANSFORM, buf)))
		return rc;
	return fill ? bpt_header_set_meta(h, BPT_META_FILL, fill) : 0;
}

int xform_prepare(struct xform *x, struct bpt_reader *r, struct bpt_header *out,
		  struct bpt_error *err)
{
	char why[256];
	int rc;

	if ((rc = xform_bind(x, r, 512, why, sizeof(why))))
		return bpt_error_set(err, rc, "%s", why);
	if ((rc = xform_measure(x, r, x->loops > 1 || x->ramp_from > 0, err)))
		return rc;
	if ((rc = xform_check_span(x, why, sizeof(why))))
		return bpt_error_set(err, rc, "%s", why);
	if ((rc = bpt_header_copy(out, bpt_reader_header(r))))
		return bpt_error_set(err, rc, "out of memory");
	if ((rc = set_meta(out, x))) {
		bpt_header_free(out);
		return bpt_error_set(err, rc, "cannot record the transforms in the header: %s",
				     strerror(-rc));
	}
	return 0;
}

/* t (absolute) through pass `pass` of the loop and the ramp, measured
 * from the kept records' first issue; a time before it keeps its
 * distance to that first issue's new time. */
static uint64_t move(const struct xform *x, uint64_t t, unsigned pass)
{
	uint64_t base = x->kept_first_ns;

	if (t >= base)
		return base + xform_time(x, t - base, pass);
	uint64_t b = base + xform_time(x, 0, pass), d = base - t;

	return b > d ? b - d : 0;
}

int xform_apply(struct xform *x, struct bpt_record *rec, unsigned pass, uint64_t idx,
		uint64_t *deselected, struct bpt_error *err)
{
	uint64_t issue = rec->issue_ns, off;
	int k = xform_record(x, rec);

	if (k < 0)
		return bpt_error_set(err, k, "record %llu: --spread/--shift would move it to "
				     "byte 2^62 or beyond", (unsigned long long)idx);
	if (!k) {
		(*deselected)++;
		return 0;
	}
	if (pass || x->ramp_from > 0) {
		rec->issue_ns = move(x, issue, pass);
		if (rec->queue_ns) /* the wait in the queue stays as recorded */
			rec->queue_ns = issue >= rec->queue_ns && rec->issue_ns >= issue - rec->queue_ns ?
					rec->issue_ns - (issue - rec->queue_ns) : rec->issue_ns;
		rec->complete_ns = rec->complete_ns >= issue ? move(x, rec->complete_ns, pass)
							     : rec->issue_ns;
	}
	off = xform_pass_offset(x, pass);
	if (off && rec->op != BPT_OP_FLUSH) {
		if (rec->sector * 512 + off >= XF_MAX_OFFSET)
			return bpt_error_set(err, -ERANGE, "record %llu, pass %u: --loop-offset "
					     "would move it to byte 2^62 or beyond",
					     (unsigned long long)idx, pass + 1);
		rec->sector += off / 512;
	}
	return 1;
}
