/*
 * xform.c — applying the what-if transforms (xform.h): binding to a
 * trace, the record-level transforms, the times of a looped and ramped
 * schedule, the data written.
 */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xform.h"

int xform_active(const struct xform *x)
{
	return xform_changes_records(x) || x->loops > 1 || x->ramp_from > 0 ||
	       x->fill != XF_FILL_PATTERN;
}

int xform_changes_records(const struct xform *x)
{
	return x->has_time || x->ndev || x->ncomm || x->npid || x->npath || x->op_mask ||
	       x->ops || x->spread > 0 || x->shift;
}

const char *xform_describe(const struct xform *x)
{
	return x->text;
}

/* Does device d answer to key: its name, /dev/name or MAJ:MIN? */
static int dev_is(const struct bpt_device *d, const char *key)
{
	char name[sizeof(d->name) + 1], mm[32];

	snprintf(name, sizeof(name), "%.*s", (int)sizeof(d->name), d->name);
	snprintf(mm, sizeof(mm), "%u:%u", d->major, d->minor);
	if (!strncmp(key, "/dev/", 5))
		key += 5;
	return !strcmp(key, name) || !strcmp(key, mm);
}

/* --select path:GLOB needs the file columns and a path table, and each
 * glob must match a file's name (its first path, as path_ok reads it):
 * else nothing would be replayed, silently. */
static int check_paths(const struct xform *x, const struct bpt_reader *r, char *why, size_t len)
{
	const struct bpt_path *p;
	size_t n = bpt_reader_paths(r, &p);

	for (unsigned k = 0; k < x->npath; k++) {
		const char *eg = NULL;
		int found = 0;

		if (!(x->columns & BPT_COL_FILE) || !n) {
			snprintf(why, len, "--select path:%.64s: the trace has %s", x->path[k],
				 !(x->columns & BPT_COL_FILE) ? "no file columns (a capture of "
				 "trace format 1.3 has them)" : "no path table (a capture cut "
				 "before its footer has none)");
			return -EINVAL;
		}
		for (size_t i = 0; i < n && !found; i++) {
			const char *s = bpt_reader_string(r, p[i].path_id);

			if (i && p[i].file_dev == p[i - 1].file_dev && p[i].inode == p[i - 1].inode)
				continue; /* a later name of the same file */
			eg = eg ? eg : s;
			found = s && !fnmatch(x->path[k], s, 0);
		}
		if (!found) {
			snprintf(why, len, "--select path:%.64s: no file of the trace's %zu paths "
				 "matches (paths are absolute, e.g. %.128s; '*' matches '/' too)",
				 x->path[k], n, eg ? eg : "?");
			return -ENOENT;
		}
	}
	return 0;
}

int xform_bind(struct xform *x, const struct bpt_reader *r, uint32_t align, char *why,
	       size_t len)
{
	const struct bpt_header *h = bpt_reader_header(r);

	x->r = r;
	x->columns = h->columns;
	x->align = align < 512 ? 512 : align;
	if (x->shift % x->align || x->loop_offset % x->align) {
		snprintf(why, len, "%s %llu: not a multiple of %u bytes (%s)", x->shift % x->align ? "--shift" : "--loop-offset",
			 (unsigned long long)(x->shift % x->align ? x->shift : x->loop_offset),
			 x->align, x->align == 512 ? "the sector" : "the target's logical block size");
		return -EINVAL;
	}
	if (x->npath) {
		int rc = check_paths(x, r, why, len);

		if (rc)
			return rc;
	}
	free(x->dev_ok);
	x->dev_ok = NULL;
	x->ndevices = h->ndevices;
	if (x->ndev) {
		x->dev_ok = calloc(h->ndevices ? h->ndevices : 1, 1);
		if (!x->dev_ok)
			return -ENOMEM;
		for (unsigned k = 0; k < x->ndev; k++) {
			int found = 0;

			for (uint32_t i = 0; i < h->ndevices; i++)
				if (dev_is(&h->devices[i], x->dev[k]))
					x->dev_ok[i] = found = 1;
			if (!found) {
				snprintf(why, len, "--select dev:%.64s: the trace has no such device",
					 x->dev[k]);
				return -ENODEV;
			}
		}
	}
	return 0;
}

void xform_free(struct xform *x)
{
	free(x->dev_ok);
	free(x->comm_cache);
	x->dev_ok = x->comm_cache = NULL;
	x->ncomm_cache = 0;
}

/* Does string `id` match one of the comm globs? Cached per id. */
static int comm_ok(struct xform *x, uint32_t id)
{
	if (id >= x->ncomm_cache) {
		uint32_t n = x->ncomm_cache ? x->ncomm_cache : 64;
		uint8_t *p;

		while (n <= id && n < (1u << 31))
			n *= 2;
		if (n <= id || !(p = realloc(x->comm_cache, n)))
			goto uncached;
		memset(p + x->ncomm_cache, 0, n - x->ncomm_cache);
		x->comm_cache = p;
		x->ncomm_cache = n;
	}
	if (!x->comm_cache[id]) {
		const char *s = bpt_reader_string(x->r, id);
		int ok = 0;

		for (unsigned k = 0; k < x->ncomm && !ok; k++)
			ok = !fnmatch(x->comm[k], s ? s : "", 0);
		x->comm_cache[id] = ok ? 2 : 1;
	}
	return x->comm_cache[id] == 2;
uncached:
	for (unsigned k = 0; k < x->ncomm; k++) {
		const char *s = bpt_reader_string(x->r, id);

		if (!fnmatch(x->comm[k], s ? s : "", 0))
			return 1;
	}
	return 0;
}

static int path_ok(const struct xform *x, const struct bpt_record *rec)
{
	const char *p;

	if (!(x->columns & BPT_COL_FILE) || rec->file_class != BPT_FILE_DATA)
		return 0;
	p = bpt_reader_path(x->r, rec->file_dev, rec->inode);
	for (unsigned k = 0; p && k < x->npath; k++)
		if (!fnmatch(x->path[k], p, 0))
			return 1;
	return 0;
}

static int selected(struct xform *x, const struct bpt_record *rec)
{
	if (x->has_time) {
		uint64_t t = rec->issue_ns >= x->trace_first_ns ? rec->issue_ns - x->trace_first_ns : 0;

		if (t < x->t_from_ns || t >= x->t_to_ns)
			return 0;
	}
	if (x->op_mask && !(rec->op < 32 && (x->op_mask >> rec->op & 1)))
		return 0;
	if (x->ndev && (rec->dev >= x->ndevices || !x->dev_ok[rec->dev]))
		return 0;
	if (x->npid || x->ncomm) {
		uint32_t pid, comm;
		uint64_t cg;
		int ok = 0;

		bpt_record_credit(rec, x->columns, &pid, &comm, &cg);
		for (unsigned k = 0; k < x->npid && !ok; k++)
			ok = pid == x->pid[k];
		if (!ok && x->ncomm)
			ok = comm_ok(x, comm);
		if (!ok)
			return 0;
	}
	if (x->npath && !path_ok(x, rec))
		return 0;
	return 1;
}

int xform_record(struct xform *x, struct bpt_record *rec)
{
	int is_write = rec->op == BPT_OP_WRITE || rec->op == BPT_OP_DISCARD ||
		       rec->op == BPT_OP_WRITE_ZEROES;

	if (!selected(x, rec))
		return 0;
	if (is_write && (x->ops & XF_WRITES_AS_READS)) {
		if (rec->op != BPT_OP_WRITE)
			return 0;
		rec->op = BPT_OP_READ;
		rec->flags &= (uint8_t)~(BPT_F_FUA | BPT_F_PREFLUSH);
	} else if (rec->op == BPT_OP_READ && (x->ops & XF_READS_AS_WRITES)) {
		rec->op = BPT_OP_WRITE;
		rec->flags &= (uint8_t)~BPT_F_READAHEAD;
	}
	if (rec->op != BPT_OP_FLUSH && (x->spread > 0 || x->shift)) {
		long double b = (long double)rec->sector * 512.0L;
		uint64_t off;

		if (x->spread > 0) {
			b *= (long double)x->spread;
			if (b >= (long double)XF_MAX_OFFSET)
				return -ERANGE;
			off = (uint64_t)b / x->align * x->align;
		} else {
			off = rec->sector * 512;
		}
		if (off + x->shift >= XF_MAX_OFFSET)
			return -ERANGE;
		rec->sector = (off + x->shift) / 512;
	}
	return 1;
}

int xform_measure(struct xform *x, struct bpt_reader *r, int need_span, struct bpt_error *err)
{
	struct bpt_stats st;
	struct bpt_record rec;
	uint64_t first = UINT64_MAX, kfirst = UINT64_MAX, klast = 0;
	int rc;

	bpt_reader_stats(r, &st);
	if (st.complete && !st.truncated && st.records) {
		first = st.first_issue_ns;
	} else if (x->has_time) {
		if ((rc = bpt_reader_rewind(r, err)))
			return rc;
		while ((rc = bpt_reader_next(r, &rec, err)) == 1)
			if (rec.issue_ns < first)
				first = rec.issue_ns;
		if (rc < 0)
			return rc;
	}
	x->trace_first_ns = first == UINT64_MAX ? 0 : first;
	if (need_span) {
		if ((rc = bpt_reader_rewind(r, err)))
			return rc;
		while ((rc = bpt_reader_next(r, &rec, err)) == 1) {
			int k = xform_record(x, &rec);

			if (k <= 0)
				continue; /* (an -ERANGE is reported by the pass that writes) */
			if (rec.issue_ns < kfirst)
				kfirst = rec.issue_ns;
			if (rec.complete_ns > klast)
				klast = rec.complete_ns;
			if (rec.issue_ns > klast)
				klast = rec.issue_ns;
		}
		if (rc < 0)
			return rc;
		x->kept_first_ns = kfirst == UINT64_MAX ? 0 : kfirst;
		x->span_ns = kfirst == UINT64_MAX ? 0 : klast - kfirst;
	}
	return bpt_reader_rewind(r, err);
}

/* Recorded time u of a schedule T long, through the ramp. */
static uint64_t ramp(const struct xform *x, uint64_t u, uint64_t total)
{
	long double a = x->ramp_from, b = x->ramp_to, t = u, tt = total, v;

	if (x->ramp_from <= 0)
		return u;
	if (a == b || !total)
		v = t / a;
	else if (u <= total) /* integral of dt / (a + (b - a) t / T) */
		v = tt / (b - a) * log1pl((b - a) * t / (a * tt));
	else /* past the schedule's end (not reached by its I/Os): speed b */
		v = tt / (b - a) * log1pl((b - a) / a) + (t - tt) / b;
	if (v >= (long double)(1ull << 62))
		return 1ull << 62;
	return (uint64_t)(v + 0.5L);
}

int xform_check_span(const struct xform *x, char *why, size_t len)
{
	uint64_t passes = xform_passes(x);

	if (x->span_ns && passes > ((1ull << 62) - 1) / x->span_ns) {
		snprintf(why, len, "--loop %llu: %llu passes of the trace's %.3f s would last "
			 "2^62 ns or more", (unsigned long long)passes, (unsigned long long)passes,
			 (double)x->span_ns / 1e9);
		return -ERANGE;
	}
	return 0;
}

uint64_t xform_time(const struct xform *x, uint64_t t_ns, unsigned pass)
{
	uint64_t total = (uint64_t)xform_passes(x) * x->span_ns;
	uint64_t u = t_ns + (uint64_t)pass * x->span_ns;

	return ramp(x, u, total);
}

uint64_t xform_total_ns(const struct xform *x)
{
	uint64_t total = (uint64_t)xform_passes(x) * x->span_ns;

	return ramp(x, total, total);
}

const char *xform_fill_name(const struct xform *x, char *buf, size_t len)
{
	switch (x->fill) {
	case XF_FILL_ZERO: return "zero";
	case XF_FILL_RANDOM: return "random";
	case XF_FILL_PCT:
		snprintf(buf, len, "%u", x->fill_pct);
		return buf;
	default: return NULL;
	}
}

/* xorshift64*: a fixed seed, so two runs write the same data. */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1Dull;
}

void xform_fill_buffer(const struct xform *x, void *buf, size_t len)
{
	unsigned char *p = buf;
	uint64_t seed = 0x9E3779B97F4A7C15ull;

	if (x->fill == XF_FILL_PATTERN)
		return;
	if (x->fill == XF_FILL_ZERO) {
		memset(p, 0, len);
		return;
	}
	for (size_t i = 0; i < len; i += 8) {
		uint64_t v = next_rand(&seed);

		memcpy(p + i, &v, len - i < 8 ? len - i : 8);
	}
	if (x->fill == XF_FILL_PCT) /* the first PCT% of every 4 KiB: zeros */
		for (size_t i = 0; i < len; i += 4096) {
			size_t z = (size_t)x->fill_pct * 4096 / 100;

			memset(p + i, 0, len - i < z ? len - i : z);
		}
}
