/*
 * recname.h — a recording's name in a mixed replay: its file name
 * without the folder and the last extension (photo-edit for
 * suite/photo-edit.bpt). replay/ tags a mix's I/Os with it (the comm
 * column) and names each recording's own run file RUN.NAME.bpt after
 * it; suite/ finds that run file by it (a mix's `time =`).
 */
#ifndef BLKPEAK_RECNAME_H
#define BLKPEAK_RECNAME_H

/* A name: up to this many bytes (a longer one is cut). */
#define RECNAME_MAX 63

/* path's recording name into buf[RECNAME_MAX + 1]. */
void recording_name(const char *path, char *buf);

#endif
