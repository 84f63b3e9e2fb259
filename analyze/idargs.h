/*
 * idargs.h — trace ids given on the command line of `analyze plot` and
 * `analyze html`.
 */
#ifndef BLKPEAK_IDARGS_H
#define BLKPEAK_IDARGS_H

#include <stdint.h>

/* Parse the trace ids args[0..n-1] (positive numbers, traces.id) into a
 * new array *out (caller frees). Prints "blkpeak: analyze CMD: 'x': not a
 * trace id" and returns -EINVAL on a bad one, -ENOMEM without memory. */
int parse_trace_ids(const char *cmd, char **args, int n, int64_t **out);

#endif
