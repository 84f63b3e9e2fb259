/*
 * bpt.h — the public API of the .bpt trace library (libbpt).
 *
 * A .bpt file holds one record per completed block I/O request, written
 * as it happens (streaming) and read back with constant memory. Capture,
 * replay, analyze and the CLI use the format only through this header; the
 * byte layout is specified in schemas/trace-format.md and is private to
 * lib/bpt_*.c.
 *
 * Installed as libbpt (`pkg-config --cflags --libs libbpt`: libbpt.so.1, or
 * libbpt.a with --static), the same reader calls also read the foreign
 * trace formats blkpeak knows (blktrace, blkparse, MSR, Alibaba, Tencent,
 * FIU, SPC...; `blkpeak convert --help` lists them): bpt_reader_open()
 * detects them. Only the declarations of this header are exported
 * (docs/development.md, "libbpt": what changes the soname).
 *
 * Reading a trace: every record once, in file order.
 *
 *	#include <bpt.h>
 *
 *	struct bpt_reader *r;
 *	struct bpt_record rec;
 *	struct bpt_error err;
 *	int rc = bpt_reader_open(&r, "trace.bpt", &err);
 *	if (rc < 0) {
 *		fprintf(stderr, "%s\n", err.msg); // names the file and the reason
 *		return 1;
 *	}
 *	const struct bpt_header *h = bpt_reader_header(r);
 *	while ((rc = bpt_reader_next(r, &rec, &err)) == 1) {
 *		const char *comm = bpt_reader_string(r, rec.comm_id);
 *		printf("%s %s %llu+%u %llu ns\n", h->devices[rec.dev].name,
 *		       bpt_op_name(rec.op), (unsigned long long)rec.sector,
 *		       rec.bytes, (unsigned long long)(rec.complete_ns - rec.issue_ns));
 *		(void)comm;
 *	}
 *	if (rc < 0)	// damage or an I/O error; a cut tail is not one
 *		fprintf(stderr, "%s\n", err.msg);
 *	bpt_reader_close(r);
 *
 * bpt_reader_set_issue_range() before the loop reads only a time window
 * (skipping blocks outside it unread); bpt_reader_stats() gives the totals.
 *
 * Writing a trace:
 *
 *	struct bpt_header h;
 *	struct bpt_device d = { .name = "sda", .major = 8, .minor = 0,
 *				.logical_block_size = 512, .physical_block_size = 4096 };
 *	struct bpt_writer *w;
 *	uint32_t comm;
 *	bpt_header_init(&h, "import");	// kind, host, kernel, clocks
 *	bpt_header_add_device(&h, &d);	// device index 0
 *	if (bpt_writer_create(&w, "out.bpt", &h, NULL, &err) < 0)
 *		return 1;		// err.msg says why
 *	bpt_header_free(&h);		// the writer keeps its own copy
 *	bpt_writer_intern(w, "postgres", &comm);
 *	struct bpt_record rec = { .issue_ns = 1000, .complete_ns = 81000,
 *				  .sector = 2048, .bytes = 8192, .pid = 42,
 *				  .comm_id = comm, .op = BPT_OP_WRITE };
 *	rc = bpt_writer_add(w, &rec);	// -EINVAL for a record that breaks a rule
 *	...
 *	rc = bpt_writer_close(w, &err);	// footer, index, digest; frees w
 *
 * A reader of a file whose writer died (power cut, SIGKILL) reads every
 * block written before; bpt_stats.truncated says so.
 */
#ifndef BPT_H
#define BPT_H

#include <stddef.h>
#include <stdint.h>

/* struct bpt_error, from common/ (error.h, which has it from bpt_error.h);
 * the installed bpt.h includes "bpt_error.h" instead (make install-libbpt) */
#include "error.h"

/* What this header declares is the library's exported API; everything else
 * in libbpt is built hidden (-fvisibility=hidden). */
#pragma GCC visibility push(default)

#define BPT_FORMAT_MAJOR 1 /* readers refuse files with another major */
#define BPT_FORMAT_MINOR 4 /* additions older readers can skip */

/* Operation of a request. Values are part of the file format. */
enum bpt_op {
	BPT_OP_READ = 0,
	BPT_OP_WRITE = 1,
	BPT_OP_FLUSH = 2,
	BPT_OP_DISCARD = 3,
	BPT_OP_WRITE_ZEROES = 4,
	BPT_OP__COUNT
};

/* Request flags, a bit mask. Values are part of the file format. */
enum bpt_flag {
	BPT_F_SYNC = 1u << 0,
	BPT_F_FUA = 1u << 1,
	BPT_F_PREFLUSH = 1u << 2,
	BPT_F_META = 1u << 3,
	BPT_F_READAHEAD = 1u << 4,
	BPT_F__ALL = (1u << 5) - 1
};

/*
 * Optional columns. A file says in its header which it carries; a reader
 * leaves the fields of absent columns at 0. Columns a reader does not know
 * are skipped (each column's encoded length is stored in the block), which
 * is how new columns are added without breaking older readers.
 */
enum bpt_column {
	BPT_COL_SCHED = 1u << 0,  /* sched_ns: when the replay meant to issue */
	BPT_COL_SOURCE = 1u << 1, /* source_index: record index in the source trace */
	BPT_COL_MEMBER = 1u << 2, /* member: target member (virtual arrays) */
	BPT_COL_COMPLETION = 1u << 3, /* completion: was the completion seen (1.2) */
	BPT_COL_INTERNAL = 1u << 4, /* internal: an array-internal member I/O */
	BPT_COL_FILE = 1u << 5,     /* file_*: the file or class an I/O touched (1.3) */
	BPT_COL_CAUSE = 1u << 6,    /* cause_*: the task that caused the I/O (1.3) */
	BPT_COL__KNOWN = (1u << 7) - 1
};

/*
 * Was a request's completion seen (the BPT_COL_COMPLETION column)? Values
 * are part of the file format. When it was not, complete_ns holds the
 * bound the capture knows instead of a completion time, and the record's
 * service time is unknown: statistics of latency leave such records out.
 */
enum bpt_completion {
	BPT_COMPLETION_SEEN = 0,    /* complete_ns is the completion */
	BPT_COMPLETION_REUSED = 1,  /* not seen; complete_ns is when the
				       kernel used the request again: it
				       completed before that */
	BPT_COMPLETION_PENDING = 2, /* not seen; complete_ns is the end of
				       the capture, when it was still
				       pending as far as the capture saw */
	BPT_COMPLETION__COUNT
};

/* "seen", "reused", "pending"; "?" if bad. */
const char *bpt_completion_name(unsigned completion);

/*
 * What an I/O touched (the BPT_COL_FILE columns, format 1.3; lib/bpt_file.c,
 * schemas/trace-format.md "Files and paths"). Values are part of the file
 * format. Only DATA names a file (file_dev, inode, file_offset, file_bytes);
 * a trace without the columns reads as UNKNOWN.
 */
enum bpt_file_class {
	BPT_FILE_UNKNOWN = 0,  /* not known (flushes, old traces, the kernel
				  gave no way to tell) */
	BPT_FILE_DATA = 1,     /* pages of a regular file */
	BPT_FILE_META = 2,     /* file system metadata */
	BPT_FILE_JOURNAL = 3,  /* the file system's journal or log */
	BPT_FILE_SWAP = 4,     /* swap */
	BPT_FILE_RAW = 5,      /* the block device itself, no file system */
	BPT_FILE__COUNT
};
#define BPT_FILE_OFFSET_UNKNOWN UINT64_MAX

/* "unknown", "data", "metadata", "journal", "swap", "raw"; "?" if bad. */
const char *bpt_file_class_name(unsigned cls);
/* Parse a class name; returns the class or -EINVAL. */
int bpt_file_class_parse(const char *name);

/*
 * One completed request. Mandatory fields first, then the optional replay
 * columns (valid only when the header's `columns` has their bit).
 */
struct bpt_record {
	uint64_t queue_ns;    /* inserted/created (0 when unknown = issue_ns) */
	uint64_t issue_ns;    /* issued to the driver */
	uint64_t complete_ns; /* completed */
	uint64_t sector;      /* first 512-byte sector on the device */
	uint64_t cgroup_id;   /* cgroup v2 id of the submitter, 0 if unknown */
	uint32_t bytes;       /* length; 0 for a flush without data */
	uint32_t pid;         /* submitting task's tgid, 0 if unknown */
	uint32_t comm_id;     /* index into the string table (bpt_*_intern) */
	int32_t error;        /* 0, or a negative errno as the kernel returned */
	uint32_t dev;         /* index into the header's device table */
	uint8_t op;           /* enum bpt_op */
	uint8_t flags;        /* enum bpt_flag bits */
	uint32_t member;      /* BPT_COL_MEMBER */
	uint64_t sched_ns;    /* BPT_COL_SCHED */
	uint64_t source_index; /* BPT_COL_SOURCE */
	uint8_t completion;   /* BPT_COL_COMPLETION: enum bpt_completion */
	uint8_t internal;     /* BPT_COL_INTERNAL: 1 for an I/O a virtual
			       * raid5/raid6 array made on its own (parity,
			       * old data), sector on the member `member`
			       * names; 0 for a request of the trace */
	/* BPT_COL_FILE (1.3): the file the I/O's data belong to */
	uint8_t file_class;   /* enum bpt_file_class */
	uint32_t file_dev;    /* DATA: the file system's device, major << 20 | minor */
	uint32_t file_bytes;  /* DATA: bytes of the I/O, from its start, that are
			       * this file's from file_offset on (<= bytes; the
			       * rest belongs to other files or is unknown) */
	uint64_t inode;       /* DATA: the file's inode number on file_dev */
	uint64_t file_offset; /* DATA: byte offset in the file of the I/O's
			       * first byte; BPT_FILE_OFFSET_UNKNOWN if not known */
	/* DATA: a second file whose data follow the first's in the same
	 * request (the writeback of two files merged): file2_bytes of the
	 * I/O from byte file_bytes on; 0 when there is none */
	uint32_t file2_dev;
	uint32_t file2_bytes; /* file_bytes + file2_bytes <= bytes */
	uint64_t inode2;
	uint64_t file2_offset;
	/* BPT_COL_CAUSE (1.3): the task that caused the I/O, beside the one
	 * that submitted it (pid, comm_id, cgroup_id): the writer of data a
	 * kworker wrote back, the fsync a journal commit was for. cause_pid
	 * 0: not known */
	uint32_t cause_pid;     /* tgid */
	uint32_t cause_comm_id; /* string id */
	uint64_t cause_cgroup;  /* cgroup v2 id */
	/* the same for the second file's part (file2_bytes), which another
	 * task may have written; 0: not known or no second file */
	uint32_t cause2_pid;
	uint32_t cause2_comm_id;
	uint64_t cause2_cgroup;
};

/* The causing task of `r` when the file carries it and it is known, else
 * the submitter: pid, comm id and cgroup of the one to credit. */
void bpt_record_credit(const struct bpt_record *r, uint32_t columns, uint32_t *pid,
		       uint32_t *comm_id, uint64_t *cgroup);

/*
 * The largest sector a record may name: the I/O's last byte,
 * sector * 512 + bytes, must stay below 2^64 so that byte offsets never
 * wrap. The writer refuses (-EINVAL) and the reader rejects as damage
 * (-EBADMSG) a record past it; every sector below 2^55 - 2^23 is valid
 * whatever its length.
 */
#define BPT_SECTOR_END_OK(sector, bytes) \
	((uint64_t)(sector) <= (UINT64_MAX - (uint64_t)(bytes)) >> 9)

/* Devices a trace may hold (format 1.3; 64 before). A file of at most
 * BPT_DEVICES_V12 devices keeps the 1.2 device table, which 1.2 readers
 * read. */
#define BPT_MAX_DEVICES 65536u
#define BPT_DEVICES_V12 64
#define BPT_MAX_META 32

/* One device the trace's records refer to (by index). */
struct bpt_device {
	char name[32];     /* "loop0", "nvme0n1", or a target spec's member */
	uint32_t major, minor;
	uint64_t size_bytes;
	uint32_t logical_block_size, physical_block_size;
	uint8_t rotational; /* 1 spinning, 0 not, as sysfs says */
	char model[48];     /* sysfs device/model, "" if none */
};

/* A free-form option or fact about the trace: key=value. */
struct bpt_meta {
	char key[32];
	char value[224];
};

/*
 * Meta keys the tools write (schemas/trace-format.md, "Meta keys", says
 * what each value holds). Tools may add others; readers show what they
 * do not know.
 */
#define BPT_META_OPTIONS "options"               /* capture: command line */
#define BPT_META_FILTER_DEVICES "filter.devices" /* capture */
#define BPT_META_FILTER_PID "filter.pid"
#define BPT_META_FILTER_COMM "filter.comm"
#define BPT_META_FILTER_CGROUP "filter.cgroup"
#define BPT_META_CAPTURE_ATTACH "capture.attach"
#define BPT_META_CAPTURE_BUFFER "capture.buffer_bytes"
#define BPT_META_CAPTURE_OWN_IO "capture.own_io"
#define BPT_META_GENERATOR "generator"           /* generate: its options */
#define BPT_META_GENERATOR_BS "generator.bs"
#define BPT_META_SOURCE "source"                 /* replay: the trace's path */
#define BPT_META_SOURCE_DIGEST "source.digest"   /* its digest, 16 hex digits */
#define BPT_META_TARGET "target"
#define BPT_META_TIMING "timing"
#define BPT_META_SPEED "speed"
#define BPT_META_QUEUE_DEPTH "queue_depth"
#define BPT_META_ENGINE "engine"
#define BPT_META_WRITES "writes"
#define BPT_META_FIT "fit"
#define BPT_META_OFFSET "offset"
#define BPT_META_CREATE "create"
#define BPT_META_NO_IDLE "no_idle"
#define BPT_META_LABEL "label"           /* replay --label: the run's display name */
#define BPT_META_REPEAT "repeat"         /* replay --repeat: "K/N", run K of N */
#define BPT_META_TRANSFORM "transform"   /* replay, convert: the what-if transforms applied */
#define BPT_META_FILL "fill"             /* replay, convert --fill: zero, random or 0-100 */
#define BPT_META_CONFLICTS "conflicts"   /* replay --conflicts order|drop */
/* An imported (converted) trace: the foreign format(s), the input
 * path(s), lines skipped by --skip-bad, records --device left out. */
#define BPT_META_IMPORT_FORMAT "import.format"
#define BPT_META_IMPORT_SOURCE "import.source"
#define BPT_META_IMPORT_BAD "import.bad_lines"
#define BPT_META_IMPORT_DROPPED "import.dropped"
#define BPT_META_IMPORT_WINDOW "import.window"
/* A replay's outcome. RUN_IOS is in the header (known at the start); the
 * others are end meta (bpt_writer_set_end_meta), so a run file cut before
 * the replay ended has RUN_IOS without RUN_STATUS. */
#define BPT_META_RUN_IOS "run.ios"         /* I/Os the replay was to do */
#define BPT_META_RUN_STATUS "run.status"   /* BPT_RUN_COMPLETE or BPT_RUN_PARTIAL */
#define BPT_META_RUN_DONE "run.done"       /* I/Os done (records in the file) */
#define BPT_META_RUN_ERRORS "run.errors"   /* of those, I/Os that failed */
#define BPT_META_RUN_STOPPED "run.stopped" /* partial: why, e.g. "interrupted by SIGINT" */
/* capture: a traced disk's partition table, "partitions.D" for device
 * index D (continued in "partitions.D.1", ".2"... when long); see
 * bpt_partitions_get. */
#define BPT_META_PARTITIONS "partitions"
/* replay --verify: the kernel's view of the run (end meta) */
#define BPT_META_VERIFY_IOS "verify.ios"             /* I/Os compared */
#define BPT_META_VERIFY_PRESENT "verify.present"     /* seen as asked */
#define BPT_META_VERIFY_MISSING "verify.missing"     /* never seen */
#define BPT_META_VERIFY_MISPLACED "verify.misplaced" /* seen elsewhere */
#define BPT_META_VERIFY_EXTRA "verify.extra"         /* others' requests */
#define BPT_META_VERIFY_LOST "verify.lost"           /* events the capture lost */
#define BPT_META_VERIFY_ERR_P50 "verify.issue_err_p50_ns" /* kernel issue - due */
#define BPT_META_VERIFY_ERR_P99 "verify.issue_err_p99_ns"
#define BPT_META_VERIFY_ERR_MAX "verify.issue_err_max_ns"
#define BPT_META_VERIFY_DRIFT "verify.drift"         /* error growth per s of schedule */
#define BPT_RUN_COMPLETE "complete"
#define BPT_RUN_PARTIAL "partial"

/*
 * The file header. The writer stores exactly what the caller put here;
 * bpt_header_init() fills the fields every file needs. A reader's header
 * also holds the end meta from the footer (bpt_writer_set_end_meta).
 */
struct bpt_header {
	uint16_t version_major, version_minor; /* set by the library */
	char kind[16];          /* "capture", "generate", "replay", "import" */
	char tool_version[32];  /* blkpeak version that wrote the file */
	char host[64];
	char kernel[128];       /* uname -r */
	int64_t start_wall_ns;  /* CLOCK_REALTIME at start */
	uint64_t start_mono_ns; /* CLOCK_MONOTONIC at start (record time 0) */
	uint32_t columns;       /* enum bpt_column bits */
	uint32_t ndevices;
	/* ndevices entries, malloc'd and owned by the header: grown by
	 * bpt_header_add_device, freed by bpt_header_free, copied by
	 * bpt_header_copy (a struct assignment would share them). NULL
	 * when there are none. */
	struct bpt_device *devices;
	uint32_t devices_cap;
	uint32_t nmeta;
	struct bpt_meta meta[BPT_MAX_META];
};

/* Fill kind, tool version, host, kernel and both start clocks; zero the
 * rest (no devices: call it on a header whose devices are freed). */
void bpt_header_init(struct bpt_header *hdr, const char *kind);
/* Free the device table (NULL-safe; the header keeps no devices). */
void bpt_header_free(struct bpt_header *hdr);
/* *dst = *src with its own copy of the device table; 0 or -ENOMEM (dst
 * then has no devices). dst's old table is not freed. */
int bpt_header_copy(struct bpt_header *dst, const struct bpt_header *src);
/* Add or replace a meta entry; -E2BIG when full or too long. */
int bpt_header_set_meta(struct bpt_header *hdr, const char *key, const char *value);
/* The value of a meta key, or NULL. */
const char *bpt_header_get_meta(const struct bpt_header *hdr, const char *key);
/* Append a device; returns its index (>= 0), -E2BIG past
 * BPT_MAX_DEVICES, or -ENOMEM. */
int bpt_header_add_device(struct bpt_header *hdr, const struct bpt_device *dev);

/* One partition of a recorded disk, in the disk's 512-byte sectors. */
struct bpt_partition {
	uint32_t number;   /* the kernel's partition number (sysfs "partition") */
	uint64_t start;    /* first sector on the whole disk */
	uint64_t sectors;  /* length */
	char name[32];     /* device name: "sda2", "nvme0n1p2", "loop0p2" */
};
#define BPT_MAX_PARTITIONS 128

/*
 * Store device `dev`'s partition table in the header's meta
 * (BPT_META_PARTITIONS; format in schemas/trace-format.md). Returns 0,
 * -EINVAL for a bad device index or entry, -E2BIG when the meta is full.
 */
int bpt_partitions_set(struct bpt_header *hdr, unsigned dev,
		       const struct bpt_partition *p, unsigned n);
/*
 * Read device `dev`'s partition table into p[0..max): the number of
 * partitions (0: none stored, as in traces written before it was), or
 * -EBADMSG when the stored value is malformed.
 */
int bpt_partitions_get(const struct bpt_header *hdr, unsigned dev,
		       struct bpt_partition *p, unsigned max);
/* The kernel's name for partition `number` of `disk`: "sda2", "loop0p2"
 * ('p' when the disk's name ends in a digit). */
void bpt_partition_name(const char *disk, unsigned number, char *buf, size_t len);

/* Names: "read", "write", "flush", "discard", "write-zeroes"; "?" if bad. */
const char *bpt_op_name(unsigned op);
/* Parse an op name; returns the op or -EINVAL. */
int bpt_op_parse(const char *name);
/* Flags as letters, blktrace style: S sync, F fua, P preflush, M meta,
 * A readahead; "" when none. buf must hold 8 bytes. Returns buf. */
char *bpt_flags_str(unsigned flags, char buf[8]);

/*
 * The path table (format 1.3, in the footer): the path(s) a file had
 * during the capture, by (file_dev, inode). An inode may have several
 * entries (hard links, renames: first seen first); a deleted or renamed
 * file keeps the path it was seen with. Paths are strings of the string
 * table (path_id).
 */
struct bpt_path {
	uint32_t file_dev;
	uint32_t path_id;
	uint64_t inode;
};
#define BPT_MAX_PATHS (1u << 22)

/* ---------------------------------------------------------------- writer */

struct bpt_writer;

struct bpt_writer_opts {
	uint32_t block_records;   /* records per block at most; 0 = default (65536) */
	uint64_t block_span_ns;   /* close a block when its issue times span this; 0 = 1 s */
	int zstd_level;           /* 0 = default (1) */
	int sync_blocks;          /* fdatasync after each block (power-cut safety) */
};

/*
 * Create `path` (truncating an existing file) and write the header.
 * Memory is bounded by one open block whatever the trace length. A
 * convenience for tests and tools: blkpeak's commands write through
 * common/outfile.h (no device, FIFO or input is ever an output) and hand
 * the new file to bpt_writer_create_fd().
 */
int bpt_writer_create(struct bpt_writer **out, const char *path,
		      const struct bpt_header *hdr,
		      const struct bpt_writer_opts *opts, struct bpt_error *err);

/*
 * The same on `fd`, a file open for writing at offset 0, which the
 * writer owns from the call on (bpt_writer_close closes it, also when this
 * call fails). `name` is used in error messages.
 */
int bpt_writer_create_fd(struct bpt_writer **out, int fd, const char *name,
			 const struct bpt_header *hdr,
			 const struct bpt_writer_opts *opts, struct bpt_error *err);

/* Intern a string (a comm); same string -> same id. New strings are
 * written with the block that first uses them. Id 0 is always "" (interned
 * by bpt_writer_create), so a record that leaves comm_id at 0 is valid.
 * -E2BIG for a string longer than 4095 bytes. */
int bpt_writer_intern(struct bpt_writer *w, const char *s, uint32_t *id);

/* Append one record. Closes and writes the open block when it is full or
 * spans block_span_ns. Records may come in any time order (captures write
 * them in completion order); the coding is best when times rise.
 * -EINVAL (nothing written) when dev >= hdr.ndevices, op >= BPT_OP__COUNT,
 * flags has bits outside BPT_F__ALL, completion >= BPT_COMPLETION__COUNT,
 * comm_id was not interned or the I/O's end in bytes does not fit 64 bits
 * (BPT_SECTOR_END_OK). Fields of
 * optional columns the header does not declare are not stored. */
int bpt_writer_add(struct bpt_writer *w, const struct bpt_record *rec);

/* Record `count` events lost between t0_ns and t1_ns (e.g. ring buffer
 * overflow). Stored with the open block and totalled in the footer. */
int bpt_writer_add_loss(struct bpt_writer *w, uint64_t t0_ns, uint64_t t1_ns,
			uint64_t count);

/* Close the open block (if it holds anything) and write it out. A capture
 * calls this at least once per wall-clock second so a SIGKILL loses at
 * most about a second. */
int bpt_writer_flush(struct bpt_writer *w);

/* Flush, write the footer (index, string table, totals, digest), close the
 * file and free the writer, also on failure. */
int bpt_writer_close(struct bpt_writer *w, struct bpt_error *err);

/*
 * Add or replace a meta entry known only at the end (a replay's outcome).
 * Stored in the footer (format 1.1), so a file cut before close has none;
 * a reader shows them with the header's meta, replacing a header entry of
 * the same key. -E2BIG when the key is empty or too long, the value too
 * long, or header and end meta together would hold more than BPT_MAX_META
 * keys.
 */
int bpt_writer_set_end_meta(struct bpt_writer *w, const char *key, const char *value);

/*
 * Add a path of the file (file_dev, inode) to the path table written with
 * the footer; the same triple twice is stored once. -E2BIG past
 * BPT_MAX_PATHS entries or for a path longer than 4095 bytes, -EINVAL
 * for an empty one.
 */
int bpt_writer_add_path(struct bpt_writer *w, uint32_t file_dev, uint64_t inode,
			const char *path);

/* Records written so far (including the open block). */
uint64_t bpt_writer_count(const struct bpt_writer *w);
/* Records in the blocks written out completely so far: what the file
 * holds if the writer fails from here on (a failed write's block is not
 * counted). */
uint64_t bpt_writer_written(const struct bpt_writer *w);
/* Bytes written to the file so far. */
uint64_t bpt_writer_bytes(const struct bpt_writer *w);

/* ---------------------------------------------------------------- reader */

struct bpt_reader;

/* Totals. From the footer when the file is complete; otherwise they grow
 * as blocks are read and are final once bpt_reader_next() returned 0. */
struct bpt_stats {
	uint64_t records;
	uint64_t blocks;
	uint64_t first_issue_ns, last_issue_ns; /* range of issue times */
	uint64_t last_complete_ns;
	uint64_t lost_events;   /* sum of all loss entries */
	uint64_t loss_windows;  /* number of loss entries */
	uint64_t file_bytes;    /* size of the file */
	uint64_t valid_bytes;   /* bytes up to the end of the last good block */
	int complete;           /* 1: footer present and valid */
	int truncated;          /* 1: file ends inside a block or before the footer */
};

/* One loss entry (see bpt_writer_add_loss). */
struct bpt_loss {
	uint64_t t0_ns, t1_ns, count;
};

/* Open and check the header; reads the footer if present. */
int bpt_reader_open(struct bpt_reader **out, const char *path,
		    struct bpt_error *err);
/* The same over a memory buffer (for fuzzing and tests); `data` must
 * outlive the reader. `name` is used in error messages. */
int bpt_reader_open_mem(struct bpt_reader **out, const void *data, size_t len,
			const char *name, struct bpt_error *err);
void bpt_reader_close(struct bpt_reader *r);

const struct bpt_header *bpt_reader_header(const struct bpt_reader *r);

/*
 * Next record, in file order. Returns 1 with *rec filled, 0 at the end of
 * the data (a truncated tail is not an error: stats.truncated says so and
 * stats.valid_bytes where the good data ends), or a negative errno on a
 * corrupt block (-EBADMSG), an I/O error, or a record that fails a check.
 * After an error, further calls return the same error.
 */
int bpt_reader_next(struct bpt_reader *r, struct bpt_record *rec,
		    struct bpt_error *err);

/* Position so that the next record returned is the first one, in file
 * order, of the first block whose issue-time range reaches t_ns; records
 * before t_ns in that block are skipped. Uses the footer index, or scans
 * block headers when there is no footer. */
int bpt_reader_seek_time(struct bpt_reader *r, uint64_t t_ns,
			 struct bpt_error *err);

/*
 * From now on return only the records issued in [lo_ns, hi_ns]
 * (inclusive). A block whose issue-time range misses it is skipped
 * without being read when the file has its footer index; otherwise
 * (no footer) blocks are read and their records filtered. Combines with
 * a following bpt_reader_seek_time(); bpt_reader_rewind() clears it.
 * -EINVAL when lo_ns > hi_ns.
 */
int bpt_reader_set_issue_range(struct bpt_reader *r, uint64_t lo_ns, uint64_t hi_ns);

/* The position in file order (0 for the file's first record) of the
 * record bpt_reader_next() returned last, whatever blocks a seek or an
 * issue range skipped. Undefined before the first record. */
uint64_t bpt_reader_record_index(const struct bpt_reader *r);

/* A block's place in the file (bpt_reader_block_pos). */
struct bpt_block_pos {
	uint64_t offset; /* of the block header */
	uint32_t seq;    /* block number */
	uint32_t index;  /* the record's position in the block */
};

/* Where the record bpt_reader_next() returned last lies: 0, or -ENOENT
 * when there is none. */
int bpt_reader_block_pos(const struct bpt_reader *r, struct bpt_block_pos *pos);

/* Position at the first record of a block already read through this
 * reader (pos from bpt_reader_block_pos; index is ignored). -EINVAL when
 * the block was not read before. */
int bpt_reader_seek_block(struct bpt_reader *r, const struct bpt_block_pos *pos,
			  struct bpt_error *err);

/* Back to the first record. */
int bpt_reader_rewind(struct bpt_reader *r, struct bpt_error *err);

/* A string by id, or NULL when the id is not (yet) known. The pointer
 * stays valid until bpt_reader_close. */
const char *bpt_reader_string(const struct bpt_reader *r, uint32_t id);

void bpt_reader_stats(const struct bpt_reader *r, struct bpt_stats *st);

/* The path table, sorted by (file_dev, inode), entries of one inode in
 * the order they were added: the count, *paths owned by the reader (none
 * for a file without footer or older than 1.3). */
size_t bpt_reader_paths(const struct bpt_reader *r, const struct bpt_path **paths);
/* The first path of (file_dev, inode), or NULL. */
const char *bpt_reader_path(const struct bpt_reader *r, uint32_t file_dev,
			    uint64_t inode);

/* Loss entries seen so far (all of them when complete). Returns the count
 * and sets *losses to an array owned by the reader, valid until the next
 * call that reads blocks (next, seek_time, rewind, digest, verify). */
size_t bpt_reader_losses(const struct bpt_reader *r, const struct bpt_loss **losses);

/*
 * A 64-bit digest that identifies the trace's content (header and every
 * block). Taken from the footer when the file is complete; for a truncated
 * file it is computed over the complete blocks, which reads the file once
 * (the reader's position is kept).
 */
int bpt_reader_digest(struct bpt_reader *r, uint64_t *digest,
		      struct bpt_error *err);

/*
 * Read every block and check every checksum and the footer. Returns 0 when
 * the whole file is sound, else the first error (err says where):
 * -EBADMSG for damage, -ENODATA for a file without valid footer
 * (truncated). The reader's position is kept.
 */
int bpt_reader_verify(struct bpt_reader *r, struct bpt_error *err);

/* ------------------------------------------------- column-wise reading */

/*
 * The fields of struct bpt_record, for reading column by column into
 * arrays (numpy, a column store): bpt_reader_read_fields(). Each is as
 * wide as its struct member: 8 bytes for the *_ns, sector, cgroup_id,
 * source_index, inode*, file*_offset and cause*_cgroup fields, 1 byte for
 * op, flags, completion, internal and file_class, 4 for the others
 * (error as int32_t). Values are part of the ABI: new ones are added at
 * the end.
 */
enum bpt_field {
	BPT_FIELD_QUEUE_NS, BPT_FIELD_ISSUE_NS, BPT_FIELD_COMPLETE_NS,
	BPT_FIELD_SECTOR, BPT_FIELD_CGROUP_ID, BPT_FIELD_BYTES, BPT_FIELD_PID,
	BPT_FIELD_COMM_ID, BPT_FIELD_ERROR, BPT_FIELD_DEV, BPT_FIELD_OP,
	BPT_FIELD_FLAGS, BPT_FIELD_MEMBER, BPT_FIELD_SCHED_NS,
	BPT_FIELD_SOURCE_INDEX, BPT_FIELD_COMPLETION, BPT_FIELD_INTERNAL,
	BPT_FIELD_FILE_CLASS, BPT_FIELD_FILE_DEV, BPT_FIELD_FILE_BYTES,
	BPT_FIELD_INODE, BPT_FIELD_FILE_OFFSET, BPT_FIELD_FILE2_DEV,
	BPT_FIELD_FILE2_BYTES, BPT_FIELD_INODE2, BPT_FIELD_FILE2_OFFSET,
	BPT_FIELD_CAUSE_PID, BPT_FIELD_CAUSE_COMM_ID, BPT_FIELD_CAUSE_CGROUP,
	BPT_FIELD_CAUSE2_PID, BPT_FIELD_CAUSE2_COMM_ID, BPT_FIELD_CAUSE2_CGROUP,
	BPT_FIELD__COUNT
};

/* One array to fill: `data` holds room for n values of `field`. */
struct bpt_field_out {
	unsigned field; /* enum bpt_field */
	void *data;
};

/* The width in bytes of a field's values (1, 4 or 8); 0 for a bad field. */
unsigned bpt_field_size(unsigned field);

/*
 * The next at most n records, field by field: out[k].data[i] is field
 * out[k].field of the i-th record. Returns the number of records read
 * (fewer than n only at the end of the data, 0 after it), or a negative
 * errno as bpt_reader_next() does (-EINVAL for a bad field; err set).
 * The same records as n calls of bpt_reader_next(), issue range and seek
 * included, but a block's decoded columns are copied out without building
 * a struct bpt_record per record (docs/python.md, "Speed").
 */
int64_t bpt_reader_read_fields(struct bpt_reader *r, const struct bpt_field_out *out,
			       unsigned nout, size_t n, struct bpt_error *err);

/* ------------------------------------------------- records from elsewhere */

/*
 * A reader backed by records that come from elsewhere than a .bpt file: a
 * foreign trace format (blktrace, an MSR CSV...) read by formats/. Every
 * reader function works on it, so every command reads foreign files
 * unchanged (schemas/trace-format.md, "Readers over other sources"):
 *   - header, string and stats come from the source at open (it has read
 *     its input once: stats say complete, with the totals);
 *   - next/rewind call the source; seek_time rewinds and skips records
 *     issued before the time; block_pos numbers records in groups of
 *     BPT_SOURCE_GROUP ("blocks" at offset = the group's first record
 *     index) and seek_block goes there (forward by skipping, backward by
 *     rewinding first);
 *   - digest is the source's; verify reads every record again and checks
 *     count and digest, keeping the position; losses are none.
 */
#define BPT_SOURCE_GROUP 65536u

struct bpt_source_ops {
	/* 1 with *rec filled, 0 at the end, <0 with err set */
	int (*next)(void *ctx, struct bpt_record *rec, struct bpt_error *err);
	int (*rewind)(void *ctx, struct bpt_error *err);
	/* a process name by comm_id, NULL when unknown */
	const char *(*string)(void *ctx, uint32_t id);
	/* the digest of the records as read so far from the start (after a
	 * full read: of all of them), for verify */
	uint64_t (*running_digest)(void *ctx);
	void (*close)(void *ctx); /* frees ctx */
};

struct bpt_source_totals {
	uint64_t records;
	uint64_t first_issue_ns, last_issue_ns, last_complete_ns;
	uint64_t digest;
	uint64_t file_bytes; /* of the input(s) */
};

/* A reader over ops/ctx, which it owns from the call on (ops->close is
 * called also when this fails). hdr and tot are copied. */
int bpt_reader_open_source(struct bpt_reader **out, const char *name,
			   const struct bpt_header *hdr,
			   const struct bpt_source_totals *tot,
			   const struct bpt_source_ops *ops, void *ctx,
			   struct bpt_error *err);

/*
 * The opener bpt_reader_open() tries when a path is not a .bpt file (bad
 * magic, or a name that is no file, such as a blktrace prefix). It
 * returns 0 with *out set, -ENOMSG when the path is in no format it
 * knows (err->msg then lists what was tried: "tried blkparse, msr, ..."),
 * or another error with err set. Set once by the program's main
 * (blkpeak registers formats/' opener); NULL (the default) = .bpt only.
 */
typedef int (*bpt_foreign_opener)(struct bpt_reader **out, const char *path,
				  struct bpt_error *err);
void bpt_reader_set_foreign_opener(bpt_foreign_opener fn);

#pragma GCC visibility pop

#endif /* BPT_H */
