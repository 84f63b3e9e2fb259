/* figures.c — the figures of one measurement step (figures.h). */
#include "figures.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int figures_compute(const struct unit *u, uint64_t n, uint64_t warmup, struct figures *f)
{
	uint64_t first = UINT64_MAX, last = 0, m, *lat;
	double sum = 0;

	memset(f, 0, sizeof(*f));
	if (warmup >= n)
		return -EINVAL;
	m = n - warmup;
	lat = malloc(m * sizeof(*lat));
	if (!lat)
		return -ENOMEM;
	for (uint64_t i = 0; i < m; i++) {
		const struct unit *x = &u[warmup + i];

		if (x->complete_ns < x->issue_ns) {
			free(lat);
			return -EINVAL;
		}
		if (x->issue_ns < first)
			first = x->issue_ns;
		if (x->complete_ns > last)
			last = x->complete_ns;
		lat[i] = x->complete_ns - x->issue_ns;
		sum += (double)lat[i];
		f->bytes += x->bytes;
		f->errors += x->error != 0;
	}
	if (stats_sort_u64_alloc(lat, m)) {
		free(lat);
		return -ENOMEM;
	}
	f->units = m;
	f->window_ns = last - first;
	if (f->window_ns) {
		f->iops = (double)m * 1e9 / (double)f->window_ns;
		f->mb_per_s = (double)f->bytes * 1e3 / (double)f->window_ns;
	}
	f->lat.count = m;
	f->lat.mean_ns = sum / (double)m;
	for (unsigned i = 0; i < STATS_NPCT; i++)
		f->lat.pct[i] = stats_percentile(lat, m, stats_pct_ppm[i]);
	free(lat);
	return 0;
}
