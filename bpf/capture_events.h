/*
 * capture_events.h — the types shared by bpf/capture.bpf.c (kernel side)
 * and capture/ (user side) of `blkpeak capture`.
 *
 * Only fixed-width types and fixed arrays, explicit padding, sizes
 * asserted: both compilers (clang -target bpf and the host's cc) lay the
 * structs out identically, so nothing here needs to be "kept in sync".
 *
 * The event is an interface between the two halves of one binary, not a
 * file format: capture/convert.c turns it into a struct bpt_record, and
 * the trace library writes that as schemas/trace-format.md says.
 */
#ifndef BLKPEAK_CAPTURE_EVENTS_H
#define BLKPEAK_CAPTURE_EVENTS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define CAPTURE_COMM_LEN 16    /* TASK_COMM_LEN */

/*
 * The kernel's internal dev_t, the one encoding of a disk both halves
 * use (capture_event.dev, the -d filter map, the device table): MKDEV()
 * of include/linux/kdev_t.h, 12 bits of major above 20 bits of minor
 * (MINORBITS has been 20 since Linux 2.6.0). Not the user-space dev_t of
 * stat(2), whose makedev() packs the bits differently.
 */
#define CAPTURE_KDEV_MINORBITS 20
#define CAPTURE_KDEV_MINORMASK ((1u << CAPTURE_KDEV_MINORBITS) - 1)
#define CAPTURE_KDEV_MAJORMAX 0xfffu

static inline __u32 capture_kdev(__u32 major, __u32 minor)
{
	return (major << CAPTURE_KDEV_MINORBITS) | (minor & CAPTURE_KDEV_MINORMASK);
}

static inline __u32 capture_kdev_major(__u32 kdev)
{
	return kdev >> CAPTURE_KDEV_MINORBITS;
}

static inline __u32 capture_kdev_minor(__u32 kdev)
{
	return kdev & CAPTURE_KDEV_MINORMASK;
}
#define CAPTURE_MAX_DEVS 16    /* -d given at most this many times */

/*
 * What the data of a request belong to, as the BPF side sees it in the
 * request's first bios (capture_event.file_kind; bpf/files.bpf.h). The
 * user side turns it into the trace's enum bpt_file_class with what only
 * it knows (which devices hold a mounted file system, the submitter's
 * comm): capture/files.c.
 */
#define CAPTURE_FILE_NONE 0    /* no data pages (flush, discard) */
#define CAPTURE_FILE_DATA 1    /* page cache of a regular file: file_dev, inode, file_off */
#define CAPTURE_FILE_DIRECT 2  /* direct I/O (iomap) on a regular file: the same */
#define CAPTURE_FILE_BDEV 3    /* the block device's own page cache (buffer heads:
				  file system metadata, or raw use); file_dev = the
				  device (partition) */
#define CAPTURE_FILE_INODE_META 4 /* page cache of a directory, symlink, ...; file_dev */
#define CAPTURE_FILE_SWAP 5    /* a folio in the swap cache */
#define CAPTURE_FILE_NOMAP 6   /* pages of no page cache (a file system's own
				  buffers: xfs metadata, jbd2's frozen copies) */
#define CAPTURE_FILE_XLOG 7    /* the xfs log (bi_end_io is xlog_bio_end_io) */
#define CAPTURE_FILE_USER 8    /* user memory, not through iomap (O_DIRECT on
				  the block device itself) */
#define CAPTURE_FILE_OFF_UNKNOWN (~(__u64)0)
#define CAPTURE_PATH_MAX 1024  /* bytes of a path sent by the BPF side */

/*
 * A regular file on a file system with a block device whose page cache
 * got dirty, the first time its inode is seen: the names from the file
 * up to the file system's root, each NUL-terminated ("c\0b\0a\0" for
 * ROOT/a/b/c). Sent through the `path_events` ring buffer.
 */
struct capture_path_event {
	__u64 inode;
	__u32 file_dev;  /* the file system's s_dev, kernel encoding */
	__u32 len;       /* bytes of `path` used */
	__u8 path[CAPTURE_PATH_MAX];
};
_Static_assert(sizeof(struct capture_path_event) == 16 + CAPTURE_PATH_MAX,
	       "capture_path_event layout");

/*
 * Values of capture_event.completion: the trace format's enum
 * bpt_completion (lib/bpt.h), which convert.c copies as it is.
 */
#define CAPTURE_COMPLETION_SEEN 0
#define CAPTURE_COMPLETION_REUSED 1  /* complete_ns: when the request was used again */
#define CAPTURE_COMPLETION_PENDING 2 /* complete_ns: the end of the capture */

/*
 * One completed request, as it travels through the ring buffer. The same
 * struct is the value of the in-flight map (keyed by the struct request
 * pointer): it is filled step by step (start, issue) and copied into the
 * ring buffer at completion, when complete_ns and status are set.
 * A request whose completion never reached the BPF side travels the same
 * way, with `completion` saying so and complete_ns holding the bound.
 *
 * dev is the kernel's internal dev_t of the whole disk (capture_kdev()).
 * cmd_flags is the request's raw REQ_OP_* | REQ_* word; the user side maps
 * it with the bit positions it reads from the kernel's BTF (reqbits.c).
 * status is the kernel's blk_status_t (BLK_STS_*), not an errno.
 */
struct capture_event {
	__u64 queue_ns;    /* created (block_io_start) or inserted; CLOCK_MONOTONIC */
	__u64 issue_ns;    /* issued to the driver (block_rq_issue); 0: never */
	__u64 complete_ns; /* completed (block_rq_complete) */
	__u64 sector;      /* first sector, 512-byte units, whole-disk relative */
	__u64 cgroup_id;   /* cgroup v2 id of the submitting task */
	__u32 bytes;       /* request length at issue */
	__u32 pid;         /* tgid of the submitting task */
	__u32 dev;         /* capture_kdev(major, minor) of the disk */
	__u32 cmd_flags;   /* REQ_OP_* | REQ_* as the kernel had it at issue */
	__u8 comm[CAPTURE_COMM_LEN]; /* submitting task's comm, NUL padded */
	__u8 status;       /* blk_status_t of the completion */
	__u8 completion;   /* CAPTURE_COMPLETION_*: seen, or the bound's kind */
	__u8 file_kind;    /* CAPTURE_FILE_* */
	__u8 kthread;      /* 1: the submitter is a kernel thread */
	/* the task that caused it, when the kernel side found one
	 * (CAPTURE_CAUSE_*: cause_pid and the rest below); the user side
	 * adds the rule for the others (capture/files.c) */
	__u8 cause_kind;
	__u8 pad[3];
	/* --- the end of a short event (CAPTURE_EVENT_SHORT bytes): what
	 * follows is sent only when file_kind or cause_kind needs it */
	/* the file of the data, for CAPTURE_FILE_DATA and _DIRECT */
	__u64 inode;
	__u64 file_off;    /* byte offset of the first byte; CAPTURE_FILE_OFF_UNKNOWN */
	__u32 file_dev;    /* s_dev of the file system (BDEV: the device's i_rdev) */
	__u32 file_bytes;  /* bytes from the start that are this file's, contiguous */
	/* a second file whose data follow (file2_bytes from byte file_bytes
	 * on; 0: none): the writeback of two files merged into the request */
	__u64 inode2;
	__u64 file2_off;
	__u32 file2_dev;
	__u32 file2_bytes;
	/* the task that caused it (cause_kind != CAPTURE_CAUSE_NONE) */
	__u64 cause_cgroup;
	__u32 cause_pid;
	__u8 pad2[4];
	__u8 cause_comm[CAPTURE_COMM_LEN];
	/* the dirtier of the second file's part (cause2_pid 0: none known) */
	__u64 cause2_cgroup;
	__u32 cause2_pid;
	__u32 pad3;
	__u8 cause2_comm[CAPTURE_COMM_LEN];
};
_Static_assert(sizeof(struct capture_event) == 192, "capture_event layout");


#define CAPTURE_CAUSE_NONE 0
#define CAPTURE_CAUSE_DIRTIER 1 /* the task that dirtied the first folio */
#define CAPTURE_CAUSE_FSYNC 2   /* the one task in fsync on the disk, for a
				   kernel thread's journal or metadata write */

/*
 * A completion whose request names no file (file_kind other than DATA,
 * DIRECT, BDEV, INODE_META: no data, user memory, swap, a file system's
 * own buffers, the xfs log) and no cause is sent as the event's first
 * CAPTURE_EVENT_SHORT bytes: 80 instead of 192 through the ring buffer
 * (the I/O of a raw device, the reads of a database on one).
 */
#define CAPTURE_EVENT_SHORT 80
_Static_assert(__builtin_offsetof(struct capture_event, inode) == CAPTURE_EVENT_SHORT,
	       "capture_event: the short event ends where the file begins");

static inline int capture_event_needs_tail(__u8 file_kind, __u8 cause_kind)
{
	return cause_kind != CAPTURE_CAUSE_NONE ||
	       file_kind == CAPTURE_FILE_DATA || file_kind == CAPTURE_FILE_DIRECT ||
	       file_kind == CAPTURE_FILE_BDEV || file_kind == CAPTURE_FILE_INODE_META;
}

/*
 * One entry of the in-flight table (the BPF array map `inflight`, which
 * the user side maps into memory at the end of a capture to see which
 * requests never finished): the request owning it and what its record
 * needs that the request no longer holds at completion.
 *
 * Three cache lines. The first holds what a completion reads: a request
 * often completes on another CPU than the one that created it, and every
 * line the completion touches then moves between CPUs. A completion reads
 * the disk and cmd_flags from the request itself (they do not change
 * while it is in flight), so their copies live in the second line, which
 * only creation and issue write: they are read only when the completion
 * was never seen (the request is used again, or still pending at the
 * end), when the request holds another use's values or none. The file
 * and cause (format 1.3), written at issue (a direct I/O's file and a
 * journal write's fsync cause at creation), fill the rest of the second
 * line and the third; a completion copies them into its record when it
 * names a file or a cause. The third line (the cause) is written only
 * with a cause_kind: a request without one never touches it.
 */
struct capture_inflight {
	__u64 rq;        /* the owner's key (rq_key() in capture.bpf.c); 0: free */
	__u64 queue_ns;  /* as in struct capture_event */
	__u64 issue_ns;  /* 0: not issued yet */
	__u64 sector;
	__u64 cgroup_id;
	__u32 bytes;
	__u32 pid;
	__u8 comm[CAPTURE_COMM_LEN];
	/* second cache line */
	__u32 dev;       /* as in struct capture_event */
	__u32 cmd_flags; /* at issue (at creation until then) */
	__u64 inode;     /* the file, as in struct capture_event */
	__u64 file_off;
	__u32 file_dev;
	__u32 file_bytes;
	__u64 inode2;
	__u64 file2_off;
	__u32 file2_dev;
	__u32 file2_bytes;
	__u8 file_kind;
	__u8 cause_kind;  /* as in struct capture_event */
	__u8 kthread;
	__u8 pending_filter; /* left out by the filters unless its cause passes */
	__u8 cause_passes, cause2_passes; /* the dirtiers passed the filters */
	__u8 pad[2];
	/* third cache line */
	__u64 cause_cgroup;
	__u32 cause_pid;
	__u32 pad3;
	__u8 cause_comm[CAPTURE_COMM_LEN];
	__u64 cause2_cgroup;
	__u32 cause2_pid;
	__u32 pad4;
	__u8 cause2_comm[CAPTURE_COMM_LEN];
};
_Static_assert(sizeof(struct capture_inflight) == 192, "capture_inflight layout");

/*
 * Counters kept by the BPF side in its .bss; the user side reads them
 * through the skeleton's memory map (no system call).
 *   lost:      requests that completed but found no room in the ring buffer
 *   map_full:  requests not tracked because the in-flight map was full
 *              (they are lost too: the user side adds both)
 *   own:       requests submitted by the capture process itself (its
 *              own trace writes when the output is on a traced disk),
 *              left out on purpose
 *   paths_*:   the path events of opened files (capture_path_event)
 *   missed:    issued requests whose completion never reached the BPF
 *              side, found when the struct request is used again: each
 *              is sent as a record flagged CAPTURE_COMPLETION_REUSED
 *              (when the ring buffer has no room, `lost` counts it)
 */
struct capture_counters {
	__u64 lost;
	__u64 map_full;
	__u64 own;
	__u64 missed;
	__u64 paths_sent;   /* path events sent */
	__u64 paths_lost;   /* path events without room in their ring buffer,
			       or whose path was deeper than the BPF side walks */
	__u64 dirtier_missed; /* page cache writes whose dirtier was not in the
				 table (dirtied before the capture, or evicted
				 from the LRU table): cause unknown */
};
_Static_assert(sizeof(struct capture_counters) == 56, "capture_counters layout");

#endif
