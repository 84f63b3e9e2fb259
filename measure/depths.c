/* depths.c — sweep depths and their weights (depths.h). */
#include "depths.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bpt.h"
#include "cliutil.h"
#include "stats.h"

static void equal_weights(struct depths *d)
{
	for (unsigned i = 0; i < d->n; i++)
		d->weight[i] = 1.0 / d->n;
}

int depths_parse(const char *s, struct depths *d, struct bpt_error *err)
{
	char buf[512], *save = NULL, *tok;

	memset(d, 0, sizeof(*d));
	if (strlen(s) >= sizeof(buf))
		return bpt_error_set(err, -EINVAL, "--depths: '%.40s...': too long", s);
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;

		if (parse_u64(tok, &v))
			return bpt_error_set(err, -EINVAL, "--depths: '%s': not a number", tok);
		if (v < 1 || v > MEASURE_MAX_DEPTH)
			return bpt_error_set(err, -EINVAL, "--depths: %s: a depth is 1..%u", tok,
					     MEASURE_MAX_DEPTH);
		if (d->n && v <= d->depth[d->n - 1])
			return bpt_error_set(err, -EINVAL, "--depths: %s: depths must increase", tok);
		if (d->n == MEASURE_MAX_DEPTHS)
			return bpt_error_set(err, -EINVAL, "--depths: more than %d depths",
					     MEASURE_MAX_DEPTHS);
		d->depth[d->n++] = (uint32_t)v;
	}
	if (!d->n)
		return bpt_error_set(err, -EINVAL, "--depths: '%s': no depth", s);
	equal_weights(d);
	return 0;
}

int depths_weights_parse(const char *s, struct depths *d, struct bpt_error *err)
{
	char buf[1024], *save = NULL, *tok;
	double w[MEASURE_MAX_DEPTHS] = { 0 }, sum = 0;
	int given[MEASURE_MAX_DEPTHS] = { 0 };

	if (strlen(s) >= sizeof(buf))
		return bpt_error_set(err, -EINVAL, "--weights: '%.40s...': too long", s);
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		uint64_t depth;
		double v;
		unsigned i;

		if (!colon)
			return bpt_error_set(err, -EINVAL, "--weights: '%s': not DEPTH:WEIGHT", tok);
		*colon = '\0';
		if (parse_u64(tok, &depth) || parse_double(colon + 1, &v) || !(v >= 0) ||
		    v > 1e12)
			return bpt_error_set(err, -EINVAL, "--weights: '%s:%s': not DEPTH:WEIGHT"
					     " with a weight >= 0", tok, colon + 1);
		for (i = 0; i < d->n && d->depth[i] != depth; i++)
			;
		if (i == d->n)
			return bpt_error_set(err, -EINVAL, "--weights: depth %s is not in --depths", tok);
		if (given[i]++)
			return bpt_error_set(err, -EINVAL, "--weights: depth %s given twice", tok);
		w[i] = v;
	}
	for (unsigned i = 0; i < d->n; i++)
		sum += w[i];
	if (!(sum > 0))
		return bpt_error_set(err, -EINVAL, "--weights: '%s': the weights sum to 0", s);
	for (unsigned i = 0; i < d->n; i++)
		d->weight[i] = w[i] / sum;
	return 0;
}

int depths_weights_of(const uint64_t *times, uint64_t n, struct depths *d,
		      struct bpt_error *err)
{
	uint64_t *ev, *tmp, busy = 0, depth = 0;
	unsigned j;

	memset(d->busy_ns, 0, sizeof(d->busy_ns));
	ev = malloc(2 * n * sizeof(*ev));
	tmp = malloc(2 * n * sizeof(*tmp));
	if (!ev || !tmp) {
		free(ev);
		free(tmp);
		return bpt_error_set(err, -ENOMEM, "out of memory for %llu requests",
				     (unsigned long long)n);
	}
	/* An event is time << 1 | is_issue: sorted, a completion comes
	 * before an issue at the same instant, so a request that ends when
	 * the next one starts leaves the depth unchanged. */
	for (uint64_t i = 0; i < n; i++) {
		ev[2 * i] = times[2 * i] << 1 | 1;
		ev[2 * i + 1] = times[2 * i + 1] << 1;
	}
	stats_sort_u64(ev, tmp, NULL, NULL, 2 * n);
	for (uint64_t i = 0; i < 2 * n; i++) {
		if (i && depth) {
			uint64_t dt = (ev[i] >> 1) - (ev[i - 1] >> 1);

			for (j = 0; j + 1 < d->n && d->depth[j] < depth; j++)
				;
			d->busy_ns[j] += dt;
			busy += dt;
		}
		if (ev[i] & 1)
			depth++;
		else
			depth--;
	}
	free(ev);
	free(tmp);
	if (!busy)
		return bpt_error_set(err, -EINVAL, "no time with a request in flight");
	for (j = 0; j < d->n; j++)
		d->weight[j] = (double)d->busy_ns[j] / (double)busy;
	return 0;
}

int depths_weights_from(const char *path, struct depths *d, struct bpt_error *err)
{
	struct bpt_reader *r;
	struct bpt_record rec;
	uint64_t *t = NULL, n = 0, cap = 0;
	int rc;

	if ((rc = bpt_reader_open(&r, path, err)))
		return rc;
	while ((rc = bpt_reader_next(r, &rec, err)) == 1) {
		if (rec.complete_ns < rec.issue_ns || (rec.issue_ns >> 62))
			continue; /* no duration known */
		if (n == cap) {
			uint64_t *nt;

			cap = cap ? 2 * cap : 65536;
			nt = realloc(t, 2 * cap * sizeof(*t));
			if (!nt) {
				rc = bpt_error_set(err, -ENOMEM, "%s: out of memory", path);
				goto out;
			}
			t = nt;
		}
		t[2 * n] = rec.issue_ns;
		t[2 * n + 1] = rec.complete_ns;
		n++;
	}
	if (rc < 0)
		goto out;
	rc = depths_weights_of(t, n, d, err);
	if (rc == -EINVAL)
		bpt_error_set(err, -EINVAL, "%s: no request in flight for any time: no weights",
			      path);
out:
	free(t);
	bpt_reader_close(r);
	return rc;
}
