/*
 * jsonout.c — JSON numbers for report, compare, query and export (see
 * jsonout.h).
 */
#include <math.h>

#include "jsonout.h"

void json_num(FILE *f, double v, int prec)
{
	if (!isfinite(v)) {
		fputs("null", f);
		return;
	}
	if (v == (double)(long long)v && fabs(v) < 9e15)
		fprintf(f, "%lld", (long long)v);
	else
		fprintf(f, "%.*f", prec, v);
}
