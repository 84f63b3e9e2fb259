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
#define CAPTURE_MAX_DEVS 16    /* -d given at most this many times */

/*
 * One completed request, as it travels through the ring buffer. The same
 * struct is the value of the in-flight map (keyed by the struct request
 * pointer): it is filled step by step (start, issue) and copied into the
 * ring buffer at completion, when complete_ns and status are set.
 *
 * dev is the kernel's internal dev_t of the whole disk: major << 20 | minor.
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
	__u32 dev;         /* major << 20 | minor of the disk */
	__u32 cmd_flags;   /* REQ_OP_* | REQ_* as the kernel had it at issue */
	__u8 comm[CAPTURE_COMM_LEN]; /* submitting task's comm, NUL padded */
	__u8 status;       /* blk_status_t of the completion */
	__u8 pad[7];
};
_Static_assert(sizeof(struct capture_event) == 80, "capture_event layout");

/*
 * One entry of the in-flight table (the BPF array map `inflight`, which
 * the user side maps into memory at the end of a capture to see which
 * requests never finished): the request owning it and what its record
 * needs that the request no longer holds at completion. One cache line:
 * a request often completes on another CPU than the one that created it,
 * and every line of the entry then moves between CPUs twice per I/O. The
 * disk and cmd_flags of the record are read from the request at
 * completion instead (they do not change while it is in flight).
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
};
_Static_assert(sizeof(struct capture_inflight) == 64, "capture_inflight layout");

/*
 * Counters kept by the BPF side in its .bss; the user side reads them
 * through the skeleton's memory map (no system call).
 *   lost:      requests that completed but found no room in the ring buffer
 *   map_full:  requests not tracked because the in-flight map was full
 *              (they are lost too: the user side adds both)
 *   own:       requests submitted by the capture process itself (its
 *              own trace writes when the output is on a traced disk),
 *              left out on purpose
 *   missed:    issued requests whose completion never reached the BPF
 *              side (the kernel skipped the program run), found when the
 *              struct request is used again (lost too)
 */
struct capture_counters {
	__u64 lost;
	__u64 map_full;
	__u64 own;
	__u64 missed;
};
_Static_assert(sizeof(struct capture_counters) == 32, "capture_counters layout");

#endif
