/*
 * info_print.h — the report of `blkpeak info`, as text or JSON, from
 * what cmd_info.c gathered. Printing only: no file access, so it is
 * tested with made-up data.
 */
#ifndef BLKPEAK_INFO_PRINT_H
#define BLKPEAK_INFO_PRINT_H

#include <stdint.h>
#include <stdio.h>

#include "bpt.h"
#include "trace_summary.h"

struct info_data {
	const char *path;
	const struct bpt_header *hdr;
	struct bpt_stats st;          /* final (all records read) */
	struct trace_summary sum;
	int have_digest;
	uint64_t digest;
	int verified;                 /* -1 not asked, 0 failed, 1 sound */
};

/* Bytes after the good data of an incomplete file; 0 when complete. */
uint64_t cut_bytes(const struct bpt_stats *st);

void info_print_text(FILE *f, const struct info_data *d);
void info_print_json(FILE *f, const struct info_data *d);

#endif
