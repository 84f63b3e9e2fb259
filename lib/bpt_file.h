/*
 * bpt_file.h — the file columns and the path table of format 1.3 (which
 * file, or which class of data, an I/O touched; schemas/trace-format.md,
 * "Files and paths"). Private to the library: the block coder and decoder
 * call the column helpers, the writer and the footer reader the path
 * table's.
 */
#ifndef BPT_FILE_H
#define BPT_FILE_H

#include "bpt_internal.h"

struct bpt_blockenc;
struct bpt_bcur;
struct bpt_reader;

/* A path table being built (writer) or read (reader): entries in the
 * order added; the reader sorts them by (file_dev, inode) once read. */
struct bpt_pathtab {
	struct bpt_path *e;
	uint32_t n, cap;
	/* writer: open-addressing set of (dev, inode, id) to drop repeats */
	uint32_t *slots;   /* index + 1, 0 = empty */
	uint32_t nslots;   /* power of two, >= 2 * n */
};

/* Bytes of one entry in the footer: u32 file_dev, u64 inode, u32 path id. */
#define BPT_PATH_ENTRY 16

/* 1 when the file fields of `r` break a rule of the format. */
int bpt_file_record_bad(const struct bpt_record *r);
/* Store record i's file fields into the open block's columns. */
void bpt_file_encode(struct bpt_blockenc *e, uint32_t i, const struct bpt_record *r);
/* 1 when record j of the decoded chunk has bad file fields. */
int bpt_file_bad(const struct bpt_bcur *c, uint32_t j);
/* 1 when a record of the m decoded (file columns present) has bad file
 * fields; the same for the cause columns. */
int bpt_file_chunk_bad(const struct bpt_bcur *c, uint32_t m);
int bpt_cause_chunk_bad(const struct bpt_bcur *c, uint32_t m, uint32_t nstrs);
/* The cause columns: store, check (1: bad; nstrs: strings known) and copy. */
void bpt_cause_encode(struct bpt_blockenc *e, uint32_t i, const struct bpt_record *r);
int bpt_cause_bad(const struct bpt_bcur *c, uint32_t j, uint32_t nstrs);
int bpt_cause_record_bad(const struct bpt_record *r, uint32_t nstrs);
void bpt_cause_decode(const struct bpt_bcur *c, uint32_t j, struct bpt_record *rec);
/* Copy record j's file fields into rec. */
void bpt_file_decode(const struct bpt_bcur *c, uint32_t j, struct bpt_record *rec);

/* Add (dev, inode, id) unless present: 0, -ENOMEM, -E2BIG when full. */
int bpt_pathtab_add(struct bpt_pathtab *t, uint32_t dev, uint64_t inode, uint32_t id);
/* Append the table to the footer buffer: u32 count, then the entries. */
void bpt_pathtab_encode(struct bpt_buf *b, const struct bpt_pathtab *t);
/* Sort a table read from a file (stable: an inode's paths keep their order). */
void bpt_pathtab_sort(struct bpt_pathtab *t);
void bpt_pathtab_free(struct bpt_pathtab *t);

#endif
