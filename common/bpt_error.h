/*
 * bpt_error.h — struct bpt_error, the one way every blkpeak function that
 * can fail says why (error.h tells how it is filled). Its own header
 * because it is also public: libbpt installs it beside bpt.h, which
 * includes it.
 */
#ifndef BPT_ERROR_H
#define BPT_ERROR_H

#include <stdint.h>

struct bpt_error {
	int code;        /* negative errno, 0 when no error */
	uint64_t offset; /* byte offset in the file the error is about, or 0 */
	char msg[512];   /* full sentence, names the file (and offset) */
};

#endif
