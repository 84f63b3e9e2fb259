// SPDX-License-Identifier: GPL-2.0
/*
 * capture.bpf.c — the kernel side of `blkpeak capture`.
 *
 * Follows every block request from its creation to its completion on the
 * block tracepoints only (kprobes on block-layer functions break when the
 * functions get inlined, and a kernel built without CONFIG_KPROBES has
 * none):
 *
 *   block_io_start (6.5+)   created, in the submitter's context: who, when
 *   block_rq_insert         inserted: the "created" time before 6.5
 *   block_rq_issue          issued to the driver: sector, length, flags
 *   block_rq_complete       completed: one ring buffer record, or a loss
 *   block_rq_merge          merged into another request: forget it
 *   block_rq_requeue        sent back to be issued again: not issued now
 *
 * In-flight requests are keyed by the struct request pointer: unlike
 * (dev, sector), it stays the same when bios are merged into the request
 * and when it is requeued. One record per completed request leaves the
 * kernel; everything in it is gathered here.
 *
 * Every tracepoint has a tp_btf program (the request pointer is a BTF
 * pointer, fields are plain loads) and a raw_tp fallback (every read is a
 * probe read; the position of the request among the tracepoint's
 * arguments is set by the loader: Linux 5.11 dropped the request_queue
 * argument before it, commit a54895fa057c "block: remove the
 * request_queue to argument request based tracepoints"). The loader
 * (capture/bpf_loader.c) turns off autoload for what the running kernel
 * lacks, so one object runs on old and new kernels.
 *
 * Overhead is what matters most here: no string work, no per-event wake
 * up (user space polls with a timeout and is only woken early when much
 * data is pending), an in-flight table without locks (see `inflight`).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "capture_events.h"
#include "core_fixes.bpf.h"

/* ------------------------------------------------ set by the loader */

/* Devices to trace (kernel dev_t of whole disks); 0 of them: all. */
const volatile __u32 filter_ndevs = 0;
const volatile __u32 filter_devs[CAPTURE_MAX_DEVS] = {};
/* Submitting process (tgid); 0: any. */
const volatile __u32 filter_tgid = 0;
/* Submitting task's comm, exact; filter_comm_on 0: any. */
const volatile __u8 filter_comm_on = 0;
const volatile __u8 filter_comm[CAPTURE_COMM_LEN] = {};
/* 1: only tasks in the cgroup in cgroup_filter[0] or below it. */
const volatile __u8 filter_cgroup_on = 0;
/* 1: -p/-c/--cgroup keep the I/O a kept task caused (writeback of what
 * it dirtied, the journal commit of its fsync) as well as what it
 * submitted; 0 (--submitted-only): what it submitted only. */
const volatile __u8 filter_cause = 1;
/* The capture's own tgid: its requests are left out and counted. */
const volatile __u32 own_tgid = 0;
/* Wake the reader early once this much data waits in the ring buffer. */
const volatile __u64 wakeup_bytes = 1 << 20;
/* The pending data is looked at on about 1 in (wakeup_check_mask + 1)
 * completions (a power of two minus 1, set by the loader so that the
 * completions between two looks fill a small part of wakeup_bytes). */
const volatile __u32 wakeup_check_mask = 0;
/* 1: nothing runs at request creation (no block_io_start nor insert
 * attached), so requests are first seen, and tracked, at issue. */
const volatile __u8 track_at_issue = 0;
/* raw_tp only: index of the struct request * among the arguments. */
const volatile __u8 raw_idx_start = 0;
const volatile __u8 raw_idx_insert = 0;
const volatile __u8 raw_idx_issue = 0;
const volatile __u8 raw_idx_complete = 0;
const volatile __u8 raw_idx_merge = 0;
const volatile __u8 raw_idx_requeue = 0;

#define PF_KTHREAD_ 0x00200000 /* include/linux/sched.h */

/* ------------------------------------------------ state */

struct capture_counters counters = {};

/*
 * In-flight requests: an open-addressing table in an array map, indexed by
 * a hash of the struct request pointer and claimed with a compare-and-swap
 * on `rq`. Array lookups are inlined by the verifier and take no lock, so
 * this costs a fraction of a hash map's update and delete per request;
 * struct requests live in arrays of 64-byte aligned slots, so the pointers
 * of one queue's requests map to consecutive entries. A request whose
 * INFLIGHT_PROBES entries are all taken is counted in counters.map_full.
 */
#define INFLIGHT_PROBES 4

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 32768); /* a power of two; resized by the loader */
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct capture_inflight);
} inflight SEC(".maps");

/* max_entries of inflight - 1, set by the loader */
const volatile __u32 inflight_mask = 32767;

/*
 * Who asked for the last flush on a queue. A flush is served by the flush
 * machinery's own request (block/blk-flush.c: blk_kick_flush() issues
 * fq->flush_rq through blk_flush_queue_rq(), that is the requeue list,
 * which a kblockd worker runs), so it is issued from a kworker; the task
 * that asked is taken from here, keyed by the request_queue pointer, so
 * the record names the process that flushed and the filters keep it.
 * Two kinds of request ask for one:
 *   - REQ_PREFLUSH (fsync's empty flush, a journal commit): the flush
 *     comes before the data (REQ_FSEQ_PREFLUSH);
 *   - REQ_FUA (an O_DSYNC direct write) on a disk with a write-back cache
 *     but without FUA (loop devices, many disks): blk_flush_policy() gives
 *     REQ_FSEQ_DATA | REQ_FSEQ_POSTFLUSH, blk_insert_flush() sends the
 *     data on as usual, and when it completes mq_flush_data_end_io() ->
 *     blk_flush_complete_seq() queues the post-flush that flush_rq then
 *     serves. On a disk with FUA no flush follows, and the entry waits
 *     for the next asker, who replaces it.
 */
struct flush_owner {
	__u64 queue_ns;
	__u64 cgroup_id;
	__u32 pid;
	__u32 kthread;
	__u8 comm[CAPTURE_COMM_LEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64); /* struct request_queue * */
	__type(value, struct flush_owner);
} flush_owners SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20); /* resized by the loader */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cgroup_filter SEC(".maps");

#include "files.bpf.h"

/* ------------------------------------------------ reading a request */

/* A field of the request: a plain load in tp_btf programs, a probe read
 * in raw_tp ones. `btf` is a constant at every call, so one branch is
 * compiled away. */
#define RQ_FIELD(btf, rq, f) ((btf) ? (rq)->f : BPF_CORE_READ((rq), f))

static __always_inline __u32 rq_dev(struct request *rq, const int btf)
{
	return btf ? rq_dev_btf(rq) : rq_dev_raw(rq);
}

static __always_inline __u64 rq_queue(struct request *rq, const int btf)
{
	return (__u64)(unsigned long)RQ_FIELD(btf, rq, q);
}

/* The request pointer of a raw tracepoint: args[idx], idx in 0..2 (the
 * verifier wants a constant offset into the context). */
static __always_inline struct request *raw_rq(struct bpf_raw_tracepoint_args *ctx,
					      __u8 idx)
{
	if (idx == 1)
		return (void *)ctx->args[1];
	if (idx == 2)
		return (void *)ctx->args[2];
	return (void *)ctx->args[0];
}

/* ------------------------------------------------ filters */

static __always_inline int dev_passes(__u32 dev)
{
	if (!filter_ndevs)
		return 1;
	for (int i = 0; i < CAPTURE_MAX_DEVS; i++) {
		if (i >= filter_ndevs)
			break;
		if (filter_devs[i] == dev)
			return 1;
	}
	return 0;
}

static __always_inline int comm_passes(const __u8 *comm)
{
	if (!filter_comm_on)
		return 1;
	for (int i = 0; i < CAPTURE_COMM_LEN; i++) {
		if (comm[i] != filter_comm[i])
			return 0;
		if (!comm[i])
			break;
	}
	return 1;
}

/*
 * Copy a task's comm (CAPTURE_COMM_LEN == 16 bytes) into `dst`, which is
 * 8-byte aligned, as two 8-byte loads: the verifier allows loads that
 * stay inside the array member, and the byte-wise copy the compiler
 * makes of a char array took ~60 instructions (spilled to the stack).
 */
static __always_inline void comm_copy_btf(__u8 *dst, const char *src)
{
	_Static_assert(CAPTURE_COMM_LEN == 16, "comm_copy_btf copies 16 bytes");
	((__u64 *)dst)[0] = ((const __u64 *)src)[0];
	((__u64 *)dst)[1] = ((const __u64 *)src)[1];
}

/*
 * Fill pid, comm and cgroup of `ev` from the current task. Returns 1 when
 * the task passes the filters, 0 when it does not (or is the capture).
 * In tp_btf programs (btf = 1) the task is read with plain loads through
 * bpf_get_current_task_btf(), which costs a fraction of the helpers
 * (a figure: bench/RESULTS.md, "Figures moved from code comments").
 */
static __always_inline int take_task(struct capture_event *ev, const int btf)
{
	struct task_struct *t = btf ? bpf_get_current_task_btf() : NULL;
	int pass = 1;

	ev->pid = btf ? t->tgid : bpf_get_current_pid_tgid() >> 32;
	if (own_tgid && ev->pid == own_tgid) {
		__sync_fetch_and_add(&counters.own, 1);
		return -1;
	}
	if (filter_tgid && ev->pid != filter_tgid)
		pass = 0;
	if (btf)
		comm_copy_btf(ev->comm, t->comm);
	else
		bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	if (pass && !comm_passes(ev->comm))
		pass = 0;
	if (pass && filter_cgroup_on &&
	    bpf_current_task_under_cgroup(&cgroup_filter, 0) != 1)
		pass = 0;
	ev->cgroup_id = btf ? task_cgroup_id_btf(t) : bpf_get_current_cgroup_id();
	ev->kthread = !!((btf ? t->flags : BPF_CORE_READ((struct task_struct *)
						bpf_get_current_task(), flags)) & PF_KTHREAD_);
	return pass;
}

/* Does the current task pass the -p/-c/--cgroup filters? (Recorded with
 * a dirtier or an fsync owner, whose I/O the filters follow.) */
static __always_inline __u32 current_passes(void)
{
	__u8 comm[CAPTURE_COMM_LEN];

	if (filter_tgid && (bpf_get_current_pid_tgid() >> 32) != filter_tgid)
		return 0;
	if (filter_comm_on) {
		bpf_get_current_comm(comm, sizeof(comm));
		if (!comm_passes(comm))
			return 0;
	}
	if (filter_cgroup_on && bpf_current_task_under_cgroup(&cgroup_filter, 0) != 1)
		return 0;
	return 1;
}

/* ------------------------------------------------ the request's life */

/*
 * A request pointer as a number: the in-flight table's key. In tp_btf
 * programs the pointer is a BTF pointer, which the verifier lets no one
 * shift or mask; but a privileged program may subtract two pointers, and
 * the distance from a fixed address (our counters) identifies a request
 * as well as its address does. Raw tracepoint arguments are numbers
 * already. The loader never mixes the two flavours, so keys agree.
 */
static __always_inline __u64 rq_key(struct request *rq, const int btf)
{
	if (btf)
		return (__u64)((char *)rq - (char *)&counters);
	return (__u64)(unsigned long)rq;
}

static __always_inline __u32 slot_hash(__u64 rq)
{
	return (__u32)((rq >> 6) ^ (rq >> 21)) & inflight_mask;
}

/* The entry of request `rq`, or NULL when it is not tracked. */
static __always_inline struct capture_inflight *slot_find(__u64 rq)
{
	__u32 h = slot_hash(rq);

	for (int i = 0; i < INFLIGHT_PROBES; i++) {
		__u32 idx = (h + i) & inflight_mask;
		struct capture_inflight *s = bpf_map_lookup_elem(&inflight, &idx);

		if (s && s->rq == rq)
			return s;
	}
	return NULL;
}

/* Claim a free entry for `rq`, or find the one it has (*had = 1);
 * NULL when full. */
static __always_inline struct capture_inflight *slot_claim(__u64 rq, int *had)
{
	__u32 h = slot_hash(rq);

	/* one pass, usually ending at the first entry: a request that is
	 * tracked already sits at or before the first free entry. The
	 * compare-and-swap comes first, not after a plain read: the entry
	 * was last written by the CPU that completed its previous request,
	 * and a read then a locked write would fetch its line twice. */
	for (int i = 0; i < INFLIGHT_PROBES; i++) {
		__u32 idx = (h + i) & inflight_mask;
		struct capture_inflight *s = bpf_map_lookup_elem(&inflight, &idx);
		__u64 owner;

		if (!s)
			continue;
		owner = __sync_val_compare_and_swap(&s->rq, 0, rq);
		if (owner == 0)
			return s;
		if (owner == rq) {
			*had = 1;
			return s;
		}
	}
	__sync_fetch_and_add(&counters.map_full, 1);
	return NULL;
}

/* Give the entry back, after everything has been read from it. */
static __always_inline void slot_release(struct capture_inflight *s)
{
	asm volatile("" ::: "memory"); /* the reads above come first */
	s->rq = 0;
}

/* The record of one request: what its in-flight entry holds, completed
 * (or bounded) at `now`. The one place an event is filled from an entry:
 * its first CAPTURE_EVENT_SHORT bytes (fill_head), then, for an event
 * that needs them, the file and cause (fill_tail). */
static __always_inline void fill_head(struct capture_event *out,
				      const struct capture_inflight *s, __u64 now,
				      __u32 dev, __u32 cmd_flags, __u8 status,
				      __u8 completion)
{
	out->queue_ns = s->queue_ns;
	out->issue_ns = s->issue_ns;
	out->complete_ns = now;
	out->sector = s->sector;
	out->cgroup_id = s->cgroup_id;
	out->bytes = s->bytes;
	out->pid = s->pid;
	out->dev = dev;
	out->cmd_flags = cmd_flags;
	__builtin_memcpy(out->comm, s->comm, sizeof(out->comm));
	out->status = status;
	out->completion = completion;
	out->file_kind = s->file_kind;
	out->kthread = s->kthread;
	out->cause_kind = s->cause_kind;
	__builtin_memset(out->pad, 0, sizeof(out->pad));
}

static __always_inline void fill_tail(struct capture_event *out,
				      const struct capture_inflight *s)
{
	out->inode = s->inode;
	out->file_off = s->file_off;
	out->file_dev = s->file_dev;
	out->file_bytes = s->file_bytes;
	out->inode2 = s->inode2;
	out->file2_off = s->file2_off;
	out->file2_dev = s->file2_dev;
	out->file2_bytes = s->file2_bytes;
	__builtin_memset(out->pad2, 0, sizeof(out->pad2));
	out->pad3 = 0;
	/* the entry's third cache line is read only when it was written
	 * for this request (track() leaves it alone) */
	if (s->cause_kind != CAPTURE_CAUSE_NONE) {
		out->cause_cgroup = s->cause_cgroup;
		out->cause_pid = s->cause_pid;
		__builtin_memcpy(out->cause_comm, s->cause_comm, sizeof(out->cause_comm));
	} else {
		out->cause_cgroup = 0;
		out->cause_pid = 0;
		__builtin_memset(out->cause_comm, 0, sizeof(out->cause_comm));
	}
	if (s->file2_bytes && s->cause2_pid) {
		out->cause2_cgroup = s->cause2_cgroup;
		out->cause2_pid = s->cause2_pid;
		__builtin_memcpy(out->cause2_comm, s->cause2_comm, sizeof(out->cause2_comm));
	} else {
		out->cause2_cgroup = 0;
		out->cause2_pid = 0;
		__builtin_memset(out->cause2_comm, 0, sizeof(out->cause2_comm));
	}
}

/*
 * The entry holds an issued use of its struct request whose completion
 * never reached us, and the request is being used again at `now`: the
 * kernel hands a request out again only after it completed (the tag is
 * freed at the end of blk_mq_end_request / __blk_mq_free_request), so the
 * old use completed before `now`. Send its record with that bound
 * (CAPTURE_COMPLETION_REUSED): everything but the completion was seen.
 */
static __always_inline void send_unseen(const struct capture_inflight *s, __u64 now)
{
	struct capture_event *out;

	__sync_fetch_and_add(&counters.missed, 1);
	out = bpf_ringbuf_reserve(&events, sizeof(*out), 0);
	if (!out) {
		__sync_fetch_and_add(&counters.lost, 1);
		return;
	}
	fill_head(out, s, now, s->dev, s->cmd_flags, 0, CAPTURE_COMPLETION_REUSED);
	fill_tail(out, s);
	bpf_ringbuf_submit(out, BPF_RB_NO_WAKEUP);
}

/*
 * Track `rq` with the data in `ev`, at `now`. keep_existing: a request
 * already tracked keeps its entry (block_rq_insert sees requeued requests
 * again).
 */
static __always_inline struct capture_inflight *
track(__u64 rq, const struct capture_event *ev, __u64 now, int keep_existing)
{
	struct capture_inflight *s;
	int had = 0;

	if (keep_existing && slot_find(rq))
		return NULL;
	s = slot_claim(rq, &had);
	if (!s)
		return NULL;
	/* The entry still holds this struct request's previous, issued use,
	 * whose completion never reached us. */
	if (had && s->issue_ns)
		send_unseen(s, now);
	s->dev = ev->dev;
	s->cmd_flags = ev->cmd_flags;
	s->queue_ns = ev->queue_ns;
	s->issue_ns = ev->issue_ns;
	s->sector = ev->sector;
	s->cgroup_id = ev->cgroup_id;
	s->bytes = ev->bytes;
	s->pid = ev->pid;
	__builtin_memcpy(s->comm, ev->comm, sizeof(s->comm));
	s->kthread = ev->kthread;
	s->pending_filter = 0;
	s->cause_passes = s->cause2_passes = 0;
	/* the cause fields (the third cache line) are written only with a
	 * cause_kind, the second file's with file2_bytes, and read only
	 * then (fill_tail): not cleared here, where every request would
	 * pay for the line */
	s->cause_kind = CAPTURE_CAUSE_NONE;
	s->file2_bytes = 0;
	return s;
}

/* Created (block_io_start, 6.5+) or inserted (block_rq_insert, before 6.5). */
static __always_inline int on_start(struct request *rq, const int btf,
				    int keep_existing)
{
	struct capture_event ev = {};
	struct capture_inflight *s;
	__u32 dev = rq_dev(rq, btf);
	__u32 cmd_flags;
	int pass, pending = 0;
	__u64 q;

	if (!dev_passes(dev))
		return 0;
	ev.queue_ns = bpf_ktime_get_ns();
	ev.dev = dev;
	cmd_flags = RQ_FIELD(btf, rq, cmd_flags);
	pass = take_task(&ev, btf);
	/* A write by a task the filters leave out may still be caused by one
	 * they keep (its writeback, its fsync's commit): followed until the
	 * cause is known (issue), unless --submitted-only. */
	if (!pass && filter_cause && files_on && btf &&
	    ((cmd_flags & 0xff) == 1 /* REQ_OP_WRITE */ || ev.kthread))
		pending = 1;
	if (pass <= 0 && !pending) {
		if (cmd_flags & (req_preflush_mask() | req_fua_mask())) {
			/* a flush asked by a task we leave out */
			q = rq_queue(rq, btf);
			bpf_map_delete_elem(&flush_owners, &q);
		}
		/* A request we leave out that still has an entry: its
		 * previous use (ours) never showed its completion. Without
		 * this, its issue would be taken for that use's. */
		if (!keep_existing) {
			s = slot_find(rq_key(rq, btf));
			if (s) {
				if (s->issue_ns)
					send_unseen(s, ev.queue_ns);
				slot_release(s);
			}
		}
		return 0;
	}
	ev.cmd_flags = cmd_flags;
	/* the sector now, to see at issue whether a front merge changed
	 * the request's first bio */
	ev.sector = RQ_FIELD(btf, rq, __sector);
	s = track(rq_key(rq, btf), &ev, ev.queue_ns, keep_existing);
	if (s) {
		take_dio_offset(rq, s, btf);
		/* a kernel thread's write (jbd2) while one task is in fsync
		 * on the disk: that task's commit */
		if (btf && ev.kthread && files_on) {
			struct fsync_state *fs = bpf_map_lookup_elem(&fsyncs, &dev);

			if (fs && fs->count == 1 && fs->t.pid) {
				s->cause_kind = CAPTURE_CAUSE_FSYNC;
				s->cause_pid = fs->t.pid;
				s->cause_cgroup = fs->t.cgroup;
				__builtin_memcpy(s->cause_comm, fs->t.comm, sizeof(s->cause_comm));
				if (fs->t.pad) /* the fsync's task passes */
					pending = 0;
			}
		}
		s->pending_filter = pending;
	}
	if (pending) {
		if (cmd_flags & (req_preflush_mask() | req_fua_mask())) {
			q = rq_queue(rq, btf);
			bpf_map_delete_elem(&flush_owners, &q);
		}
		return 0;
	}
	if (cmd_flags & (req_preflush_mask() | req_fua_mask())) {
		struct flush_owner fo = {
			.queue_ns = ev.queue_ns,
			.cgroup_id = ev.cgroup_id,
			.pid = ev.pid,
			.kthread = ev.kthread,
		};

		__builtin_memcpy(fo.comm, ev.comm, sizeof(fo.comm));
		q = rq_queue(rq, btf);
		bpf_map_update_elem(&flush_owners, &q, &fo, BPF_ANY);
	}
	return 0;
}

/*
 * A request issued without having been seen before: the flush machinery's
 * own request (no data, REQ_PREFLUSH; attributed to the task that asked
 * for the flush), or any request when nothing is attached at creation or
 * when its creation was not seen (`unseen_start`: taken from here, with
 * the issuing task and the issue time as its creation).
 */
static __always_inline void on_issue_untracked(struct request *rq, const int btf,
					       __u64 key, __u64 now, __u64 sector,
					       __u32 bytes, __u32 cmd_flags,
					       int unseen_start)
{
	struct capture_event ev = {};
	int flush_rq = (cmd_flags & req_preflush_mask()) && bytes == 0;
	struct capture_inflight *s;
	struct flush_owner *fo;
	__u64 q;

	if (!flush_rq && !track_at_issue && !unseen_start)
		return; /* in flight before the capture began, or filtered */
	ev.dev = rq_dev(rq, btf);
	if (!dev_passes(ev.dev))
		return;
	fo = NULL;
	if (flush_rq) {
		q = rq_queue(rq, btf);
		fo = bpf_map_lookup_elem(&flush_owners, &q);
	}
	if (fo) {
		ev.queue_ns = fo->queue_ns;
		ev.cgroup_id = fo->cgroup_id;
		ev.pid = fo->pid;
		ev.kthread = fo->kthread;
		__builtin_memcpy(ev.comm, fo->comm, sizeof(ev.comm));
		bpf_map_delete_elem(&flush_owners, &q);
	} else {
		if (take_task(&ev, btf) <= 0)
			return;
		ev.queue_ns = now;
	}
	ev.issue_ns = now;
	ev.sector = sector;
	ev.bytes = bytes;
	ev.cmd_flags = cmd_flags;
	s = track(key, &ev, now, 0);
	if (s)
		take_file(rq, s, 1, btf);
}

/* Issued to the driver (again, after a requeue: the last issue counts). */
static __always_inline int on_issue(struct request *rq, const int btf)
{
	__u64 key = rq_key(rq, btf);
	__u64 now = bpf_ktime_get_ns();
	__u64 sector = RQ_FIELD(btf, rq, __sector);
	__u32 bytes = RQ_FIELD(btf, rq, __data_len);
	__u32 cmd_flags = RQ_FIELD(btf, rq, cmd_flags);
	struct capture_inflight *s;

	/* blk_rq_trace_sector(): requests without a start sector (flushes)
	 * carry (sector_t)-1 */
	if (sector == (__u64)-1)
		sector = 0;
	s = slot_find(key);
	if (!s) {
		on_issue_untracked(rq, btf, key, now, sector, bytes, cmd_flags, 0);
		return 0;
	}
	if (s->issue_ns) {
		/* Issued already, and not requeued since (on_requeue clears
		 * issue_ns): the entry is an earlier use of the struct request
		 * whose completion never reached us, and this use's creation
		 * did not reach us either. Keep both. */
		send_unseen(s, now);
		slot_release(s);
		on_issue_untracked(rq, btf, key, now, sector, bytes, cmd_flags, 1);
		return 0;
	}
	/* the file(s), now that merges are done; a direct I/O's offset from
	 * creation holds while no front merge put another bio first */
	take_file(rq, s, s->sector == sector ? 2 : 1, btf);
	/* a write the filters follow to its cause: kept when the task that
	 * dirtied its data passes them */
	if (s->pending_filter) {
		if (!(s->cause_kind == CAPTURE_CAUSE_DIRTIER && s->cause_passes) &&
		    !(s->file2_bytes && s->cause2_pid && s->cause2_passes)) {
			slot_release(s);
			return 0;
		}
		s->pending_filter = 0;
	}
	s->issue_ns = now;
	s->sector = sector;
	s->bytes = bytes;
	s->cmd_flags = cmd_flags; /* for a completion never seen */
	return 0;
}

/*
 * Completed: `remaining` bytes were left in the request, `nr_bytes` of
 * them completed now (less on a partial completion: wait for the rest).
 */
static __always_inline int on_complete(struct request *rq, const int btf,
				       __u32 remaining, __u32 nr_bytes, __u8 status)
{
	struct capture_event *out;
	struct capture_inflight *s;
	__u64 flags, now;

	if (nr_bytes < remaining)
		return 0;
	s = slot_find(rq_key(rq, btf));
	if (!s)
		return 0;
	/* Never issued: a flush served by the flush machinery's request,
	 * which is recorded on its own, or a flush on a disk without a
	 * volatile cache, which never reached the driver. */
	if (!s->issue_ns)
		goto forget;
	now = bpf_ktime_get_ns();
	if (capture_event_needs_tail(s->file_kind, s->cause_kind)) {
		out = bpf_ringbuf_reserve(&events, sizeof(*out), 0);
		if (!out)
			goto lost;
		fill_head(out, s, now, rq_dev(rq, btf), RQ_FIELD(btf, rq, cmd_flags), status,
			  CAPTURE_COMPLETION_SEEN);
		fill_tail(out, s);
	} else {
		out = bpf_ringbuf_reserve(&events, CAPTURE_EVENT_SHORT, 0);
		if (!out)
			goto lost;
		fill_head(out, s, now, rq_dev(rq, btf), RQ_FIELD(btf, rq, cmd_flags), status,
			  CAPTURE_COMPLETION_SEEN);
	}
	/* The query is a helper call: made on a sample of the completions,
	 * picked by the clock's low bits (no shared counter to bounce
	 * between CPUs). */
	flags = BPF_RB_NO_WAKEUP;
	if (!((now >> 2) & wakeup_check_mask) &&
	    bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes)
		flags = BPF_RB_FORCE_WAKEUP;
	bpf_ringbuf_submit(out, flags);
forget:
	slot_release(s);
	return 0;
lost:
	__sync_fetch_and_add(&counters.lost, 1);
	slot_release(s);
	return 0;
}

/* ------------------------------------------------ tp_btf programs */

SEC("tp_btf/block_io_start")
int BPF_PROG(io_start_btf, struct request *rq)
{
	return on_start(rq, 1, 0);
}

SEC("tp_btf/block_rq_insert")
int BPF_PROG(rq_insert_btf, struct request *rq)
{
	/* a requeued request is inserted again: keep its times */
	return on_start(rq, 1, 1);
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(rq_issue_btf, struct request *rq)
{
	return on_issue(rq, 1);
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(rq_complete_btf, struct request *rq, blk_status_t error,
	     unsigned int nr_bytes)
{
	return on_complete(rq, 1, rq->__data_len, nr_bytes, error);
}

/* `rq` was merged into another request and goes away without completing */
static __always_inline int on_merge(__u64 key)
{
	struct capture_inflight *s = slot_find(key);

	if (s)
		slot_release(s);
	return 0;
}

SEC("tp_btf/block_rq_merge")
int BPF_PROG(rq_merge_btf, struct request *rq)
{
	return on_merge(rq_key(rq, 1));
}

/* `rq` goes back to be issued again (blk_mq_requeue_request()): it is not
 * issued now, and its next issue is the one that counts */
static __always_inline int on_requeue(__u64 key)
{
	struct capture_inflight *s = slot_find(key);

	if (s)
		s->issue_ns = 0;
	return 0;
}

SEC("tp_btf/block_rq_requeue")
int BPF_PROG(rq_requeue_btf, struct request *rq)
{
	return on_requeue(rq_key(rq, 1));
}

/* ------------------------------------------------ raw_tp fallbacks */

SEC("raw_tp/block_io_start")
int io_start_raw(struct bpf_raw_tracepoint_args *ctx)
{
	return on_start(raw_rq(ctx, raw_idx_start), 0, 0);
}

SEC("raw_tp/block_rq_insert")
int rq_insert_raw(struct bpf_raw_tracepoint_args *ctx)
{
	return on_start(raw_rq(ctx, raw_idx_insert), 0, 1);
}

SEC("raw_tp/block_rq_issue")
int rq_issue_raw(struct bpf_raw_tracepoint_args *ctx)
{
	return on_issue(raw_rq(ctx, raw_idx_issue), 0);
}

SEC("raw_tp/block_rq_complete")
int rq_complete_raw(struct bpf_raw_tracepoint_args *ctx)
{
	/* (rq, error, nr_bytes), after a request_queue when raw_idx is 1 */
	struct request *rq = (void *)ctx->args[0];
	__u8 status = ctx->args[1];
	__u32 nr_bytes = ctx->args[2];

	if (raw_idx_complete == 1) {
		rq = (void *)ctx->args[1];
		status = ctx->args[2];
		nr_bytes = ctx->args[3];
	}
	return on_complete(rq, 0, BPF_CORE_READ(rq, __data_len), nr_bytes, status);
}

SEC("raw_tp/block_rq_merge")
int rq_merge_raw(struct bpf_raw_tracepoint_args *ctx)
{
	return on_merge(rq_key(raw_rq(ctx, raw_idx_merge), 0));
}

SEC("raw_tp/block_rq_requeue")
int rq_requeue_raw(struct bpf_raw_tracepoint_args *ctx)
{
	return on_requeue(rq_key(raw_rq(ctx, raw_idx_requeue), 0));
}

/* ------------------------------------------------ paths of written files */

/*
 * The path of every regular file on a file system with a block device
 * whose page cache gets dirty (writeback_dirty_folio: buffered writes and
 * mmap stores, the first time a folio is dirtied), once per inode (the
 * LRU below remembers which were sent; one it evicted is sent again, and
 * the user side keeps the first path). Taken while the file still has its
 * name, so a file deleted before its writeback keeps it. The path is the
 * chain of dentry names up to the file system's root (the user side puts
 * the mount point before it): bpf_d_path() would give it whole, but only
 * from fentry programs, which this machine's kernel refuses to load (see
 * docs/capture.md). Files only read, or written before the capture, are
 * named by the user side at the end (capture/files.c).
 */
struct path_key {
	__u64 inode;
	__u32 dev;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct path_key);
	__type(value, __u8);
} paths_seen SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 2 << 20);
} path_events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct path_key);
} path_last SEC(".maps");

#define PATH_DEPTH 16
#define NAME_MAX_ 255

SEC("tp_btf/writeback_dirty_folio")
int BPF_PROG(dirty_folio, struct folio *folio, struct address_space *mapping)
{
	struct inode *inode;
	struct capture_path_event *ev;
	struct path_key k = {};
	struct dentry *d, *parent;
	struct hlist_node *alias;
	__u32 off = 0;
	__u8 one = 1;

	struct block_device *bdev;
	struct path_key *last;
	__u32 zero = 0;

	if (!files_on || !mapping || !folio)
		return 0;
	/* plain loads: the tracepoint's arguments are BTF pointers */
	inode = mapping->host;
	if (!inode || (inode->i_mode & S_IFMT_) != S_IFREG_)
		return 0;
	bdev = inode->i_sb->s_bdev;
	/* only the file systems of the traced disks (-d) */
	if (!bdev || !bdev->bd_disk || (filter_ndevs &&
	    !dev_passes(capture_kdev(bdev->bd_disk->major, bdev->bd_disk->first_minor))))
		return 0;
	k.inode = inode->i_ino;
	k.dev = inode->i_sb->s_dev;
	if (!own_tgid || (bpf_get_current_pid_tgid() >> 32) != own_tgid) {
		struct dirty_key dk = { .inode = k.inode, .dev = k.dev, .index = folio->index };
		struct task_id id = {};

		task_id_current(&id);
		id.pad = current_passes();
		dirtier_set(&dk, &id);
	}
	/* the file this CPU last saw: its path went out already (a write
	 * dirties its folios one after another), no table lookup */
	last = bpf_map_lookup_elem(&path_last, &zero);
	if (!last)
		return 0;
	if (last->inode == k.inode && last->dev == k.dev)
		return 0;
	last->inode = k.inode;
	last->dev = k.dev;
	if (bpf_map_lookup_elem(&paths_seen, &k))
		return 0;
	bpf_map_update_elem(&paths_seen, &k, &one, BPF_ANY);
	alias = BPF_CORE_READ(inode, i_dentry.first);
	if (!alias)
		return 0;
	d = (void *)alias - bpf_core_field_offset(struct dentry, d_u.d_alias);
	ev = bpf_ringbuf_reserve(&path_events, sizeof(*ev), 0);
	if (!ev) {
		__sync_fetch_and_add(&counters.paths_lost, 1);
		return 0;
	}
	/* names from the file up, each NUL-terminated: "c\0b\0a\0" */
	for (int i = 0; i < PATH_DEPTH; i++) {
		const unsigned char *name;
		long n;

		parent = BPF_CORE_READ(d, d_parent);
		if (!parent || parent == d)
			break;
		if (off > CAPTURE_PATH_MAX - NAME_MAX_ - 1)
			goto too_long;
		name = BPF_CORE_READ(d, d_name.name);
		n = bpf_probe_read_kernel_str(ev->path + off, NAME_MAX_ + 1, name);
		if (n <= 1)
			goto too_long;
		off += n;
		d = parent;
	}
	if (parent != d || off == 0)
		goto too_long; /* deeper than PATH_DEPTH */
	ev->inode = k.inode;
	ev->file_dev = k.dev;
	ev->len = off;
	__sync_fetch_and_add(&counters.paths_sent, 1);
	bpf_ringbuf_submit(ev, BPF_RB_NO_WAKEUP);
	return 0;
too_long:
	bpf_ringbuf_discard(ev, BPF_RB_NO_WAKEUP);
	__sync_fetch_and_add(&counters.paths_lost, 1);
	return 0;
}

/* The whole disk of an inode's file system (fsyncs' key: rq_dev's). */
static __always_inline __u32 inode_disk(struct inode *inode)
{
	struct block_device *bdev = inode->i_sb->s_bdev;

	return bdev ? bdev->bd_disk->part0->bd_dev : 0;
}

/* A disk -d traces (an fsync on another is no commit of ours); `disk` is
 * the kernel's dev_t of the whole disk (part0's bd_dev), as rq_dev(). */
static __always_inline int disk_passes(__u32 disk)
{
	return disk && dev_passes(disk);
}

SEC("tp_btf/ext4_sync_file_enter")
int BPF_PROG(sync_enter, struct file *file, int datasync)
{
	struct inode *inode;
	struct fsync_state *fs, init = {};
	__u32 disk;

	if (!files_on || !file)
		return 0;
	inode = file->f_inode;
	if (!inode)
		return 0;
	disk = inode_disk(inode);
	if (!disk_passes(disk))
		return 0;
	fs = bpf_map_lookup_elem(&fsyncs, &disk);
	if (!fs) {
		bpf_map_update_elem(&fsyncs, &disk, &init, BPF_NOEXIST);
		fs = bpf_map_lookup_elem(&fsyncs, &disk);
		if (!fs)
			return 0;
	}
	if (__sync_fetch_and_add(&fs->count, 1) == 0) {
		task_id_current(&fs->t);
		fs->t.pad = current_passes();
	}
	return 0;
}

SEC("tp_btf/ext4_sync_file_exit")
int BPF_PROG(sync_exit, struct inode *inode, int ret)
{
	struct fsync_state *fs;
	__u32 disk;

	if (!files_on || !inode)
		return 0;
	disk = inode_disk(inode);
	if (!disk_passes(disk))
		return 0;
	fs = bpf_map_lookup_elem(&fsyncs, &disk);
	if (fs && __sync_fetch_and_add(&fs->count, -1) <= 0)
		fs->count = 0; /* entered before the capture */
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
