/*
 * source.h — foreign trace files as one stream of .bpt records: what
 * `blkpeak convert` and every command that opens a trace (through the
 * hook in lib/, see formats_reader_open) read.
 *
 * Opening reads every input once ("the scan"): it checks every line
 * (bad lines fail, or are counted with skip_bad), learns the device
 * table, the process names, the time base (the earliest time of all
 * inputs becomes 0) and the totals, and proves that the bounded reorder
 * window suffices. Nothing is written before the input is known good.
 * Records are then read a second time, in issue-time order: each input
 * is re-ordered within `window` records (an input needing more fails,
 * naming its line), and several inputs are merged by time. Memory:
 * the window, the device table and the distinct names; never the trace.
 */
#ifndef FORMATS_SOURCE_H
#define FORMATS_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "bpt.h"
#include "commands.h" /* FORMATS_WINDOW_MAX */

#define FF_WINDOW_DEFAULT 65536u /* records held for re-ordering */
#define FF_WINDOW_MAX FORMATS_WINDOW_MAX /* common/commands.h */

struct ff_source_opts {
	const char *from;           /* reader name (--from), NULL = detect */
	const char *const *devices; /* --device names kept, NULL-terminated; NULL = all */
	int skip_bad;               /* --skip-bad */
	uint32_t window;            /* 0 = FF_WINDOW_DEFAULT */
	/* Called now and then during the scan and the read (progress);
	 * done/total in input bytes. May be NULL. */
	void (*progress)(void *arg, const char *phase, uint64_t done, uint64_t total);
	void *progress_arg;
};

struct ff_totals {
	uint64_t records;        /* kept (after --device) */
	uint64_t bad_lines;      /* skipped by --skip-bad */
	uint64_t dropped;        /* records of devices --device did not keep */
	uint64_t first_issue_ns, last_issue_ns, last_complete_ns; /* relative */
	uint64_t digest;         /* of the records and devices */
};

struct ff_source;

/* Open and scan the n inputs. err names the file, line and field of a
 * bad line; -ENOMSG when an input is in no known format. */
int ff_source_open(struct ff_source **out, const char *const *paths, size_t n,
		   const struct ff_source_opts *opts, struct bpt_error *err);
void ff_source_close(struct ff_source *s);

/* Kind "import", the device table, start_wall_ns when the format has
 * wall-clock times, and meta: import.format, import.source,
 * import.bad_lines (with --skip-bad), import.dropped (with --device). */
const struct bpt_header *ff_source_header(const struct ff_source *s);
void ff_source_totals(const struct ff_source *s, struct ff_totals *t);
/* The reader chosen for input i ("msr"). */
const char *ff_source_format(const struct ff_source *s, size_t i);

/* Next record in issue-time order (times relative to the base): 1, 0 at
 * the end, <0 with err set. */
int ff_source_next(struct ff_source *s, struct bpt_record *rec, struct bpt_error *err);
/* Back to the first record. */
int ff_source_rewind(struct ff_source *s, struct bpt_error *err);
/* Process name by comm_id; all are known after open. */
const char *ff_source_string(const struct ff_source *s, uint32_t id);
uint32_t ff_source_nstrings(const struct ff_source *s);
/* The digest of the records read so far in this reading (after a full
 * reading equal to the totals' digest); the inputs' size in bytes. */
uint64_t ff_source_digest(const struct ff_source *s);
uint64_t ff_source_file_bytes(const struct ff_source *s);

/* A .bpt reader over the inputs (bpt_reader_open_source): what
 * formats_reader_open() does with the defaults, with opts. */
int formats_reader_open_opts(struct bpt_reader **out, const char *const *paths, size_t n,
			     const struct ff_source_opts *opts, struct bpt_error *err);

#endif
