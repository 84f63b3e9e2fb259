/*
 * bpt_reader_int.h — the reader's private state, shared by the files that
 * implement it: bpt_reader.c (open, next, seek), bpt_footer.c (trailer and
 * footer), bpt_block.c (loading and decoding one block), bpt_verify.c
 * (verify, digest).
 *
 * Design: the reader owns the file (or memory buffer), the header, what the
 * footer says, the string table and the loss list. Walking the blocks is
 * done by a `struct bpt_bcur` (block cursor): the reader has one for
 * bpt_reader_next(), and verify/digest make a second one so the reader's
 * position is kept. A cursor holds one block (its stored and decompressed
 * bytes) and a chunk of decoded records, so memory does not grow with the
 * trace's length. Everything learnt from a block (strings, losses,
 * totals) is added to the reader once, the first time that block is read
 * (`seen_blocks` is the high-water mark).
 */
#ifndef BPT_READER_INT_H
#define BPT_READER_INT_H

#include "bpt_internal.h"
#include "bpt_file.h"
#include "strtab.h"

#define BPT_CHUNK 256 /* records decoded at a time */
/* Row length of the decoded columns: BPT_CHUNK values and 64 bytes more,
 * so that value j of one column and of the next lie in different L1 cache
 * sets. Without it the 34 columns, 8 KiB apart, all map to the same set
 * of an 8-way cache and every record read misses (decode ran at a third
 * of its speed, bench/RESULTS.md "Trace decode"). */
#define BPT_CHUNK_ROW (BPT_CHUNK + 8)

struct bpt_footer {
	uint64_t off;            /* offset of the footer */
	uint64_t nblocks, nrecords;
	uint64_t first_issue, last_issue, last_complete;
	uint64_t lost, nloss, nstrings, digest;
	uint64_t index_off;      /* offset of index entry 0 */
};

struct bpt_bcur {
	uint64_t off;            /* offset of the next block to load */
	uint32_t seq;            /* its expected sequence number */
	int loaded;              /* a block is loaded (records i..n-1 left) */
	uint64_t blk_off;
	uint32_t n, i;
	uint8_t coding;          /* BPT_CODING_* of the loaded block */
	uint64_t min_issue, max_issue, max_complete, checksum;
	struct bpt_buf stored;   /* payload as stored (file source only) */
	struct bpt_buf raw;      /* payload decompressed */
	void *dctx;              /* ZSTD_DCtx */
	struct bpt_colview cols[COL_KNOWN];
	uint8_t have[COL_KNOWN];
	uint64_t prev_issue, prev_complete, prev_source;
	/* end sectors and completion times of the last BPT_REF_WINDOW
	 * records, record i at [i % BPT_REF_WINDOW] (the reference columns) */
	uint64_t ring_end[BPT_REF_WINDOW], ring_comp[BPT_REF_WINDOW];
	uint32_t chunk_start, chunk_len;
	/* vals[id] is zero in every row: a column the block lacks, cleared
	 * once rather than at every chunk */
	uint8_t zeroed[COL_KNOWN];
	/* the range-checked columns (bpt_block_check.c) whose coding in the
	 * loaded block does not keep every value in range: those checked
	 * record by record */
	uint8_t chk[COL_KNOWN], nchk;
	uint64_t vals[COL_KNOWN][BPT_CHUNK_ROW];
};

struct bpt_reader {
	char *name;
	int fd;                  /* -1 for a memory source */
	const uint8_t *mem;
	uint64_t size;
	struct bpt_header hdr;
	uint32_t hdr_size;
	uint64_t hdr_checksum;
	int complete;            /* valid footer */
	struct bpt_footer ft;

	struct strtab strs;      /* the file's strings, by its ids (common/strtab.h) */
	struct bpt_loss *losses;
	size_t nloss, cap_loss;
	struct bpt_pathtab paths; /* from the footer (1.3), sorted */

	/* Totals of blocks read so far (used when there is no footer). */
	uint32_t seen_blocks;
	struct bpt_totals seen;
	uint64_t lost;
	uint64_t valid_bytes;

	struct bpt_bcur *cur;    /* bpt_reader_next's position */
	int seek_filter;         /* skip records of the current block < seek_t */
	uint64_t seek_t;
	/* bpt_reader_set_issue_range: only records issued in [range_lo,
	 * range_hi], blocks outside it skipped by the footer index */
	int range_set;
	uint64_t range_lo, range_hi;
	/* file-order index of the loaded block's first record, and of the
	 * block after it (bpt_reader_record_index) */
	uint64_t blk_first, next_first;
	struct bpt_error sticky; /* error returned by next() until repositioned */

	/* A reader over another source (bpt_reader_open_source): then the
	 * fields above the header are unused and every function below
	 * goes to bpt_reader_source.c. */
	const struct bpt_source_ops *src;
	void *src_ctx;
	struct bpt_source_totals src_tot;
	uint64_t src_pos;        /* records returned since the start */
};

/* The source-backed versions (bpt_reader_source.c). */
int bpt_source_next(struct bpt_reader *r, struct bpt_record *rec, struct bpt_error *err);
int bpt_source_rewind(struct bpt_reader *r, struct bpt_error *err);
int bpt_source_seek_time(struct bpt_reader *r, uint64_t t_ns, struct bpt_error *err);
int bpt_source_block_pos(const struct bpt_reader *r, struct bpt_block_pos *pos);
int bpt_source_seek_block(struct bpt_reader *r, const struct bpt_block_pos *pos,
			  struct bpt_error *err);
int bpt_source_verify(struct bpt_reader *r, struct bpt_error *err);

/* Read len bytes at off into dst: 0, or -EIO (short) / -errno. */
int bpt_src_read(const struct bpt_reader *r, uint64_t off, void *dst, size_t len);
/* Pointer to len bytes at off: into the memory source, or read into buf. */
const uint8_t *bpt_src_view(const struct bpt_reader *r, uint64_t off,
			    size_t len, struct bpt_buf *buf, int *rc);

/* Append string id == r->strs.n, or compare with the known one. */
int bpt_reader_add_string(struct bpt_reader *r, uint32_t id, const uint8_t *s,
			  size_t len);
int bpt_reader_add_loss(struct bpt_reader *r, const struct bpt_loss *l);

/* Trailer and footer: sets r->complete and r->ft; reads strings, losses. */
int bpt_footer_read(struct bpt_reader *r, struct bpt_error *err);
/* Index entry i of a complete file. */
int bpt_footer_entry(const struct bpt_reader *r, uint64_t i, uint64_t *off,
		     uint32_t *nrecords, uint64_t *min_issue,
		     uint64_t *max_issue, struct bpt_error *err);

struct bpt_bcur *bpt_bcur_new(void);
void bpt_bcur_free(struct bpt_bcur *c);
/* Position c before the first block. */
void bpt_bcur_reset(const struct bpt_reader *r, struct bpt_bcur *c);
/* Load the next block: 1 loaded, 0 end of data, <0 error (err filled). */
int bpt_block_load(struct bpt_reader *r, struct bpt_bcur *c,
		   struct bpt_error *err);
/* Decode the next chunk of the loaded block into c->vals (checks every
 * field); 0 or <0 with err filled. */
int bpt_block_decode_chunk(struct bpt_reader *r, struct bpt_bcur *c,
			   struct bpt_error *err);
/* Range checks (bpt_block_check.c). After a block's columns are parsed:
 * find the columns whose values its coding does not already keep in
 * range. Per chunk, before the columns' transforms: 1 when a value of
 * one of those is out of range. On failure: the error naming the first
 * bad record of the chunk. */
void bpt_block_check_prepare(const struct bpt_reader *r, struct bpt_bcur *c);
int bpt_block_chunk_out_of_range(const struct bpt_reader *r, const struct bpt_bcur *c,
				 uint32_t m);
int bpt_block_bad_record(struct bpt_reader *r, struct bpt_bcur *c, uint32_t i0, uint32_t m,
			 struct bpt_error *err);
/* Copy record j of the decoded chunk into rec. */
void bpt_block_record(const struct bpt_bcur *c, uint32_t j,
		      struct bpt_record *rec);

#endif /* BPT_READER_INT_H */
