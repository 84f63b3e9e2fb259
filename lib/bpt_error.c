/*
 * bpt_error.c — filling struct bpt_error, the library's only way of
 * saying what went wrong (it never prints); the struct is common/error.h's.
 */
#include <stdio.h>

#include "bpt_internal.h"

int bpt_err(struct bpt_error *err, int code, const char *name, int has_off,
	    uint64_t off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err)
		return code;
	err->code = code;
	err->offset = has_off ? off : 0;
	if (has_off)
		n = snprintf(err->msg, sizeof(err->msg), "%s: offset %llu: ",
			     name ? name : "trace", (unsigned long long)off);
	else
		n = snprintf(err->msg, sizeof(err->msg), "%s: ",
			     name ? name : "trace");
	if (n < 0 || (size_t)n >= sizeof(err->msg))
		return code;
	va_start(ap, fmt);
	vsnprintf(err->msg + n, sizeof(err->msg) - (size_t)n, fmt, ap);
	va_end(ap);
	return code;
}
