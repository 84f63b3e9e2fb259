/*
 * bpt_internal.h — private layout constants and helpers of the .bpt trace
 * library, shared by lib/bpt_*.c and by nothing else.
 *
 * Every number here is part of the file format: schemas/trace-format.md is
 * the normative description and names the same constants. Changing one is
 * a format change.
 */
#ifndef BPT_INTERNAL_H
#define BPT_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bpt.h"

/* ------------------------------------------------------------- layout */

/* File magic: PNG-style, so text-mode transfers and truncation to 7 bits
 * are caught on the first 8 bytes. */
#define BPT_MAGIC "\x89" "BPT\r\n\x1a\n"
#define BPT_MAGIC_LEN 8
/* Trailer magic, the last 8 bytes of a complete file. */
#define BPT_TRAILER_MAGIC "\x89" "BPE\r\n\x1a\n"

#define BPT_HDR_FIXED 16          /* magic, major, minor, header_size */
#define BPT_HDR_MAX (1u << 24)    /* a reader refuses larger headers (1.2: 1 MiB) */
#define BPT_NDEV_EXT 0xffffu      /* 1.3: ndevices escape, a u32 count follows */
#define BPT_STR_HDR_MAX 65535     /* header strings: u16 length */

#define BPT_BLOCK_MAGIC "BPTB"
#define BPT_FOOTER_MAGIC "BPTF"
#define BPT_BLOCK_HDR 56          /* fixed block header size */
/* Byte offsets of the block header's fields (schemas/trace-format.md,
 * "Record blocks"); magic at 0. */
#define BPT_BLOCK_SEQ_OFF 4            /* u32 */
#define BPT_BLOCK_NRECORDS_OFF 8       /* u32 */
#define BPT_BLOCK_STORED_OFF 12        /* u32 stored_size */
#define BPT_BLOCK_RAW_OFF 16           /* u32 raw_size */
#define BPT_BLOCK_COMP_OFF 20          /* u8 compression */
#define BPT_BLOCK_CODING_OFF 21        /* u8; 22..23 reserved */
#define BPT_BLOCK_MIN_ISSUE_OFF 24     /* u64 */
#define BPT_BLOCK_MAX_ISSUE_OFF 32     /* u64 */
#define BPT_BLOCK_MAX_COMPLETE_OFF 40  /* u64 */
#define BPT_BLOCK_CKSUM_OFF 48         /* u64, XXH64 of [0, 48) + payload */
#define BPT_BLOCK_MAX_RECORDS (1u << 17)
#define BPT_BLOCK_MAX_RAW (32u << 20)   /* max uncompressed payload */
#define BPT_BLOCK_MAX_STORED (BPT_BLOCK_MAX_RAW + (1u << 16))

#define BPT_COMP_NONE 0
#define BPT_COMP_ZSTD 1

/*
 * Block coding byte (block header byte 21), chosen per block. Bits 0 and 2
 * together are the time mode, what columns 0 (issue) and 2 (complete)
 * hold; bit 1 says how sectors are stored.
 */
#define BPT_CODING_TIME_COMPLETE 1u /* complete deltas; issue from complete */
#define BPT_CODING_SECTOR_ABS 2u    /* sectors stored as they are, no delta */
#define BPT_CODING_TIME_AFTER 4u    /* issue relative to a recent
				       record's completion (COL_ISSUE_REF) */
#define BPT_CODING_TIME_BOTH 5u     /* issue deltas and complete deltas */
#define BPT_CODING_TIME_MASK 5u     /* 0: issue deltas, service times */
#define BPT_CODING__ALL 7u

#define BPT_FOOTER_FIXED 80
#define BPT_INDEX_ENTRY 32
#define BPT_LOSS_ENTRY 24
#define BPT_TRAILER 24

#define BPT_STR_MAX 4095          /* longest string-table entry */
#define BPT_MAX_STRINGS (1u << 24)
#define BPT_MAX_LOSSES_PER_BLOCK 65536

#define BPT_DEFAULT_BLOCK_RECORDS 65536
#define BPT_DEFAULT_SPAN_NS 1000000000ull
#define BPT_DEFAULT_ZSTD_LEVEL 1

/*
 * Column ids. The transform of each column is fixed by its id (see the
 * spec, "Columns"): the decoder needs no other description.
 */
enum bpt_col_id {
	COL_ISSUE = 0,    /* by time mode (coding & TIME_MASK): 0, BOTH:
			     zigzag delta from the previous issue_ns;
			     COMPLETE: zigzag(complete_ns - issue_ns);
			     AFTER: zigzag(issue_ns - complete_ns of the
			     record COL_ISSUE_REF names) */
	COL_QUEUE = 1,    /* zigzag(issue_ns - queue_ns) */
	COL_COMPLETE = 2, /* by time mode: 0, AFTER: zigzag(complete_ns -
			     issue_ns); COMPLETE, BOTH: zigzag delta from
			     the previous complete_ns */
	COL_SECTOR = 3,   /* zigzag(sector - end sector of the record
			     COL_SECTOR_REF names); SECTOR_ABS: sector */
	COL_BYTES = 4,    /* raw */
	COL_DEV = 5,
	COL_OP = 6,
	COL_FLAGS = 7,
	COL_PID = 8,
	COL_COMM = 9,
	COL_CGROUP = 10,
	COL_ERROR = 11,   /* zigzag of the 32-bit error */
	COL_MANDATORY = 12,
	COL_SCHED = 12,   /* zigzag(sched_ns - issue_ns); header bit 0 */
	COL_SOURCE = 13,  /* delta from previous source_index, zigzag; bit 1 */
	COL_MEMBER = 14,  /* raw; bit 2 */
	COL_OPTIONAL_END = 15,
	/* Reference columns, present exactly when the block's coding uses
	 * them (bpt_col_wanted): which of the BPT_REF_WINDOW previous
	 * records a value is relative to, 0 for the previous one. */
	COL_SECTOR_REF = 15, /* sectors relative to that record's end
				(every block without SECTOR_ABS) */
	COL_ISSUE_REF = 16,  /* issue relative to that record's completion
				(time mode AFTER) */
	COL_COMPLETION = 17, /* raw enum bpt_completion; header bit 3
				(format 1.2) */
	COL_INTERNAL = 18,   /* raw 0/1; header bit 4 */
	/* header bit 5 (format 1.3): the file an I/O touched, bpt_file.c */
	COL_FILE_CLASS = 19, /* raw enum bpt_file_class */
	COL_FILE_DEV = 20,   /* raw */
	COL_INODE = 21,      /* raw */
	COL_FILE_OFF = 22,   /* raw */
	COL_FILE_BYTES = 23, /* raw */
	COL_FILE2_DEV = 24,  /* raw: the second file of a merged request */
	COL_INODE2 = 25,     /* raw */
	COL_FILE2_OFF = 26,  /* raw */
	COL_FILE2_BYTES = 27, /* raw */
	/* header bit 6 (format 1.3): the causing task, bpt_file.c */
	COL_CAUSE_PID = 28,  /* raw */
	COL_CAUSE_COMM = 29, /* raw string id */
	COL_CAUSE_CGROUP = 30, /* raw */
	COL_CAUSE2_PID = 31, /* raw: the second file's part */
	COL_CAUSE2_COMM = 32,
	COL_CAUSE2_CGROUP = 33,
	COL_KNOWN = 34
};

#define BPT_REF_WINDOW 32 /* records a reference column can reach back */

/*
 * 1 when column `id` must be in a block with this coding byte in a file
 * whose header declares the optional `columns`, 0 when it must not be.
 */
/* 1 for a column a header bit declares (not a reference column). */
static inline int bpt_col_optional(int id)
{
	return (id >= COL_MANDATORY && id < COL_OPTIONAL_END) ||
	       id == COL_COMPLETION || id == COL_INTERNAL ||
	       (id >= COL_FILE_CLASS && id <= COL_CAUSE2_CGROUP);
}

static inline int bpt_col_wanted(uint32_t columns, unsigned coding, int id)
{
	if (id < COL_MANDATORY)
		return 1;
	if (id < COL_OPTIONAL_END)
		return !!(columns & (1u << (id - COL_MANDATORY)));
	if (id == COL_SECTOR_REF)
		return !(coding & BPT_CODING_SECTOR_ABS);
	if (id == COL_COMPLETION)
		return !!(columns & BPT_COL_COMPLETION);
	if (id == COL_INTERNAL)
		return !!(columns & BPT_COL_INTERNAL);
	if (id >= COL_FILE_CLASS && id <= COL_FILE2_BYTES)
		return !!(columns & BPT_COL_FILE);
	if (id >= COL_CAUSE_PID && id <= COL_CAUSE2_CGROUP)
		return !!(columns & BPT_COL_CAUSE);
	return (coding & BPT_CODING_TIME_MASK) == BPT_CODING_TIME_AFTER;
}

/*
 * Checksum comparison. A fuzzing build (libFuzzer defines the macro below)
 * accepts any checksum so the fuzzer reaches the parsers behind them
 * instead of stopping at the first hash; never defined in real builds.
 */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define BPT_CKSUM_OK(got, want) ((void)(got), (void)(want), 1)
#else
#define BPT_CKSUM_OK(got, want) ((got) == (want))
#endif

/* ------------------------------------------------------------- totals */

/* What the footer sums over blocks; the writer, the reader (for files
 * without footer) and the verifier keep one each. */
struct bpt_totals {
	uint64_t records, first_issue, last_issue, last_complete;
};

/* Add a block of n records with the given time range. */
static inline void bpt_totals_add(struct bpt_totals *t, uint32_t n,
				  uint64_t min_issue, uint64_t max_issue,
				  uint64_t max_complete)
{
	if (!n)
		return;
	if (!t->records || min_issue < t->first_issue)
		t->first_issue = min_issue;
	if (max_issue > t->last_issue)
		t->last_issue = max_issue;
	if (max_complete > t->last_complete)
		t->last_complete = max_complete;
	t->records += n;
}

/* ------------------------------------------------------------- errors */

/* Fill err (may be NULL): "NAME: offset OFF: reason" (offset part left out
 * when has_off is 0). Returns code, so callers can `return bpt_err(...)`. */
int bpt_err(struct bpt_error *err, int code, const char *name, int has_off,
	    uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* ------------------------------------------------------------ codec */

static inline void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t get_le64(const uint8_t *p)
{
	return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

static inline uint64_t zigzag64(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t unzigzag64(uint64_t v)
{
	return (int64_t)((v >> 1) ^ (~(v & 1) + 1));
}

/*
 * A growable byte buffer for building headers, payloads and footers.
 * On allocation failure `oom` is set and further appends are ignored, so
 * callers check once at the end.
 */
struct bpt_buf {
	uint8_t *p;
	size_t len, cap;
	int oom;
};

void buf_free(struct bpt_buf *b);
/* Make room for n more bytes; returns the write pointer or NULL (oom). */
uint8_t *buf_reserve(struct bpt_buf *b, size_t n);
void buf_put(struct bpt_buf *b, const void *src, size_t n);
void buf_u8(struct bpt_buf *b, uint8_t v);
void buf_u16(struct bpt_buf *b, uint16_t v);
void buf_u32(struct bpt_buf *b, uint32_t v);
void buf_u64(struct bpt_buf *b, uint64_t v);
void buf_varint(struct bpt_buf *b, uint64_t v);
/* u16 length then the bytes (no NUL). */
void buf_str16(struct bpt_buf *b, const char *s, size_t len);

/*
 * A bounds-checked cursor over bytes in memory. Every getter returns 0 or
 * -EBADMSG when the data ends early or a value is malformed; `pos` is the
 * offset of the failure, for error messages.
 */
struct bpt_cur {
	const uint8_t *p;
	size_t len, pos;
};

int cur_bytes(struct bpt_cur *c, const uint8_t **out, size_t n);
int cur_u8(struct bpt_cur *c, uint8_t *v);
int cur_u16(struct bpt_cur *c, uint16_t *v);
int cur_u32(struct bpt_cur *c, uint32_t *v);
int cur_u64(struct bpt_cur *c, uint64_t *v);
/* LEB128, at most 10 bytes, the 10th holding only bit 63. */
int cur_varint(struct bpt_cur *c, uint64_t *v);
/* u16 length + bytes copied into dst[dstsz] with a NUL; -EBADMSG when it
 * does not fit or holds a NUL byte. */
int cur_str16(struct bpt_cur *c, char *dst, size_t dstsz);

/*
 * Column coding (bpt_column.c, spec "Column coding"). A column is
 *   u8 kind, varint seed, then
 *   kind 0 "planes": u8 width, u8 shift, varint base, `width` planes of n
 *                    bytes; plane k holds byte k of (v - base) >> shift;
 *   kind 1 "dict":   u8 bits (1, 2 or 4), u8 count (1..2^bits), count
 *                    varint values, then n indexes of `bits` bits packed
 *                    LSB first into ceil(n * bits / 8) bytes;
 *   kind 2 "tick":   varint tick, varint zigzag(offset) (ns, 32 fraction
 *                    bits), then as kind 0 the planes of s; the value is
 *                    zigzag(((unzigzag(s >> 2) * tick + offset) >> 32) +
 *                    (s & 3)), or s >> 2 where s & 3 is 3 (since 1.4).
 * bpt_col_encode picks the smaller kind for the n values and appends it
 * (the seed, a column's starting point for delta transforms, is stored as
 * given); the payload offsets where its byte planes start are added to
 * cuts[] (for the writer's zstd block splitting). bpt_col_parse checks a
 * column's bytes and fills a view; bpt_col_decode reconstructs values
 * i0..i0+m-1 (-EBADMSG for a dictionary index out of range).
 */
#define BPT_COL_PLANES 0
#define BPT_COL_DICT 1
#define BPT_COL_TICK 2
#define BPT_DICT_MAX 16

struct bpt_colview {
	const uint8_t *data;   /* planes or packed indexes */
	uint32_t n;
	uint8_t kind, width, shift, bits, ndict;
	uint64_t base, seed;
	uint64_t tick;         /* kind 2: the tick and offset, 2^-32 ns */
	int64_t tick_off;
	uint64_t dict[BPT_DICT_MAX];
};

/* Appends to b; *nplanes gets the number of byte planes written and
 * *planes_at the offset in b where the first starts (0 planes for dict). */
void bpt_col_encode(struct bpt_buf *b, const uint64_t *v, uint32_t n,
		    uint64_t seed, unsigned *nplanes, size_t *planes_at);
int bpt_col_parse(const uint8_t *p, size_t len, uint32_t n,
		  struct bpt_colview *cv);
int bpt_col_decode(const struct bpt_colview *cv, uint32_t i0, uint32_t m,
		   uint64_t *out);
/* An upper bound of every value bpt_col_decode gives for the column (the
 * largest a dictionary holds, the planes' base plus their widest value),
 * UINT64_MAX when there is none short of it: lets a reader check a
 * field's range once per block instead of once per record. */
uint64_t bpt_col_bound(const struct bpt_colview *cv);
/* bpt_col_encode for a column of zigzagged time differences: the tick
 * kind when the values' clock has a coarse tick and it pays, else as
 * bpt_col_encode. tmp: scratch room for n values. */
/* The tick and offset a time column used in the writer's last block:
 * tried first in the next one (a machine's clock keeps its tick), which
 * spares the search when it still fits. tq 0: none. */
struct bpt_tick_hint {
	int64_t tq, cq;
};
void bpt_col_encode_time(struct bpt_buf *b, const uint64_t *v, uint32_t n,
			 uint64_t seed, uint64_t *tmp, struct bpt_tick_hint *hint,
			 unsigned *nplanes, size_t *planes_at);
/* Shared by the kinds (bpt_column.c, bpt_coltick.c): the frame of
 * reference of v (minimum, shift, width) and the planes after it. */
void bpt_col_frame(const uint64_t *v, uint32_t n, uint64_t *minp,
		   unsigned *shiftp, unsigned *widthp);
void bpt_col_put_planes(struct bpt_buf *b, const uint64_t *v, uint32_t n,
			uint64_t min, unsigned width, unsigned shift,
			unsigned *nplanes, size_t *planes_at);
/* Kind 2 (bpt_coltick.c): encode (1 when written, 0 with b unchanged),
 * check a header's tick and zigzagged offset (0 when valid), and turn
 * the planes' values in out[0..m) into the column's. */
int bpt_col_encode_tick(struct bpt_buf *b, const uint64_t *v, uint32_t n, uint64_t seed,
			uint64_t *tmp, struct bpt_tick_hint *hint, unsigned *nplanes,
			size_t *planes_at);
int bpt_col_tick_check(uint64_t tick, uint64_t zoff);
void bpt_col_tick_apply(const struct bpt_colview *cv, uint64_t *out, uint32_t m);
/* Estimated bits the plane coding of v[0..n) needs after entropy coding:
 * the sum of each byte plane's order-0 entropy (what zstd's Huffman stage
 * gets close to). Used by the writer to choose between codings. */
double bpt_col_estimate(const uint64_t *v, uint32_t n);

/* ------------------------------------------------------------ checksum */

/* XXH64 (seed 0) as specified in xxHash's doc/xxhash_spec.md. */
uint64_t bpt_xxh64(const void *data, size_t len, uint64_t seed);

/* Streaming form, for checksums over data read piece by piece. */
struct bpt_xxh64_state {
	uint64_t v[4];
	uint64_t total;
	uint64_t seed;
	uint8_t mem[32];
	uint32_t memlen;
};
void bpt_xxh64_init(struct bpt_xxh64_state *s, uint64_t seed);
void bpt_xxh64_update(struct bpt_xxh64_state *s, const void *data, size_t len);
uint64_t bpt_xxh64_final(const struct bpt_xxh64_state *s);

/* Trace digest chain: d0 = header checksum; d' = xxh64(le64 d || le64 c). */
uint64_t bpt_digest_step(uint64_t d, uint64_t block_checksum);

/* ------------------------------------------------------------ header */

/* Serialise hdr (validated first: -EINVAL with a reason in err). */
int bpt_header_encode(const struct bpt_header *hdr, struct bpt_buf *out,
		      const char *name, struct bpt_error *err);
/*
 * Check the fixed first BPT_HDR_FIXED bytes of a file (magic, version,
 * header size against the file size); on success *hdr_size is the size of
 * the whole header in bytes.
 */
int bpt_header_check_fixed(const uint8_t *p, size_t avail, uint64_t file_size,
			   uint32_t *hdr_size, const char *name,
			   struct bpt_error *err);
/* Parse the whole header (hdr_size bytes at p) and check its checksum. */
int bpt_header_decode(const uint8_t *p, uint32_t hdr_size,
		      struct bpt_header *hdr, uint64_t *hdr_checksum,
		      const char *name, struct bpt_error *err);

#endif /* BPT_INTERNAL_H */
