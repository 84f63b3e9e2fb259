/*
 * core_fixes.bpf.h — the one place where capture.bpf.c copes with kernel
 * drift. Each shim reads a field that moved between kernel versions in a
 * CO-RE way (the relocation is resolved against the running kernel's BTF
 * at load time; no #if on kernel versions) and cites the change it works
 * around.
 *
 * Two flavours of every accessor: *_btf for tp_btf programs, where the
 * request pointer is a BTF pointer the verifier lets us dereference
 * directly (one load per field), and *_raw for raw_tp programs, where it
 * is a plain number and every read goes through bpf_probe_read_kernel.
 */
#ifndef BLKPEAK_CORE_FIXES_BPF_H
#define BLKPEAK_CORE_FIXES_BPF_H

#include <bpf/bpf_core_read.h>

#include "capture_events.h"

/*
 * Linux 5.17 removed request->rq_disk (commit f3fa33acca9f, "block: remove
 * the ->rq_disk field in struct request"); the disk is reached through
 * request->q->disk since commit d152c682f03c ("block: add an explicit
 * ->disk backpointer to the request_queue", 5.15).
 */
struct request_queue___x {
	struct gendisk *disk;
} __attribute__((preserve_access_index));

struct request___x {
	struct request_queue___x *q;
	struct gendisk *rq_disk;
} __attribute__((preserve_access_index));

static __always_inline __u32 rq_dev_btf(struct request *rq)
{
	struct request___x *r = (void *)rq;
	struct gendisk *disk;

	if (bpf_core_field_exists(r->rq_disk))
		disk = r->rq_disk;
	else
		disk = r->q->disk;
	if (!disk)
		return 0;
	return capture_kdev(disk->major, disk->first_minor);
}

static __always_inline __u32 rq_dev_raw(struct request *rq)
{
	struct request___x *r = (void *)rq;
	struct gendisk *disk;

	if (bpf_core_field_exists(r->rq_disk))
		disk = BPF_CORE_READ(r, rq_disk);
	else
		disk = BPF_CORE_READ(r, q, disk);
	if (!disk)
		return 0;
	return capture_kdev(BPF_CORE_READ(disk, major),
			    BPF_CORE_READ(disk, first_minor));
}

/*
 * REQ_PREFLUSH's bit. The flag bits are renumbered whenever a flag is
 * added or removed before it (and all moved when the op field grew to 8
 * bits, commit ef295ecf090d "block: better op and flags encoding", 4.10);
 * enum req_flag_bits in BTF has the running kernel's value, so we ask it
 * rather than hard-code 18.
 */
static __always_inline __u32 req_preflush_mask(void)
{
	return 1u << bpf_core_enum_value(enum req_flag_bits, __REQ_PREFLUSH);
}

/* REQ_FUA's bit, for the same reason. */
static __always_inline __u32 req_fua_mask(void)
{
	return 1u << bpf_core_enum_value(enum req_flag_bits, __REQ_FUA);
}

/*
 * The cgroup v2 id of a task, as bpf_get_current_cgroup_id() gives it:
 * the kernfs node id of its default-hierarchy cgroup. kernfs_node.id is a
 * u64 since 5.5 (commit "kernfs: convert kernfs_node->id
 * from union kernfs_node_id to u64"); tp_btf programs, the only users,
 * need 5.11 or later anyway.
 */
static __always_inline __u64 task_cgroup_id_btf(struct task_struct *t)
{
	return t->cgroups->dfl_cgrp->kn->id;
}

#endif
