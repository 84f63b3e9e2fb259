#!/bin/bash
# bench-capture.sh — what tracing costs the traced workload (issue 3):
#   fio 4 KiB random reads at QD32 and QD1 on a RAM-backed loop device,
#   with no tracer, blkpeak capture, the kernel's ftrace blk tracer
#   (blktrace binary format, read live from trace_pipe as blktrace would)
#   and a biosnoop-like bpftrace script taking turns: interleaved rounds,
#   the order rotated each round; per round, each tracer's IOPS divided by
#   that round's untraced IOPS; the medians of those ratios.
# Also: events per second blkpeak sustained with zero loss (default
# buffer) at the highest rate of these runs, and bytes per I/O of its
# trace against the blk tracer's.
# biosnoop is not run: bcc's biosnoop-bpfcc cannot compile here (no kernel
# headers) and libbpf-tools' biosnoop needs a kprobe this kernel lacks
# (../shared/PEERS.md); the script says so and goes on.
# Needs root. Takes the kernel-state lock only while the blk tracer runs.
# Usage: bench/bench-capture.sh [ROUNDS] [SECONDS]   (default 5 rounds of 4 s;
#        0 rounds: only the highest-rate run and its costs)
# the build of this checkout unless BLKPEAK says otherwise (lib.sh's own
# default is for scripts in tests/e2e)
BLKPEAK=${BLKPEAK:-$(cd "$(dirname "$0")/.." && pwd)/build/blkpeak}
. "$(dirname "$0")/../tests/e2e/lib.sh"
need_root
need_cmd fio python3
ROUNDS=${1:-5}
SECS=${2:-4}
W=$E2E_TMP
TRACERS="none blkpeak blk bpftrace"
command -v bpftrace >/dev/null || { TRACERS="none blkpeak blk"; note "bpftrace missing: not run"; }
command -v biosnoop-bpfcc >/dev/null && note "biosnoop-bpfcc is installed but cannot compile on this kernel (no headers): not run" ||
	note "biosnoop: not run (bcc's needs kernel headers, libbpf-tools' needs kprobes: ../shared/PEERS.md)"

dev=$(make_loop 1g bench)
devnum=$(stat -L -c '%t %T' "$dev" | { read -r ma mi; echo $(( (16#$ma << 20) | 16#$mi )); })
# fill the file so reads hit RAM pages, not holes
dd if=/dev/zero of="$dev" bs=1M count=1024 oflag=direct status=none

fio_run() { # QD OUT.json: 4 KiB random reads for SECS seconds
	fio --name=bench --filename="$dev" --rw=randread --bs=4k --direct=1 \
		--ioengine=libaio --iodepth="$1" --size=1g --time_based --runtime="$SECS" \
		--randrepeat=0 --output-format=json --output="$2"
}
iops_of() { python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["jobs"][0]["read"]["iops"]))' "$1"; }
ios_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"][0]["read"]["total_ios"])' "$1"; }

cat > "$W/biosnoop.bt" <<BT
tracepoint:block:block_rq_issue /args->dev == $devnum/ { @start[args->dev, args->sector] = nsecs; }
tracepoint:block:block_rq_complete /@start[args->dev, args->sector]/ {
	printf("%llu %d %s %llu %u %llu\n", nsecs / 1000, pid, comm, args->sector,
	       args->nr_sector * 512, (nsecs - @start[args->dev, args->sector]) / 1000);
	delete(@start[args->dev, args->sector]);
}
END { clear(@start); }
BT

# run_with TRACER QD TAG: one fio run under TRACER; leaves $W/TAG.json
run_with() {
	tracer=$1 qd=$2 tag=$3
	case $tracer in
	none)
		fio_run "$qd" "$W/$tag.json" ;;
	blkpeak)
		"$BLKPEAK" capture -o "$W/$tag.bpt" -d "$dev" --json -- \
			fio --name=bench --filename="$dev" --rw=randread --bs=4k --direct=1 \
			--ioengine=libaio --iodepth="$qd" --size=1g --time_based --runtime="$SECS" \
			--randrepeat=0 --output-format=json --output="$W/$tag.json" \
			> "$W/$tag.sum" 2>"$W/$tag.err" || note "blkpeak: $(cat "$W/$tag.err")" ;;
	blk)
		blktrace_start "$dev" "$W/$tag.bin"
		cat /sys/kernel/tracing/trace_pipe > "$W/$tag.bin" &
		cat_pid=$!
		fio_run "$qd" "$W/$tag.json"
		echo 0 > "/sys/block/$(basename "$dev")/trace/enable"
		sleep 0.5
		kill $cat_pid; wait $cat_pid 2>/dev/null
		grep -h 'overrun' /sys/kernel/tracing/per_cpu/cpu*/stats | grep -q ': [1-9]' &&
			echo overrun > "$W/$tag.overrun"
		_blktrace_reset
		flock -u 9 ;;
	bpftrace)
		bpftrace -o "$W/$tag.txt" "$W/biosnoop.bt" >/dev/null 2>"$W/$tag.err" &
		bt_pid=$!
		for _ in $(seq 100); do grep -q Attaching "$W/$tag.txt" 2>/dev/null && break; sleep 0.1; done
		fio_run "$qd" "$W/$tag.json"
		kill -INT $bt_pid; wait $bt_pid 2>/dev/null ;;
	esac
}

printf '%-5s %-3s' round qd > "$W/table"
for t in $TRACERS; do printf ' %10s' "$t" >> "$W/table"; done
echo >> "$W/table"
: > "$W/ratios"
for r in $(seq "$ROUNDS"); do
	for qd in 32 1; do
		# rotate the order each round so no tracer always runs first
		tr=($TRACERS)
		order=""
		for ((k = 0; k < ${#tr[@]}; k++)); do order="$order ${tr[(k + r - 1) % ${#tr[@]}]}"; done
		for t in $order; do run_with "$t" "$qd" "r$r-q$qd-$t"; done
		base=$(iops_of "$W/r$r-q$qd-none.json")
		printf '%-5s %-3s' "$r" "$qd" >> "$W/table"
		for t in $TRACERS; do
			i=$(iops_of "$W/r$r-q$qd-$t.json")
			printf ' %10s' "$i" >> "$W/table"
			echo "$qd $t $i $base" >> "$W/ratios"
		done
		echo >> "$W/table"
	done
done
# The highest rate: two fio jobs at QD32 each, recorded by blkpeak with
# its default buffer. Its direct costs are measured too, which the noise
# of a shared machine does not blur: the BPF programs' run time (kernel
# bpf_stats, global state: under the kernel-state lock) and the capture
# process's CPU time.
with_kernel_lock
echo 1 > /proc/sys/kernel/bpf_stats_enabled
"$BLKPEAK" capture -o "$W/max.bpt" -d "$dev" --json > "$W/max.sum" 2>"$W/max.err" &
cap=$!
sleep 1
fio --name=max --filename="$dev" --rw=randread --bs=4k --direct=1 \
	--ioengine=libaio --iodepth=32 --numjobs=2 --group_reporting --size=1g \
	--time_based --runtime="$SECS" --randrepeat=0 --output-format=json \
	--output="$W/max.json"
ticks=$(awk '{ print $14 + $15 }' "/proc/$cap/stat")
sed -n 's/^prog_id:\t*//p' /proc/$cap/fdinfo/* 2>/dev/null | sort -u > "$W/max.progs"
bpftool prog show -j > "$W/max.bpfstats"
kill -INT $cap
wait $cap || note "max rate: $(cat "$W/max.err")"
echo 0 > /proc/sys/kernel/bpf_stats_enabled
flock -u 9
echo "$ticks $(getconf CLK_TCK)" > "$W/max.cpu"

echo "IOPS per round ($SECS s runs, $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)):"
cat "$W/table"

python3 - "$W" "$TRACERS" <<'PY'
import json, os, statistics, sys
w, tracers = sys.argv[1], sys.argv[2].split()
rows = [l.split() for l in open(os.path.join(w, "ratios"))]
print("\nmedian of per-round IOPS ratios (traced / untraced):")
print("%-4s %s" % ("qd", " ".join("%10s" % t for t in tracers)))
for qd in ("32", "1"):
    cells = []
    for t in tracers:
        r = [int(i) / int(b) for q, tt, i, b in rows if q == qd and tt == t and int(b) > 0]
        cells.append("%10.3f" % statistics.median(r) if r else "%10s" % "-")
    print("%-4s %s" % (qd, " ".join(cells)))
# blkpeak: events per second and loss, bytes per I/O; blk tracer bytes per I/O
best, lost_any, ring_lost, bp_bytes, bp_ios, bt_bytes, bt_ios, overruns = 0, 0, 0, 0, 0, 0, 0, 0
causes = {}
for f in sorted(os.listdir(w)):
    tag, ext = os.path.splitext(f)
    if ext == ".sum" and os.path.getsize(os.path.join(w, f)):
        s = json.load(open(os.path.join(w, f)))
        lost_any += s["lost_events"]
        ring_lost += s["lost_by_cause"]["ring_buffer_full"]
        for k, v in s["lost_by_cause"].items():
            causes[k] = causes.get(k, 0) + v
        bp_bytes += s["file_bytes"]; bp_ios += s["ios"]
        rate = json.load(open(os.path.join(w, tag + ".json")))["jobs"][0]["read"]["iops"]
        if s["lost_by_cause"]["ring_buffer_full"] == 0:
            best = max(best, rate)
    if ext == ".bin":
        bt_bytes += os.path.getsize(os.path.join(w, f))
        bt_ios += json.load(open(os.path.join(w, tag + ".json")))["jobs"][0]["read"]["total_ios"]
        overruns += os.path.exists(os.path.join(w, tag + ".overrun"))
print("\nblkpeak, default buffer: highest rate with no ring-buffer loss %.0f events/s;" % best)
print("  lost over all runs: %d of %d (%s)" % (lost_any, bp_ios + lost_any,
      ", ".join("%s %d" % kv for kv in sorted(causes.items()) if kv[1]) or "none"))
# direct costs at the highest rate
ids = set(int(l) for l in open(os.path.join(w, "max.progs")) if l.strip())
progs = [p for p in json.load(open(os.path.join(w, "max.bpfstats"))) if p["id"] in ids]
mx = json.load(open(os.path.join(w, "max.sum")))
ticks, hz = map(int, open(os.path.join(w, "max.cpu")).read().split())
rate = json.load(open(os.path.join(w, "max.json")))["jobs"][0]["read"]["iops"]
if mx["ios"] and progs:
    per = {p["name"]: p.get("run_time_ns", 0) / max(p.get("run_cnt", 0), 1) for p in progs if p.get("run_cnt")}
    # each I/O runs each program once; the programs also run for other
    # disks' I/O, so per-run averages are summed, not totals divided
    bpf_ns = sum(v for k, v in per.items() if "merge" not in k)
    user_ns = ticks / hz * 1e9 / mx["ios"]
    share = (bpf_ns + user_ns) * rate / (os.cpu_count() * 1e9)
    print("highest rate: %.0f IOPS (2 jobs x QD32), %d I/Os recorded, %d lost (%s)" % (rate, mx["ios"], mx["lost_events"],
          ", ".join("%s %d" % kv for kv in sorted(mx["lost_by_cause"].items()) if kv[1]) or "none"))
    print("  BPF run time per I/O %.0f ns (%s), capture process %.0f ns per I/O"
          % (bpf_ns, ", ".join("%s %.0f" % (k, v) for k, v in sorted(per.items())), user_ns))
    print("  = %.1f%% of the machine's %d CPUs at that rate" % (share * 100, os.cpu_count()))
if bp_ios and bt_ios:
    a, b = bp_bytes / bp_ios, bt_bytes / bt_ios
    print("bytes per I/O: blkpeak %.2f, blk tracer (blktrace format) %.1f: 1/%.0f%s"
          % (a, b, b / a, " (blk tracer overran in %d runs)" % overruns if overruns else ""))
PY
