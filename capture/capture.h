/*
 * capture.h — the parts of `blkpeak capture` and how they fit together.
 * Internal to capture/; the rest of blkpeak sees only cmd_capture().
 *
 *   devices.c     the device table from sysfs; -d /dev/NAME or MAJ:MIN
 *                 resolved to a whole disk
 *   filters.c     -p, -c, --cgroup parsed and checked
 *   reqbits.c     the running kernel's REQ_OP_* / REQ_* bit positions
 *                 (from its BTF) and the op/flag/status mapping
 *   convert.c     struct capture_event (ring buffer) -> struct bpt_record
 *   bpf_loader.c  attach points detected, BPF programs configured, loaded
 *                 and attached
 *   session.c     the poll loop: drain, write, flush each second, count
 *                 losses, run `-- CMD`, stop on signals
 *   cmd_capture.c the command line
 *
 * Functions return 0 or a negative errno and do not print; where a
 * `struct bpt_error *error` is taken, its msg receives a one-line reason
 * (without the "blkpeak: capture: " prefix) for the caller to print.
 * Only cmd_capture.c prints, and session.c's warning when I/O arrives
 * for a disk that is not in the trace's device table.
 */
#ifndef BLKPEAK_CAPTURE_H
#define BLKPEAK_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include "bpt.h"
#include "capture_events.h"

/* ------------------------------------------------------------ devices.c */

/*
 * A -d argument resolved: the whole disk that holds the sectors, and the
 * partition named, if one was.
 */
struct dev_spec {
	char disk[32];      /* whole disk's name, "loop0" */
	uint32_t major, minor; /* of the whole disk */
	char part[32];      /* the partition's name when spec was one, else "" */
};

/*
 * Resolve "/dev/NAME" (a block device node), "NAME" (a kernel name, as
 * --map and lsblk spell it) or "MAJ:MIN" against the
 * sysfs tree at `sysfs` ("/sys" normally; tests pass a fake one).
 * -ENOENT: no such device; -ENOTBLK: not a block device; -EINVAL: neither
 * of them. `error` says which.
 */
int devices_resolve(const char *sysfs, const char *spec, struct dev_spec *out,
		    struct bpt_error *error);

/* Fill `out` from SYSFS/block/NAME (dev, size, block sizes, rotational,
 * model). -ENOENT when there is no such disk. */
int devices_read(const char *sysfs, const char *name, struct bpt_device *out);

/* The partition table of disk NAME from SYSFS/block/NAME/PART/{partition,
 * start,size} (whole-disk 512-byte sectors), sorted by number, at most
 * `max`: how many there are (0 for none; may exceed max) or a negative
 * errno when the disk's directory cannot be read. */
int devices_partitions(const char *sysfs, const char *name, struct bpt_partition *out,
		       int max);

/* The names of all disks (SYSFS/block/ *), sorted, at most `max`; returns
 * how many there are (may exceed max) or a negative errno. */
int devices_list(const char *sysfs, char (*names)[32], int max);

/* The disks that have a size (a detached loop device has none), read
 * into out[], sorted by name, at most `max`; returns how many there are
 * (may exceed max) or a negative errno. */
int devices_list_active(const char *sysfs, struct bpt_device *out, int max);

/* The whole disk holding the file system of `path` (its st_dev), or
 * -ENODEV when it lives on no block device (tmpfs, ...). */
int devices_of_path(const char *sysfs, const char *path, struct dev_spec *out);

/* ------------------------------------------------------------ filters.c */

struct capture_filters {
	uint32_t devs[CAPTURE_MAX_DEVS]; /* capture_kdev() of whole disks */
	unsigned ndevs;                  /* 0: all disks */
	uint32_t tgid;                   /* 0: any process */
	char comm[CAPTURE_COMM_LEN];     /* "" : any */
	const char *cgroup_path;         /* NULL: any */
	int cgroup_fd;                   /* open directory of cgroup_path, or -1 */
	uint64_t cgroup_id;
};

void filters_init(struct capture_filters *f);
/* Add a whole disk; -E2BIG beyond CAPTURE_MAX_DEVS, 0 if already there. */
int filters_add_dev(struct capture_filters *f, uint32_t major, uint32_t minor);
/* A process id: decimal, 1..2^22 (-EINVAL, -ERANGE). */
int filters_parse_pid(const char *s, uint32_t *tgid);
/* A comm: 1..15 characters (-EINVAL empty, -ENAMETOOLONG longer). */
int filters_parse_comm(const char *s, char comm[CAPTURE_COMM_LEN]);
/* Open a cgroup v2 directory; -ENOTDIR / -EMEDIUMTYPE (not cgroup v2) /
 * -errno of open. Fills cgroup_fd and cgroup_id. */
int filters_open_cgroup(struct capture_filters *f, const char *path);
void filters_close(struct capture_filters *f);

/* ------------------------------------------------------------ reqbits.c */

/*
 * Where the running kernel keeps a request's operation and flags in
 * cmd_flags. The op values are stable since 4.10, the flag bits are not:
 * they are read from enum req_op and enum req_flag_bits in the kernel's
 * BTF. An op the kernel lacks is -1.
 */
struct req_bits {
	uint32_t op_mask;
	int32_t op_read, op_write, op_flush, op_discard, op_secure_erase;
	int32_t op_write_zeroes, op_zone_append;
	uint32_t f_sync, f_meta, f_fua, f_preflush, f_rahead; /* masks */
};

struct btf;
/* The values of Linux 6.x (the defaults when BTF lacks an enum). */
void req_bits_default(struct req_bits *b);
/* Read them from a kernel's BTF; what it lacks keeps the 6.x default. */
void req_bits_from_btf(struct req_bits *b, const struct btf *btf);
/* Map cmd_flags to enum bpt_op and enum bpt_flag bits. -EOPNOTSUPP for
 * requests a trace does not hold (zone management, driver pass-through). */
int req_map(const struct req_bits *b, uint32_t cmd_flags, uint8_t *op,
	    uint8_t *flags);
/* blk_status_t -> negative errno, as the kernel's blk_status_to_errno(). */
int32_t req_status_errno(uint8_t status);

/* ------------------------------------------------------------ files.c */

#define FILES_MOUNTS 256

/* One inode some I/O or open event named. */
struct files_inode {
	uint64_t ino;
	uint32_t dev;        /* the file system's s_dev (kernel encoding) */
	uint8_t used, used_by_io, walked;
	uint8_t rel;         /* path is relative to the file system's root */
	char *path;          /* the first path seen, or NULL */
};

/*
 * The file state of one capture: the devices holding mounted file
 * systems (and their disks), and the inodes seen with their paths.
 */
struct files {
	uint32_t mounted[FILES_MOUNTS], mdisk[FILES_MOUNTS];
	unsigned nmounted;
	uint64_t read_ns;    /* when the mounts were read */
	uint64_t now_ns;     /* the capture loop's turn (files_tick); 0: the clock */
	struct files_inode *tab; /* open addressing, cap a power of two */
	size_t n, cap;
	uint64_t paths_dropped;  /* open events the table had no room for */
	/* files_finish's outcome */
	uint64_t files, unresolved, walked_entries;
};

struct capture_bpf;
struct btf;
/* Set the BPF side's file settings from the kernel's BTF and kallsyms;
 * on == 0 (--no-files) turns the file reading off. */
void files_set_rodata(struct capture_bpf *skel, const struct btf *btf, int on);
void files_init(struct files *fs);
void files_free(struct files *fs);
uint64_t files_now_ns(void);
/* The time of the capture loop's turn, for files_classify's look at the
 * mounts: one clock read per turn, not one per event. */
void files_tick(struct files *fs, uint64_t now_ns);
/* The ring buffer callback of the path events (ctx: struct files):
 * keeps the first path of an inode. */
int files_on_path(void *ctx, void *data, size_t size);
/* The file class and fields of `rec` from event `e` (its submitter's
 * comm is e->comm). */
void files_classify(struct files *fs, const struct capture_event *e, struct bpt_record *rec);
/* At the end: resolve paths of files I/O named that were not opened while
 * recording, and add every named file's path to the writer's path table. */
int files_finish(struct files *fs, struct bpt_writer *w);

/* ------------------------------------------------------------ convert.c */

/* Turns strings into string-table ids (bpt_writer_intern in a capture). */
typedef int (*convert_intern_fn)(void *ctx, const char *s, uint32_t *id);

#define CONVERT_COMM_SLOTS 256

/* The disks one capture records at most (a machine's disks; the trace
 * format holds far more, BPT_MAX_DEVICES, for imported traces). */
#define CAPTURE_MAX_DEVICES 64

/*
 * The state of the event -> record conversion: the device table's kernel
 * dev_t values (index = device index in the trace header), the op/flag
 * bits, and a small direct-mapped cache so that a (pid, comm) pair is
 * interned once, not once per I/O.
 */
struct convert {
	uint64_t start_ns;              /* CLOCK_MONOTONIC of record time 0 */
	struct req_bits bits;
	uint32_t kdev[CAPTURE_MAX_DEVICES];
	unsigned ndev;
	unsigned last_dev;              /* index of the last device hit */
	convert_intern_fn intern;
	void *intern_ctx;
	struct files *files;            /* NULL: no file columns */
	struct convert_comm {
		uint64_t c0, c1;        /* the 16 comm bytes */
		uint32_t pid, id;
		uint8_t used;
	} comms[CONVERT_COMM_SLOTS];
};

void convert_init(struct convert *c, uint64_t start_ns, const struct req_bits *bits,
		  convert_intern_fn intern, void *intern_ctx);
/* The next device index of the trace is the disk whose kernel dev_t
 * (capture_kdev()) is kdev. -E2BIG when full. */
int convert_add_dev(struct convert *c, uint32_t kdev);
/*
 * Fill `rec` from `e`. -ENODEV: the device is not in the table;
 * -EOPNOTSUPP: an op a trace does not hold; else the interner's error.
 */
int convert_event(struct convert *c, const struct capture_event *e,
		  struct bpt_record *rec);

/* ------------------------------------------------------------ ringread.c */

/* The events ring buffer, mapped for reading in place. */
struct evring {
	void *cons;          /* the consumer position's page (writable) */
	void *prod;          /* the producer position's page, then the data twice */
	const uint8_t *data;
	uint64_t size;       /* of the data, a power of two */
	size_t page;
};
typedef int (*evring_fn)(void *ctx, void *data, size_t size);
/* Map the ring buffer map `map_fd` of `size` data bytes: 0 or -errno. */
int evring_open(struct evring *r, int map_fd, uint64_t size);
void evring_close(struct evring *r);
/* Hand each committed record to fn, in order, until none is left or fn
 * returns non-zero: the number handed, or fn's value (that record is
 * consumed). Waits for nothing. */
int evring_consume(struct evring *r, evring_fn fn, void *ctx);

/* ------------------------------------------------------------ bpf_loader.c */

struct capture_bpf;

struct loader_opts {
	const struct capture_filters *filters;
	int no_files;            /* --no-files: no file of each I/O, no paths */
	int submitted_only;      /* --submitted-only: filters by submitter only */
	uint32_t own_tgid;       /* 0: do not leave out the capture's own I/O */
	uint64_t ringbuf_bytes;  /* rounded up to a power of two >= 4 KiB */
	uint32_t inflight_max;   /* in-flight table entries (a power of two); 0 = 32768 */
	int force_raw;           /* use raw_tp even where tp_btf works */
	const char *btf_path;    /* BTF to use instead of the kernel's */
};

/*
 * The loaded and attached BPF side. `attach` names what was attached,
 * e.g. "tp_btf:block_io_start,block_rq_issue,block_rq_complete,block_rq_merge".
 */
struct capture_bpf_handle {
	struct capture_bpf *skel;
	struct req_bits bits;
	uint64_t ringbuf_bytes;
	char attach[192];
	int paths_on;        /* writeback_dirty_folio (paths) attached */
	int paths_error;     /* why it is not (negative errno), 0 */
};

/* Open, configure and load (not attach). On failure `error` says why in one
 * line (the libbpf log is printed only when the caller enabled it). */
int loader_load(struct capture_bpf_handle *h, const struct loader_opts *o,
		struct bpt_error *error);
/* Attach the loaded programs: from here on requests are traced. */
int loader_attach(struct capture_bpf_handle *h, struct bpt_error *error);
/* Detach and free; accepts a handle that never started. */
void loader_stop(struct capture_bpf_handle *h);
/* The ring buffer's map fd and the live counters (in the mapped .bss). */
int loader_ringbuf_fd(const struct capture_bpf_handle *h);
/* The path events' ring buffer (struct capture_path_event), or -1 when
 * their hook is not attached (--no-files, or the kernel refused it:
 * paths_error then holds why). */
int loader_path_fd(const struct capture_bpf_handle *h);
const volatile struct capture_counters *loader_counters(const struct capture_bpf_handle *h);
/*
 * Runs of the start, insert and issue programs the kernel skipped: a BPF
 * program is not entered again on a CPU where it is already running, and
 * each such skip may lose a request. The kernel counts them
 * (recursion_misses, Linux 5.12+); one system call per program. Skipped
 * runs of the completion program are left out: their requests stay in
 * the in-flight table and are recorded as completions not seen.
 */
uint64_t loader_missed_runs(const struct capture_bpf_handle *h);
/*
 * At the end of a capture: wait up to `wait_ms` for the issued requests
 * now in the in-flight table to finish (usually a few milliseconds),
 * calling tick(ctx) every 10 ms meanwhile (to drain the ring buffer).
 */
int loader_wait_inflight(const struct capture_bpf_handle *h, unsigned wait_ms,
			 void (*tick)(void *ctx), void *ctx);
/* Detach the programs (the maps stay readable): from here on nothing
 * changes the in-flight table or adds to the ring buffer. */
void loader_detach(struct capture_bpf_handle *h);
/*
 * After loader_detach(): call fn(ctx, ev) for every issued request still
 * in the in-flight table, as an event flagged CAPTURE_COMPLETION_PENDING
 * whose complete_ns is `end_ns`. Stops at fn's first non-zero return and
 * returns it; else 0 (or -errno when the table cannot be mapped).
 */
int loader_each_pending(const struct capture_bpf_handle *h, uint64_t end_ns,
			int (*fn)(void *ctx, const struct capture_event *ev),
			void *ctx);

/* ------------------------------------------------------------ session.c */

struct session_opts {
	uint64_t duration_ns; /* 0: until a signal or CMD exits */
	char **cmd;           /* NULL, or argv of the command to run */
	unsigned poll_ms;     /* reader period; 0 = 50 */
	int status;           /* 1: the status line on a terminal (not --quiet) */
};

struct session_result {
	uint64_t seen;         /* records handed to the writer */
	uint64_t written;      /* records the file holds (complete blocks) */
	uint64_t lost;         /* ring buffer full + map full + skipped runs
				  + unknown device */
	uint64_t unknown_dev;  /* part of lost: I/O on a disk not in the table */
	uint64_t ring_full;    /* part of lost: no room in the ring buffer */
	uint64_t table_full;   /* part of lost: in-flight table full */
	uint64_t skipped_runs; /* part of lost: program runs the kernel skipped */
	/* Records kept without their completion (part of seen, not lost):
	 * the struct request was used again, or it was still pending at the
	 * end. */
	uint64_t unseen_reused, unseen_pending;
	uint64_t skipped;      /* requests a trace does not hold (pass-through) */
	uint64_t own;          /* the capture's own requests, left out */
	uint64_t duration_ns;
	int cmd_status;        /* exit code of CMD (128+signal), -1: none */
	int stopped_by_signal; /* SIGINT / SIGTERM number, or 0 */
};

/*
 * Run the capture until the duration passes, CMD exits, or SIGINT /
 * SIGTERM arrives: drain the ring buffer into `w` through `conv`, flush
 * the writer at least once a second and write losses with their time
 * window; at the end, detach the programs and record the requests still
 * pending. Returns 0 or a negative errno (writer or ring buffer failure,
 * with `error` set); `res` is filled in either case (`written` is set by
 * the caller once the writer is closed).
 */
int session_run(struct capture_bpf_handle *h, struct bpt_writer *w,
		struct convert *conv, const struct session_opts *o,
		struct session_result *res, struct bpt_error *error);

/* sdnotify.c: when run by systemd as a Type=notify service ($NOTIFY_SOCKET
 * set), send READY=1 (the programs are attached, the trace is open) and
 * unset $NOTIFY_SOCKET so that a command run under the capture does not
 * see it. 0 when sent or not asked for, or a negative errno. */
int capture_notify_ready(void);

#endif
