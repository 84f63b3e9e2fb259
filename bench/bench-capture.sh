#!/bin/bash
# bench-capture.sh — what tracing costs the traced workload (issue 3):
#   fio 4 KiB random reads at QD32 and QD1 on a RAM-backed loop device,
#   with no tracer, blkpeak capture, three BPF programs that do nothing on
#   the tracepoints capture uses (its floor: bench/bpf/empty_tp.bpf.c),
#   the kernel's ftrace blk tracer
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
TRACERS="none blkpeak empty blk bpftrace"
command -v bpftrace >/dev/null || { TRACERS="none blkpeak empty blk"; note "bpftrace missing: not run"; }
ROOT=$(cd "$(dirname "$0")/.." && pwd)
make -s -C "$ROOT" build/bench/tp_attach build/bench/empty_tp.bpf.o >/dev/null || fail "make tp_attach"
EMPTY="$ROOT/build/bench/tp_attach $ROOT/build/bench/empty_tp.bpf.o"
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
# fio_max OUT.json: the highest rate, two jobs of 4 KiB random reads at QD32
fio_max() {
	fio --name=max --filename="$dev" --rw=randread --bs=4k --direct=1 \
		--ioengine=libaio --iodepth=32 --numjobs=2 --group_reporting --size=1g \
		--time_based --runtime="$SECS" --randrepeat=0 --output-format=json --output="$1"
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

# empty_start ERRFILE / empty_stop: the do-nothing programs attached
# while a run goes on (empty_pid)
empty_start() {
	$EMPTY 2>"$1" &
	empty_pid=$!
	for _ in $(seq 100); do grep -q attached "$1" 2>/dev/null && return; sleep 0.05; done
	fail "tp_attach: $(cat "$1")"
}
empty_stop() { kill -INT $empty_pid; wait $empty_pid || fail "tp_attach failed"; }

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
	empty)
		empty_start "$W/$tag.err"
		fio_run "$qd" "$W/$tag.json"
		empty_stop ;;
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
# its default buffer, with attribution (the default) and with --no-files.
# Its direct costs are measured too, which the noise of a shared machine
# does not blur: the BPF programs' run time (kernel bpf_stats, global
# state: under the kernel-state lock) and the capture process's CPU time
# while fio runs (/proc/PID/task/*/schedstat, in ns: the start-up's BPF
# load and verification are not the per-I/O cost).
with_kernel_lock
echo 1 > /proc/sys/kernel/bpf_stats_enabled
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
for mode in files nofiles; do
	opt=; [ $mode = nofiles ] && opt=--no-files
	# shellcheck disable=SC2086
	"$BLKPEAK" capture -o "$W/max-$mode.bpt" -d "$dev" --json $opt > "$W/max-$mode.sum" 2>"$W/max-$mode.err" &
	cap=$!
	for _ in $(seq 200); do [ -s "$W/max-$mode.bpt" ] && break; sleep 0.05; done
	sleep 0.2
	c0=$(cpu_ns $cap)
	fio_max "$W/max-$mode.json"
	c1=$(cpu_ns $cap)
	sed -n 's/^prog_id:\t*//p' /proc/$cap/fdinfo/* 2>/dev/null | sort -u > "$W/max-$mode.progs"
	bpftool prog show -j > "$W/max-$mode.bpfstats"
	kill -INT $cap
	wait $cap || note "max rate ($mode): $(cat "$W/max-$mode.err")"
	echo $((c1 - c0)) > "$W/max-$mode.cpu"
done
# The floor at the same rate: the do-nothing programs' run time (what
# bpf_stats itself adds to every program), and the CPU time the untraced
# workload takes per I/O (both CPUs' busy time from /proc/stat), which
# tracing competes with.
empty_start "$W/max-empty.err"
fio_max "$W/max-empty.json"
sed -n 's/^prog_id:\t*//p' /proc/$empty_pid/fdinfo/* 2>/dev/null | sort -u > "$W/max-empty.progs"
bpftool prog show -j > "$W/max-empty.bpfstats"
empty_stop
echo 0 > /proc/sys/kernel/bpf_stats_enabled
flock -u 9
busy_ticks() { awk '/^cpu /{ print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
b0=$(busy_ticks)
fio_max "$W/max-none.json"
echo $(( ($(busy_ticks) - b0) * 1000000000 / $(getconf CLK_TCK) )) > "$W/max-none.busy"

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
# how far single rounds are from each other: on a small VM the same
# tracer's ratio moves by several percent between rounds
print("per-round range (lowest - highest ratio):")
for qd in ("32", "1"):
    cells = []
    for t in tracers:
        r = [int(i) / int(b) for q, tt, i, b in rows if q == qd and tt == t and int(b) > 0]
        cells.append("%10s" % ("%.2f-%.2f" % (min(r), max(r)) if r else "-"))
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
# direct costs at the highest rate, attribution on and off
PER_IO = ("io_start", "rq_insert", "rq_issue", "rq_complete")
for mode, what in (("files", "attribution on"), ("nofiles", "--no-files")):
    if not os.path.exists(os.path.join(w, "max-%s.sum" % mode)) or not os.path.getsize(os.path.join(w, "max-%s.sum" % mode)):
        print("highest rate (%s): no result" % what)
        continue
    ids = set(int(l) for l in open(os.path.join(w, "max-%s.progs" % mode)) if l.strip())
    progs = [p for p in json.load(open(os.path.join(w, "max-%s.bpfstats" % mode))) if p["id"] in ids]
    mx = json.load(open(os.path.join(w, "max-%s.sum" % mode)))
    cpu = int(open(os.path.join(w, "max-%s.cpu" % mode)).read())
    rate = json.load(open(os.path.join(w, "max-%s.json" % mode)))["jobs"][0]["read"]["iops"]
    if not mx["ios"] or not progs:
        continue
    per = {p["name"]: p.get("run_time_ns", 0) / max(p.get("run_cnt", 0), 1) for p in progs if p.get("run_cnt")}
    # each I/O runs each of these once; the programs also run for other
    # disks' I/O, so per-run averages are summed, not totals divided.
    # The others (merge, requeue, the file system hooks) do not run per
    # I/O of this load: shown apart, with their run counts.
    bpf_ns = sum(v for k, v in per.items() if k.startswith(PER_IO))
    cnt = {p["name"]: p.get("run_cnt", 0) for p in progs}
    user_ns = cpu / mx["ios"]
    share = (bpf_ns + user_ns) * rate / (os.cpu_count() * 1e9)
    print("highest rate, %s: %.0f IOPS (2 jobs x QD32), %d I/Os recorded, %d lost (%s)" % (what, rate, mx["ios"], mx["lost_events"],
          ", ".join("%s %d" % kv for kv in sorted(mx["lost_by_cause"].items()) if kv[1]) or "none"))
    print("  BPF run time per I/O %.0f ns (%s);"
          % (bpf_ns, ", ".join("%s %.0f" % (k, v) for k, v in sorted(per.items()) if k.startswith(PER_IO))))
    print("  capture process %.0f ns per I/O while fio ran" % user_ns)
    rest = ["%s %.0f ns x %d" % (k, v, cnt[k]) for k, v in sorted(per.items()) if not k.startswith(PER_IO)]
    if rest:
        print("  not per I/O: %s" % ", ".join(rest))
    print("  = %.1f%% of the machine's %d CPUs at that rate" % (share * 100, os.cpu_count()))
    if mx["lost_by_cause"]["ring_buffer_full"] == 0:
        print("  %.0f events/s sustained with no loss (default buffer)" % rate)
# the floor: programs that do nothing, and what the workload itself costs
if os.path.exists(os.path.join(w, "max-empty.progs")):
    ids = set(int(l) for l in open(os.path.join(w, "max-empty.progs")) if l.strip())
    progs = [p for p in json.load(open(os.path.join(w, "max-empty.bpfstats")))
             if p["id"] in ids and p.get("run_cnt")]
    per = {p["name"]: p["run_time_ns"] / p["run_cnt"] for p in progs}
    rate = json.load(open(os.path.join(w, "max-empty.json")))["jobs"][0]["read"]["iops"]
    print("floor at the highest rate: three BPF programs that do nothing on capture's")
    print("  tracepoints report %.0f ns per I/O under bpf_stats at %.0f IOPS:" % (sum(per.values()), rate))
    print("  %s" % ", ".join("%s %.0f" % kv for kv in sorted(per.items())))
if os.path.exists(os.path.join(w, "max-none.busy")):
    busy = int(open(os.path.join(w, "max-none.busy")).read())
    nj = json.load(open(os.path.join(w, "max-none.json")))["jobs"][0]["read"]
    print("  untraced: %.0f IOPS, %.0f ns of CPU per I/O (both CPUs' busy time / I/Os);"
          % (nj["iops"], busy / nj["total_ios"]))
    print("  keeping 0.98 of it leaves tracing %.0f ns of CPU per I/O" % (0.02 * busy / nj["total_ios"]))
if bp_ios and bt_ios:
    a, b = bp_bytes / bp_ios, bt_bytes / bt_ios
    print("bytes per I/O: blkpeak %.2f, blk tracer (blktrace format) %.1f: 1/%.0f%s"
          % (a, b, b / a, " (blk tracer overran in %d runs)" % overruns if overruns else ""))
PY
