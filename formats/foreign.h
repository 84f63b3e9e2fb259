/*
 * foreign.h — the interface between one foreign trace format and the rest
 * of formats/: a reader turns a file of that format into .bpt records, a
 * writer turns .bpt records into a file of that format. Everything else
 * (decompression, lines, bad-line policy, devices, names, time base,
 * re-ordering, merging several inputs, the .bpt side) is done once, by
 * formats/source.c and formats/input.c, for every format.
 *
 * How a reader plugs in (one small file per format, e.g. read_msr.c):
 *   1. Write `const struct ff_reader_ops ff_read_NAME = { ... };` with
 *      designated initializers; its header comment cites the format's
 *      definition and its units.
 *   2. detect(): look only at the first bytes of the (decompressed) input
 *      and its path; return how sure it is, 0 (not this format) to 100.
 *      The highest score wins; ties go to the earlier row of the table.
 *   3. open(): allocate the reader's state. A text or byte reader reads
 *      its input through ff_ctx_input(cx) (already decompressed); a
 *      reader with FF_OWN_FILES opens what it needs itself from the path
 *      (e.g. blktrace's per-CPU files given by prefix).
 *   4. next(): fill one struct bpt_record and return 1; 0 at the end; a
 *      negative errno on failure with the message set through ff_bad()
 *      or ff_fail(). Fields:
 *        - times in ns on the reader's own clock (any origin, the same for
 *          every record of the input); source.c subtracts the earliest
 *          issue time of all inputs. With FF_WALL_CLOCK they are ns since
 *          the Unix epoch and the earliest becomes the header's
 *          start_wall_ns;
 *        - queue_ns 0 when the format has no queue time (so a reader
 *          whose clock can read 0 at a real queue time adds an origin);
 *        - complete_ns and completion = BPT_COMPLETION_SEEN when the
 *          format records the completion; else leave completion at
 *          FF_NO_COMPLETION and source.c stores the record as "pending"
 *          with complete_ns = issue_ns (latency unknown, left out of
 *          latency statistics);
 *        - dev from ff_device() (a record whose device --device drops is
 *          still returned: source.c drops it); comm_id from ff_intern();
 *        - sector in 512-byte units, bytes in bytes.
 *      A line that cannot be parsed: `rc = ff_bad(cx, "FIELD", "why");`
 *      returns 0 when --skip-bad is on (counted; go on to the next line)
 *      or a negative errno (return it). Lines the format defines as
 *      comments or non-I/O events are skipped silently, they are not bad.
 *   5. close(): free the state (NULL-safe).
 *   6. Add the row to ff_readers[] in formats/registry.c.
 * A format of one I/O a line in fixed columns (CSV and the like) needs
 * no loop of its own: its next() is ff_table_next() on a table of its
 * columns (line_table.h; read_systor.c is an example).
 *
 * How a writer plugs in (e.g. write_iolog.c): `const struct ff_writer_ops
 * ff_write_NAME` with open (create the output(s) through common/outfile.h,
 * given every input path so an input is never overwritten), add (one
 * record, with its comm and device resolved), close (finish; on failure
 * remove what was written); add the row to ff_writers[] in registry.c.
 * Records reach a writer in issue-time order.
 *
 * Functions return 0 (or 1 where stated) and a negative errno on failure
 * with the message in the context's error; they never print.
 */
#ifndef FORMATS_FOREIGN_H
#define FORMATS_FOREIGN_H

#include <stddef.h>
#include <stdint.h>

#include "bpt.h"
#include "input.h"

/* The bytes detect() sees at most (fewer for a shorter input). */
#define FF_DETECT_BYTES 4096

/* The completion value a reader leaves when its format has none. */
#define FF_NO_COMPLETION 0xff

/* ff_reader_ops.flags */
enum ff_reader_flag {
	FF_WALL_CLOCK = 1u << 0, /* record times are ns since the Unix epoch */
	FF_OWN_FILES = 1u << 1,  /* open() reads the path itself: no ff_input */
	FF_BINARY = 1u << 2,     /* not line-based (for messages: "offset", not "line") */
};

struct ff_ctx; /* per input: its file, line, devices, names, bad-line policy */
struct ff_writer_opts; /* below */

struct ff_reader_ops {
	const char *name;     /* --from NAME, e.g. "msr" */
	const char *summary;  /* one line: "MSR Cambridge CSV (SNIA IOTTA)" */
	unsigned flags;       /* enum ff_reader_flag */
	/* 0..100: how sure that head[0..len) (the input's first bytes,
	 * decompressed) is this format. path is a hint only. */
	int (*detect)(const char *path, const char *head, size_t len);
	/* open and close may be NULL for a reader that keeps no state of its
	 * own (state stays NULL). */
	int (*open)(struct ff_ctx *cx, void **state);
	int (*next)(void *state, struct ff_ctx *cx, struct bpt_record *rec);
	void (*close)(void *state);
};

struct ff_writer_ops {
	const char *name;     /* --to NAME, e.g. "fio" */
	const char *summary;
	/* File name endings that select this writer when --to is not given
	 * (".iolog"; a final '#' stands for one or more digits);
	 * NULL-terminated, may be NULL. */
	const char *const *suffixes;
	/* Create the output `out`. hdr is the trace's header (devices, start
	 * time); inputs is the NULL-terminated list of input paths. */
	int (*open)(void **state, const char *out, const struct bpt_header *hdr,
		    const char *const *inputs, struct bpt_error *err);
	/* One record in issue-time order; comm is its process name ("" when
	 * unknown). */
	int (*add)(void *state, const struct bpt_record *rec, const char *comm,
		   struct bpt_error *err);
	/* Finish (failed == 0) or abandon (failed != 0: remove the partial
	 * output) and free the state. Returns 0 or the error of finishing. */
	int (*close)(void *state, int failed, struct bpt_error *err);
	/* The convert options (enum ff_writer_option) this writer takes; a
	 * writer that takes any has open_opts instead of open. */
	unsigned accepts;
	int (*open_opts)(void **state, const char *out, const struct bpt_header *hdr,
			 const char *const *inputs, const struct ff_writer_opts *o,
			 struct bpt_error *err);
};

/* Options of convert for writers (ff_writer_ops.accepts). */
enum ff_writer_option {
	FF_WOPT_CGROUP_IDS = 1u << 0, /* --cgroup-ids: write cgroup ids */
	/* not an option: the writer wants lag_ns, for which convert reads
	 * the input once more before writing */
	FF_WOPT_LAG = 1u << 1,
};

struct ff_writer_opts {
	unsigned flags;   /* enum ff_writer_option */
	/* FF_WOPT_LAG: the most any record's queue time (its issue time when
	 * it has none) lies before the latest issue time of the records
	 * before it in the input's order (a capture's records come in
	 * completion order) */
	uint64_t lag_ns;
};

/* ------------------------------------------- what a reader calls on cx */

/* The input's path as the user gave it. */
const char *ff_ctx_path(const struct ff_ctx *cx);
/* The decompressed input (NULL for an FF_OWN_FILES reader). */
struct ff_input *ff_ctx_input(struct ff_ctx *cx);
/* Every input of the conversion, for a format spread over several files
 * (blktrace's per-CPU files): this input's index, and the path of input
 * i (NULL past the last). Valid from the first next() on. */
size_t ff_ctx_index(const struct ff_ctx *cx);
/* The reorder window, in records: a reader that holds records back (to
 * pair events) gives each out before this many later ones. */
uint32_t ff_ctx_window(const struct ff_ctx *cx);
const char *ff_ctx_input_path(const struct ff_ctx *cx, size_t i);
/*
 * Count n events of the input that are no records and no bad lines (for
 * blktrace: completions of requests not issued in the trace): added up
 * over the inputs into the trace's meta "note.WHAT" (WHAT at most 26
 * characters), which convert prints and info shows. Counted in the first
 * reading only; n == 0 adds nothing. 0 or -E2BIG (the meta is full).
 */
int ff_note(struct ff_ctx *cx, const char *what, uint64_t n);

/* The next line (without its "\n" or "\r\n"), NUL-terminated and
 * writable until the next call; *len its length. 1, 0 at the end, or
 * <0 on a read error (message set). Counts lines for ff_bad(). */
int ff_line(struct ff_ctx *cx, char **line, size_t *len);
/* The number of the line ff_line() returned last (1-based). */
uint64_t ff_line_no(const struct ff_ctx *cx);

/*
 * The current line is bad in `field`: with --skip-bad, count it and
 * return 0 (the reader goes on with the next line); else set the error
 * "PATH:LINE: FIELD: why ('the line')" and return -EBADMSG.
 */
int ff_bad(struct ff_ctx *cx, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* An error that is not about one line (a read error, a broken binary
 * file): "PATH: message"; returns code. */
int ff_fail(struct ff_ctx *cx, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The device named `name` (a volume, LUN, disk: "hm_0", "vol 1234",
 * "8,16") with major:minor when the format has them (else 0, 0): its
 * index in the trace's device table, added on first sight. Returns the
 * index, FF_DEV_DROPPED when --device does not keep it, or -E2BIG (message
 * set) when more than BPT_MAX_DEVICES would be kept.
 */
#define FF_DEV_DROPPED 0x7fffffff /* above every index (< BPT_MAX_DEVICES) */
int ff_device(struct ff_ctx *cx, const char *name, uint32_t major, uint32_t minor);
/* ff_device for the name PREFIX followed by the decimal `num` ("vol"
 * 1283 -> "vol1283"), remembering the last answer: a format whose
 * devices are numbered pays no formatting per record. */
int ff_device_num(struct ff_ctx *cx, const char *prefix, uint64_t num);
/* Intern a process name (len bytes, need not be NUL-terminated) into *id. */
int ff_intern(struct ff_ctx *cx, const char *s, size_t len, uint32_t *id);

/* --------------------------------------------- parsing helpers for readers */

/* A field of a line: a pointer into the line and a length. */
struct ff_field {
	const char *p;
	size_t len;
};

/* Split line at every `sep` (',' or ' ' etc.) into at most max fields,
 * the last one taking the rest. With sep == ' ', runs of spaces and tabs
 * are one separator and leading blanks are skipped. Returns the count. */
size_t ff_split(char *line, size_t len, char sep, struct ff_field *f, size_t max);
/* buf = prefix[0..plen) followed by num in decimal, NUL-terminated
 * (size >= plen + 21); returns the length. snprintf's speed without
 * its cost per record. */
size_t ff_name_num(char *buf, size_t size, const char *prefix, size_t plen, uint64_t num);
/* Unsigned decimal: 0, or -1 when empty, not all digits, or > UINT64_MAX. */
int ff_u64(const struct ff_field *f, uint64_t *out);
/* Signed decimal. */
int ff_i64(const struct ff_field *f, int64_t *out);
/* Hexadecimal with or without 0x. */
int ff_hex(const struct ff_field *f, uint64_t *out);
/* Decimal seconds ("12", "12.5", "0.000123456789") times `unit` (1e9 for
 * ns from seconds, 1000 for ns from µs...), exact to the ns (digits past
 * ns are dropped). -1 when malformed or out of range. */
int ff_decimal_scaled(const struct ff_field *f, uint64_t unit, uint64_t *out);
/* For detect(): copy line number `nth` (0-based, counting only lines
 * that are not empty and do not start with '#') of head into buf
 * (NUL-terminated, without "\r\n"). Returns its length, or -1 when head
 * has no such complete line or it does not fit. */
int ff_head_line(const char *head, size_t len, unsigned nth, char *buf, size_t size);
/*
 * The kernel's rwbs letters (blk_fill_rwbs: blkparse, biosnoop, the
 * block tracepoints), of every kernel that wrote them
 * (schemas/foreign-formats.md, "rwbs letters"):
 *   4.10+          [F]{W|R|D|DE|F|N}[F][A][S][M]
 *   2.6.36 - 4.9   [F]{W|D|R|N}[F][A][S][M][E]
 *   to 2.6.35      {W|D|R|N}[A][B][S][M]
 * F first = preflush; the op; then F = FUA, A readahead, S sync, M meta;
 * B (barrier) = preflush; E (secure erase) and a D after W = discard. A
 * write of 0 bytes with preflush (or barrier) is a flush; N (no data, or
 * another op) is a flush when it moves no bytes and unknown otherwise.
 * 0, or -1 when the letters are not rwbs.
 */
int ff_rwbs(const struct ff_field *f, uint64_t bytes, uint8_t *op, uint8_t *flags);
/* Case-insensitive comparison of a field with a word. */
int ff_field_is(const struct ff_field *f, const char *word);

/* ------------------------------------------------------------ the tables */

extern const struct ff_reader_ops *const ff_readers[];
extern const size_t ff_nreaders;
extern const struct ff_writer_ops *const ff_writers[];
extern const size_t ff_nwriters;

const struct ff_reader_ops *ff_reader_find(const char *name);
const struct ff_writer_ops *ff_writer_find(const char *name);
/* The writer OUT's name selects (by suffix), or NULL (.bpt). */
const struct ff_writer_ops *ff_writer_for_path(const char *out);

#endif
