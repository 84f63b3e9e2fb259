#!/bin/bash
# bench-replay.sh — blkpeak replay against fio and btreplay (issues 4 and
# 17), on a RAM-backed loop device, all tools in one run:
#
#  1. as fast as possible: a 1M-I/O 4 KiB 70/30 random trace (recorded at
#     depth 32) replayed by blkpeak (--timing afap on io_uring and on
#     libaio, at --queue-depth 32 and at the trace's own depth, i.e.
#     without --queue-depth), fio (--read_iolog of the same I/Os as an
#     iolog v2, --replay_no_stall=1 --iodepth=32, with libaio and with
#     io_uring) and btreplay -N -W (btrecord of the same I/Os as blktrace
#     Q events); and, as the device's own pace at depth 32, fio's randrw
#     of as many I/Os (no replay) with libaio and with io_uring (fixed
#     buffers, registered files, batched submission); wall and CPU
#     (user+sys) time per I/O, median of ROUNDS rounds, and the ratios the
#     issue's targets are about.
#  2. timing fidelity: a 5000 IOPS trace (Poisson arrivals, 4 s) replayed
#     with its timing by blkpeak (default options: libaio; with
#     --engine io_uring; --realtime), optionally an older blkpeak
#     (BLKPEAK_OLD, e.g. main's build, default options), and with PEERS=1
#     fio (--read_iolog of the blktrace file) and btreplay (btrecord
#     default and -M 1); each replay recorded with the kernel's blk
#     tracer, D events read after the run, matched to the trace by
#     (sector, nth occurrence), aligned at the first (blkpeak's warm-up
#     read, its first D event, is checked and left out): p50/p99/max
#     absolute issue error and total drift (tests/e2e/replay_check.py
#     timing). Just before and just after each round, the machine's
#     noise floor (build/bench/noise_floor: one thread spinning on
#     CLOCK_MONOTONIC against the trace's own due times, doing nothing
#     else, on the CPU replay's issuer takes: the highest this script may
#     use): each tool's p99 and max are also printed as a ratio to the
#     floor's p99 and max, the mean of the two floors of the same round,
#     and the load average beside them (the machine is shared: compare
#     ratios, not absolute figures). "ideal", the control, is the floor
#     program run once more amid the replays and judged as they are: an
#     issuer without error of its own, in the same round's noise. The
#     last lines say in how many rounds each blkpeak (and the control)
#     met issue 17's target (p99 <= 1.5x the floor's, max <= 2x the
#     floor's max, |drift| <= 0.01%).
#
# Needs root. N_AFAP (default 1000000), ROUNDS (default 3), PARTS (default
# "afap timing": which parts to run) and T_ROUNDS (default 1: rounds of
# the timing part, the tools interleaved) and PEERS (default 1; 0: the
# timing part runs blkpeak only) can be set. The idle-machine table of
# issue 17 (five rounds, default options against the floor):
#   flock /tmp/blkpeak-bench.lock env BLKPEAK=$PWD/build/blkpeak PARTS=timing \
#       T_ROUNDS=5 PEERS=0 bash bench/bench-replay.sh
# the build of this checkout unless BLKPEAK says otherwise (lib.sh's own
# default is for scripts in tests/e2e)
BLKPEAK=${BLKPEAK:-$(cd "$(dirname "$0")/.." && pwd)/build/blkpeak}
. "$(dirname "$0")/../tests/e2e/lib.sh"
need_root
need_cmd fio btrecord btreplay blkparse python3 /usr/bin/time
HERE=$(cd "$(dirname "$0")" && pwd)
FLOOR=${NOISE_FLOOR:-$HERE/../build/bench/noise_floor}
[ -x "$FLOOR" ] || fail "$FLOOR: not built (make build/bench/noise_floor, or make bench)"
CONV="python3 $HERE/bpt2peers.py"
CHECK="python3 $HERE/../tests/e2e/replay_check.py"
N=${N_AFAP:-1000000}
ROUNDS=${ROUNDS:-3}
PARTS=${PARTS:-afap timing}
T_ROUNDS=${T_ROUNDS:-1}
PEERS=${PEERS:-1}
W=$E2E_TMP
L=$(make_loop 1G bench)
LN=$(basename "$L")
DEVNO=$(printf '%d,%d' "0x$(stat -c %t "$L")" "0x$(stat -c %T "$L")")
echo "device $L (RAM-backed loop, direct I/O); $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"

# ---------------------------------------------------------------- afap
mkdir -p "$W/bt-in"
if [[ " $PARTS " == *" afap "* ]]; then
"$BLKPEAK" generate -o "$W/afap.bpt" --count "$N" --read-pct 70 --bs 4k --span 1g \
	--queue-depth 32 -q || fail "generate"
"$BLKPEAK" dump --format csv "$W/afap.bpt" > "$W/afap.csv" || fail "dump"
$CONV fio "$W/afap.csv" "$L" "$W/afap.iolog" || fail "fio iolog"
$CONV blk "$W/afap.csv" "$L" "$W/afap.bin" || fail "blktrace file"
mkdir -p "$W/bt-afap"
cp "$W/afap.bin" "$W/bt-in/$LN.blktrace.0"
btrecord -d "$W/bt-in" -D "$W/bt-afap" "$LN" || fail "btrecord"
rm -f "$W/afap.csv" "$W/afap.bin" "$W/bt-in/$LN.blktrace.0"

# measure NAME CMD...: append "NAME wall user sys" to $W/afap.times; a
# run that fails or hangs (btreplay sometimes does after its last I/O) is
# reported and left out
measure() {
	_name=$1; shift
	/usr/bin/time -f "$_name %e %U %S" -o "$W/one.time" timeout -k 5 120 "$@" > "$W/$_name.out" 2>&1
	_rc=$?
	if [ $_rc -eq 0 ]; then cat "$W/one.time" >> "$W/afap.times"
	else echo "  $_name: exit $_rc (124 or 137: hung, killed after 120 s), left out"; fi
}
: > "$W/afap.times"
AFAP_TOOLS="blkpeak-uring-qd32 blkpeak-libaio-qd32 blkpeak-uring-qdT blkpeak-libaio-qdT fio-libaio-qd32
fio-uring-qd32 fio-randrw-libaio-qd32 fio-randrw-uring-qd32 btreplay-N"
for r in $(seq "$ROUNDS"); do
	echo "afap round $r of $ROUNDS (load $(cut -d' ' -f1-3 /proc/loadavg))"
	for e in uring libaio; do
		eng=$e; [ $e = uring ] && eng=io_uring
		measure blkpeak-$e-qd32 "$BLKPEAK" replay "$W/afap.bpt" --target "$L" --allow-write \
			--timing afap --queue-depth 32 --engine $eng
		measure blkpeak-$e-qdT "$BLKPEAK" replay "$W/afap.bpt" --target "$L" --allow-write \
			--timing afap --engine $eng
	done
	for e in libaio io_uring; do
		t=${e/io_/}
		measure fio-$t-qd32 fio --name=rp --read_iolog="$W/afap.iolog" --ioengine=$e --direct=1 \
			--iodepth=32 --replay_no_stall=1 --output-format=terse
	done
	# not a replay: the device's own pace at depth 32 with fio's batching
	measure fio-randrw-libaio-qd32 fio --name=rr --filename="$L" --rw=randrw --rwmixread=70 --bs=4k \
		--size=1g --io_size=$((N * 4096)) --ioengine=libaio --direct=1 --iodepth=32 \
		--iodepth_batch_submit=16 --userspace_reap=1 --output-format=terse
	measure fio-randrw-uring-qd32 fio --name=rr --filename="$L" --rw=randrw --rwmixread=70 --bs=4k \
		--size=1g --io_size=$((N * 4096)) --ioengine=io_uring --fixedbufs --registerfiles \
		--direct=1 --iodepth=32 --iodepth_batch_submit=16 --output-format=terse
	measure btreplay-N btreplay -N -W -d "$W/bt-afap" "$LN"
done
echo
echo "as fast as possible, $N I/Os, median of $ROUNDS rounds (qdT: the trace's depth, $(sed -n 's/.*queue depth \([0-9]*\)).*/\1/p' "$W/blkpeak-uring-qdT.out" | head -1));"
echo "ratios: to fio's replay on the same engine (CPU) and to fio's own randrw job on io_uring (wall):"
printf '%-24s %12s %14s %12s %12s\n' tool "us per I/O" "CPU us per I/O" "CPU/fio-rp" "wall/fio-rr"
median() { awk -v t="$1" -v c="$2" '$1 == t { print (c == 2 ? $2 : $3 + $4) }' "$W/afap.times" |
	sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
rr_wall=$(median fio-randrw-uring-qd32 2)
for t in $AFAP_TOOLS; do
	grep -q "^$t " "$W/afap.times" || { printf '%-24s %12s\n' "$t" "no run"; continue; }
	wall=$(median "$t" 2); cpu=$(median "$t" 3)
	case $t in *libaio*) ref=fio-libaio-qd32 ;; *) ref=fio-uring-qd32 ;; esac
	ref_cpu=$(median $ref 3)
	awk -v t="$t" -v n="$N" -v w="$wall" -v c="$cpu" -v rc="${ref_cpu:-0}" -v rw="${rr_wall:-0}" \
		'BEGIN { printf "%-24s %12.2f %14.2f %12s %12s\n", t, w * 1e6 / n, c * 1e6 / n,
			 (rc > 0 ? sprintf("%.2f", c / rc) : "-"), (rw > 0 ? sprintf("%.2f", w / rw) : "-") }'
done
fi
[[ " $PARTS " == *" timing "* ]] || exit 0

# ---------------------------------------------------------------- timing
echo
"$BLKPEAK" generate -o "$W/t.bpt" --duration 4s --iops 5000 --arrival poisson --read-pct 70 \
	--bs 4k --span 1g -q || fail "generate"
"$BLKPEAK" dump --format csv "$W/t.bpt" > "$W/t.csv" || fail "dump"
$CONV blk "$W/t.csv" "$L" "$W/t.bin" || fail "blktrace file"
mkdir -p "$W/bt-t" "$W/bt-t1"
cp "$W/t.bin" "$W/bt-in/$LN.blktrace.0"
btrecord -d "$W/bt-in" -D "$W/bt-t" "$LN" || fail "btrecord"
btrecord -M 1 -d "$W/bt-in" -D "$W/bt-t1" "$LN" || fail "btrecord -M 1"
echo "timing fidelity, $(($(wc -l < "$W/t.csv") - 1)) I/Os at 5000 IOPS (Poisson), D events:"

# timed NAME [--warmup] CMD...: replay under the blk tracer, print the
# issue error; --warmup: the tool's warm-up read is checked and left out.
# Appends "ROUND NAME p99 max drift" to $W/t.results.
timed() {
	_name=$1; shift
	_wu=""
	if [ "$1" = --warmup ]; then _wu=--warmup; shift; fi
	blktrace_start "$L" "$W/$_name.bin"
	timeout -k 5 60 "$@" > "$W/$_name.out" 2>&1 || echo "  ($_name exited $?; 124 or 137: hung after its I/Os, killed)"
	blktrace_stop
	blkparse -i - -f "%D %a %d %S %n %T.%9t\n" < "$W/$_name.bin" > "$W/$_name.txt"
	_res=$($CHECK timing $_wu "$W/t.csv" "$W/$_name.txt" "$DEVNO")
	printf '  %-18s %s\n' "$_name" "$_res"
	echo "$_res" | sed -nE "s/.* p99 ([0-9.]+) max ([0-9.]+); drift ([-+0-9.]+)%; from the median offset: p99 ([0-9.]+) .*/$r $_name \1 \2 \3 \4/p" \
		>> "$W/t.results"
}
# floor WHEN: the noise floor now; appends "ROUND WHEN p99 max" to $W/t.floors
# against the trace's own due times: a uniform grid aliases with the tick
# (bench/noise_floor.c)
floor() {
	_res=$(taskset -c "$ISSUER_CPU" "$FLOOR" --times "$W/t.csv") || fail "noise_floor"
	printf '  %-18s %s; load %s\n' "floor-$1" "$_res" "$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "$_res" | sed -nE "s/.* p99 ([0-9.]+) max ([0-9.]+);.*/$r $1 \1 \2/p" >> "$W/t.floors"
}
# ideal: the control. The floor program once more, amid the replays, judged
# as they are against the floors before and after: how often an issuer
# with no error of its own meets the target in this round's noise.
# Appends to $W/t.results like timed().
ideal() {
	_res=$(taskset -c "$ISSUER_CPU" "$FLOOR" --times "$W/t.csv") || fail "noise_floor"
	printf '  %-18s %s\n' ideal "$_res"
	echo "$_res" | sed -nE "s/.* p99 ([0-9.]+) max ([0-9.]+);.*/$r ideal \1 \2 +0.0000 \1/p" >> "$W/t.results"
}
NIO=$(($(wc -l < "$W/t.csv") - 1))
# the CPU replay pins its issuer to (replay/cpu_pin.c): the highest allowed
ISSUER_CPU=$(awk '/^Cpus_allowed_list/ { print $2 }' /proc/self/status | tr ',' '\n' |
	sed 's/.*-//' | sort -n | tail -1)
TOOLS="ideal blkpeak blkpeak-uring blkpeak-realtime"
[ -n "${BLKPEAK_OLD:-}" ] && TOOLS="$TOOLS blkpeak-old"
[ "$PEERS" = 1 ] && TOOLS="$TOOLS btreplay-M1 btreplay fio"
: > "$W/t.results"; : > "$W/t.floors"
for r in $(seq "$T_ROUNDS"); do
[ "$T_ROUNDS" -gt 1 ] && echo " round $r of $T_ROUNDS"
floor before
timed blkpeak --warmup "$BLKPEAK" replay "$W/t.bpt" --target "$L" --allow-write
ideal
timed blkpeak-uring --warmup "$BLKPEAK" replay "$W/t.bpt" --target "$L" --allow-write --engine io_uring
timed blkpeak-realtime --warmup "$BLKPEAK" replay "$W/t.bpt" --target "$L" --allow-write --realtime
[ -n "${BLKPEAK_OLD:-}" ] && timed blkpeak-old --warmup "$BLKPEAK_OLD" replay "$W/t.bpt" --target "$L" \
	--allow-write
if [ "$PEERS" = 1 ]; then
timed fio fio --name=rp --read_iolog="$W/t.bin" --ioengine=libaio --direct=1 --iodepth=32 \
	--output-format=terse
timed btreplay btreplay -W -d "$W/bt-t" "$LN"
timed btreplay-M1 btreplay -W -d "$W/bt-t1" "$LN"
fi
floor after
done

# one table: per round, each tool's p99 and max against that round's floor
echo
echo "issue error against the noise floor of the same round (floor = mean of before and after;"
echo "p99m: the p99 from the median offset instead of the first I/O, which one late first I/O"
echo "cannot inflate):"
printf '%-6s %-20s %10s %10s %9s %9s %10s %10s\n' round tool "p99 us" "max us" "p99/floor" "max/floor" \
	"p99m/floor" drift%
for r in $(seq "$T_ROUNDS"); do
	read -r fp fm <<< "$(awk -v r="$r" '$1 == r { p += $3; m += $4; n++ } END { if (n) printf "%.3f %.3f", p / n, m / n }' "$W/t.floors")"
	printf '%-6s %-20s %10.1f %10.1f %9s %9s %10s\n' "$r" floor "$fp" "$fm" 1 1 1
	for t in $TOOLS; do
		awk -v r="$r" -v t="$t" -v fp="$fp" -v fm="$fm" '$1 == r && $2 == t {
			rp = fp > 0 ? $3 / fp : 0; rm = fm > 0 ? $4 / fm : 0; rpm = fp > 0 ? $6 / fp : 0
			printf "%-6s %-20s %10.1f %10.1f %9.2f %9.2f %10.2f %+10.4f\n", r, t, $3, $4, rp, rm, rpm, $5
			found = 1 }
			END { if (!found) printf "%-6s %-20s %10s\n", r, t, "no result" }' "$W/t.results"
	done
done
# issue 17's target, per round: p99 <= 1.5x the floor's p99, max <= 2x the
# floor's max, |drift| <= 0.01%
echo
for t in $TOOLS; do
	case $t in blkpeak*|ideal) ;; *) continue ;; esac
	for r in $(seq "$T_ROUNDS"); do
		read -r fp fm <<< "$(awk -v r="$r" '$1 == r { p += $3; m += $4; n++ } END { if (n) printf "%.3f %.3f", p / n, m / n }' "$W/t.floors")"
		awk -v r="$r" -v t="$t" -v fp="$fp" -v fm="$fm" '$1 == r && $2 == t {
			d = $5 < 0 ? -$5 : $5
			print (fp > 0 && $3 <= 1.5 * fp && $4 <= 2 * fm && d <= 0.01) ? "met" : "missed" }' "$W/t.results"
	done | awk -v t="$t" -v n="$T_ROUNDS" '$1 == "met" { k++ } END {
		printf "%-20s met the target (p99 <= 1.5x floor, max <= 2x floor max, |drift| <= 0.01%%) in %d of %d rounds\n", t, k, n }'
done
exit 0
