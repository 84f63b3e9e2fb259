/*
 * io_kind.h — the kinds of a trace's I/Os: what repeats from I/O to I/O
 * (device, size, op, flags, process, cgroup, error, completion, file
 * class, file system, the file's bytes, the causing task), numbered from
 * 0 in order of first use. Both stores keep an I/O as its varying fields
 * and its kind number (io_kinds, schemas/analyze-db.md); this is the one
 * key, its NULL rules and the map from key to number they share
 * (import.c for SQLite, pg_import.c for PostgreSQL).
 */
#ifndef BLKPEAK_ANALYZE_IO_KIND_H
#define BLKPEAK_ANALYZE_IO_KIND_H

#include <stddef.h>
#include <stdint.h>

#include "bpt.h"

/* 0 where the trace lacks the column (written as NULL: io_kind_values). */
struct io_kind_key {
	uint64_t cgroup_id, cause_cgroup;
	uint32_t bytes, pid, comm_id, file_dev, file_bytes, cause_pid, cause_comm_id;
	int32_t error;
	uint16_t dev;
	uint8_t op, flags, completion, file_class;
};

/* The columns of io_kinds after trace_id and kind, in this order. */
#define IO_KIND_COLS "dev, bytes, op, flags, pid, comm_id, cgroup_id, error, completion," \
	" file_class, file_dev, file_bytes, cause_pid, cause_comm_id, cause_cgroup"
#define IO_KIND_N 15

void io_kind_key_of(struct io_kind_key *k, const struct bpt_record *rec, uint32_t cols);

/* The values of IO_KIND_COLS for k of a trace with optional columns
 * `cols`; null[i] 1: NULL (a column the trace lacks, an unknown cause). */
void io_kind_values(const struct io_kind_key *k, uint32_t cols, int64_t v[IO_KIND_N],
		    unsigned char null[IO_KIND_N]);

/* Open addressing from key to number; zero-initialise with
 * IO_KIND_MAP_INIT, free with io_kind_map_free. */
struct io_kind_map {
	struct io_kind_key *keys;
	uint32_t *ids; /* UINT32_MAX: empty slot */
	size_t cap, n;
	struct io_kind_key last;
	uint32_t last_id; /* UINT32_MAX: none yet */
};
#define IO_KIND_MAP_INIT { .last_id = UINT32_MAX }

/* The number of k (*is_new 1: first seen, numbered n-1), -ENOMEM. */
int64_t io_kind_map_find(struct io_kind_map *m, const struct io_kind_key *k, int *is_new);

void io_kind_map_free(struct io_kind_map *m);

#endif
