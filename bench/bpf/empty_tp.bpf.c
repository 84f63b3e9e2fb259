// SPDX-License-Identifier: GPL-2.0
/*
 * empty_tp.bpf.c — the floor of capture's cost: tp_btf programs that do
 * nothing, on the three tracepoints blkpeak's capture runs on for every
 * I/O (bpf/capture.bpf.c: block_io_start, block_rq_issue,
 * block_rq_complete). bench/bench-capture.sh runs a workload with these
 * attached (bench/tp_attach.c) beside capture itself: what is left of the
 * workload's speed, and the run time kernel.bpf_stats_enabled reports for
 * a program that does nothing, are what no tracer on these tracepoints
 * can go below.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

SEC("tp_btf/block_io_start")
int BPF_PROG(empty_io_start, struct request *rq)
{
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(empty_rq_issue, struct request *rq)
{
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(empty_rq_complete, struct request *rq, blk_status_t error,
	     unsigned int nr_bytes)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
