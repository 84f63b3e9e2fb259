/* region.c — region maps: parsing, checking, and cutting I/Os (region.h). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cliutil.h"
#include "region.h"

int region_parse_size(const char *text, uint64_t *out)
{
	size_t n = strlen(text);
	uint64_t v;

	if (n > 1 && (text[n - 1] == 's' || text[n - 1] == 'S')) {
		char num[32];

		if (n - 1 >= sizeof(num))
			return -EINVAL;
		memcpy(num, text, n - 1);
		num[n - 1] = 0;
		if (parse_u64(num, &v) || v > UINT64_MAX / 512)
			return -EINVAL;
		*out = v * 512;
		return 0;
	}
	if (parse_size(text, &v) || v % 512)
		return -EINVAL;
	*out = v;
	return 0;
}

int region_parse_key(const char *key, size_t *dev_len, uint64_t *start, uint64_t *end,
		     int *to_end, struct bpt_error *error)
{
	const char *colon = strrchr(key, ':'), *range, *dash;
	char a[32], b[32];

	if (!colon || colon == key)
		return 0;
	range = colon + 1;
	dash = strchr(range, '-');
	if (!dash)
		return 0; /* "7:0" (major:minor) or a name with ':' */
	if ((size_t)(dash - range) >= sizeof(a) || strlen(dash + 1) >= sizeof(b))
		return bpt_error_set(error, -EINVAL, "'%s': region bounds too long", key);
	memcpy(a, range, (size_t)(dash - range));
	a[dash - range] = 0;
	strcpy(b, dash + 1);
	if (region_parse_size(a, start))
		return bpt_error_set(error, -EINVAL, "'%s': region start '%s' is not a size in "
				     "whole 512-byte sectors (1G, 512M, 4k, 2048s)", key, a);
	*to_end = !b[0];
	*end = 0;
	if (b[0] && region_parse_size(b, end))
		return bpt_error_set(error, -EINVAL, "'%s': region end '%s' is not a size in "
				     "whole 512-byte sectors (1G, 512M, 4k, 2048s)", key, b);
	if (!*to_end && *end <= *start)
		return bpt_error_set(error, -EINVAL, "'%s': empty region (the end must lie "
				     "after the start)", key);
	/* no disk is that large, and bounds below it keep every offset sum
	 * (a bound plus an I/O's length, plus @OFFSET) inside 64 bits */
	if (*start > REGION_MAX_BYTES || *end > REGION_MAX_BYTES)
		return bpt_error_set(error, -EINVAL, "'%s': region bound past 2^62 bytes (4 EiB)",
				     key);
	*dev_len = (size_t)(colon - key);
	return 1;
}

int region_parse_at(const char *spec, size_t *spec_len, uint64_t *at,
		    struct bpt_error *error)
{
	const char *sign = strrchr(spec, '@');
	uint64_t v;

	if (!sign || !sign[1])
		return 0;
	if (region_parse_size(sign + 1, &v)) {
		struct stat st;

		if (parse_size(sign + 1, &v) == 0) /* a size, but not in sectors */
			return bpt_error_set(error, -EINVAL, "'%s': @%s is not a whole number of "
					     "512-byte sectors", spec, sign + 1);
		/* a digit after '@' means an offset, unless the whole names
		 * an existing file ("disk@2.img") */
		if (isdigit((unsigned char)sign[1]) && stat(spec, &st))
			return bpt_error_set(error, -EINVAL, "'%s': @%s is not an offset (a size such "
					     "as 1G, 512M, 4k or 2048s)", spec, sign + 1);
		return 0; /* part of a path */
	}
	if (sign == spec)
		return bpt_error_set(error, -EINVAL, "'%s': no target before @OFFSET", spec);
	if (v > REGION_MAX_BYTES)
		return bpt_error_set(error, -EINVAL, "'%s': @%s is past 2^62 bytes (4 EiB)", spec,
				     sign + 1);
	*spec_len = (size_t)(sign - spec);
	*at = v;
	return 1;
}

static int by_dev_start(const void *a, const void *b)
{
	const struct region *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

int region_check(struct region *r, unsigned n, const char *const *dev_names,
		 struct bpt_error *error)
{
	qsort(r, n, sizeof(*r), by_dev_start);
	for (unsigned i = 1; i < n; i++)
		if (r[i].dev == r[i - 1].dev && r[i].start < r[i - 1].end)
			return bpt_error_set(error, -EINVAL,
					     "device %s: regions %" PRIu64 "-%" PRIu64 " and %" PRIu64
					     "-%" PRIu64 " (bytes) overlap", dev_names[r[i].dev],
					     r[i - 1].start, r[i - 1].end, r[i].start, r[i].end);
	return 0;
}

/* A flush (no bytes): one piece of no bytes per target of the device. */
static int split_flush(const struct region *r, unsigned n, unsigned dev, unsigned rest,
		       struct region_piece *out)
{
	int np = 0;

	if (rest != REGION_NO_TARGET)
		out[np++] = (struct region_piece){ .target = (uint8_t)rest };
	for (unsigned i = 0; i < n; i++) {
		int seen = 0;

		if (r[i].dev != dev)
			continue;
		for (int k = 0; k < np; k++)
			seen |= out[k].target == r[i].target;
		if (!seen)
			out[np++] = (struct region_piece){ .target = r[i].target };
	}
	return np;
}

int region_split(const struct region *r, unsigned n, unsigned dev, unsigned rest,
		 uint64_t off, uint64_t len, struct region_piece *out, uint64_t *miss)
{
	uint64_t pos = off, end = off + len;
	unsigned i = 0;
	int np = 0;

	if (!len)
		return split_flush(r, n, dev, rest, out);
	while (i < n && (r[i].dev < dev || (r[i].dev == dev && r[i].end <= pos)))
		i++;
	while (pos < end) {
		const struct region *g = i < n && r[i].dev == dev ? &r[i] : NULL;
		uint64_t stop;

		if (g && g->start <= pos) { /* inside region g */
			stop = end < g->end ? end : g->end;
			out[np++] = (struct region_piece){ .target = g->target,
				.offset = pos - g->start + g->at, .len = stop - pos,
				.src_off = pos - off };
			i++;
		} else { /* in the rest, up to the next region */
			stop = g && g->start < end ? g->start : end;
			if (rest == REGION_NO_TARGET) {
				*miss = pos;
				return -ENODEV;
			}
			out[np++] = (struct region_piece){ .target = (uint8_t)rest, .offset = pos,
				.len = stop - pos, .src_off = pos - off };
		}
		pos = stop;
	}
	return np;
}
