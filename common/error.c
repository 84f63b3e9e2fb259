/*
 * error.c — filling struct bpt_error (see error.h).
 */
#include <stdarg.h>
#include <stdio.h>

#include "error.h"

int bpt_error_set(struct bpt_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	err->code = code;
	err->offset = 0;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}
