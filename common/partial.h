/*
 * partial.h — the words for a run that stopped before its last I/O, one
 * spelling for every command that names a run (replay's summary, analyze
 * report and compare): "PARTIAL: 1234 of 5000 I/Os (interrupted by
 * SIGINT)" in text, {"ios_done":1234,"ios_total":5000,"reason":"..."} in
 * JSON. The facts come from a run file's meta (BPT_META_RUN_* in bpt.h).
 */
#ifndef BLKPEAK_PARTIAL_H
#define BLKPEAK_PARTIAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* "PARTIAL: DONE of TOTAL I/Os (WHY)" into buf[len]; returns buf. */
char *partial_text(uint64_t done, uint64_t total, const char *why, char *buf, size_t len);

/* The JSON object {"ios_done":..,"ios_total":..,"reason":".."}. */
struct jw;
void partial_json(struct jw *w, uint64_t done, uint64_t total, const char *why);

#endif
