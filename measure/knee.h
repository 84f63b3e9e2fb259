/*
 * knee.h — `blkpeak measure knee TRACE --target SPEC --slo p99=5ms`: the
 * largest speed factor at which a trace's replay still meets a latency
 * target (knee.c has the search).
 */
#ifndef BLKPEAK_MEASURE_KNEE_H
#define BLKPEAK_MEASURE_KNEE_H

/* argv[0] is "measure", argv[1] "knee". Returns the exit code. */
int measure_knee(int argc, char **argv);

#endif
