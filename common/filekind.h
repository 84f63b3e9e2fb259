/*
 * filekind.h — what a file is, in words, for the messages that refuse
 * one: "/dev/loop3: a block device, refusing to write a trace there",
 * "in.fifo: a FIFO, not a trace file". Shared by the output checks
 * (outfile.h) and the database path check; lib/'s trace reader uses the
 * same words in a copy of its own (lib/ links alone).
 */
#ifndef BLKPEAK_FILEKIND_H
#define BLKPEAK_FILEKIND_H

#include <sys/types.h>

/* "a block device", "a character device", "a FIFO", "a socket",
 * "a directory", "a regular file", "a symbolic link" or
 * "an unknown kind of file". */
const char *file_kind(mode_t mode);

#endif
