#!/bin/bash
# bench-capture-files.sh — what the file and cause attribution (trace
# format 1.3, docs/capture.md "Files") costs the BPF side: blkpeak capture
# with and without --no-files, recording fio on a file of an ext4 on a
# RAM-backed loop device, two loads:
#   direct   4 KiB random direct reads and writes (70/30), 2 jobs x QD16:
#            the per-I/O cost (files read from the bios at issue)
#   buffered 4 KiB random buffered writes then fsync: the per-folio cost
#            of writeback_dirty_folio (dirtier and path) and the writeback's
# BPF run time per program run from kernel.bpf_stats_enabled (global
# state: under the kernel-state lock), summed over the per-I/O programs;
# IOPS of each run, and of the same load untraced: ROUNDS rounds, the
# order of untraced / attribution on / --no-files rotated each round; the
# medians over the rounds, IOPS as the ratio to the round's untraced run.
# Usage: bench/bench-capture-files.sh [SECONDS] [ROUNDS] (default 4 s, 5)
BLKPEAK=${BLKPEAK:-$(cd "$(dirname "$0")/.." && pwd)/build/blkpeak}
. "$(dirname "$0")/../tests/e2e/lib.sh"
need_root
need_cmd fio python3 mkfs.ext4 bpftool
SECS=${1:-4}
ROUNDS=${2:-5}
W=$E2E_TMP
dev=$(make_loop 1g benchf)
mkfs.ext4 -q -F "$dev" || fail "mkfs"
mkdir -p "$W/mnt"
mount "$dev" "$W/mnt" || fail "mount"
at_exit "umount '$W/mnt' 2>/dev/null"
fio --name=fill --filename="$W/mnt/f" --rw=write --bs=1m --size=512m --direct=1 \
	--output=/dev/null || fail "fill"

load() { # KIND OUT.json
	case $1 in
	direct) fio --name=d --filename="$W/mnt/f" --rw=randrw --rwmixread=70 --bs=4k --direct=1 \
		--ioengine=libaio --iodepth=16 --numjobs=2 --group_reporting --size=512m \
		--time_based --runtime="$SECS" --randrepeat=0 --output-format=json --output="$2" ;;
	buffered) fio --name=b --filename="$W/mnt/f" --rw=randwrite --bs=4k --size=512m \
		--ioengine=psync --end_fsync=1 --time_based --runtime="$SECS" --randrepeat=0 \
		--output-format=json --output="$2" ;;
	esac
}

with_kernel_lock
echo 1 > /proc/sys/kernel/bpf_stats_enabled
MODES=(none files nofiles)
for round in $(seq "$ROUNDS"); do
for kind in direct buffered; do
	for k in 0 1 2; do
		mode=${MODES[$(( (k + round) % 3 ))]}
		tag=$kind-$mode-$round
		if [ $mode = none ]; then
			load $kind "$W/$tag.json" || fail "fio $tag"
			continue
		fi
		opt=; [ $mode = nofiles ] && opt=--no-files
		# shellcheck disable=SC2086
		"$BLKPEAK" capture -o "$W/$tag.bpt" -d "$dev" --json $opt > "$W/$tag.sum" 2>"$W/$tag.err" &
		cap=$!
		for i in $(seq 200); do [ -s "$W/$tag.bpt" ] && break; sleep 0.05; done
		load $kind "$W/$tag.json" || fail "fio $tag"
		sync
		sed -n 's/^prog_id:\t*//p' /proc/$cap/fdinfo/* 2>/dev/null | sort -u > "$W/$tag.progs"
		bpftool prog show -j > "$W/$tag.bpfstats"
		kill -INT $cap
		wait $cap || note "$tag: $(cat "$W/$tag.err")"
		rm -f "$W/$tag.bpt"
	done
done
done
echo 0 > /proc/sys/kernel/bpf_stats_enabled
flock -u 9

echo "($(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $ROUNDS rounds of $SECS s)"
python3 - "$W" "$ROUNDS" <<'PY'
import json, os, statistics, sys
w, rounds = sys.argv[1], int(sys.argv[2])
def iops(tag):
    j = json.load(open(os.path.join(w, tag + ".json")))["jobs"][0]
    return j["read"]["iops"] + j["write"]["iops"]
def bpf(tag):
    """BPF ns per I/O (start+issue+complete averages) and per program"""
    ids = set(int(l) for l in open(os.path.join(w, tag + ".progs")) if l.strip())
    progs = [p for p in json.load(open(os.path.join(w, tag + ".bpfstats"))) if p["id"] in ids]
    per = {p["name"]: p.get("run_time_ns", 0) / max(p.get("run_cnt", 0), 1)
           for p in progs if p.get("run_cnt")}
    io = sum(v for k, v in per.items() if k in ("io_start_btf", "rq_issue_btf", "rq_complete_btf"))
    return io, per
med = statistics.median
for kind in ("direct", "buffered"):
    base = [iops("%s-none-%d" % (kind, r)) for r in range(1, rounds + 1)]
    print("%-8s untraced %8.0f IOPS (median; range %.0f-%.0f)" % (kind, med(base), min(base), max(base)))
    for mode in ("files", "nofiles"):
        tags = ["%s-%s-%d" % (kind, mode, r) for r in range(1, rounds + 1)]
        ratio = [iops(t) / b for t, b in zip(tags, base)]
        ns = [bpf(t)[0] for t in tags]
        progs = {}
        for t in tags:
            for k, v in bpf(t)[1].items():
                progs.setdefault(k, []).append(v)
        rec = [json.load(open(os.path.join(w, t + ".sum")))["ios"] for t in tags]
        print("%-8s %-8s IOPS kept %.3f (range %.3f-%.3f); BPF ns per I/O %4.0f (range %.0f-%.0f); "
              "%d I/Os recorded (median); %s"
              % (kind, mode, med(ratio), min(ratio), max(ratio), med(ns), min(ns), max(ns), med(rec),
                 ", ".join("%s %.0f" % (k, med(v)) for k, v in sorted(progs.items()))))
PY
