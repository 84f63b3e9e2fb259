/*
 * jsonout.h — number output for the analyze commands' JSON. Strings are
 * written with json_str() and csv_str() of common/fmt.h (shared with info
 * and dump), included from here.
 */
#ifndef BLKPEAK_ANALYZE_JSONOUT_H
#define BLKPEAK_ANALYZE_JSONOUT_H

#include <stdio.h>

#include "fmt.h"

/* Write a double as a JSON number (NaN and infinities -> null): whole
 * numbers without a fraction, others with `prec` digits after the point. */
void json_num(FILE *f, double v, int prec);

#endif
