/*
 * state.h — what a suite run on one configuration has finished, kept in
 * DIR/results/DIGEST/LABEL/state so that an interrupted run resumes where
 * it stopped (docs/suite.md).
 *
 * The file: a first line "blkpeak-suite-state 1", then "digest D",
 * "label L", "target SPEC", then one "done KEY SECONDS" per finished item
 * (its result stored), appended and synced as each item ends. A last line
 * without its newline (the machine stopped while it was written) is
 * ignored: that item runs again.
 *
 * The file is locked (flock, exclusive) while a run holds it open: a
 * second `suite run` of the same suite version and label is refused
 * while the first runs.
 */
#ifndef BLKPEAK_SUITE_STATE_H
#define BLKPEAK_SUITE_STATE_H

#include <stddef.h>

struct suite_state;

/* Open (or create) the state at path for this digest, label and target.
 * Refused (-EINVAL, err says why) when the file holds another label or
 * target, -EBUSY when another run holds it. */
int state_open(const char *path, const char *digest, const char *label,
	       const char *target, struct suite_state **out, char *err, size_t errlen);
/* Record that key finished in secs. */
int state_done(struct suite_state *st, const char *key, double secs, char *err,
	       size_t errlen);
/* Did key finish? Its seconds in *secs. */
int state_is_done(const struct suite_state *st, const char *key, double *secs);
void state_close(struct suite_state *st);

#endif
