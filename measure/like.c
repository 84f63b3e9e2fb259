/*
 * like.c — the access mix of a recorded trace, for `measure qd-sweep
 * --like TRACE`: the share of reads among its reads and writes, the share
 * of them that do not start where the previous one on the same device
 * ended (random), and its most frequent sizes with their frequencies.
 * Flushes, discards and write-zeroes are left out.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpt.h"
#include "measure.h"

#define LIKE_MAX_SIZES 32      /* what generate's --bs mix holds */
#define LIKE_MAX_BS (64u << 20) /* generate's largest size */

struct size_count {
	uint32_t size;
	uint64_t count;
};

static int by_count_desc(const void *a, const void *b)
{
	const struct size_count *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->size < y->size ? -1 : x->size > y->size;
}

/* Count one size in the table (grown as needed). */
static int count_size(struct size_count **t, size_t *n, size_t *cap, uint32_t size)
{
	for (size_t i = 0; i < *n; i++)
		if ((*t)[i].size == size) {
			(*t)[i].count++;
			return 0;
		}
	if (*n == *cap) {
		size_t nc = *cap ? 2 * *cap : 64;
		struct size_count *nt = realloc(*t, nc * sizeof(*nt));

		if (!nt)
			return -ENOMEM;
		*t = nt;
		*cap = nc;
	}
	(*t)[(*n)++] = (struct size_count){ size, 1 };
	return 0;
}

/* Make *ends (the end sector of each device's last I/O, *n of them,
 * UINT64_MAX for none yet) hold index dev: grown to the index a record
 * names, not to the most devices a trace may have. */
static int grow_ends(uint64_t **ends, uint32_t *n, uint32_t dev)
{
	uint32_t nn = dev < 32 ? 64 : dev + dev / 2 + 1;
	uint64_t *e = realloc(*ends, (size_t)nn * sizeof(*e));

	if (!e)
		return -ENOMEM;
	memset(e + *n, 0xff, (size_t)(nn - *n) * sizeof(*e));
	*ends = e;
	*n = nn;
	return 0;
}

int measure_like(const char *path, double *read_pct, double *random_pct, char *mix,
		 size_t len, struct bpt_error *err)
{
	struct bpt_reader *r;
	struct bpt_record rec;
	uint64_t *prev_end = NULL, reads = 0, all = 0, random = 0, total = 0;
	struct size_count *t = NULL;
	size_t n = 0, cap = 0, o = 0;
	uint32_t ndev = 0;
	int rc;

	if ((rc = bpt_reader_open(&r, path, err)))
		return rc;
	while ((rc = bpt_reader_next(r, &rec, err)) == 1) {
		uint32_t size;

		if (rec.op != BPT_OP_READ && rec.op != BPT_OP_WRITE)
			continue;
		size = (rec.bytes + 511) / 512 * 512;
		if (!size || size > LIKE_MAX_BS)
			continue;
		all++;
		reads += rec.op == BPT_OP_READ;
		if (rec.dev >= ndev && grow_ends(&prev_end, &ndev, rec.dev)) {
			rc = bpt_error_set(err, -ENOMEM, "%s: out of memory", path);
			break;
		}
		random += rec.sector != prev_end[rec.dev];
		prev_end[rec.dev] = rec.sector + rec.bytes / 512;
		if (count_size(&t, &n, &cap, size)) {
			rc = bpt_error_set(err, -ENOMEM, "%s: out of memory", path);
			break;
		}
	}
	bpt_reader_close(r);
	if (rc < 0)
		goto out;
	if (!all) {
		rc = bpt_error_set(err, -EINVAL, "%s: no read or write to take the mix of", path);
		goto out;
	}
	*read_pct = 100.0 * (double)reads / (double)all;
	*random_pct = 100.0 * (double)random / (double)all;
	qsort(t, n, sizeof(*t), by_count_desc);
	if (n > LIKE_MAX_SIZES)
		n = LIKE_MAX_SIZES;
	for (size_t i = 0; i < n; i++)
		total += t[i].count;
	mix[0] = '\0';
	for (size_t i = 0; i < n && o < len; i++) {
		/* weights in parts per million of the sizes kept, at least 1 */
		uint64_t w = (uint64_t)((double)t[i].count * 1e6 / (double)total + 0.5);

		o += (size_t)snprintf(mix + o, len - o, "%s%" PRIu32 ":%" PRIu64, i ? "," : "",
				      t[i].size, w ? w : 1);
	}
	if (o >= len)
		rc = bpt_error_set(err, -E2BIG, "%s: its size mix is too long", path);
	else
		rc = 0;
out:
	free(t);
	free(prev_end);
	return rc;
}
