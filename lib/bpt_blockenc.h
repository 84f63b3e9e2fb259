/*
 * bpt_blockenc.h — the open block of a writer: its records as column
 * values, and turning them into a block (coding choice, payload, zstd,
 * block header with checksum). Private to the library; bpt_writer.c owns
 * one and does the file, the footer and the bookkeeping.
 */
#ifndef BPT_BLOCKENC_H
#define BPT_BLOCKENC_H

#include "bpt_internal.h"
#include "strtab.h"

#define BPT_EST_SAMPLE 8192 /* records the coding choice looks at */
#define BPT_EST_REF 2048    /* ... and of them, the reference search */

struct bpt_blockenc {
	/* The open block: one value array per present column, room for
	 * `alloc` records each, grown by doubling up to `cap`. */
	uint64_t *col[COL_KNOWN];
	uint64_t *tmp;                    /* scratch of `alloc` values */
	uint64_t seed[COL_KNOWN];
	struct bpt_tick_hint tick[COL_KNOWN]; /* time columns' last tick */
	uint32_t n, alloc, cap;
	uint64_t prev_source;
	uint64_t min_issue, max_issue, max_complete;
	uint64_t est[6][BPT_EST_SAMPLE]; /* scratch of the coding choice */

	struct bpt_buf payload, colbuf, zbuf;
	size_t cuts[COL_KNOWN * 8 + 1];  /* payload offsets starting a plane */
	unsigned ncuts;
	void *cctx;                       /* ZSTD_CCtx */
	int level;
	uint32_t columns;                 /* the header's optional columns */
	int avx2;                         /* the CPU has AVX2 (ref_pick) */
};

/* Arrays for the mandatory columns and those in `columns`; -ENOMEM. */
int bpt_blockenc_init(struct bpt_blockenc *e, uint32_t columns, uint32_t cap,
		      int level);
void bpt_blockenc_free(struct bpt_blockenc *e);

/* Append a record (already validated by the writer; e->n < e->cap):
 * 0, or -ENOMEM with the block unchanged. */
int bpt_blockenc_add(struct bpt_blockenc *e, const struct bpt_record *r);

/*
 * Encode the open block as block number `seq` with the string-table
 * entries [str_from, strs->count) and the given loss entries: fills the
 * 56-byte block header hdr (checksum included) and points *stored,
 * *stored_len at the payload to write after it (valid until the next
 * call). The open block is left as it was; the caller empties it (e->n =
 * 0) once written. -ENOMEM, or -EFBIG when the payload passes the
 * format's limit.
 */
int bpt_blockenc_finish(struct bpt_blockenc *e, uint32_t seq,
			const struct strtab *strs, uint32_t str_from,
			const struct bpt_loss *loss, uint32_t nloss,
			uint8_t hdr[BPT_BLOCK_HDR], const void **stored,
			size_t *stored_len);

#endif
