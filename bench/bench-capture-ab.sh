#!/bin/bash
# bench-capture-ab.sh — two builds of blkpeak at bench-capture.sh's highest
# rate (2 fio jobs x QD32 of 4 KiB random reads on a RAM-backed loop
# device, 4 s), alternating which goes first each round, each with
# attribution and with --no-files: medians (ranges) of the BPF run time
# per I/O (kernel.bpf_stats_enabled), the capture process's CPU per event
# while fio runs (schedstat), IOPS and losses. For a before/after on a
# machine too loaded for single runs to say anything.
# Needs root, fio, bpftool. Takes the kernel-state lock (bpf_stats).
# Usage: bench/bench-capture-ab.sh BASE_BLKPEAK NEW_BLKPEAK [ROUNDS]
BASE=${1:?usage: bench-capture-ab.sh BASE_BLKPEAK NEW_BLKPEAK [ROUNDS]}
NEW=${2:?usage: bench-capture-ab.sh BASE_BLKPEAK NEW_BLKPEAK [ROUNDS]}
R=${3:-5}; SECS=4
W=$(mktemp -d /tmp/blkpeak-ab.XXXXXX)
echo "start $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)" > $W/log
img=$(mktemp /dev/shm/blkpeak-ab.XXXXXX)
truncate -s 1G "$img"
d=$(losetup -f --show --direct-io=on "$img") || exit 1
trap 'losetup -d $d; rm -f "$img"; rm -rf "$W"' EXIT
dd if=/dev/zero of=$d bs=1M count=1024 oflag=direct status=none
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
exec 9>/tmp/blkpeak-kernel-state.lock; flock 9
echo 1 > /proc/sys/kernel/bpf_stats_enabled
for r in $(seq $R); do
 for b in base new; do [ $((r % 2)) = 0 ] && b=$([ $b = base ] && echo new || echo base)
  for mode in files nofiles; do
	bin=$BASE; [ $b = new ] && bin=$NEW
	opt=; [ $mode = nofiles ] && opt=--no-files
	t=$W/$r-$b-$mode
	$bin capture -o $t.bpt -d $d --json $opt > $t.sum 2>$t.err &
	cap=$!
	for _ in $(seq 200); do [ -s "$t.bpt" ] && break; sleep 0.05; done
	sleep 0.2
	c0=$(cpu_ns $cap)
	fio --name=max --filename=$d --rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=32 --numjobs=2 --group_reporting --size=1g --time_based --runtime=$SECS --randrepeat=0 --output-format=json --output=$t.json
	c1=$(cpu_ns $cap)
	sed -n 's/^prog_id:\t*//p' /proc/$cap/fdinfo/* 2>/dev/null | sort -u > $t.progs
	bpftool prog show -j > $t.bpfstats
	kill -INT $cap; wait $cap
	echo $((c1 - c0)) > $t.cpu
	rm -f $t.bpt
  done
 done
done
echo 0 > /proc/sys/kernel/bpf_stats_enabled
echo "end $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)" >> $W/log
python3 - $W $R <<'PY'
import json, os, statistics as st, sys
w, R = sys.argv[1], int(sys.argv[2])
PER = ("io_start", "rq_issue", "rq_complete")
for mode in ("files", "nofiles"):
    for b in ("base", "new"):
        rows = []
        for r in range(1, R + 1):
            t = os.path.join(w, "%d-%s-%s" % (r, b, mode))
            ids = set(int(l) for l in open(t + ".progs") if l.strip())
            ps = {p["name"]: p["run_time_ns"] / p["run_cnt"] for p in json.load(open(t + ".bpfstats")) if p["id"] in ids and p.get("run_cnt")}
            s = json.load(open(t + ".sum"))
            iops = json.load(open(t + ".json"))["jobs"][0]["read"]["iops"]
            rows.append(dict(ps, iops=iops, user=int(open(t + ".cpu").read()) / max(s["ios"], 1), lost=s["lost_events"],
                             bpf=sum(v for k, v in ps.items() if k.startswith(PER))))
        keys = ["iops", "bpf"] + sorted(k for k in rows[0] if k.startswith(PER)) + ["user", "lost"]
        print("%-7s %-4s " % (mode, b) + "  ".join("%s %.0f (%.0f-%.0f)" % (k, st.median(x[k] for x in rows if k in x),
              min(x[k] for x in rows if k in x), max(x[k] for x in rows if k in x)) for k in keys if all(k in x for x in rows)))
PY
