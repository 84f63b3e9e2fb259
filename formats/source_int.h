/*
 * source_int.h — the private state of a foreign source (source.c) and of
 * one input's reader context (ctx.c), and the two tables they share.
 *
 * A source owns its inputs (one struct ff_ctx each), the trace's header
 * (the device table lives there), the process names (a common/strtab.h table)
 * and the reorder window (struct ff_window, window.c). The device table
 * and the names outlive a rewind, so the second reading of the inputs
 * gives every record the same device index and comm id as the scan did.
 */
#ifndef FORMATS_SOURCE_INT_H
#define FORMATS_SOURCE_INT_H

#include "foreign.h"
#include "source.h"
#include "strtab.h"
#include "window.h"

/*
 * Names (processes, devices) by id and ids by name: common/strtab.h's
 * table, strtab_intern() for each name read. Memory grows with the
 * input's distinct names, so a table holds at most FF_NAMES_MAX of them
 * and FF_NAMES_BYTES_MAX bytes in all (schemas/foreign-formats.md,
 * "Bounds"); one more is -E2BIG.
 */
#define FF_NAMES_MAX (1u << 20)
#define FF_NAMES_BYTES_MAX (64u << 20)
/* An empty table with those bounds and id 0 "": 0 or -ENOMEM. */
int ff_names_init(struct strtab *t);

/* One record held by the reorder window, with its arrival number (ties
 * keep the input's order). */
/*
 * The reorder window: common/window.h's FIFO-and-heap over small keys,
 * ordered by (issue time, arrival): records that arrive in order cost
 * two copies, early ones O(log cap). The records wait in a slab (a
 * completion-ordered input sends most records through the heap, and
 * sifting whole records cost a quarter of reading one). At most `cap`
 * records are held.
 */
/* A held record's key: the order and where its record is. */
struct ff_hkey {
	uint64_t issue_ns, seq;
	uint32_t slot;          /* index into ff_window.slab */
};

static inline int ff_hkey_before(const void *ctx, const struct ff_hkey *a,
				 const struct ff_hkey *b)
{
	(void)ctx;
	return a->issue_ns < b->issue_ns || (a->issue_ns == b->issue_ns && a->seq < b->seq);
}

WINDOW_DEFINE(ff_hkeys, struct ff_hkey, ff_hkey_before)

struct ff_window {
	uint32_t cap;
	struct ff_hkeys keys;
	struct bpt_record *slab; /* slab_cap records */
	uint32_t *free_slot;    /* nfree slab slots not in use */
	uint32_t slab_cap, nfree;
	uint64_t seq;
};
int ff_window_init(struct ff_window *w, uint32_t cap);
void ff_window_free(struct ff_window *w);
void ff_window_clear(struct ff_window *w);
static inline uint32_t ff_window_len(const struct ff_window *w)
{
	return (uint32_t)ff_hkeys_len(&w->keys);
}
/* Hold rec (the caller checks there is room): 0 or -ENOMEM. */
int ff_window_push(struct ff_window *w, const struct bpt_record *rec);
/* The issue time of the record ff_window_pop would give: 1, or 0 when
 * empty. */
int ff_window_peek(const struct ff_window *w, uint64_t *issue_ns);
/* Take the earliest record: 1, or 0 when empty. */
int ff_window_pop(struct ff_window *w, struct bpt_record *rec);

/*
 * The scan's window: the same window over issue times only, to learn
 * whether the window suffices without holding records.
 */
static inline int ff_u64_before(const void *ctx, const uint64_t *a, const uint64_t *b)
{
	(void)ctx;
	return *a < *b;
}

WINDOW_DEFINE(ff_keywin, uint64_t, ff_u64_before)

#define FF_NUMDEV_CACHE 256

struct ff_ctx {
	struct ff_source *src;
	const struct ff_reader_ops *ops;
	void *state;
	char *path;
	struct ff_input *in;     /* NULL for FF_OWN_FILES readers */
	uint64_t line_no;
	const char *line;        /* the current line, for messages */
	size_t line_len;
	uint64_t bad;            /* lines skipped in this reading */
	struct bpt_error err;
	int done;                /* next() returned 0 */
	uint64_t last_issue;     /* of the last record read (merge order) */
	/* ff_device's cache of the last name asked */
	char last_dev[64];
	int last_dev_idx;
	/* ff_device_num's cache, by number: interleaved volumes (Tencent,
	 * Alibaba) hit it too */
	struct ff_numdev {
		const char *prefix; /* NULL: empty */
		uint64_t num;
		int idx;
	} numdev[FF_NUMDEV_CACHE];
};

#define FF_DEV_UNSEEN (-1) /* struct ff_devmap: a name id not asked yet */

/* Device lookup state of a source: every name seen, kept or not. */
struct ff_devmap {
	struct strtab names;    /* device names by their own id */
	int *idx;               /* per name id: device index or FF_DEV_DROPPED */
	uint32_t nidx;          /* ids < nidx have an idx (FF_DEV_UNSEEN: not asked yet) */
	uint32_t cap;
};

/*
 * Records per chunk of the scan's lower bounds (struct ff_source,
 * later_min): 8 bytes per FF_CHUNK records of the input (20 KiB for 10 M
 * records), and a reading holds about one chunk in its window.
 */
#define FF_CHUNK 4096

struct ff_source {
	struct ff_source_opts opts;
	const char *const *keep;   /* opts.devices */
	size_t n;
	struct ff_ctx *cx;         /* n of them */
	struct bpt_header hdr;
	struct strtab names;       /* process names */
	struct ff_devmap devs;
	struct ff_window win;
	uint64_t base;             /* raw time that becomes 0 */
	int scanned;               /* the scan is done: base and totals known */
	int sorted;                /* the scan found the inputs in time order */
	uint64_t last_out;         /* raw issue time of the last record out */
	int any_out;
	uint64_t digest;           /* running, over the records out so far */
	uint64_t dropped;
	struct ff_totals tot;
	uint64_t file_bytes;
	uint64_t nread;            /* records out in this reading (progress) */
	/* later_min[c]: the earliest issue time of the records pulled from
	 * number c * FF_CHUNK on (the scan's count), so that a reading may
	 * pass the window's earliest record on before the window is full:
	 * no record still to come is earlier. */
	uint64_t *later_min;
	size_t nchunks, chunks_cap;
	uint64_t pulled;           /* records pulled in this reading */
};

/* Open input i's reader (and its ff_input) for a new reading. */
int ff_ctx_open(struct ff_source *s, struct ff_ctx *cx, const char *path,
		const struct ff_reader_ops *forced, struct bpt_error *err);
/* Close the reader and input. */
void ff_ctx_close(struct ff_ctx *cx);
/* Back to the first record (reopens the reader on a rewound input). */
int ff_ctx_rewind(struct ff_ctx *cx, struct bpt_error *err);
/* The reader's next record, dev already checked: 1, 0, <0 (err set). */
int ff_ctx_next(struct ff_ctx *cx, struct bpt_record *rec, struct bpt_error *err);

#endif
