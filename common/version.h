/* version.h — blkpeak's version, also written into every trace header. */
#ifndef BLKPEAK_VERSION_H
#define BLKPEAK_VERSION_H
#define BLKPEAK_VERSION "0.1.0"
#endif
