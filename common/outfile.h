/*
 * outfile.h — write an output file all or nothing: the text goes to a
 * temporary file next to the target, which is renamed over the target
 * only when everything was written, so a failed plot or report never
 * leaves a half-written file or destroys the previous one. "-" is
 * standard output.
 */
#ifndef BLKPEAK_OUTFILE_H
#define BLKPEAK_OUTFILE_H

#include <stdio.h>

struct outfile {
	FILE *f;           /* write here */
	char *path;        /* the target; NULL for standard output */
	char *tmp;         /* the temporary file */
};

/* Open for writing. Returns 0 or -errno (the folder does not exist, ...). */
int outfile_open(struct outfile *o, const char *path);

/*
 * Finish: when err is 0, flush and rename into place (returns 0 or
 * -errno); otherwise remove the temporary file and return err unchanged.
 */
int outfile_close(struct outfile *o, int err);

#endif
