/* fit.c — shifting, wrapping and scaling offsets onto a target (fit.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cliutil.h"
#include "fit.h"

int fit_mode_parse(const char *s, enum fit_mode *mode)
{
	if (!strcmp(s, "wrap"))
		*mode = FIT_WRAP;
	else if (!strcmp(s, "scale"))
		*mode = FIT_SCALE;
	else
		return -EINVAL;
	return 0;
}

int fit_init(struct fit *f, enum fit_mode mode, uint64_t extent,
	     uint64_t max_len, uint64_t capacity, uint64_t shift, unsigned align,
	     const char *name, struct bpt_error *error)
{
	char a[32], b[32];

	memset(f, 0, sizeof(*f));
	f->mode = mode;
	f->extent = extent;
	f->shift = shift;
	f->align = align ? align : 512;
	if (shift >= capacity) {
		bpt_error_set(error, -ENOSPC, "%s: --offset %llu is at or past its end (%s)", name,
			 (unsigned long long)shift, fmt_bytes(capacity, b, sizeof(b)));
		return -ENOSPC;
	}
	f->space = (capacity - shift) / f->align * f->align;
	if (extent <= f->space) {
		f->identity = 1;
		return 0;
	}
	if (mode == FIT_REFUSE) {
		bpt_error_set(error, -ENOSPC,
			 "%s: the trace reaches %s (%llu bytes)%s but the target holds %s "
			 "(%llu bytes); --fit wrap|scale places it anyway",
			 name, fmt_bytes(extent, a, sizeof(a)), (unsigned long long)extent,
			 shift ? " after --offset" : "", fmt_bytes(capacity - shift, b, sizeof(b)),
			 (unsigned long long)(capacity - shift));
		return -ENOSPC;
	}
	if (max_len > f->space) {
		bpt_error_set(error, -ENOSPC, "%s: an I/O of %llu bytes does not fit in %llu bytes",
			 name, (unsigned long long)max_len, (unsigned long long)f->space);
		return -ENOSPC;
	}
	return 0;
}

uint64_t fit_map(const struct fit *f, uint64_t off, uint64_t len)
{
	uint64_t o = off;

	if (!f->identity) {
		if (f->mode == FIT_WRAP)
			o = off % f->space;
		else
			o = (uint64_t)((unsigned __int128)off * f->space / f->extent);
		o -= o % f->align;
		if (o + len > f->space) {
			o = f->space - len;
			o -= o % f->align;
		}
	}
	return o + f->shift;
}
